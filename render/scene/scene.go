package scene

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/card"
)

// Role says what a card in the ground truth is.
type Role uint8

// Roles.
const (
	RolePile        Role = iota + 1 // the visible top card of a centre pile, face up
	RoleCalibration                 // a player's card back shown in the calibration preamble
	RoleCentreBack                  // after a stop: a centre card, face down, in its owner's group
	RoleStackBack                   // after a stop: a card of a player's Ligretto stack, face down in their zone
)

func (r Role) String() string {
	switch r {
	case RolePile:
		return "pile"
	case RoleCalibration:
		return "calibration"
	case RoleCentreBack:
		return "centre_back"
	case RoleStackBack:
		return "stack_back"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// MarshalText writes the role's name.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// CardTruth is one card as the camera sees it in a frame.
type CardTruth struct {
	Role  Role
	Pile  int          // RolePile: the pile's ID (1-based, as in the timeline)
	Card  referee.Card // the face (RolePile) and the owner, whose back it bears
	Back  string       // the owner's back design ID
	Quad  Quad         // image pixels: the card's corners, in the card's own order round it
	Table Quad         // the same corners in table millimetres
	// Occluded is the fraction of the card (sampled on a 5x5 grid) under
	// a hand, an arm or a card in flight; Hand says whether a hand or arm
	// is over any of it.
	Occluded float64
	Hand     bool
	// Depth is how many cards lie under this one (RolePile: the pile's size - 1).
	Depth int
}

// Geometry is where things are: the table in millimetres and the camera
// that sees it. Table points have their origin at the table centre, x to
// the right and y towards the camera (down the image).
type Geometry struct {
	TableW, TableH float64        // table size in mm
	Markers        [4]MarkerTruth // ids 0..3: top-left, top-right, bottom-right, bottom-left corner of the table
	Centre         Quad           // the centre area, table mm
	Seats          []SeatGeometry // in the players' order
	Homography     [9]float64     // table mm to undistorted image pixels (row-major)
	Distortion     float64        // k1: distorted = c + (p - c) * (1 - k1 r^2), r in half-diagonals from the image centre c
	Width, Height  int            // frame size
}

// MarkerTruth is an ArUco marker (DICT_4X4_50) taped to the table.
type MarkerTruth struct {
	ID    int
	Table Quad // the black square's corners in table mm, in ArUco's order (top-left, top-right, bottom-right, bottom-left as printed)
	Image Quad // the same in image pixels
}

// Scene renders what a camera above the table sees of a simulated match.
// Feed it the timeline with Apply, in time order, and ask for frames with
// Render at any time; the two may interleave (live use), provided frames
// are asked for at least Lookahead() behind the last applied event, since a
// played card starts travelling before its event's time. A Scene is not
// safe for concurrent use.
type Scene struct {
	Stage
	players []referee.Player
	byName  map[string]int

	boardSig   uint64
	boardValid bool

	shadow *sprite // soft shadow of a card lying on the table
	lifted *sprite // softer, of a card in the air

	cards *card.Renderer
	faces map[referee.Face]*sprite
	backs map[string]*sprite

	rep      sim.Replayer
	rounds   []*round
	lastT    int64
	any      bool
	lastAct  []int64
	preamble int64 // length of the calibration preamble, ms (0 if off)
	endMS    int64 // the match_end event's time, or -1
}

// round is what one round put on the table, over time.
type round struct {
	n     int
	dealt int64
	stop  int64 // the stop or deadlock, or -1
	piles []*pile
	plays []*play
	seats [][]snap // per player, in time order
	count *countLayout
}

type pile struct {
	id    int
	base  pose
	cards []placed
}

type placed struct {
	card referee.Card
	at   pose
	land int64
}

// play is a card travelling from a seat to a pile, in a hand.
type play struct {
	player     int
	card       referee.Card
	from, to   pose
	start      int64 // leaves the seat
	land       int64 // lands: the event's time
	reach      int64 // the hand sets off this long before start
	hold, back int64 // the hand stays this long after landing, then withdraws over back
	right      bool
	pre        seatVis // the seat while the card is in the air
}

type snap struct {
	t   int64
	vis seatVis
}

// seatVis is what can be seen of a seat: the top two cards of each place.
type seatVis struct {
	stack    []referee.Card
	stackN   int
	rows     [][]referee.Card
	rowN     []int
	counted  []referee.Card
	countedN int
}

func lastTwo(cs []referee.Card) []referee.Card {
	return slices.Clone(cs[max(0, len(cs)-2):])
}

func visOf(s referee.Seat) seatVis {
	v := seatVis{stack: lastTwo(s.Stack), stackN: len(s.Stack), counted: lastTwo(s.Counted), countedN: len(s.Counted)}
	for _, slot := range s.Row {
		v.rows = append(v.rows, lastTwo(slot))
		v.rowN = append(v.rowN, len(slot))
	}
	return v
}

// countLayout is the table after a stop: centre cards face down in groups
// by back (each group in rows that lie apart, its cards apart or fanned so
// that every card's edge shows, as players spread cards to be counted), and
// each player's stack spread face down in their zone.
type countLayout struct {
	cards []countCard
}

type countCard struct {
	role     Role
	owner    int
	at       pose
	occluded float64 // fraction under the cards laid after it
}

// New makes a scene for a match between players (in seat order), with the
// camera, table and light drawn from seed.
func New(cfg Config, players []referee.Player, seed uint64) (*Scene, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(players) < 2 || len(players) > 12 {
		return nil, fmt.Errorf("%w: %d players (want 2..12)", ErrConfig, len(players))
	}
	s := &Scene{players: slices.Clone(players), byName: map[string]int{},
		faces: map[referee.Face]*sprite{}, backs: map[string]*sprite{}, endMS: -1, lastAct: make([]int64, len(players))}
	for i, p := range players {
		if _, dup := s.byName[p.Name]; dup || p.Name == "" {
			return nil, fmt.Errorf("%w: player name %q missing or repeated", ErrConfig, p.Name)
		}
		if _, err := card.DesignByID(p.Back); err != nil {
			return nil, fmt.Errorf("%w: player %s: %v", ErrConfig, p.Name, err)
		}
		s.byName[p.Name] = i
	}
	if cfg.Preamble {
		s.preamble = preambleMS(len(players))
	}
	rng := rand.New(rand.NewPCG(seed, 0x7363656e65))
	if err := s.build(cfg, seed, newLayout(players, rng), rng); err != nil {
		return nil, err
	}
	var err error
	if s.cards, err = card.New(card.DefaultParams(), seed); err != nil {
		return nil, err
	}
	k := s.bg.s * 1.4
	s.shadow = newShadowSprite(CardW, CardH, 1.6, k)
	s.lifted = newShadowSprite(CardW, CardH, 5, k)
	return s, nil
}

// preambleMS is the length of the calibration preamble: the empty table,
// then each player's card back in turn.
func preambleMS(n int) int64 { return calEmpty + int64(n)*calTurn + calTail }

const (
	calEmpty = 2500 // the empty table
	calTurn  = 1900 // one player's turn
	calTail  = 600
)

// Lookahead is how far (ms) ahead of a frame's time the events must have
// been applied for the frame to be exact: a played card leaves its seat,
// in a hand, up to this long before its play event. In live use, render
// the frame for clock - Lookahead() after applying the events up to clock.
func (s *Scene) Lookahead() int64 { return s.cfg.TravelMaxMS + maxReachMS }

// maxReachMS bounds how long a hand takes to reach the card it plays.
const maxReachMS = 250

// Start is the time of the first frame worth rendering: the start of the
// calibration preamble (negative), or 0 without one. The timeline's clock
// starts at 0 with the match.
func (s *Scene) Start() int64 { return -s.preamble }

// End is the match_end event's time, or -1 before it was applied.
func (s *Scene) End() int64 { return s.endMS }

// Apply folds the next timeline event into the scene. Events must come in
// time order; an event the rules refuse is an error (see sim.Replayer).
func (s *Scene) Apply(e sim.Event) error {
	if s.any && e.TimeMS < s.lastT {
		return fmt.Errorf("%w: %s at %d ms after an event at %d ms", ErrEvent, e.Kind, e.TimeMS, s.lastT)
	}
	if e.Kind == sim.EvMatch && len(e.Players) > 0 {
		if len(e.Players) != len(s.players) {
			return fmt.Errorf("%w: match of %d players, scene made for %d", ErrEvent, len(e.Players), len(s.players))
		}
		for i, p := range e.Players {
			if p != s.players[i] {
				return fmt.Errorf("%w: player %d is %v, scene made for %v", ErrEvent, i+1, p, s.players[i])
			}
		}
	}
	if err := s.rep.Apply(e); err != nil {
		return fmt.Errorf("%w: %v", ErrEvent, err)
	}
	s.any, s.lastT = true, e.TimeMS
	switch e.Kind {
	case sim.EvRound:
		r := &round{n: e.Round, dealt: e.TimeMS, stop: -1, seats: make([][]snap, len(s.players))}
		for i, p := range s.players {
			st, err := s.rep.Round().Seat(p.Name)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrEvent, err)
			}
			r.seats[i] = []snap{{e.TimeMS, visOf(st)}}
			s.lastAct[i] = e.TimeMS + 600
		}
		s.rounds = append(s.rounds, r)
	case sim.EvPlay:
		return s.applyPlay(e)
	case sim.EvRowLay, sim.EvCountOff, sim.EvRecycle:
		return s.snapSeat(e.Player, e.TimeMS, true)
	case sim.EvRestart:
		for _, p := range s.players {
			if err := s.snapSeat(p.Name, e.TimeMS, false); err != nil {
				return err
			}
		}
	case sim.EvStop, sim.EvDeadlock, sim.EvRoundEnd:
		if r := s.current(); r != nil && r.stop < 0 {
			r.stop = e.TimeMS
			r.count = s.countLayout(r)
		}
	case sim.EvMatchEnd:
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

func (s *Scene) snapSeat(name string, t int64, acted bool) error {
	i, ok := s.byName[name]
	r := s.current()
	if !ok || r == nil {
		return fmt.Errorf("%w: player %q", ErrEvent, name)
	}
	st, err := s.rep.Round().Seat(name)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrEvent, err)
	}
	r.seats[i] = append(r.seats[i], snap{t, visOf(st)})
	if acted {
		s.lastAct[i] = t
	}
	return nil
}

