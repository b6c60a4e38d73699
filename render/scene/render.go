package scene

import (
	"fmt"
	"hash/fnv"
	"image"
	"math"
	"math/rand/v2"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/render/card"
)

// setupCanvas sizes the table-plane canvas: what the camera sees of the
// table plane, at a little more than the image's finest resolution.
func (s *Stage) setupCanvas() {
	c := s.cam
	fine := 0.0
	for _, p := range []Pt{{0, s.lay.h / 2}, {-s.lay.w / 2, s.lay.h / 2}, {s.lay.w / 2, s.lay.h / 2}, {0, 0}} {
		fine = math.Max(fine, c.scaleAt(p))
	}
	scale := 1.05 * fine
	// The footprint of the frame on the table plane, kept within a margin.
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	W, H := float64(s.cfg.Width), float64(s.cfg.Height)
	for i := 0; i <= 40; i++ {
		f := float64(i) / 40
		for _, q := range []Pt{{f * W, -1}, {f * W, H}, {-1, f * H}, {W, f * H}} {
			p := c.unproject(q)
			x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
		}
	}
	m := 700.0
	x0, y0 = math.Max(x0, -s.lay.w/2-m), math.Max(y0, -s.lay.h/2-m)
	x1, y1 = math.Min(x1, s.lay.w/2+m), math.Min(y1, s.lay.h/2+m)
	w, h := int(math.Ceil((x1-x0)*scale))+2, int(math.Ceil((y1-y0)*scale))+2
	s.bg = canvas{w: w, h: h, pix: make([]byte, 3*w*h), ox: x0, oy: y0, s: scale}
}

// setupCamera makes the remap from frame pixels to canvas pixels.
func (s *Stage) setupCamera() {
	W, H := s.cfg.Width, s.cfg.Height
	mx, my := make([]float32, W*H), make([]float32, W*H)
	for j := range H {
		for i := range W {
			p := s.cam.unproject(Pt{float64(i), float64(j)})
			q := s.bg.px(p)
			mx[j*W+i], my[j*W+i] = float32(q.X), float32(q.Y)
		}
	}
	s.rmap = newRemapper(mx, my, W, H)
	s.bgBGR = [3]uint8{18, 20, 24}
}

// setupLight precomputes the vignette and the sensor noise.
func (s *Stage) setupLight(rng *rand.Rand) {
	W, H := s.cfg.Width, s.cfg.Height
	s.vig = make([]float32, W*H)
	for j := range H {
		for i := range W {
			dx := (float64(i) - s.cam.cx) / (float64(W) / 2)
			dy := (float64(j) - s.cam.cy) / (float64(W) / 2)
			r2 := (dx*dx + dy*dy) / (1 + float64(H*H)/float64(W*W))
			s.vig[j*W+i] = float32(1 - s.cfg.Vignette*r2*(0.8+0.2*r2))
		}
	}
	s.rowG, s.colG = make([]float32, H), make([]float32, W)
	const n = 1 << 20
	s.noise = make([]int8, n+3*W+8)
	nr := rand.New(rand.NewPCG(rng.Uint64(), 1))
	for i := range s.noise {
		v := nr.NormFloat64() * s.cfg.Noise
		s.noise[i] = int8(math.Max(-127, math.Min(127, math.Round(v))))
	}
	s.offs = make([]int32, H)
	s.black = 4 + rng.IntN(9) // the sensor's black level
	if s.cfg.ShadeDepth > 0 { // its angle from a stream of its own: the rest of the scene stays as without it
		s.setupShade(rand.New(rand.NewPCG(s.seed, 0x5368616465)).Float64() * 2 * math.Pi)
	}
	for i := range s.light {
		s.light[i] = rng.Float64() * 2 * math.Pi
	}
}

