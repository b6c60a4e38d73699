package tiles

import (
	"fmt"
	"hash/fnv"
	"math"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
)

// Kinds of piece in the ground truth.
const (
	KindCard  = "card"
	KindJoker = "joker"
	KindStone = "stone"
)

// PieceTruth is a piece lying on the board as the camera sees it in a frame.
type PieceTruth struct {
	Kind    string         `json:"kind"`
	Player  string         `json:"player,omitempty"` // a card's or joker's owner
	Frame   tiles.Frame    `json:"frame,omitempty"`  // the owner's frame style
	Colours []tiles.Colour `json:"colours,omitempty"`
	Fields  []tiles.Field  `json:"fields"` // a card's two fields, in the order of its colours; a joker's or stone's one
	Stone   int            `json:"stone,omitempty"`
	Table   scene.Quad     `json:"table"` // corners in table mm (a card: its Colours[0] end first)
	Quad    scene.Quad     `json:"quad"`  // the same in image pixels
	// Occluded is the fraction of the piece (on a 5x5 grid) under a hand,
	// an arm or a piece in the air; Hand says whether a hand or arm is
	// over any of it; Covered says whether a later (wrong) card lies over it.
	Occluded float64 `json:"occluded"`
	Hand     bool    `json:"hand,omitempty"`
	Covered  bool    `json:"covered,omitempty"`
}

// roundAt is the round on the table at t, or nil.
func (s *Scene) roundAt(t int64) *round {
	var r *round
	for _, q := range s.rounds {
		if q.dealt <= t {
			r = q
		}
	}
	return r
}

// stoneAtT returns where stone i (0-based) of round r is at t, whether it
// is in the air, and the index of its state.
func (r *round) stoneAtT(i int, t int64) (stoneAt, int) {
	h := r.stones[i]
	k := 0
	for k+1 < len(h) && h[k+1].t <= t {
		k++
	}
	return h[k], k
}

// signature identifies the board (everything lying still) at t.
func (s *Scene) signature(t int64) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	put := func(v int64) {
		for i := range 8 {
			buf[i] = byte(v >> (8 * i))
		}
		h.Write(buf[:])
	}
	r := s.roundAt(t)
	if r == nil {
		return 0
	}
	put(int64(r.n))
	n := 0
	for n < len(r.pieces) && r.pieces[n].land <= t {
		n++
	}
	put(int64(n))
	for i := range r.stones {
		_, k := r.stoneAtT(i, t)
		put(int64(k))
	}
	return h.Sum64() | 1
}

// spriteOf returns a piece's sprite and its shadows.
func (s *Scene) spriteOf(p *piece) (sp, shadow, lifted *scene.Sprite) {
	f := s.players[p.owner].Frame
	if p.joker {
		return s.spr.joker(f), s.spr.jokerShadow, s.spr.jokerLifted
	}
	return s.spr.card(p.card.Colours[0], p.card.Colours[1], f), s.spr.cardShadow, s.spr.cardLifted
}

// drawBoard draws everything lying still at t onto the stage's board.
func (s *Scene) drawBoard(t int64) {
	s.ResetBoard()
	r := s.roundAt(t)
	if r == nil {
		return
	}
	dir := s.ShadowDir()
	for i, p := range r.parts {
		s.Shade(s.spr.partShadow, add(p.c, mul(dir, 1.5)), p.a, 0.4)
		s.Draw(s.spr.part(r.board.Layout().Parts[i]), p.c, p.a)
	}
	for _, p := range r.pieces {
		if p.land > t {
			break
		}
		sp, sh, _ := s.spriteOf(p)
		s.Shade(sh, add(p.at.c, mul(dir, 1.2)), p.at.a, 0.4)
		s.Draw(sp, p.at.c, p.at.a)
	}
	for i := range r.stones {
		st, _ := r.stoneAtT(i, t)
		if !st.flying {
			s.Shade(s.spr.stoneShadow, add(st.at, mul(dir, 9)), 0, 0.55)
			s.Draw(s.spr.stone, st.at, 0)
		}
	}
}

func ease(x float64) float64 { return smooth01(x) }