func (s *Scene) applyPlay(e sim.Event) error {
	r := s.current()
	pi, ok := s.byName[e.Player]
	if r == nil || !ok || e.Card == nil || e.From == nil {
		return fmt.Errorf("%w: play without round, player, card or source", ErrEvent)
	}
	seat := &s.lay.seats[pi]
	before := r.seats[pi][len(r.seats[pi])-1].vis
	h := newHrng(s.seed, 0x706c6179, uint64(r.n), uint64(len(r.plays)))
	// Where the card lay.
	slot, depth := 0, before.stackN-1
	switch e.From.Kind {
	case referee.FromRow:
		slot, depth = 1+e.From.Index, before.rowN[e.From.Index]-1
	case referee.FromHand:
		slot, depth = len(seat.slots)-1, before.countedN-1
	}
	from := s.seatPose(r.n, pi, slot, *e.Card, depth)
	if e.From.Kind == referee.FromRow {
		from = s.cascade(pi, from, depth)
	}
	// Where it lands.
	var p *pile
	if e.NewPile {
		p = &pile{id: e.Pile, base: s.newPileBase(r, pi, &h)}
		r.piles = append(r.piles, p)
	} else {
		for _, q := range r.piles {
			if q.id == e.Pile {
				p = q
			}
		}
		if p == nil {
			return fmt.Errorf("%w: pile %d does not exist", ErrEvent, e.Pile)
		}
	}
	to := pose{p.base.c.add(Pt{h.sym(3), h.sym(3)}), p.base.a + h.sym(0.08)}
	if len(p.cards) == 0 {
		to = p.base
	}
	p.cards = append(p.cards, placed{card: *e.Card, at: to, land: e.TimeMS})
	// How long it travels: never before the player's previous action.
	d := int64(h.between(float64(s.cfg.TravelMinMS), float64(s.cfg.TravelMaxMS)))
	d = max(80, min(d, (e.TimeMS-s.lastAct[pi])*4/5))
	pl := &play{player: pi, card: *e.Card, from: from, to: to, start: e.TimeMS - d, land: e.TimeMS,
		reach: maxReachMS - int64(h.between(0, 100)), hold: 60 + int64(h.between(0, 80)), back: 260 + int64(h.between(0, 120)),
		right: h.unit() < 0.75}
	// Make the travel angle take the short way round.
	for pl.to.a-pl.from.a > math.Pi {
		pl.to.a -= 2 * math.Pi
	}
	for pl.to.a-pl.from.a < -math.Pi {
		pl.to.a += 2 * math.Pi
	}
	if err := s.snapSeat(e.Player, e.TimeMS, true); err != nil {
		return err
	}
	post := r.seats[pi][len(r.seats[pi])-1].vis
	pl.pre = post
	if e.Refill != nil { // until the card lands, the refill still tops the stack
		pre := seatVis{stackN: post.stackN + 1, counted: post.counted, countedN: post.countedN}
		pre.stack = append(slices.Clone(post.stack[max(0, len(post.stack)-1):]), *e.Refill)
		for i := range post.rows {
			if i == e.From.Index {
				pre.rows, pre.rowN = append(pre.rows, nil), append(pre.rowN, 0)
				continue
			}
			pre.rows, pre.rowN = append(pre.rows, post.rows[i]), append(pre.rowN, post.rowN[i])
		}
		pl.pre = pre
	}
	r.plays = append(r.plays, pl)
	return nil
}