// spriteFace returns the sprite of a face.
func (s *Scene) spriteFace(f referee.Face) *sprite {
	if sp, ok := s.faces[f]; ok {
		return sp
	}
	w, h := s.spriteSize()
	img, err := s.cards.Card(card.Label{Side: card.FaceSide, Face: f}, w, h, false)
	if err != nil {
		panic(err) // faces come from the replayed round: always valid
	}
	sp := newSprite(img, CardW, CardH)
	s.faces[f] = sp
	return sp
}

// spriteBack returns the sprite of a player's back.
func (s *Scene) spriteBack(pi int) *sprite {
	id := s.players[pi].Back
	if sp, ok := s.backs[id]; ok {
		return sp
	}
	w, h := s.spriteSize()
	img, err := s.cards.Card(card.Label{Side: card.BackSide, Back: id}, w, h, false)
	if err != nil {
		panic(err) // checked in New
	}
	sp := newSprite(img, CardW, CardH)
	s.backs[id] = sp
	return sp
}

func (s *Scene) spriteSize() (int, int) {
	w := int(math.Round(CardW * s.bg.s * 1.4))
	return w, int(math.Round(float64(w) * CardH / CardW))
}

// phase of the table at a moment.
const (
	phEmpty = iota
	phPreamble
	phPlay
	phCount
)

func (s *Scene) roundAt(t int64) *round {
	var r *round
	for _, q := range s.rounds {
		if q.dealt <= t {
			r = q
		}
	}
	return r
}

func (s *Scene) phaseAt(t int64) (int, *round) {
	r := s.roundAt(t)
	switch {
	case r == nil && t < 0 && t >= -s.preamble:
		return phPreamble, nil
	case r == nil:
		return phEmpty, nil
	case r.stop >= 0 && t >= r.stop+s.cfg.CountDelay:
		return phCount, r
	}
	return phPlay, r
}

// seatAt returns what player pi's seat shows at t, and a key that tells
// apart what it can show: the index of the seat's snapshot, or while a
// card of the seat is in the air -1 - the index of its play.
func (r *round) seatAt(pi int, t int64) (seatVis, int) {
	for i, p := range r.plays {
		if p.player == pi && p.start <= t && t < p.land {
			return p.pre, -1 - i
		}
	}
	snaps := r.seats[pi]
	i := sort.Search(len(snaps), func(i int) bool { return snaps[i].t > t }) - 1
	return snaps[max(i, 0)].vis, max(i, 0)
}

// calib is the preamble's state at t: whose turn, and where their card is.
type calib struct {
	player int
	down   bool // the card lies on the table (drawn on the board)
	card   *pose
	palm   *Pt
	spread float64
}

func (s *Scene) calibAt(t int64) calib {
	c := calib{player: -1}
	b := t + s.preamble - calEmpty
	if b < 0 || b >= int64(len(s.players))*calTurn {
		return c
	}
	pi := int(b / calTurn)
	k := b % calTurn
	c.player = pi
	rest := s.calibPose(pi)
	sh := s.lay.seats[pi].look.shoulder[1]
	away := pose{sh.lerp(rest.c, 0.45), rest.a + 0.3}
	palmOf := func(p pose) Pt {
		u := p.c.sub(sh).unit()
		return p.c.sub(u.mul(95))
	}
	set := func(card pose, palm Pt, spread float64) {
		c.card, c.palm, c.spread = &card, &palm, spread
	}
	switch {
	case k < 450: // brought in
		e := ease(float64(k) / 450)
		p := pose{away.c.lerp(rest.c, e), away.a + (rest.a-away.a)*e}
		set(p, palmOf(p), 0.3)
	case k < 550:
		c.down = true
		set(rest, palmOf(rest), 0.5)
		c.card = nil
	case k < 850: // the hand withdraws
		c.down = true
		e := ease(float64(k-550) / 300)
		palm := palmOf(rest).lerp(sh.lerp(rest.c, 0.2), e)
		c.palm, c.spread = &palm, 0.8
	case k < 1450: // the card lies alone
		c.down = true
	case k < 1650: // the hand comes back
		c.down = true
		e := ease(float64(k-1450) / 200)
		palm := sh.lerp(rest.c, 0.2).lerp(palmOf(rest), e)
		c.palm, c.spread = &palm, 0.8
	default: // and takes the card away
		e := ease(float64(k-1650) / 250)
		p := pose{rest.c.lerp(away.c, e), rest.a + (away.a-rest.a)*e}
		set(p, palmOf(p), 0.3)
	}
	return c
}