// movers returns the pieces in the air and the hands over the table at t.
func (s *Scene) movers(t int64) ([]scene.Flying, []scene.Hand) {
	r := s.roundAt(t)
	if r == nil {
		return nil, nil
	}
	var fl []scene.Flying
	var hs []scene.Hand
	for _, a := range r.acts {
		if t < a.start-a.reach || t >= a.end {
			continue
		}
		palm, spread, f := s.actAt(r, a, t)
		if f != nil {
			fl = append(fl, *f)
		}
		hs = append(hs, s.Hand(a.player, palm, a.right, spread))
	}
	return fl, hs
}

// actAt is where act a's palm is at t, how open its fingers are, and the
// piece it carries, if any.
func (s *Scene) actAt(r *round, a *act, t int64) (Pt, float64, *scene.Flying) {
	sh := s.Shoulder(a.player, a.right)
	palmOf := func(q Pt) Pt { return sub(q, mul(unit(sub(q, sh)), 95)) }
	away := func(q Pt) Pt { return lerp(sh, q, 0.3) }
	frac := func(t0, d int64) float64 { return ease(float64(t-t0) / float64(max(d, 1))) }
	if a.piece == nil { // a hover: in, a moment, out
		in := lerp(sh, palmOf(a.hover), 0.55)
		switch {
		case t < a.start+300:
			return lerp(in, palmOf(a.hover), frac(a.start, 300)), 0.6, nil
		case t < a.end-300:
			return palmOf(a.hover), 0.5, nil
		}
		return lerp(palmOf(a.hover), away(a.hover), frac(a.end-300, 300)), 0.8, nil
	}
	switch {
	case t < a.start:
		in := palmOf(a.from.c)
		return lerp(lerp(sh, in, 0.55), in, frac(a.start-a.reach, a.reach)), 0.7, nil
	case t < a.land:
		e := frac(a.start, a.land-a.start)
		at := pose{lerp(a.from.c, a.to.c, e), a.from.a + (a.to.a-a.from.a)*e}
		lift := 30 * math.Sin(math.Pi*float64(t-a.start)/float64(a.land-a.start))
		sp, _, lifted := s.spriteOf(a.piece)
		return palmOf(at.c), 0.3, &scene.Flying{Sprite: sp, Shadow: lifted, C: at.c, Angle: at.a, Lift: lift, ShadowStrength: 0.35}
	}
	last := a.to.c
	down := a.land
	if a.stone != 0 {
		switch {
		case t < a.sUp:
			return lerp(palmOf(a.to.c), palmOf(a.sFrom), frac(a.land, a.sUp-a.land)), 0.4, nil
		case t < a.sDown:
			p := lerp(a.sFrom, a.sTo, frac(a.sUp, a.sDown-a.sUp))
			lift := stoneLift * math.Sin(math.Pi*float64(t-a.sUp)/float64(a.sDown-a.sUp))
			return palmOf(p), 0.3, &scene.Flying{Sprite: s.spr.stone, Shadow: s.spr.stoneShadow, C: p, Lift: lift, ShadowStrength: 0.45}
		}
		last, down = a.sTo, a.sDown
	}
	if t < down+a.hold {
		return palmOf(last), 0.5, nil
	}
	return lerp(palmOf(last), away(last), frac(down+a.hold, a.back)), 0.8, nil
}

// Render draws the frame at tMS (timeline ms; negative times show the
// preamble) into dst, a continuous 8-bit BGR Mat of the configured size
// (an empty Mat is replaced by one: the caller still closes it), and
// returns the ground truth.
func (s *Scene) Render(tMS int64, dst *gocv.Mat) ([]PieceTruth, error) {
	pix, err := s.FramePixels(dst)
	if err != nil {
		return nil, err
	}
	return s.RenderBGR(tMS, pix, 3*s.cfg.Width)
}

// RenderBGR draws the frame at tMS into pix, 8-bit BGR with stride bytes
// a row, and returns the ground truth.
func (s *Scene) RenderBGR(tMS int64, pix []byte, stride int) ([]PieceTruth, error) {
	if sig := s.signature(tMS); !s.boardOK || sig != s.boardSig {
		s.drawBoard(tMS)
		s.boardSig, s.boardOK = sig, true
	}
	fl, hs := s.movers(tMS)
	if err := s.Expose(tMS, fl, hs, pix, stride); err != nil {
		return nil, err
	}
	return s.truth(tMS, fl, hs), nil
}