// seatPose is where card c lies in slot of player pi's seat, depth cards
// from the bottom of its place.
func (s *Scene) seatPose(rn, pi, slot int, c referee.Card, depth int) pose {
	st := &s.lay.seats[pi]
	h := newHrng(s.seed, 0x73656174, uint64(rn), uint64(pi), uint64(slot), uint64(c.Colour), uint64(c.Number), uint64(max(depth, 0)))
	p := st.slots[slot]
	p.c = p.c.add(Pt{h.sym(3), h.sym(3)})
	p.a += h.sym(0.06)
	if slot == len(st.slots)-1 { // the counted-off pile is the messiest
		p.c = p.c.add(Pt{h.sym(3), h.sym(3)})
		p.a += h.sym(0.07)
	}
	return p
}

// newPileBase picks a free cell of the pile grid near player pi.
func (s *Scene) newPileBase(r *round, pi int, h *hrng) pose {
	st := &s.lay.seats[pi]
	cx := (s.lay.centre[0] + s.lay.centre[2]) / 2
	cy := (s.lay.centre[1] + s.lay.centre[3]) / 2
	want := Pt{cx, cy}.lerp(st.Edge, 0.45)
	best, bestD := -1, math.Inf(1)
	for i, c := range s.lay.cells {
		used := false
		for _, p := range r.piles {
			if p.base.c.sub(c).len() < cellW*0.6 {
				used = true
				break
			}
		}
		if used {
			continue
		}
		d := c.sub(want).len() + h.between(0, 60)
		if d < bestD {
			best, bestD = i, d
		}
	}
	var c Pt
	if best >= 0 {
		c = s.lay.cells[best]
	} else { // every cell taken: squeeze it in somewhere
		c = Pt{h.between(s.lay.centre[0]+CardW, s.lay.centre[2]-CardW), h.between(s.lay.centre[1]+CardH, s.lay.centre[3]-CardH)}
	}
	a := math.Atan2(st.Inward.Y, st.Inward.X) - math.Pi/2
	return pose{c.add(Pt{h.sym(5), h.sym(5)}), a + h.sym(0.15)}
}