// calibPose is where player pi lays their card back in the preamble.
func (s *Scene) calibPose(pi int) pose {
	st := &s.lay.seats[pi]
	h := newHrng(s.seed, 0x63616c, uint64(pi))
	rest := st.slots[len(st.slots)/2]
	rest.c = rest.c.add(Pt{h.sym(8), h.sym(8)})
	rest.a += h.sym(0.15)
	return rest
}

// signature identifies the board (everything lying still) at t.
func (s *Scene) signature(t int64) uint64 {
	ph, r := s.phaseAt(t)
	h := fnv.New64a()
	var buf [8]byte
	put := func(v int64) {
		for i := range 8 {
			buf[i] = byte(v >> (8 * i))
		}
		h.Write(buf[:])
	}
	put(int64(ph))
	switch ph {
	case phPreamble:
		c := s.calibAt(t)
		put(int64(c.player))
		if c.down {
			put(1)
		}
	case phPlay:
		put(int64(r.n))
		started, landed := 0, 0
		for _, p := range r.plays {
			if p.start <= t {
				started++
			}
			if p.land <= t {
				landed++
			}
		}
		put(int64(started))
		put(int64(landed))
		for pi := range s.players {
			_, k := r.seatAt(pi, t)
			put(int64(k))
		}
	case phCount:
		put(int64(r.n))
	}
	return h.Sum64()
}

// drawCard draws a card with its shadow.
func (s *Scene) drawCard(cv *canvas, sp *sprite, p pose) {
	sh := p
	sh.c = sh.c.add(s.hr.shadowDir.mul(1.2))
	cv.shade(s.shadow, sh, 0.45)
	cv.draw(sp, p)
}

// drawBoard draws everything lying still at t onto s.board.
func (s *Scene) drawBoard(t int64) {
	copy(s.board.pix, s.bg.pix)
	ph, r := s.phaseAt(t)
	cv := &s.board
	switch ph {
	case phPreamble:
		if c := s.calibAt(t); c.down {
			s.drawCard(cv, s.spriteBack(c.player), s.calibPose(c.player))
		}
	case phPlay:
		for pi := range s.players {
			v, _ := r.seatAt(pi, t)
			s.drawSeat(cv, r.n, pi, v)
		}
		for _, p := range r.piles {
			n := 0
			for n < len(p.cards) && p.cards[n].land <= t {
				n++
			}
			for k := max(0, n-3); k < n; k++ {
				s.drawCard(cv, s.spriteFace(p.cards[k].card.Face), p.cards[k].at)
			}
		}
	case phCount:
		for _, c := range r.count.cards {
			s.drawCard(cv, s.spriteBack(c.owner), c.at)
		}
	}
}

func (s *Scene) drawSeat(cv *canvas, rn, pi int, v seatVis) {
	seat := &s.lay.seats[pi]
	place := func(slot int, cards []referee.Card, n int, cascade bool) {
		for k, c := range cards {
			depth := n - len(cards) + k
			p := s.seatPose(rn, pi, slot, c, depth)
			if cascade {
				p.c = p.c.add(seat.Inward.mul(float64(depth) * rowCascade))
			}
			s.drawCard(cv, s.spriteFace(c.Face), p)
		}
	}
	place(0, v.stack, v.stackN, false)
	for i := range v.rows {
		place(1+i, v.rows[i], v.rowN[i], true)
	}
	place(len(seat.slots)-1, v.counted, v.countedN, false)
}

