package tiles

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
)

// Errors.
var (
	// ErrConfig means the players or the camera's configuration do not fit.
	ErrConfig = errors.New("render/tiles: bad config")
	// ErrEvent means an event does not fit the scene: out of time order,
	// refused by the rules, or about players the scene was not made for.
	ErrEvent = errors.New("render/tiles: bad event")
)

// Sizes in millimetres.
const (
	FieldMM   = 45.0                   // a board field's side
	PartEdge  = 2.5                    // the part's cardboard rim round its fields
	PartMM    = 4*FieldMM + 2*PartEdge // a board part's side
	PartGap   = 6.0                    // the nominal gap between neighbouring parts
	PartPitch = PartMM + PartGap       // from one part's centre to the next
	CardLong  = 2*FieldMM - 2          // a card's long side (it covers two fields)
	CardShort = FieldMM - 2            // its short side, and a joker's side
	StoneMM   = 28.0                   // a stone's diameter
	boardRim  = 90.0                   // table beyond the board, above and below
	markerRim = 330.0                  // table beyond the board, left and right (the markers)
	stoneLift = 14.0                   // a carried stone's height
)

// Timing in ms.
const (
	preambleMS = 2000 // the empty table before the match
	travelMin  = 300  // a card travels in a hand this long before its event
	travelMax  = 500
	reachMS    = 250 // the hand reaches the player's cards this long before it sets off
	hoverMS    = 900 // a hand over the board that lays nothing
)

// Pt is a point in table millimetres (origin at the table centre, x to
// the right, y down the image) or in image pixels.
type Pt = scene.Pt

// pose places a piece: its centre and its angle (radians).
type pose struct {
	c Pt
	a float64
}

func (p pose) local(x, y float64) Pt {
	ca, sa := math.Cos(p.a), math.Sin(p.a)
	return Pt{X: p.c.X + ca*x - sa*y, Y: p.c.Y + sa*x + ca*y}
}

func (p pose) quad(w, h float64) scene.Quad {
	return scene.Quad{p.local(-w/2, -h/2), p.local(w/2, -h/2), p.local(w/2, h/2), p.local(-w/2, h/2)}
}

func add(p, q Pt) Pt             { return Pt{X: p.X + q.X, Y: p.Y + q.Y} }
func sub(p, q Pt) Pt             { return Pt{X: p.X - q.X, Y: p.Y - q.Y} }
func mul(p Pt, k float64) Pt     { return Pt{X: p.X * k, Y: p.Y * k} }
func lerp(p, q Pt, t float64) Pt { return Pt{X: p.X + (q.X-p.X)*t, Y: p.Y + (q.Y-p.Y)*t} }
func unit(p Pt) Pt {
	l := math.Hypot(p.X, p.Y)
	if l == 0 {
		return Pt{X: 1}
	}
	return Pt{X: p.X / l, Y: p.Y / l}
}

// Scene renders what a camera above the table sees of a simulated tile
// match. Feed it the timeline with Apply, in time order, and ask for
// frames with Render at any time at least Lookahead() behind the last
// applied event. A Scene is not safe for concurrent use.
type Scene struct {
	*scene.Stage
	cfg      scene.Config
	seed     uint64
	players  []tiles.Player
	byName   map[string]int
	rep      tilesim.Replayer
	rounds   []*round
	events   []tilesim.Event
	lastT    int64
	any      bool
	endMS    int64
	preamble int64
	lastAct  []int64 // per player: the end of their last hand movement

	spr      sprites
	boardSig uint64
	boardOK  bool
}

// round is what one round put on the table, over time.
type round struct {
	n      int
	dealt  int64
	board  *tiles.Board
	w, h   int // in fields
	parts  []pose
	pieces []*piece
	stones [tiles.Stones][]stoneAt
	acts   []*act
}

// piece is a card or joker on the board.
type piece struct {
	joker   bool
	owner   int
	card    tiles.Card
	fields  []tiles.Field
	at      pose
	land    int64
	event   int  // index of its event in the timeline
	covered bool // laid over another piece (a wrong play)
}