// occlusion is the fraction of quad q (on a 5x5 grid) under a hand or a
// piece in the air, and whether a hand is over any of it.
func (s *Scene) occlusion(q scene.Quad, fl []scene.Flying, hs []scene.Hand) (float64, bool) {
	n, byHand := 0, false
	for i := range 5 {
		for j := range 5 {
			p := q.At(0.1+0.2*float64(i), 0.1+0.2*float64(j))
			hit := false
			for k := range hs {
				if hs[k].Covers(p) {
					hit, byHand = true, true
					break
				}
			}
			if !hit && s.underFlying(p, fl) {
				hit = true
			}
			if hit {
				n++
			}
		}
	}
	return float64(n) / 25, byHand
}

// underFlying reports whether p lies under a piece in the air (its
// bounding circle: pieces in the air are few and brief).
func (s *Scene) underFlying(p Pt, fl []scene.Flying) bool {
	for _, f := range fl {
		r := CardLong / 2
		if f.Sprite == s.spr.stone {
			r = StoneMM / 2
		}
		if math.Hypot(p.X-f.C.X, p.Y-f.C.Y) < r {
			return true
		}
	}
	return false
}

// truth lists the pieces lying on the board at t.
func (s *Scene) truth(t int64, fl []scene.Flying, hs []scene.Hand) []PieceTruth {
	r := s.roundAt(t)
	if r == nil {
		return nil
	}
	var out []PieceTruth
	add := func(pt PieceTruth) {
		pt.Occluded, pt.Hand = s.occlusion(pt.Table, fl, hs)
		for i, p := range pt.Table {
			pt.Quad[i] = s.Project(p)
		}
		out = append(out, pt)
	}
	for _, p := range r.pieces {
		if p.land > t {
			break
		}
		pl := s.players[p.owner]
		pt := PieceTruth{Kind: KindCard, Player: pl.Name, Frame: pl.Frame, Fields: p.fields, Covered: p.covered && s.coveredAt(r, p, t)}
		if p.joker {
			pt.Kind = KindJoker
			pt.Table = p.at.quad(CardShort, CardShort)
		} else {
			pt.Colours = p.card.Colours[:]
			pt.Table = p.at.quad(CardLong, CardShort)
		}
		add(pt)
	}
	for i := range r.stones {
		st, _ := r.stoneAtT(i, t)
		if st.flying {
			continue
		}
		add(PieceTruth{Kind: KindStone, Stone: i + 1, Fields: []tiles.Field{st.field}, Table: pose{st.at, 0}.quad(StoneMM, StoneMM)})
	}
	return out
}

// coveredAt reports whether a later piece covering one of p's fields has
// landed by t.
func (s *Scene) coveredAt(r *round, p *piece, t int64) bool {
	for _, q := range r.pieces {
		if q.land <= p.land || q.land > t {
			continue
		}
		for _, f := range q.fields {
			for _, g := range p.fields {
				if f == g {
					return true
				}
			}
		}
	}
	return false
}

// Clip times a video of the match applied so far at fps, from the start
// of the preamble to the match_end event (or the last event applied).
func (s *Scene) Clip(fps float64) (scene.Clip, error) {
	end := s.endMS
	if end < 0 {
		end = s.lastT
	}
	return scene.NewClip(fps, s.preamble, end)
}

// Frame is one rendered frame.
type Frame struct {
	Index  int
	TimeMS int64
	Image  gocv.Mat // BGR; owned by RenderClip, valid during the callback only
	Truth  []PieceTruth
}

// RenderClip renders every frame of clip in order and passes each to fn;
// an error from fn stops it.
func (s *Scene) RenderClip(clip scene.Clip, fn func(Frame) error) error {
	mat := gocv.NewMatWithSize(s.cfg.Height, s.cfg.Width, gocv.MatTypeCV8UC3)
	defer mat.Close()
	for k := range clip.Frames {
		t := clip.Time(k)
		truth, err := s.Render(t, &mat)
		if err != nil {
			return err
		}
		if err := fn(Frame{Index: k, TimeMS: t, Image: mat, Truth: truth}); err != nil {
			return err
		}
	}
	return nil
}