// cascade moves a row card depth cards up its slot's cascade.
func (s *Scene) cascade(pi int, p pose, depth int) pose {
	p.c = p.c.add(s.lay.seats[pi].Inward.mul(float64(depth) * rowCascade))
	return p
}

type flying struct {
	sp   *sprite
	at   pose
	lift float64
}

func ease(x float64) float64 {
	x = math.Max(0, math.Min(1, x))
	return x * x * (3 - 2*x)
}

// movers returns the cards in the air and the hands over the table at t.
func (s *Scene) movers(t int64) ([]flying, []hand) {
	var fl []flying
	var hs []hand
	ph, r := s.phaseAt(t)
	switch ph {
	case phPreamble:
		c := s.calibAt(t)
		if c.card != nil {
			fl = append(fl, flying{s.spriteBack(c.player), *c.card, 25})
		}
		if c.palm != nil {
			hs = append(hs, newHand(&s.lay.seats[c.player].look, *c.palm, true, c.spread))
		}
		return fl, hs
	case phPlay, phCount:
	default:
		return nil, nil
	}
	for _, p := range r.plays {
		if t < p.start-p.reach || t >= p.land+p.hold+p.back {
			continue
		}
		st := &s.lay.seats[p.player]
		sh := st.look.shoulder[0]
		if p.right {
			sh = st.look.shoulder[1]
		}
		palmOf := func(q pose) Pt {
			u := q.c.sub(sh).unit()
			return q.c.sub(u.mul(95))
		}
		var palm Pt
		spread := 0.3
		switch {
		case t < p.start:
			e := ease(float64(t-(p.start-p.reach)) / float64(p.reach))
			palm = sh.lerp(palmOf(p.from), 0.55).lerp(palmOf(p.from), e)
			spread = 0.7
		case t < p.land:
			e := ease(float64(t-p.start) / float64(p.land-p.start))
			at := pose{p.from.c.lerp(p.to.c, e), p.from.a + (p.to.a-p.from.a)*e}
			lift := 30 * math.Sin(math.Pi*float64(t-p.start)/float64(p.land-p.start))
			fl = append(fl, flying{s.spriteFace(p.card.Face), at, lift})
			palm = palmOf(at)
		case t < p.land+p.hold:
			palm = palmOf(p.to)
			spread = 0.5
		default:
			e := ease(float64(t-p.land-p.hold) / float64(p.back))
			palm = palmOf(p.to).lerp(sh.lerp(p.to.c, 0.3), e)
			spread = 0.8
		}
		hs = append(hs, newHand(&st.look, palm, p.right, spread))
	}
	return fl, hs
}

// Render draws the frame at time tMS (timeline ms; negative times show
// the calibration preamble) into dst, a continuous 8-bit BGR Mat of the
// configured size (an empty Mat is replaced by one: the caller still
// closes it), and
// returns the ground truth.
func (s *Scene) Render(tMS int64, dst *gocv.Mat) ([]CardTruth, error) {
	pix, err := s.FramePixels(dst)
	if err != nil {
		return nil, err
	}
	return s.RenderBGR(tMS, pix, 3*s.cfg.Width)
}

// RenderRGBA draws the frame at tMS into dst, which must have the
// configured size, and returns the ground truth.
func (s *Scene) RenderRGBA(tMS int64, dst *image.RGBA) ([]CardTruth, error) {
	W, H := s.cfg.Width, s.cfg.Height
	if b := dst.Bounds(); b.Dx() != W || b.Dy() != H {
		return nil, fmt.Errorf("%w: %v, want %dx%d", ErrFrame, b, W, H)
	}
	if len(s.frame) != 3*W*H {
		s.frame = make([]byte, 3*W*H)
	}
	truth, err := s.RenderBGR(tMS, s.frame, 3*W)
	if err != nil {
		return nil, err
	}
	for y := range H {
		src := s.frame[3*W*y : 3*W*(y+1)]
		d := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y):]
		for x := range W {
			d[4*x], d[4*x+1], d[4*x+2], d[4*x+3] = src[3*x+2], src[3*x+1], src[3*x], 255
		}
	}
	return truth, nil
}