// stoneAt says that from t on a stone lies at at (or, flying, is carried
// to it until t of the next entry).
type stoneAt struct {
	t      int64
	at     Pt
	field  tiles.Field
	flying bool // carried in a hand from t until the next entry
}

// act is a hand's movement: it reaches in, carries a piece onto the board
// (or only hovers), then the stone, and withdraws.
type act struct {
	player      int
	right       bool
	piece       *piece // nil: a hover
	from        pose   // where the piece sets off
	to          pose
	start, land int64
	reach       int64
	hover       Pt
	stone       int // 1..4, or 0: no stone moved
	sFrom, sTo  Pt
	sUp, sDown  int64 // the stone is lifted and set down
	hold, back  int64 // after the last piece is down the hand stays, then withdraws over back
	end         int64 // the hand is gone
}

// New makes a scene for a match between players (2 to 4, in seat order,
// each with their frame style), with the camera, table, light and the
// parts' and pieces' jitter drawn from seed.
func New(cfg scene.Config, players []tiles.Player, seed uint64) (*Scene, error) {
	if len(players) < 2 || len(players) > 4 {
		return nil, fmt.Errorf("%w: %d players (want 2..4)", ErrConfig, len(players))
	}
	s := &Scene{cfg: cfg, seed: seed, players: slices.Clone(players), byName: map[string]int{}, endMS: -1,
		lastAct: make([]int64, len(players))}
	names := make([]string, len(players))
	for i, p := range players {
		if _, dup := s.byName[p.Name]; dup || p.Name == "" || !p.Frame.Valid() {
			return nil, fmt.Errorf("%w: player %q missing, repeated or without a frame style", ErrConfig, p.Name)
		}
		s.byName[p.Name] = i
		names[i] = p.Name
	}
	_, cols, err := tiles.PartsFor(len(players))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	n, _, _ := tiles.PartsFor(len(players))
	bw, bh := float64(cols)*PartPitch, float64(n/cols)*PartPitch
	th := bh + 2*boardRim
	tw := math.Max(bw+2*markerRim, 1.35*th)
	if s.Stage, err = scene.NewStage(cfg, names, tw, th, seed); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if cfg.Preamble {
		s.preamble = preambleMS
	}
	s.spr = newSprites(s.Scale() * 1.4)
	return s, nil
}

// Start is the time of the first frame worth rendering: the start of the
// preamble (negative), or 0 without one.
func (s *Scene) Start() int64 { return -s.preamble }

// End is the match_end event's time, or -1 before it was applied.
func (s *Scene) End() int64 { return s.endMS }

// Lookahead is how far (ms) ahead of a frame's time the events must have
// been applied for the frame to be exact: a card sets off in a hand
// before its event.
func (s *Scene) Lookahead() int64 { return travelMax + reachMS + hoverMS }

// Players returns the players in seat order.
func (s *Scene) Players() []tiles.Player { return slices.Clone(s.players) }

// Apply folds the next timeline event into the scene. Events must come in
// time order; an event the rules refuse is an error (see sim.Replayer).
func (s *Scene) Apply(e tilesim.Event) error {
	if s.any && e.TimeMS < s.lastT {
		return fmt.Errorf("%w: %s at %d ms after an event at %d ms", ErrEvent, e.Kind, e.TimeMS, s.lastT)
	}
	if e.Kind == tilesim.EvMatch && len(e.Players) > 0 && !slices.Equal(e.Players, s.players) {
		return fmt.Errorf("%w: match of %v, scene made for %v", ErrEvent, e.Players, s.players)
	}
	if err := s.rep.Apply(e); err != nil {
		return fmt.Errorf("%w: %v", ErrEvent, err)
	}
	s.any, s.lastT = true, e.TimeMS
	s.events = append(s.events, e)
	idx := len(s.events) - 1
	switch e.Kind {
	case tilesim.EvRound:
		return s.applyRound(e)
	case tilesim.EvLay, tilesim.EvJoker:
		return s.applyLay(e, idx)
	case tilesim.EvDiscard:
		s.applyDiscard(e)
	case tilesim.EvMatchEnd:
		s.endMS = e.TimeMS
	}
	return nil
}