// EventTruth is, for one timeline event, the first frame of a clip on
// which its result can be seen whole: a round's board with no hand over
// any field; a card or joker landed, its stone set down on it, and no
// hand or piece in the air over their fields. Events with nothing to see
// (a card turned, a stop) get the first frame at or after their time.
type EventTruth struct {
	Event   int               `json:"event"` // index in the timeline
	TimeMS  int64             `json:"t_ms"`
	Kind    tilesim.EventKind `json:"kind"`
	Round   int               `json:"round,omitempty"`
	Player  string            `json:"player,omitempty"`
	Fields  []tiles.Field     `json:"fields,omitempty"` // the fields that must be clear: a card's or joker's and the stone's
	Frame   int               `json:"frame"`            // -1: not within the clip
	FrameMS int64             `json:"frame_t_ms"`       // the time that frame shows
	WaitMS  int64             `json:"wait_ms"`          // FrameMS - TimeMS
}

// Visible returns an EventTruth for every event applied, in timeline
// order, for the frames of clip.
func (s *Scene) Visible(clip scene.Clip) []EventTruth {
	out := make([]EventTruth, 0, len(s.events))
	for i, e := range s.events {
		et := EventTruth{Event: i, TimeMS: e.TimeMS, Kind: e.Kind, Round: e.Round, Player: e.Player, Frame: -1}
		var clear func(int64) bool
		switch e.Kind {
		case tilesim.EvLay, tilesim.EvJoker:
			et.Fields, clear = s.layClear(i)
		case tilesim.EvRound:
			et.Fields, clear = s.roundClear(e)
		}
		for k := clip.Frame(e.TimeMS); k < clip.Frames; k++ {
			if t := clip.Time(k); clear == nil || clear(t) {
				et.Frame, et.FrameMS, et.WaitMS = k, t, t-e.TimeMS
				break
			}
		}
		out = append(out, et)
	}
	return out
}

// fieldsClear reports whether no hand or piece in the air is over any of
// fields of round r at t, nor over the quads (each on a 5x5 grid).
func (s *Scene) fieldsClear(r *round, fields []tiles.Field, quads []scene.Quad, t int64) bool {
	if s.roundAt(t) != r {
		return false
	}
	fl, hs := s.movers(t)
	if len(fl) == 0 && len(hs) == 0 {
		return true
	}
	for _, f := range fields {
		quads = append(quads, r.fieldPose(f).quad(FieldMM, FieldMM))
	}
	for _, q := range quads {
		if o, _ := s.occlusion(q, fl, hs); o > 0 {
			return false
		}
	}
	return true
}

func (s *Scene) layClear(ev int) ([]tiles.Field, func(int64) bool) {
	for _, r := range s.rounds {
		for _, a := range r.acts {
			if a.piece == nil || a.piece.event != ev {
				continue
			}
			fields := append([]tiles.Field(nil), a.piece.fields...)
			quads := []scene.Quad{a.piece.at.quad(CardLong, CardShort)}
			if a.piece.joker {
				quads[0] = a.piece.at.quad(CardShort, CardShort)
			}
			done := a.land
			if a.stone != 0 {
				st := r.stones[a.stone-1]
				for _, h := range st {
					if h.t == a.sDown && !h.flying {
						if !containsField(fields, h.field) {
							fields = append(fields, h.field)
						}
						quads = append(quads, pose{h.at, 0}.quad(StoneMM, StoneMM))
					}
				}
				done = a.sDown
			}
			return fields, func(t int64) bool { return t >= done && s.fieldsClear(r, fields, quads, t) }
		}
	}
	return nil, nil
}

func (s *Scene) roundClear(e tilesim.Event) ([]tiles.Field, func(int64) bool) {
	for _, r := range s.rounds {
		if r.n != e.Round || r.dealt != e.TimeMS {
			continue
		}
		var all []tiles.Field
		for y := range r.h {
			for x := range r.w {
				all = append(all, tiles.Field{X: x, Y: y})
			}
		}
		return nil, func(t int64) bool { return s.fieldsClear(r, all, nil, t) }
	}
	return nil, nil
}

func containsField(fs []tiles.Field, f tiles.Field) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
}

// String names the scene for logs.
func (s *Scene) String() string {
	return fmt.Sprintf("tiles scene: %d players, %d rounds, seed %d", len(s.players), len(s.rounds), s.seed)
}