// RenderBGR draws the frame at tMS into pix, 8-bit BGR with stride bytes
// a row, and returns the ground truth.
func (s *Scene) RenderBGR(tMS int64, pix []byte, stride int) ([]CardTruth, error) {
	if err := s.checkBuffer(pix, stride); err != nil {
		return nil, err
	}
	if sig := s.signature(tMS); !s.boardValid || sig != s.boardSig {
		s.drawBoard(tMS)
		s.boardSig, s.boardValid = sig, true
	}
	fl, hs := s.movers(tMS)
	src := s.board.pix
	if len(fl) > 0 || len(hs) > 0 {
		copy(s.work.pix, s.board.pix)
		for _, f := range fl {
			sh := f.at
			sh.c = sh.c.add(s.hr.shadowDir.mul(1.2 + f.lift))
			s.work.shade(s.lifted, sh, 0.35)
		}
		for _, f := range fl {
			s.work.draw(f.sp, f.at)
		}
		for i := range hs {
			s.work.drawHand(&hs[i], &s.hr)
		}
		src = s.work.pix
	}
	if err := s.develop(tMS, src, pix, stride); err != nil {
		return nil, err
	}
	return s.truth(tMS, fl, hs), nil
}

// applyLight applies the vignette, the drifting light and sensor noise.
func (s *Stage) applyLight(t int64, pix []byte, stride int) {
	W, H := s.cfg.Width, s.cfg.Height
	L := s.cfg.Light
	ts := float64(t) / 1000
	ph := s.light
	bright := 1 + L*(0.07*math.Sin(2*math.Pi*ts/19+ph[0])+0.035*math.Sin(2*math.Pi*ts/6.3+ph[1]))
	temp := L * 0.06 * math.Sin(2*math.Pi*ts/27+ph[2])
	ang := ph[3] + 0.5*math.Sin(2*math.Pi*ts/41+ph[4])
	g := L * 0.2
	gx, gy := g*math.Cos(ang), g*math.Sin(ang)
	for y := range H {
		s.rowG[y] = float32(bright * (0.5 + gy*(float64(y)-s.cam.cy)/float64(H)))
	}
	for x := range W {
		s.colG[x] = float32(bright * (0.5 + gx*(float64(x)-s.cam.cx)/float64(W)))
	}
	gain := [3]float32{float32(1 - temp), 1, float32(1 + temp)}
	h := newHrng(s.seed, 0x6e6f697365, uint64(t))
	n := uint64(1 << 20)
	for y := range s.offs {
		s.offs[y] = int32(h.next() % n)
	}
	post(pix, W, H, stride, s.shaded(t), s.rowG, s.colG, gain, s.noise, s.offs, s.black)
}

// shadeEdge is the width of the shade's soft edge, as a fraction of the
// frame's width.
const shadeEdge = 0.08

// setupShade precomputes the shade's coverage: 1 on the far side of a
// line through the frame's centre at angle ang, 0 on the near side, with
// a soft edge between.
func (s *Stage) setupShade(ang float64) {
	W, H := s.cfg.Width, s.cfg.Height
	nx, ny := math.Cos(ang), math.Sin(ang)
	edge := shadeEdge * float64(W)
	s.shade = make([]float32, W*H)
	s.vigShaded = make([]float32, W*H)
	for j := range H {
		for i := range W {
			d := (float64(i)-s.cam.cx)*nx + (float64(j)-s.cam.cy)*ny
			s.shade[j*W+i] = float32(smooth01(d/edge + 0.5))
		}
	}
}