func (s *Scene) current() *round {
	if len(s.rounds) == 0 {
		return nil
	}
	return s.rounds[len(s.rounds)-1]
}

// applyRound lays the round's board parts out, each a little apart and
// turned, and puts the stones on their fields.
func (s *Scene) applyRound(e tilesim.Event) error {
	b, err := tiles.NewBoard(*e.Layout)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEvent, err)
	}
	r := &round{n: e.Round, dealt: e.TimeMS, board: b}
	r.w, r.h = b.Size()
	cols, rows := e.Layout.Cols, len(e.Layout.Parts)/e.Layout.Cols
	h := newHrng(s.seed, 0x7061727473, uint64(e.Round))
	for i := range e.Layout.Parts {
		c := Pt{X: (float64(i%cols) - float64(cols-1)/2) * PartPitch, Y: (float64(i/cols) - float64(rows-1)/2) * PartPitch}
		r.parts = append(r.parts, pose{add(c, Pt{X: h.sym(1), Y: h.sym(1)}), h.sym(1.5 * math.Pi / 180)})
	}
	for i, f := range e.Stones {
		c := add(r.fieldCentre(f), Pt{X: h.sym(2), Y: h.sym(2)})
		r.stones[i] = []stoneAt{{t: e.TimeMS, at: c, field: f}}
	}
	for i := range s.lastAct {
		s.lastAct[i] = max(s.lastAct[i], e.TimeMS)
	}
	s.rounds = append(s.rounds, r)
	s.boardOK = false
	return nil
}

// fieldPose is where field f lies: its centre and its part's angle.
func (r *round) fieldPose(f tiles.Field) pose {
	cols := r.w / tiles.PartSize
	p := r.parts[(f.Y/tiles.PartSize)*cols+f.X/tiles.PartSize]
	lx := (float64(f.X%tiles.PartSize) - 1.5) * FieldMM
	ly := (float64(f.Y%tiles.PartSize) - 1.5) * FieldMM
	return pose{p.local(lx, ly), p.a}
}

func (r *round) fieldCentre(f tiles.Field) Pt { return r.fieldPose(f).c }

// FieldQuad is the field's square in table millimetres (corners clockwise
// from its top-left as the board lies), in round n (1-based) as laid
// out; ok is false for no such round or field.
func (s *Scene) FieldQuad(n int, f tiles.Field) (q scene.Quad, ok bool) {
	for _, r := range s.rounds {
		if r.n == n && r.board.On(f) {
			return r.fieldPose(f).quad(FieldMM, FieldMM), true
		}
	}
	return q, false
}