// countGap is the gap (mm) between groups, rows and cards apart in the count.
const countGap = 16.0

// spread lays n cards out to be counted in a w by h area, as players
// spread a group to be counted: rows that lie apart, each row's cards
// either apart or fanned so that every card's left edge shows clearly,
// in as many rows as spread them furthest. It returns the rows, the cards
// a row and the step along a row.
func spread(n int, w, h float64) (rows, k int, sx float64) {
	maxRows := max(1, int((h+countGap)/(CardH+countGap)))
	step := func(k int) float64 {
		if k <= 1 {
			return CardW + countGap
		}
		sx := math.Min(CardW+countGap, (w-CardW)/float64(k-1))
		if sx < CardW+countGap {
			sx = math.Min(sx, 0.6*CardW) // overlapping: clearly so
		}
		return sx
	}
	rows = 1
	for r := 2; r <= min(maxRows, n); r++ {
		if step((n+r-1)/r) > step((n+rows-1)/rows)+0.5 {
			rows = r
		}
	}
	k = (n + rows - 1) / rows
	return (n + k - 1) / k, k, step(k)
}

// countLayout lays out the count after round r's stop.
func (s *Scene) countLayout(r *round) *countLayout {
	rd := s.rep.Round()
	cl := &countLayout{}
	owned := make([]int, len(s.players))
	for _, p := range rd.Piles() {
		for _, c := range p.Cards {
			if i, ok := s.byName[c.Owner]; ok {
				owned[i]++
			}
		}
	}
	var groups []int
	for i, n := range owned {
		if n > 0 {
			groups = append(groups, i)
		}
	}
	h := newHrng(s.seed, 0x636f756e74, uint64(r.n))
	c := s.lay.centre
	cw, ch := c[2]-c[0], c[3]-c[1]
	if len(groups) > 0 {
		// A grid of groups: of the grids that fit, the one whose most
		// crowded group has its cards furthest apart.
		gc, best := 1, -1.0
		for k := 1; k <= len(groups); k++ {
			rows := (len(groups) + k - 1) / k
			if (k > 1 && cw/float64(k) < CardW+2*countGap) || (rows > 1 && ch/float64(rows) < CardH+2*countGap) {
				continue // groups too close
			}
			worst := math.Inf(1)
			for _, pi := range groups {
				_, _, sx := spread(owned[pi], cw/float64(k)-countGap, ch/float64(rows)-countGap)
				worst = math.Min(worst, sx)
			}
			if worst > best+0.5 {
				gc, best = k, worst
			}
		}
		gr := (len(groups) + gc - 1) / gc
		gw, gh := cw/float64(gc), ch/float64(gr)
		for gi, pi := range groups {
			n := owned[pi]
			ox := c[0] + gw*float64(gi%gc)
			oy := c[1] + gh*float64(gi/gc)
			rows, k, sx := spread(n, gw-countGap, gh-countGap)
			sy := CardH + countGap
			spanW := CardW + sx*float64(k-1)
			spanH := CardH + sy*float64(rows-1)
			x0 := ox + (gw-spanW)/2 + CardW/2
			y0 := oy + (gh-spanH)/2 + CardH/2
			for j := range n {
				p := pose{Pt{x0 + sx*float64(j%k) + h.sym(1.5), y0 + sy*float64(j/k) + h.sym(1.5)}, h.sym(0.03)}
				cl.cards = append(cl.cards, countCard{role: RoleCentreBack, owner: pi, at: p})
			}
		}
	}
	// Stacks, spread face down along each seat.
	for pi, p := range s.players {
		st, err := rd.Seat(p.Name)
		if err != nil {
			continue
		}
		seat := &s.lay.seats[pi]
		n := len(st.Stack)
		if n == 0 {
			continue
		}
		step := math.Min(0.5*CardW, (float64(len(seat.slots)-1)*slotPitch)/float64(max(1, n-1)))
		first := seat.slots[0]
		for j := range n {
			q := first
			q.c = q.c.add(seat.along.mul(step * float64(j))).add(Pt{h.sym(1.5), h.sym(1.5)})
			q.a += h.sym(0.04)
			cl.cards = append(cl.cards, countCard{role: RoleStackBack, owner: pi, at: q})
		}
	}
	for i := range cl.cards {
		q := cl.cards[i].at.card()
		covered := 0
		for a := range 5 {
			for b := range 5 {
				p := q.At(0.1+0.2*float64(a), 0.1+0.2*float64(b))
				for _, d := range cl.cards[i+1:] {
					if d.at.card().Contains(p) {
						covered++
						break
					}
				}
			}
		}
		cl.cards[i].occluded = float64(covered) / 25
	}
	return cl
}