// shaded is the vignette with the shade's darkening at time t (ms).
func (s *Stage) shaded(t int64) []float32 {
	k := s.shadeAt(t)
	if k <= 0 {
		return s.vig
	}
	for i, v := range s.vig {
		s.vigShaded[i] = v * (1 - k*s.shade[i])
	}
	return s.vigShaded
}

// shadeAt is how much darker the shaded side is at time t (ms).
func (s *Stage) shadeAt(t int64) float32 {
	c := s.cfg
	if c.ShadeDepth <= 0 || s.shade == nil {
		return 0
	}
	ramp := c.ShadeRampMS
	if ramp == 0 {
		ramp = 600
	}
	var f float64
	switch {
	case t < c.ShadeFromMS-ramp || t > c.ShadeToMS+ramp:
		return 0
	case t < c.ShadeFromMS:
		f = float64(t-(c.ShadeFromMS-ramp)) / float64(ramp)
	case t > c.ShadeToMS:
		f = float64(c.ShadeToMS+ramp-t) / float64(ramp)
	default:
		f = 1
	}
	return float32(c.ShadeDepth * smooth01(f))
}

// smooth01 is the smoothstep of x clamped to 0..1.
func smooth01(x float64) float64 {
	x = math.Max(0, math.Min(1, x))
	return x * x * (3 - 2*x)
}

// truth lists the cards a frame shows.
func (s *Scene) truth(t int64, fl []flying, hs []hand) []CardTruth {
	ph, r := s.phaseAt(t)
	var out []CardTruth
	occl := func(q Quad) (float64, bool) {
		n, byHand := 0, false
		for i := range 5 {
			for j := range 5 {
				p := q.At(0.1+0.2*float64(i), 0.1+0.2*float64(j))
				hit := false
				for k := range hs {
					if hs[k].covers(p) {
						hit, byHand = true, true
						break
					}
				}
				if !hit {
					for _, f := range fl {
						if f.at.card().Contains(p) {
							hit = true
							break
						}
					}
				}
				if hit {
					n++
				}
			}
		}
		return float64(n) / 25, byHand
	}
	add := func(ct CardTruth) {
		ct.Quad = s.projectQuad(ct.Table)
		out = append(out, ct)
	}
	switch ph {
	case phPreamble:
		c := s.calibAt(t)
		if c.player >= 0 && (c.down || c.card != nil) {
			p := s.calibPose(c.player)
			if c.card != nil {
				p = *c.card
			}
			q := p.card()
			// A card in the hand is not occluded by the card itself.
			o, byHand := occl(q)
			if c.card != nil {
				o, byHand = 0, false
				for i := range 5 {
					for j := range 5 {
						if len(hs) > 0 && hs[0].covers(q.At(0.1+0.2*float64(i), 0.1+0.2*float64(j))) {
							o += 1.0 / 25
							byHand = true
						}
					}
				}
			}
			pl := s.players[c.player]
			add(CardTruth{Role: RoleCalibration, Card: referee.Card{Owner: pl.Name}, Back: pl.Back, Table: q, Occluded: o, Hand: byHand})
		}
	case phPlay:
		for _, p := range r.piles {
			n := 0
			for n < len(p.cards) && p.cards[n].land <= t {
				n++
			}
			if n == 0 {
				continue
			}
			top := p.cards[n-1]
			q := top.at.card()
			o, byHand := occl(q)
			add(CardTruth{Role: RolePile, Pile: p.id, Card: top.card, Back: s.backOf(top.card.Owner), Table: q, Occluded: o, Hand: byHand, Depth: n - 1})
		}
	case phCount:
		for _, c := range r.count.cards {
			pl := s.players[c.owner]
			add(CardTruth{Role: c.role, Card: referee.Card{Owner: pl.Name}, Back: pl.Back, Table: c.at.card(), Occluded: c.occluded})
		}
	}
	return out
}

func (s *Scene) backOf(owner string) string {
	if i, ok := s.byName[owner]; ok {
		return s.players[i].Back
	}
	return ""
}