// applyLay puts a card or joker on its fields, and plans the hand that
// brings it and moves the stone.
func (s *Scene) applyLay(e tilesim.Event, idx int) error {
	r := s.current()
	pi, ok := s.byName[e.Player]
	if r == nil || !ok || len(e.Fields) == 0 {
		return fmt.Errorf("%w: a lay without round, player or fields", ErrEvent)
	}
	h := newHrng(s.seed, 0x6c6179, uint64(r.n), uint64(len(r.pieces)))
	pc := &piece{joker: e.Kind == tilesim.EvJoker, owner: pi, fields: slices.Clone(e.Fields), land: e.TimeMS, event: idx}
	f0 := r.fieldPose(e.Fields[0])
	at := f0
	if !pc.joker {
		pc.card = *e.Card
		f1 := r.fieldPose(e.Fields[1])
		d := sub(f1.c, f0.c)
		at = pose{lerp(f0.c, f1.c, 0.5), math.Atan2(d.Y, d.X)}
	} else {
		at.a += float64(h.next()%4) * math.Pi / 2
	}
	at.c = add(at.c, Pt{X: h.sym(1.2), Y: h.sym(1.2)})
	at.a += h.sym(1 * math.Pi / 180)
	pc.at = at
	for _, q := range r.pieces {
		for _, f := range q.fields {
			if slices.Contains(pc.fields, f) {
				q.covered = true
			}
		}
	}
	r.pieces = append(r.pieces, pc)

	a := &act{player: pi, right: h.unit() < 0.75, piece: pc, to: at, land: e.TimeMS}
	seat := s.Geometry().Seats[pi]
	a.from = pose{add(add(seat.Edge, mul(seat.Inward, 60)), Pt{X: h.sym(60), Y: h.sym(60)}), at.a + h.sym(0.6)}
	d := int64(h.between(travelMin, travelMax))
	d = max(80, min(d, (e.TimeMS-s.lastAct[pi])*4/5))
	a.start = e.TimeMS - d
	a.reach = reachMS - int64(h.between(0, 100))
	a.hold = 60 + int64(h.between(0, 80))
	a.back = 260 + int64(h.between(0, 120))
	stoneTo := e.StoneTo
	if pc.joker {
		stoneTo = &e.Fields[0]
	}
	down := e.TimeMS
	if stoneTo != nil && e.Stone >= 1 && e.Stone <= tiles.Stones {
		hist := r.stones[e.Stone-1]
		a.stone = e.Stone
		a.sFrom = hist[len(hist)-1].at
		a.sTo = add(r.fieldCentre(*stoneTo), Pt{X: h.sym(2), Y: h.sym(2)})
		a.sUp = e.TimeMS + 80 + int64(h.between(0, 60))
		dist := math.Hypot(a.sTo.X-a.sFrom.X, a.sTo.Y-a.sFrom.Y)
		a.sDown = a.sUp + 150 + int64(dist*1.5)
		r.stones[e.Stone-1] = append(hist, stoneAt{t: a.sUp, at: a.sFrom, flying: true, field: *stoneTo},
			stoneAt{t: a.sDown, at: a.sTo, field: *stoneTo})
		down = a.sDown
	}
	a.end = down + a.hold + a.back
	s.lastAct[pi] = a.end
	r.acts = append(r.acts, a)
	return nil
}

// applyDiscard sometimes sends the player's hand over the board and back,
// as a player looking for a place for the card they turned does.
func (s *Scene) applyDiscard(e tilesim.Event) {
	r := s.current()
	pi, ok := s.byName[e.Player]
	if r == nil || !ok {
		return
	}
	h := newHrng(s.seed, 0x686f766572, uint64(r.n), uint64(e.TimeMS))
	if h.unit() < 0.5 || e.TimeMS-hoverMS < s.lastAct[pi] {
		return
	}
	f := tiles.Field{X: int(h.next() % uint64(r.w)), Y: int(h.next() % uint64(r.h))}
	a := &act{player: pi, right: h.unit() < 0.75, hover: r.fieldCentre(f), start: e.TimeMS - hoverMS,
		reach: reachMS, end: e.TimeMS}
	s.lastAct[pi] = a.end
	r.acts = append(r.acts, a)
}

// jitter draws a piece's seeded jitter: the same keys give the same
// numbers, whatever else was drawn before.
type jitter struct{ r *rand.Rand }

func newHrng(keys ...uint64) jitter {
	var a, b uint64
	for i, k := range keys {
		if i%2 == 0 {
			a = a*0x9e3779b97f4a7c15 + k + 1
		} else {
			b = b*0xc2b2ae3d27d4eb4f + k + 1
		}
	}
	return jitter{rand.New(rand.NewPCG(a, b))}
}

func (j jitter) next() uint64                   { return j.r.Uint64() }
func (j jitter) unit() float64                  { return j.r.Float64() }
func (j jitter) sym(a float64) float64          { return a * (2*j.r.Float64() - 1) }
func (j jitter) between(lo, hi float64) float64 { return lo + (hi-lo)*j.r.Float64() }
