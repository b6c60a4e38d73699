package tiles

import (
	"cmp"
	"fmt"
	"slices"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/tiles"
)

// Config configures a Watcher.
type Config struct {
	Players  []tiles.Player // in seat order, each with their frame style
	Settings tiles.Settings
	StableMS int64 // how long a field must look the same before its change is believed (default 180)
}

// Timing of the reading (ms).
const (
	pairWaitMS    = 2500  // a stone move waits this long for the card half beside it
	halfWaitMS    = 4000  // a card half waits this long for its other half
	ownerWaitMS   = 2000  // a frame style is read again this long before the piece is given up
	hiddenWaitMS  = 8000  // or this long, while it is never in full view
	jokerWaitMS   = 20000 // a joker whose frame the stone hides waits this long for the stone to leave
	rereadForMS   = 20000 // a card reported without an owner has its frame read again this long
	readEveryMS   = 150   // between two reads of a piece's frame
	viaSettleMS   = 600   // a stone's move waits this long for cards it may have stood on unseen
	coveredLateMS = 1500  // a half first seen after the card over its other half waits this long for it
	reorientMS    = 1000  // a half turned on a card half of its colour shows this long before it covers
	lonelyStoneMS = 1500  // a stone on nothing new is believed after this long
	hiddenGoneMS  = 1000  // a stone's field unreadable this long may have lost it
	overlapMS     = 300   // a stone first seen on a card this long after the moving stone stood on its new field is another
	seenAheadMS   = 200   // a piece seen this much earlier than one near it is reported first
	searchEvery   = 250   // between attempts to find a new board
	regressLimit  = 3     // fields that lose their piece at once: the board was cleared
)

// recentMS is how long a card seen whole may still have had a stone unseen.
const recentMS = 4000

// fieldTrack is one field's believed look and the candidate replacing
// it, and when it last showed a stone (believed there) or showed free, in
// plain sight (0: not on this board).
type fieldTrack struct {
	believed  look
	cand      look
	candSince int64
	stoodOn   int64
	freeAt    int64
	// a card half first showed here, too briefly to believe (a hand
	// passing over it): its look and when
	glance   look
	glanceAt int64
}

// cell is what the watcher has reported lying on a field.
type cell struct {
	kind    kind // lookFree, lookCard, lookJoker
	colour  tiles.Colour
	partner tiles.Field
}

// item is a thing seen, waiting to be reported in the order seen: a stone
// move (with the card or joker it belongs to), or a card seen whole.
type item struct {
	t        int64
	move     bool
	stone    int // 0-based
	from, to tiles.Field
	halves   [2]tiles.Field // a card seen whole
	late     bool           // seen whole long after one half waited in vain for the other
	done     bool
	obs      []tiles.Observation
	// a joker under the stone whose frame could not be read with it there
	jokerAt *tiles.Field
	via     bool                // the way the stone came was looked at:
	pre     []tiles.Observation // a card it stood on unseen, reported before
	half    *tiles.Field        // the card's other half, beside the stone's field
	// the other half of a card seen whole before the stone came onto it
	pairCard *tiles.Field
	colours  [2]tiles.Colour // of half and of the stone's field
	// the owner is read again no sooner than this
	nextRead  int64
	firstRead int64 // a frame was first read (in full view) and not clear
	pairStone int   // a card seen whole: the stone that came onto it (1..4) before it was reported
	// a card seen whole: a stone matched to none was first seen on it
	stoneSeen int64
	// a move: the stone was first seen on its new field
	came int64
	// a move: its old field was first believed without the stone (0:
	// not known)
	left int64
	// its piece (the card seen whole, the stone's card or joker) was first
	// seen: a half of a card (a stone may have hidden the other)
	seen int64
	// a card seen whole: a half of it first showed, if only in a glance
	// (glanced)
	glanced int64
}

// Watcher turns frames into observations for tiles.Referee. It is not
// safe for concurrent use.
type Watcher struct {
	cfg       Config
	top       *topView
	board     *Board
	smp       *sampler
	pix       []byte
	fields    [][]fieldTrack
	content   [][]cell
	stones    [tiles.Stones]tiles.Field
	started   bool
	roundN    int // rounds found
	searching bool
	lastTry   int64
	halves    map[tiles.Field]int64    // card halves newly seen, waiting for their other half
	orphans   map[tiles.Field]int64    // halves that waited in vain, since first seen: the other may show yet
	shadow    [2]float64               // the way the stones' shadows fall
	goneSince map[int]int64            // stones seen gone from their field, since
	cameSince map[tiles.Field]int64    // stones seen on a new field, since
	glimpses  map[tiles.Field]int64    // a stone seen there, matched to no move, left then
	overHalf  map[tiles.Field]halfSeen // a new card half a stone's look came over, and since when it showed
	arrived   [tiles.Stones]int64      // when each stone was first seen where its last move took it (0: none yet)
	inSight   [tiles.Stones]int64      // when each stone was last in sight on its field (0: not yet)
	jokers    map[tiles.Field]int64    // jokers seen without a stone yet
	items     []*item
	pairs     []*item // cards seen whole, lately
	unowned   []unowned
	owners    map[[2]tiles.Field]string // the owner reported for each card, by its fields
	alike     map[tiles.Field]alikeRead // frame reads of cards under a stone with nothing new
	// Unsure says what was seen but not reported (unreadable frame, no partner).
	Unsure []string
	// Styles logs the latest frame style reads (scores per style), for
	// diagnosis.
	Styles    []string
	styleHook func(piece, styleRead) // tests: every read
}

// NewWatcher returns a watcher for cfg.
func NewWatcher(cfg Config) *Watcher {
	if cfg.StableMS <= 0 {
		cfg.StableMS = 180
	}
	buildLUT()
	return &Watcher{cfg: cfg, searching: true, lastTry: -1 << 62, halves: map[tiles.Field]int64{}, jokers: map[tiles.Field]int64{},
		orphans:   map[tiles.Field]int64{},
		goneSince: map[int]int64{}, cameSince: map[tiles.Field]int64{}, glimpses: map[tiles.Field]int64{},
		overHalf: map[tiles.Field]halfSeen{}, owners: map[[2]tiles.Field]string{}, alike: map[tiles.Field]alikeRead{}}
}

// StoodOn is when the watcher last saw a stone standing on f, in plain
// sight, on this board (0: never).
func (w *Watcher) StoodOn(f tiles.Field) int64 {
	if w.board == nil || !w.on(f) {
		return 0
	}
	return w.fields[f.Y][f.X].stoodOn
}

// Awaits reports whether something seen by t is not made out yet: a
// piece waiting to be reported, a card half waiting for its other half
// (under a hand or a stone), or a stone gone from its field and not seen
// anywhere else.
func (w *Watcher) Awaits(t int64) bool {
	if slices.ContainsFunc(w.items, func(it *item) bool { return !it.done && it.seen > 0 && it.seen <= t }) {
		return true
	}
	for _, t0 := range w.halves {
		if t0 <= t {
			return true
		}
	}
	for _, t0 := range w.goneSince {
		if t0 <= t {
			return true
		}
	}
	return false
}

// SeenFree is when the watcher last saw f free, in plain sight, on this
// board (0: never): a card on it was laid after that.
func (w *Watcher) SeenFree(f tiles.Field) int64 {
	if w.board == nil || !w.on(f) {
		return 0
	}
	return w.fields[f.Y][f.X].freeAt
}

// HalfTowards reports whether a card half seen without its other half
// lies beside f, open towards it: a card whose other half a stone
// standing on f may hide.
func (w *Watcher) HalfTowards(f tiles.Field) bool {
	if w.board == nil || !w.on(f) {
		return false
	}
	for k := range int8(4) {
		p := step(f, k)
		if !w.on(p) || w.believed(p).open != sideTo(p, f) {
			continue
		}
		_, waiting := w.halves[p]
		_, orphan := w.orphans[p]
		if waiting || orphan {
			return true
		}
	}
	return false
}

// Close frees the watcher's images.
func (w *Watcher) Close() {
	if w.top != nil {
		w.top.Close()
	}
}

// Board is the board found, or nil.
func (w *Watcher) Board() *Board { return w.board }

func (w *Watcher) unsure(tMS int64, format string, args ...any) {
	w.Unsure = append(w.Unsure, fmt.Sprintf("%d ms: ", tMS)+fmt.Sprintf(format, args...))
}

// Feed takes the next frame (BGR) shown at tMS and returns what it newly
// believes. Before the markers are found it returns ErrNoMarkers; until
// the board is found, nothing. A new board (the next round's) is reported
// as a round.
func (w *Watcher) Feed(frame gocv.Mat, tMS int64) ([]tiles.Observation, error) {
	if w.top == nil {
		t, err := newTopView(frame)
		if err != nil {
			return nil, err
		}
		w.top = t
	}
	if frame.Cols() != w.top.frame.X || frame.Rows() != w.top.frame.Y || frame.Type() != gocv.MatTypeCV8UC3 || !frame.IsContinuous() {
		return nil, fmt.Errorf("vision/tiles: frame %dx%d type %v, want %dx%d BGR", frame.Cols(), frame.Rows(), frame.Type(), w.top.frame.X, w.top.frame.Y)
	}
	pix, err := frame.DataPtrUint8()
	if err != nil {
		return nil, err
	}
	w.pix = pix
	var out []tiles.Observation
	if w.board != nil {
		w.update(tMS)
		if !w.searching {
			w.resolve(tMS)
			out = w.emit(tMS)
			out = append(out, w.reread(tMS, out)...)
			w.noteOwners(out)
			if w.regressed() >= regressLimit {
				w.searching = true
			}
		} else if w.regressed() < regressLimit && w.started {
			w.searching = false // a false alarm: the board is still there
		}
	}
	if w.searching && tMS-w.lastTry >= searchEvery {
		w.lastTry = tMS
		if err := w.top.warp(frame); err != nil {
			return out, err
		}
		out = append(out, w.findBoard(tMS)...)
	}
	return out, nil
}

// findBoard looks for a board with nothing on it but the four stones; a
// new one starts a round.
func (w *Watcher) findBoard(tMS int64) []tiles.Observation {
	b, err := findBoard(w.top, len(w.cfg.Players))
	if err != nil {
		return nil
	}
	refineParts(b, w.pix, w.top.frame.X, w.top.frame.Y, w.top.inv)
	smp := newSampler(w.top.inv, w.top.frame.X, w.top.frame.Y, b)
	var stones []tiles.Field
	fields := make([][]fieldTrack, b.H)
	content := make([][]cell, b.H)
	for y := range b.H {
		fields[y] = make([]fieldTrack, b.W)
		content[y] = make([]cell, b.W)
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			l := smp.look(w.pix, f)
			if l.kind == lookHidden && smp.darkMiddle(w.pix, f) {
				// a stone set down off its field's middle: the board's
				// colour lies under it
				l = look{kind: lookStone, colour: b.Colour(f), open: -1}
			}
			if (l.kind != lookFree && l.kind != lookStone) || l.colour != b.Colour(f) {
				return nil
			}
			if l.stone() {
				stones = append(stones, f)
			}
			fields[y][x] = fieldTrack{believed: l, cand: l, candSince: tMS}
			content[y][x] = cell{kind: lookFree, colour: b.Colour(f)}
		}
	}
	if len(stones) != tiles.Stones {
		return nil
	}
	for _, it := range w.items {
		if !it.done {
			w.unsure(tMS, "a new board: %s given up", it)
		}
	}
	w.board, w.smp, w.fields, w.content = b, smp, fields, content
	copy(w.stones[:], stones)
	w.shadow = w.shadowOf(stones)
	w.searching = false
	w.roundN++
	clear(w.halves)
	clear(w.orphans)
	clear(w.jokers)
	clear(w.goneSince)
	clear(w.cameSince)
	clear(w.glimpses)
	clear(w.overHalf)
	clear(w.owners)
	clear(w.alike)
	w.arrived = [tiles.Stones]int64{}
	w.inSight = [tiles.Stones]int64{}
	w.pairs = nil
	w.items = nil
	w.unowned = nil
	var out []tiles.Observation
	if !w.started {
		w.started = true
		s := w.cfg.Settings
		out = append(out, tiles.Observation{Kind: tiles.ObsMatch, TimeMS: tMS, Players: slices.Clone(w.cfg.Players), Settings: &s, By: "camera"})
	}
	lay := b.Layout
	return append(out, tiles.Observation{Kind: tiles.ObsRound, TimeMS: tMS, Layout: &lay, Stones: stones, By: "camera"})
}

// patience says whether to give up reading an owner after a read that
// said why: a while after the first read of the piece in full view, or
// longer, while it is never in full view.
func (it *item) patience(why string, tMS int64) bool {
	if why != notInView && it.firstRead == 0 {
		it.firstRead = tMS
	}
	return it.firstRead != 0 && tMS-it.firstRead > ownerWaitMS || tMS-it.t > hiddenWaitMS
}

// otherHalf is the half of a card seen whole (a pair) that is not f.
func (it *item) otherHalf(f tiles.Field) tiles.Field {
	if it.halves[0] == f {
		return it.halves[1]
	}
	return it.halves[0]
}

func (it *item) String() string {
	if it.move {
		return fmt.Sprintf("stone %d from %v to %v", it.stone+1, it.from, it.to)
	}
	return fmt.Sprintf("card on %v-%v", it.halves[0], it.halves[1])
}

var sideStep = [4]tiles.Field{{X: 0, Y: -1}, {X: 1, Y: 0}, {X: 0, Y: 1}, {X: -1, Y: 0}}

func step(f tiles.Field, side int8) tiles.Field {
	return tiles.Field{X: f.X + sideStep[side].X, Y: f.Y + sideStep[side].Y}
}

// sideTo is the side of f that g touches, or -1.
func sideTo(f, g tiles.Field) int8 {
	for k, d := range sideStep {
		if f.X+d.X == g.X && f.Y+d.Y == g.Y {
			return int8(k)
		}
	}
	return -1
}

func (w *Watcher) on(f tiles.Field) bool {
	return f.X >= 0 && f.Y >= 0 && f.X < w.board.W && f.Y < w.board.H
}

func (w *Watcher) believed(f tiles.Field) look { return w.fields[f.Y][f.X].believed }

// expected is the look of what was reported on f.
func (w *Watcher) expected(f tiles.Field) look {
	c := w.content[f.Y][f.X]
	switch c.kind {
	case lookCard:
		return look{kind: lookCard, colour: c.colour, open: sideTo(f, c.partner)}
	case lookJoker:
		return look{kind: lookJoker, open: -1}
	}
	return look{kind: lookFree, colour: c.colour, open: -1}
}

// update classifies every field and believes the looks held long enough;
// a card half or joker that differs from what was reported there is new.
func (w *Watcher) update(tMS int64) {
	b := w.board
	for y := range b.H {
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			ft := &w.fields[y][x]
			l := w.smp.look(w.pix, f)
			w.candidate(f, l, tMS)
			switch {
			case l.stone() && ft.believed.stone():
				ft.stoodOn = tMS
			case l.kind == lookFree && ft.believed.kind == lookFree:
				ft.freeAt = tMS
			}
			if l.kind == lookHidden || l == ft.believed || tMS-ft.candSince < w.cfg.StableMS {
				continue
			}
			w.takeLook(f, l, tMS)
		}
	}
}

// takeLook believes look l on f from tMS on. A new card half keeps the
// time it was first seen while its colour stays: only its open side was
// misread a moment (a hand or a stone beside it), and which card came
// first goes by that time. So does the same half showing again after a
// stone's look over it for less than pairWaitMS (an arm, or a stone
// that stood on it a moment).
func (w *Watcher) takeLook(f tiles.Field, l look, tMS int64) {
	ft := &w.fields[f.Y][f.X]
	was := ft.believed
	t0, half := w.halves[f]
	over, wasOver := w.overHalf[f]
	ft.believed = l
	delete(w.halves, f)
	delete(w.orphans, f)
	delete(w.jokers, f)
	delete(w.overHalf, f)
	if half && l.stone() {
		w.overHalf[f] = halfSeen{look: was, t0: t0, over: tMS}
	}
	switch {
	case l.kind == lookCard && l != w.expected(f):
		w.halves[f] = tMS
		switch {
		case half && was.kind == lookCard && was.colour == l.colour:
			w.halves[f] = t0
		case wasOver && was.stone() && over.look == l && tMS-over.over < pairWaitMS:
			w.halves[f] = over.t0 // the same half again, after a stone or an arm over it
		}
	case l.kind == lookJoker && w.content[f.Y][f.X].kind != lookJoker:
		w.jokers[f] = tMS
	}
}

// halfSeen is a card half's look, when it first showed, and when a
// stone's look came over it.
type halfSeen struct {
	look     look
	t0, over int64
}

// glimpseMS is how long a stone must show on a field, too briefly to be
// believed there (StableMS), to count as glimpsed on it: two frames.
const glimpseMS = 120

// candidate notes look l on field f: held since it first showed, a
// stone shown too briefly to believe is glimpsed there when it goes, and
// a card half on a free field glanced at (glanced).
func (w *Watcher) candidate(f tiles.Field, l look, tMS int64) {
	ft := &w.fields[f.Y][f.X]
	if l == ft.cand {
		return
	}
	if ft.cand.stone() && !l.stone() && !ft.believed.stone() && tMS-ft.candSince >= glimpseMS {
		w.glimpses[f] = tMS
	}
	if ft.cand.kind == lookCard && ft.believed.kind == lookFree &&
		(ft.glance.colour != ft.cand.colour || ft.glanceAt < ft.freeAt || ft.candSince-ft.glanceAt > pairWaitMS) {
		ft.glance, ft.glanceAt = ft.cand, ft.candSince
	}
	ft.cand, ft.candSince = l, tMS
}

// glanced is when the card half on f, first seen at seen, first showed
// there in a glance too brief to believe (hands passing over it), since
// the field last showed free and within pairWaitMS; seen if not.
func (w *Watcher) glanced(f tiles.Field, seen int64) int64 {
	ft := &w.fields[f.Y][f.X]
	if ft.glance.colour == ft.believed.colour && ft.glanceAt > ft.freeAt && seen-ft.glanceAt <= pairWaitMS {
		return min(seen, ft.glanceAt)
	}
	return seen
}

// regressed counts the fields that show the board again where a piece
// was reported, and, when many, the fields that show another colour than
// the board's: a cleared board, or another one. (An arm in a coloured
// sleeve resting on a field or two looks like a field of another colour.)
func (w *Watcher) regressed() int {
	n, other := 0, 0
	for y := range w.board.H {
		for x := range w.board.W {
			l := w.fields[y][x].believed
			if l.kind != lookFree {
				continue
			}
			switch {
			case l.colour != w.board.colours[y][x]:
				other++
			case w.content[y][x].kind != lookFree:
				n++
			}
		}
	}
	if other >= 2*regressLimit {
		n += other
	}
	return n
}

// resolve matches stones gone with stones come, then explains each move
// by the card or joker under the stone, and pairs card halves seen whole.
func (w *Watcher) resolve(tMS int64) {
	w.matchStones(tMS)
	w.stonesBack(tMS)
	for _, it := range w.items {
		if !it.done {
			if it.move {
				w.explainMove(it, tMS)
			} else {
				w.readCard(it, tMS)
			}
		}
	}
	w.pairHalves(tMS)
	for f, t0 := range w.halves {
		if tMS-t0 > halfWaitMS && !w.otherHalfHidden(f, tMS-t0) {
			delete(w.halves, f)
			w.orphans[f] = t0
			w.unsure(tMS, "card half at %v (%v) without its other half", f, w.believed(f).colour)
		}
	}
	for f, t0 := range w.jokers {
		if tMS-t0 > pairWaitMS {
			delete(w.jokers, f)
			w.unsure(tMS, "joker at %v without a stone moved onto it", f)
		}
	}
}

// matchStones pairs the stones that left their field with the stones
// shown on new fields. A stone moves onto the card laid at it, on its
// farther colour: a pair whose card's other half (beside the new field)
// touches the stone's old field is taken at once; other pairs (onto the
// nearer colour, a dead end's relocation, a card not seen yet) wait a
// little, for the pairing that moves the stones least.
func (w *Watcher) matchStones(tMS int64) {
	var gone []int
	for i, f := range w.stones {
		if w.believed(f).stone() {
			if w.fields[f.Y][f.X].cand.stone() {
				w.inSight[i] = tMS
			}
			delete(w.goneSince, i)
			continue
		}
		if _, ok := w.goneSince[i]; !ok {
			w.goneSince[i] = tMS
		}
		gone = append(gone, i)
	}
	came := w.stonesCome(tMS)
	if len(came) > len(gone) {
		gone = w.hiddenStones(gone, tMS)
	}
	left := len(gone) // the stones after these left a field now covered
	if len(gone) > 0 {
		for _, i := range w.coveredStones(gone, tMS) {
			gone, came = append(gone, i), append(came, w.stones[i])
		}
	}
	if len(gone) == 0 || len(came) == 0 {
		return
	}
	w.pairMoves(gone, came, left, tMS)
}

// stonesCome lists the fields a stone is seen on that no stone was
// followed to, once there is a new piece under it (or it has stayed
// lonelyStoneMS); a stone seen on one and gone again was glimpsed there.
func (w *Watcher) stonesCome(tMS int64) []tiles.Field {
	var came []tiles.Field
	for y := range w.board.H {
		for x := range w.board.W {
			f := tiles.Field{X: x, Y: y}
			if !w.fields[y][x].believed.stone() || slices.Contains(w.stones[:], f) {
				if _, ok := w.cameSince[f]; ok && !w.fields[y][x].believed.stone() {
					w.glimpses[f] = tMS // a stone stood there a moment, on its way
				}
				delete(w.cameSince, f)
				continue
			}
			if _, ok := w.cameSince[f]; !ok {
				w.cameSince[f] = tMS
			}
			if pr := w.pairOn(f, tMS); pr != nil && pr.stoneSeen == 0 {
				pr.stoneSeen = tMS
			}
			if !w.newPieceAt(f, tMS) {
				w.coveredAlike(f, tMS)
			}
			// A stone comes down on a new piece: with nothing new there, a
			// dark sleeve or a stone carried over may look like one for a
			// moment.
			if !w.newPieceAt(f, tMS) && tMS-w.cameSince[f] < lonelyStoneMS {
				continue
			}
			came = append(came, f)
		}
	}
	return w.oneStoneACard(came, tMS)
}

// oneStoneACard drops from came a field whose new card's other half came
// earlier: a stone comes down on one half of a new card, so the later
// look is a hand or a sleeve over the card's other half.
func (w *Watcher) oneStoneACard(came []tiles.Field, tMS int64) []tiles.Field {
	if len(came) < 2 {
		return came
	}
	other := func(f tiles.Field) (tiles.Field, bool) {
		if p, ok := w.partnerHalf(f); ok {
			return p, true
		}
		if pr := w.pairOn(f, tMS); pr != nil {
			return pr.otherHalf(f), true
		}
		return tiles.Field{}, false
	}
	var out []tiles.Field
	for _, f := range came {
		if p, ok := other(f); ok && slices.Contains(came, p) && w.cameSince[p] < w.cameSince[f] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// pairMoves pairs the stones gone with the fields come at the least cost,
// and makes the moves that need not wait; the stones of gone from left on
// are covered (coveredStones), their fields among came.
func (w *Watcher) pairMoves(gone []int, came []tiles.Field, left int, tMS int64) {
	c, weight := make([][]int, len(gone)), make([][]int, len(gone))
	for i, s := range gone {
		c[i], weight[i] = make([]int, len(came)), make([]int, len(came))
		for j, f := range came {
			if w.seenHomeSince(s, f) {
				c[i][j], weight[i][j] = notThisStone, notThisStone
				continue
			}
			cost, wrong := w.moveCost(s, f, tMS)
			c[i][j], weight[i][j] = cost, cost
			if wrong {
				weight[i][j] += wrongWeight
			}
		}
	}
	wait := int64(700)
	if len(gone) != len(came) {
		wait = 1500
	}
	pairs := cheapest(weight)
	// a covered stone's move is reported before the move onto its field
	covered := func(pr [2]int) int {
		if pr[0] >= left {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(pairs, func(x, y [2]int) int { return cmp.Compare(covered(x), covered(y)) })
	for _, pr := range pairs {
		i, f := gone[pr[0]], came[pr[1]]
		if covered(pr) == 0 && c[pr[0]][pr[1]] > 1 || c[pr[0]][pr[1]] == notThisStone {
			continue // only onto a card by the rules, or by one wrong step
		}
		sure := c[pr[0]][pr[1]] == 0 && w.oneStoneBeside(f) && !w.otherCardBeside(w.stones[i], f, tMS)
		if !sure && (tMS-w.cameSince[f] < wait || tMS-w.goneSince[i] < wait) || slices.Contains(w.stones[:], f) {
			continue // (onto a covered stone's field only once it has left)
		}
		it := &item{t: tMS, move: true, stone: i, from: w.stones[i], to: f, came: w.cameSince[f]}
		if !w.believed(it.from).stone() {
			it.left = w.goneSince[i] // (not a stone hidden or covered there)
		}
		w.items = append(w.items, it)
		if a := w.stones[i]; w.believed(a).stone() && !slices.Contains(came, a) {
			// hidden since it left: what was reported there shows again
			w.fields[a.Y][a.X].believed = w.expected(a)
		}
		w.stones[i] = f
		w.inSight[i] = tMS
		w.arrived[i] = max(w.cameSince[f], 1)
		delete(w.goneSince, i)
		delete(w.cameSince, f)
	}
}

// notThisStone is the cost of a pairing that cannot be (seenHomeSince).
const notThisStone = 1 << 20

// seenHomeSince reports whether stone i was in sight on its field after
// f last showed a stone (a stone lifted shows in neither place): what is
// believed there is not stone i, or not yet (an arm in a dark sleeve
// over the field, kept believed while hands hide it). A stone that came
// there shows again in the next frame that reads the field.
func (w *Watcher) seenHomeSince(i int, f tiles.Field) bool {
	return max(w.fields[f.Y][f.X].stoodOn, w.cameSince[f]) < w.inSight[i]
}

// hiddenStones adds to gone the stones whose field has shown nothing
// readable for a while (hiddenGoneMS): a stone seen coming down on a new
// piece elsewhere, with none seen leaving, may have left a field that
// cannot be read without it (a card half over the gap between two board
// parts).
func (w *Watcher) hiddenStones(gone []int, tMS int64) []int {
	for i, f := range w.stones {
		ft := w.fields[f.Y][f.X]
		if ft.believed.stone() && ft.cand.kind == lookHidden && tMS-ft.candSince >= hiddenGoneMS {
			if _, ok := w.goneSince[i]; !ok {
				w.goneSince[i] = ft.candSince
			}
			gone = append(gone, i)
		}
	}
	return gone
}

// coveredStones lists the stones, none of gone, whose field a new card
// half opens towards, when none of them could have come back there
// (stonesBack) but a stone of gone could have gone onto that card by the
// rules: the card lies under that stone, and the one seen there all
// along left it unseen (a stone leaves a field, a card is laid over it
// and another stone set on it, all under hands). Each then left its field
// and another stone came onto it: matchStones pairs them.
func (w *Watcher) coveredStones(gone []int, tMS int64) []int {
	var out []int
	for i, s := range w.stones {
		if slices.Contains(gone, i) || !w.believed(s).stone() || w.moving(i) {
			continue
		}
		h, ok := w.partnerHalf(s)
		if !ok || tMS-w.halves[h] < viaSettleMS || w.arrived[i] != 0 && w.halves[h] < w.arrived[i]+pairWaitMS {
			continue // (a half seen with the stone's own move is its card's)
		}
		if vias, ok := w.findVias(s, h, s, w.halves[h], 0, tMS, nil); ok && len(vias) > 0 {
			continue // it came back (stonesBack)
		}
		if slices.ContainsFunc(gone, func(j int) bool { c, _ := w.moveCost(j, s, tMS); return c == 0 }) {
			if _, ok := w.goneSince[i]; !ok {
				w.goneSince[i] = w.halves[h]
			}
			out = append(out, i)
		}
	}
	return out
}

// moveCost is how unlikely stone i's move onto f is: 0 by the rules,
// 1 a wrong move or play, more for a relocation (T3b). wrong tells a
// move the rules forbid: a wrong step, or a stone not blocked relocated.
func (w *Watcher) moveCost(i int, f tiles.Field, tMS int64) (cost int, wrong bool) {
	a := w.stones[i]
	if a == f {
		return 1000, false // a covered stone (coveredStones) left its field
	}
	var left int64 // when it may have left: when its card showed
	if p, ok := w.partnerHalf(f); ok {
		switch {
		case touch(a, p):
			return 0, false // onto the card's farther colour (T3a)
		case touch(a, f):
			return 1, true // onto its nearer colour: a wrong move, likelier not
		}
		v, ok := w.findVias(a, p, f, w.cardSeenAt(p, f, tMS), w.cameSince[f], tMS, nil)
		if ok && len(v) > 0 && !v[0].reloc {
			n := irregular(v)
			if touch(v[len(v)-1].at, f) {
				n++ // on from the last stop onto the nearer colour
			}
			return min(n, 1), n > 0 // a way by the rules is likelier
		}
		if ok && len(v) > 0 {
			left = v[0].first // relocated onto the way's first card, and on by the rules
		}
		if corner(a, p) || corner(a, f) {
			return 1, true // a card meeting the stone's field at a corner: a wrong play (T2d)
		}
	}
	// A stone moving onto a card away from its field relocates (T3b):
	// it was blocked, and it is taken up as soon as the card is down.
	if left == 0 {
		left = w.cardSeen(f, tMS)
	}
	c := 1 + int(w.leftLag(i, left+100)/50)
	if !w.blocked(a) || w.cardLaidAt(i, tMS) {
		return c + 10, true
	}
	return c, false
}

// cardLaidAt reports whether a card seen whole lately, since stone i
// stood on its field, lies beside that field, with no other stone paired
// to it or standing on it: the stone had a legal place by it, and was not
// blocked, though the card fills that place now.
func (w *Watcher) cardLaidAt(i int, tMS int64) bool {
	a := w.stones[i]
	other := func(f tiles.Field) bool {
		k := slices.Index(w.stones[:], f)
		return k >= 0 && k != i
	}
	return slices.ContainsFunc(w.pairs, func(pr *item) bool {
		return pr.seen >= w.arrived[i] && tMS-pr.t <= recentMS && (pr.pairStone == 0 || pr.pairStone == i+1) &&
			(touch(pr.halves[0], a) || touch(pr.halves[1], a)) && !other(pr.halves[0]) && !other(pr.halves[1])
	})
}

// wrongWeight weighs a move the rules forbid, in pairing stones gone
// with stones come, above a relocation's lag of up to 5 s: stones that
// each moved by the rules are likelier than one wrong step that fits
// the timing better.
const wrongWeight = 100

// leftLag is how far t lies from when stone i may have left its field:
// after it was last in sight there (a hand may have hidden it since),
// and no later than it was seen gone.
func (w *Watcher) leftLag(i int, t int64) int64 {
	hi := w.goneSince[i]
	lo := hi
	if w.inSight[i] > 0 {
		lo = min(w.inSight[i], hi)
	}
	switch {
	case t < lo:
		return lo - t
	case t > hi:
		return t - hi
	}
	return 0
}

// stonesBack finds stones that left their field and came back to it
// unseen: a new card half open towards a stone's field has its other
// half under the stone, which went there over cards laid at it (a way
// findVias finds) too fast for the camera to see it gone.
func (w *Watcher) stonesBack(tMS int64) {
	keys := make([]tiles.Field, 0, len(w.halves))
	for f, t0 := range w.halves {
		if tMS-t0 >= viaSettleMS && w.believed(f).open >= 0 {
			keys = append(keys, f)
		}
	}
	slices.SortFunc(keys, fieldOrder)
	for _, f := range keys {
		s := step(f, w.believed(f).open)
		i := slices.Index(w.stones[:], s)
		if i < 0 || !w.believed(s).stone() || w.believed(s).colour == 0 || w.moving(i) {
			continue
		}
		if vias, ok := w.findVias(s, f, s, w.halves[f], 0, tMS, nil); !ok || len(vias) == 0 {
			continue
		}
		w.items = append(w.items, &item{t: tMS, move: true, stone: i, from: s, to: s})
		w.arrived[i] = tMS
	}
}

// moving reports whether stone i has a move not reported yet.
func (w *Watcher) moving(i int) bool {
	for _, it := range w.items {
		if it.move && it.stone == i && !it.done {
			return true
		}
	}
	return false
}

// cardSeenAt is when the card on p and to was first seen: the card seen
// whole, or a half of it still new, or else now.
func (w *Watcher) cardSeenAt(p, to tiles.Field, tMS int64) int64 {
	for _, f := range []tiles.Field{p, to} {
		if pr := w.pairOn(f, tMS); pr != nil {
			return pr.t
		}
	}
	t := tMS
	for _, f := range []tiles.Field{p, to} {
		if h, ok := w.halves[f]; ok {
			t = min(t, h)
		}
	}
	return t
}

// cardSeen is when the card under a stone on f was first seen: the card
// seen whole, or its other half, or else the stone itself.
func (w *Watcher) cardSeen(f tiles.Field, tMS int64) int64 {
	if pr := w.pairOn(f, tMS); pr != nil {
		return pr.t
	}
	if p, ok := w.partnerHalf(f); ok {
		return w.halves[p]
	}
	return w.cameSince[f] - 600
}

// oneStoneBeside reports whether the card under a stone come onto f (the
// new half beside it) touches the field of one stone only: else another
// stone, not seen leaving yet, may be the one laid at.
func (w *Watcher) oneStoneBeside(f tiles.Field) bool {
	p, ok := w.partnerHalf(f)
	if !ok {
		return false
	}
	n := 0
	for _, s := range w.stones {
		if touch(s, p) || touch(s, f) {
			n++
		}
	}
	return n == 1
}

// otherCardBeside reports whether a new card other than the one under a
// stone come onto f (a half not paired yet, or a card seen whole lately
// that no stone came onto) touches field s: the stone that left s may be
// on its way there, not yet seen.
func (w *Watcher) otherCardBeside(s, f tiles.Field, tMS int64) bool {
	p, _ := w.partnerHalf(f)
	for h := range w.halves {
		if h != p && h != f && touch(s, h) {
			return true
		}
	}
	for _, pr := range w.pairs {
		if tMS-pr.t <= recentMS && pr.pairStone == 0 && !slices.Contains(pr.halves[:], f) && (touch(s, pr.halves[0]) || touch(s, pr.halves[1])) {
			return true
		}
	}
	return false
}

// newPieceAt reports whether a stone on f stands on something new: a
// joker under it, a new card half beside it open towards it, or a card
// seen whole lately.
func (w *Watcher) newPieceAt(f tiles.Field, tMS int64) bool {
	if l := w.believed(f); l.stone() && l.joker {
		return true
	}
	if _, ok := w.partnerHalf(f); ok {
		return true
	}
	return w.pairOn(f, tMS) != nil
}

// cheapest pairs rows with columns of cost matrix c (as many pairs as the
// smaller side has), at the least total cost: every way is tried (at
// most 4 stones).
func cheapest(c [][]int) [][2]int {
	rows, cols := len(c), len(c[0])
	n := min(rows, cols)
	var best [][2]int
	bestCost := 1 << 30
	cur := make([][2]int, 0, n)
	usedC := make([]bool, cols)
	var rec func(r, sum int)
	rec = func(r, sum int) {
		if sum >= bestCost {
			return
		}
		if len(cur) == n {
			best, bestCost = slices.Clone(cur), sum
			return
		}
		if r == rows {
			return
		}
		if rows-r > n-len(cur) { // row r may stay unpaired
			rec(r+1, sum)
		}
		for j := range cols {
			if !usedC[j] {
				usedC[j] = true
				cur = append(cur, [2]int{r, j})
				rec(r+1, sum+c[r][j])
				cur = cur[:len(cur)-1]
				usedC[j] = false
			}
		}
	}
	rec(0, 0)
	return best
}

// partnerHalf is the one new card half beside f, open towards it.
func (w *Watcher) partnerHalf(f tiles.Field) (tiles.Field, bool) {
	if c := w.halfCands(f); len(c) == 1 {
		return c[0], true
	}
	return tiles.Field{}, false
}

// blocked reports whether no card fits next to the stone on s, as far as
// the reported pieces say: no free field beside it with a free neighbour
// of another colour (T3b).
func (w *Watcher) blocked(s tiles.Field) bool {
	free := func(f tiles.Field) bool {
		return w.on(f) && w.content[f.Y][f.X].kind == lookFree && !slices.Contains(w.stones[:], f)
	}
	for k := range int8(4) {
		a := step(s, k)
		if !free(a) {
			continue
		}
		for j := range int8(4) {
			if b := step(a, j); free(b) && w.board.colours[a.Y][a.X] != w.board.colours[b.Y][b.X] {
				return false
			}
		}
	}
	return true
}

// fieldOrder orders fields row by row: map keys in a fixed order.
func fieldOrder(a, b tiles.Field) int { return (a.Y-b.Y)*100 + a.X - b.X }

// after reports whether item x comes after item it in the queue.
func (w *Watcher) after(x, it *item) bool {
	i, j := slices.Index(w.items, x), slices.Index(w.items, it)
	return i >= 0 && j >= 0 && i > j
}

// touch reports whether fields a and b share an edge.
func touch(a, b tiles.Field) bool { return abs(a.X-b.X)+abs(a.Y-b.Y) == 1 }

// corner reports whether fields a and b meet at a corner only.
func corner(a, b tiles.Field) bool { return abs(a.X-b.X) == 1 && abs(a.Y-b.Y) == 1 }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// explainMove finds what the stone moved onto: a joker under it, or a
// card whose other half lies beside it, open towards it.
func (w *Watcher) explainMove(it *item, tMS int64) {
	stoneObs := tiles.Observation{Kind: tiles.ObsStone, TimeMS: tMS, Stone: it.stone + 1, Fields: []tiles.Field{it.to}, By: "camera"}
	if it.jokerAt == nil && it.half == nil && it.pairCard == nil {
		b := w.believed(it.to)
		cands := w.halfCands(it.to)
		g, over := w.overCard(it.to)
		switch {
		case b.stone() && b.joker:
			j := it.to
			it.jokerAt = &j
			it.seen = it.t
			if t0, ok := w.jokers[j]; ok {
				it.seen = t0
			}
			delete(w.jokers, j)
			w.content[j.Y][j.X] = cell{kind: lookJoker}
		case len(cands) == 1 && b.stone() && b.colour != 0:
			// claimed: the card's halves are no longer new, whatever the
			// stone does next
			p := cands[0]
			it.half = &p
			it.seen = w.halves[p]
			it.colours = [2]tiles.Colour{w.believed(p).colour, b.colour}
			delete(w.halves, p)
			w.content[p.Y][p.X] = cell{kind: lookCard, colour: it.colours[0], partner: it.to}
			w.content[it.to.Y][it.to.X] = cell{kind: lookCard, colour: it.colours[1], partner: p}
		case len(cands) > 1:
			w.giveUp(it, tMS, stoneObs, "stone %d onto %v: %d card halves beside it", it.stone+1, it.to, len(cands))
			return
		case w.pairOn(it.to, tMS) != nil && b.stone():
			// a card seen whole before its stone came: the stone's card
			pr := w.pairOn(it.to, tMS)
			pr.pairStone = it.stone + 1
			it.seen = pr.t
			other := pr.otherHalf(it.to)
			it.pairCard = &other
		case tMS-it.t > pairWaitMS && over:
			// the stone's card came down on a card (T2c), so its half
			// beside the stone's field showed nothing new; the half the
			// stone stood on shows now that it has gone on
			it.half = &g
			it.seen = cmp.Or(it.came, it.t)
			it.colours = [2]tiles.Colour{w.believed(g).colour, b.colour}
			delete(w.halves, it.to)
			w.content[it.to.Y][it.to.X] = cell{kind: lookCard, colour: b.colour, partner: g}
			w.unsure(tMS, "stone %d onto %v, gone on: its card's half on %v came down on a card of its colour", it.stone+1, it.to, g)
		case tMS-it.t > pairWaitMS && (w.stones[it.stone] != it.to || !b.stone()):
			// gone again: a dark sleeve over the field's middle, taken for
			// the stone a hand had lifted
			it.move = false
			w.giveUp(it, tMS, stoneObs, "stone %d onto %v and gone again, with no card half beside it: not a stone", it.stone+1, it.to)
			return
		case tMS-it.t > pairWaitMS:
			w.giveUp(it, tMS, stoneObs, "stone %d onto %v (under it %v, joker %v): no card half beside it", it.stone+1, it.to, b.colour, b.joker)
			return
		default:
			return
		}
	}
	if it.pairCard != nil {
		pre, ok := w.viaCard(it, *it.pairCard, tMS)
		if !ok {
			return
		}
		it.obs, it.done = append(pre, stoneObs), true
		return
	}
	if tMS < it.nextRead {
		return
	}
	it.nextRead = tMS + readEveryMS
	if it.jokerAt != nil {
		w.readJoker(it, tMS, stoneObs)
		return
	}
	p := *it.half
	if !it.via {
		pre, ok := w.viaCard(it, p, tMS)
		if !ok {
			return
		}
		it.pre, it.via = pre, true
	}
	var mask *tiles.Field
	if w.believed(it.to).stone() {
		mask = &it.to
	}
	o, why := w.owner(w.cardPiece(p, it.to), mask, p, it.to)
	if o == "" {
		if !it.patience(why, tMS) {
			return
		}
		// Its frame unclear, or never in full view: on the board for
		// nobody, on the fields its halves showed (a card inferred from
		// the stone's move alone may be put elsewhere), and read again
		// later (reread).
		w.unsure(tMS, "card at %v-%v: owner unsure (%s): reported without an owner", p, it.to, why)
	}
	it.obs = append(it.pre, tiles.Observation{Kind: tiles.ObsLay, TimeMS: tMS, SeenMS: it.seen, Player: o, Fields: []tiles.Field{p, it.to},
		Colours: it.colours[:], Stone: it.stone + 1, By: "camera"}, stoneObs)
	it.done = true
}

// overCard finds the other half of the card a stone stood on and left,
// when that half came down on a card half of its colour, opening the same
// way (T2c), and so showed nothing new: the new half on to opens towards
// g, a card field that shows just what it showed before.
func (w *Watcher) overCard(to tiles.Field) (g tiles.Field, ok bool) {
	b := w.believed(to)
	if b.kind != lookCard || b.colour == 0 || b.open < 0 || b == w.expected(to) {
		return g, false
	}
	g = step(to, b.open)
	if !w.on(g) || w.content[g.Y][g.X].kind != lookCard {
		return g, false
	}
	_, isNew := w.halves[g]
	lg := w.believed(g)
	return g, !isNew && lg == w.expected(g) && lg.open == sideTo(g, to)
}

// halfHiddenMS is how long a card half waits for its other half while
// the field it opens towards cannot be read, or shows a stone matched to
// no move: the other half may lie under a hand, or under the card's stone
// the camera has not followed there yet. A half open towards it that is
// not believed yet may be it.
const halfHiddenMS = 12000

// otherHalfHidden reports whether the card half on f, waiting since waited
// ms, may still see its other half (halfHiddenMS).
func (w *Watcher) otherHalfHidden(f tiles.Field, waited int64) bool {
	o := w.believed(f).open
	if o < 0 || waited > halfHiddenMS {
		return false
	}
	g := step(f, o)
	if !w.on(g) {
		return false
	}
	ft := w.fields[g.Y][g.X]
	switch {
	case ft.believed.stone():
		return !slices.Contains(w.stones[:], g)
	case ft.cand.kind == lookCard:
		return ft.cand.open == sideTo(g, f) // coming into sight
	}
	return ft.cand.kind == lookHidden || ft.cand.stone()
}

// halfCands lists the new card halves beside f, open towards it.
func (w *Watcher) halfCands(f tiles.Field) []tiles.Field {
	var cands []tiles.Field
	for k := range int8(4) {
		p := step(f, k)
		if _, ok := w.halves[p]; ok && w.on(p) && w.believed(p).open == sideTo(p, f) {
			cands = append(cands, p)
		}
	}
	return cands
}

// via is a piece a stone stood on unseen: a card (or a joker on card[0])
// and the field the stone stood on.
type via struct {
	card    [2]tiles.Field
	at      tiles.Field
	pending bool // not reported yet
	joker   bool
	pair    *item // a card seen whole
	reloc   bool  // a card away from the stone's field: it relocated the stone
	covered bool  // only card[0] was seen: the new card covers card[1] (T2c)
	nearer  bool  // the stone went onto the card's nearer colour (a wrong move)
	// the next card met the stone's field here at a corner only (T2d)
	cornered bool
	// this card met the field the stone left at a corner only (T2d)
	atCorner bool
	wrong    bool // its colours are not its fields' (T2a)
	// the wrong step was taken to be here, though a way as good puts it
	// elsewhere (pickWay)
	doubt bool
	t     int64 // when it was seen whole
	first int64 // when a half of it was first seen
	shown int64 // when a half of it first showed, if only in a glance (0: first)
}

// shownAt is when a half of piece v first showed, if only in a glance:
// which card came first goes by it.
func (v via) shownAt() int64 {
	if v.shown > 0 && v.shown < v.first {
		return v.shown
	}
	return v.first
}

// maxVias is the most pieces a stone is taken to have stood on unseen
// between two sightings.
const maxVias = 4

// findVias finds the pieces a stone leaving field a for the card on p and
// to (first seen at seen) stood on unseen, in order: pieces seen whole
// (no stone on them) just before, each beside the field the stone stood on before it (or, for a
// card that does not touch a, anywhere: it relocated the stone, T3b), the
// stone on its field beside the next piece (on its farther colour, T3a,
// if both are), the last one beside this card. It returns the one such
// way, the longest if several differ in length; false when the ways found
// are not one. A stone seen on to since came (0: not yet) stood on no
// piece another stone was first seen on later. The way is for move it,
// to report (nil: to weigh a pairing).
func (w *Watcher) findVias(a, p, to tiles.Field, seen, came, tMS int64, it *item) ([]via, bool) {
	at := tMS
	if it != nil {
		at = min(at, it.t) // a move waiting to report keeps the pieces it had
	}
	pieces := w.coveredPieces(w.viaPieces(came, at), p, to, it, seen, tMS)
	for k := range pieces {
		pieces[k].wrong = w.wrongPiece(pieces[k])
	}
	plain := waysFrom(pieces, a, p, to, seen, false, w.glimpsed)
	ways := w.agreeing(plain)
	// a card on fields of other colours past the first stop is T2a,
	// unless the stop before it met it at a corner only (T2d): one call
	wrongVia := slices.ContainsFunc(ways, func(wy []via) bool {
		return slices.ContainsFunc(wy[1:], func(v via) bool { return v.wrong })
	})
	// the stone may have been seen where only a wrong play (T2d) puts it;
	// and a card on fields of other colours is wrong wherever it was
	// laid, beside the stone's field (T2a) or at its corner (T2d), so a
	// way to its corner costs no more (pickWay)
	wrong := w.wrongColours(p, to)
	if len(ways) == 0 || wrong || wrongVia {
		cornered := waysFrom(pieces, a, p, to, seen, true, w.glimpsed)
		if len(plain) == 0 && w.otherStoneMoving(a) {
			// the relocating card may be that stone's (T3b), and this
			// card a relocation too
			cornered = slices.DeleteFunc(cornered, func(wy []via) bool { return wy[0].reloc })
		}
		if c := w.agreeing(cornered); len(c) > 0 {
			ways = c
		} else if len(ways) == 0 {
			ways = plain
			if len(plain) == 0 {
				ways = cornered
			}
		}
	} else if slices.ContainsFunc(ways, byNearer) {
		// a stone onto a nearer colour (T3a), then a card laid by it, is
		// as likely as the stone on the farther colour and the card met
		// at its corner (T2d): both are weighed, and the one taken is a
		// guess (pickWay)
		longest := len(slices.MaxFunc(ways, func(x, y []via) int { return cmp.Compare(len(x), len(y)) }))
		for _, wy := range w.agreeing(waysFrom(pieces, a, p, to, seen, true, w.glimpsed)) {
			if len(wy) <= longest && slices.ContainsFunc(wy, byCorner) {
				ways = append(ways, wy)
			}
		}
	}
	if it != nil && it.left > 0 {
		// the stone is put on a card once it is down: not on one whose
		// fields still showed free when its old field showed it gone, and
		// none of which had shown before (a stone held in the hand while
		// the card is laid is not followed; a half seen before it went is
		// down, whatever a shadowed look at a field read after)
		ways = slices.DeleteFunc(ways, func(wy []via) bool {
			return w.freeSince(wy[0].card, it.left) && wy[0].shownAt() > it.left
		})
	}
	if a != to && touch(a, p) && w.otherStoneMoving(a) {
		// the stone went straight onto the card's farther colour (T3a):
		// a way that needs a wrong step is likelier over another moving
		// stone's card
		ways = slices.DeleteFunc(ways, func(wy []via) bool {
			return irregular(wy) > 0 || touch(wy[len(wy)-1].at, to)
		})
	}
	// a way by a wrong step (a nearer colour, a corner, on from the last
	// stop onto the nearer colour; not the relocation it may begin with)
	// over a card another moving stone reaches by the rules is not this
	// stone's: the card is that stone's. Nor is one that relocates this
	// stone first while another moving stone is blocked: the card it
	// relocates onto may be that stone's free place (T3b), and this card
	// a relocation straight from a.
	wrongStep := func(wy []via) bool {
		return touch(wy[len(wy)-1].at, to) || slices.ContainsFunc(wy, func(v via) bool { return v.nearer || byCorner(v) })
	}
	if slices.ContainsFunc(ways, wrongStep) {
		others := w.othersFrom(a, to)
		ruled := w.othersWays(others, pieces)
		otherBlocked := slices.ContainsFunc(others, w.blocked)
		ways = slices.DeleteFunc(ways, func(wy []via) bool {
			return wrongStep(wy) && (otherBlocked && wy[0].reloc || slices.ContainsFunc(wy, func(v via) bool { return ruled[v.card] }))
		})
	}
	return pickWay(ways, p, to, wrong)
}

// freeSince reports whether a field of card showed free at t or later.
func (w *Watcher) freeSince(card [2]tiles.Field, t int64) bool {
	return slices.ContainsFunc(card[:], func(f tiles.Field) bool { return w.fields[f.Y][f.X].freeAt >= t })
}

// othersWays lists the cards among pieces that stones moving from the
// fields from reach by the rules: each beside the field it stood on, and
// it on the farther colour (T3a).
func (w *Watcher) othersWays(from []tiles.Field, pieces []via) map[[2]tiles.Field]bool {
	ruled := map[[2]tiles.Field]bool{}
	used := make([]bool, len(pieces))
	var walk func(cur tiles.Field, last int64, n int)
	walk = func(cur tiles.Field, last int64, n int) {
		if n == maxVias {
			return
		}
		for k, c := range pieces {
			if used[k] || c.joker || c.covered || n > 0 && c.t+500 < last {
				continue
			}
			for h, x := range c.card {
				if touch(cur, x) && !touch(cur, c.card[1-h]) {
					ruled[c.card] = true
					used[k] = true
					walk(c.card[1-h], c.t, n+1)
					used[k] = false
				}
			}
		}
	}
	for _, f := range from {
		walk(f, 0, 0)
	}
	return ruled
}

// wrongColours reports whether the card on p and to, as the watcher holds
// it, shows colours other than its fields' (T2a).
func (w *Watcher) wrongColours(p, to tiles.Field) bool {
	cp, ct := w.content[p.Y][p.X], w.content[to.Y][to.X]
	if cp.kind != lookCard || ct.kind != lookCard || cp.partner != to || ct.partner != p {
		return false
	}
	return !w.fits(p, to, cp.colour, ct.colour)
}

// fits reports whether a card of colours cp and ct fits fields p and to,
// either way round.
func (w *Watcher) fits(p, to tiles.Field, cp, ct tiles.Colour) bool {
	fp, ft := w.board.Colour(p), w.board.Colour(to)
	return cp == fp && ct == ft || cp == ft && ct == fp
}

// wrongPiece reports whether card c, seen whole, shows colours other
// than its fields' (T2a).
func (w *Watcher) wrongPiece(c via) bool {
	if c.joker || c.covered {
		return false
	}
	f, g := c.card[0], c.card[1]
	if !c.pending {
		return w.wrongColours(f, g)
	}
	lf, lg := w.believed(f), w.believed(g)
	return lf.kind == lookCard && lg.kind == lookCard && !w.fits(f, g, lf.colour, lg.colour)
}

// glimpsed reports whether a stone was glimpsed on f since.
func (w *Watcher) glimpsed(f tiles.Field, since int64) bool {
	t, ok := w.glimpses[f]
	return ok && t >= since
}

// agreeing keeps the ways that put the stone on no via card's other
// field than the one a stone was glimpsed on there, after that card came.
func (w *Watcher) agreeing(ways [][]via) [][]via {
	return slices.DeleteFunc(slices.Clone(ways), func(wy []via) bool {
		for _, v := range wy {
			for _, x := range v.card {
				if x != v.at && w.glimpsed(x, v.first) && !w.glimpsed(v.at, v.first) {
					return true
				}
			}
		}
		return false
	})
}

// othersFrom lists the fields that stones other than the one that left a
// for to left: each seen gone from its field and not yet seen anywhere
// else, or with a move whose way is not known yet. (The stone that left
// a stands on to once its move is made.)
func (w *Watcher) othersFrom(a, to tiles.Field) []tiles.Field {
	var from []tiles.Field
	for i, f := range w.stones {
		if _, gone := w.goneSince[i]; gone && f != a && f != to {
			from = append(from, f)
		}
	}
	for _, it := range w.items {
		if it.move && !it.done && it.from != a {
			from = append(from, it.from)
		}
	}
	return from
}

// otherStoneMoving reports whether a stone other than the one that left
// a has been seen gone from its field and not yet seen anywhere else, or
// has a move whose way is not known yet.
func (w *Watcher) otherStoneMoving(a tiles.Field) bool { return len(w.othersFrom(a, a)) > 0 }

// coveredPieces adds to pieces the cards the card on p and to covers: a
// new half open towards one of its fields, never paired, whose other half
// that card hid as it came down (T2c). The stone stood on the half seen,
// before the card that covers it (coveredFirst). For move it, a card on
// its way covers too, if the referee judges it after the covered card:
// one reported with the move or after it, or one reported without its
// stone (the loop holds it for its stone's move, and takes the cards of
// that move's way first). A half first seen after the card on p and to
// (seen), whose other half is under it, came before it all the same
// (hands hid it): it counts once it has shown coveredLateMS without its
// other half (one of a new card beside the cover shows it by then).
func (w *Watcher) coveredPieces(pieces []via, p, to tiles.Field, it *item, seen, tMS int64) []via {
	covering := []tiles.Field{p, to}
	for _, c := range pieces {
		if it != nil && !c.joker && (c.pair == nil || w.after(c.pair, it) || stoneless(c.pair)) {
			covering = append(covering, c.card[0], c.card[1])
		}
	}
	n := len(pieces)
	for f, t0 := range w.halves {
		if maturing(t0, seen, tMS) || w.reorienting(f, t0, tMS) {
			continue
		}
		if o := w.believed(f).open; o >= 0 && !slices.Contains(covering, f) {
			if g := step(f, o); slices.Contains(covering, g) {
				pieces = append(pieces, via{card: [2]tiles.Field{f, g}, pending: true, covered: true, t: t0, first: t0})
			}
		}
	}
	if len(pieces) > n {
		slices.SortFunc(pieces, func(x, y via) int { return int(x.t - y.t) })
	}
	return pieces
}

// coveredShowing reports whether a half open towards the card on p and
// to, first seen after it (seen), has shown less than coveredLateMS
// without its other half: it may be a card that card covers.
func (w *Watcher) coveredShowing(p, to tiles.Field, seen, tMS int64) bool {
	for f, t0 := range w.halves {
		if o := w.believed(f).open; o >= 0 && (maturing(t0, seen, tMS) || w.reorienting(f, t0, tMS)) && f != p && f != to {
			if g := step(f, o); g == p || g == to {
				return true
			}
		}
	}
	return false
}

// reorienting reports whether the new half on f, first seen at t0, shows
// the colour of the card half reported there, its open side alone
// changed, and has shown less than reorientMS: a card of that colour laid
// over it, or a hand's shadow or fingers on the half's frame, hiding one
// side and showing another open. Only the card lasts.
func (w *Watcher) reorienting(f tiles.Field, t0, tMS int64) bool {
	e, l := w.expected(f), w.believed(f)
	return tMS-t0 < reorientMS && e.kind == lookCard && l.kind == lookCard && e.colour == l.colour && e.open != l.open
}

// maturing reports whether a half first seen at t0, after the card seen
// at seen, has shown less than coveredLateMS: its other half may show yet.
func maturing(t0, seen, tMS int64) bool { return t0 > seen+500 && tMS-t0 < coveredLateMS }

// stoneless reports whether card pr went to the referee without naming
// its stone.
func stoneless(pr *item) bool {
	return len(pr.obs) > 0 && pr.obs[0].Kind == tiles.ObsLay && pr.obs[0].Stone == 0
}

// coveredFirst reports whether every covered card on way wy comes before
// the card that covers it: a later stop's card, or the card on p and to.
func coveredFirst(wy []via, p, to tiles.Field) bool {
	for i, v := range wy {
		if !v.covered {
			continue
		}
		g := v.card[1]
		if g != p && g != to && !slices.ContainsFunc(wy[i+1:], func(x via) bool { return !x.joker && (x.card[0] == g || x.card[1] == g) }) {
			return false
		}
	}
	return true
}

// viaPieces lists the pieces seen whole within recentMS before at with
// no stone come onto them, in the order seen: cards reported or pending,
// jokers pending. A card a stone was seen on only after came (the moving
// stone stood on its new field by then) had another stone on it.
func (w *Watcher) viaPieces(came, at int64) []via {
	var pieces []via
	for _, pr := range w.pairs {
		// a stone seen on it, not paired yet, came there: it is that stone's
		if at-pr.t <= recentMS && pr.pairStone == 0 && !w.believed(pr.halves[0]).stone() && !w.believed(pr.halves[1]).stone() &&
			(came == 0 || pr.stoneSeen == 0 || pr.stoneSeen <= came+overlapMS) {
			pieces = append(pieces, via{card: pr.halves, pair: pr, t: pr.t, first: pr.seen, shown: pr.glanced})
		}
	}
	for f, t0 := range w.halves {
		if g := step(f, w.believed(f).open); w.believed(f).open >= 0 && w.on(g) {
			if _, ok := w.halves[g]; ok && w.believed(g).open == sideTo(g, f) && f.Y*100+f.X < g.Y*100+g.X {
				pieces = append(pieces, via{card: [2]tiles.Field{f, g}, pending: true, t: max(t0, w.halves[g]), first: min(t0, w.halves[g])})
			} else if w.overItsCard(f, g) {
				pieces = append(pieces, via{card: [2]tiles.Field{f, g}, pending: true, t: t0, first: t0})
			}
		}
	}
	for j, t0 := range w.jokers {
		pieces = append(pieces, via{card: [2]tiles.Field{j, j}, pending: true, joker: true, t: t0, first: t0})
	}
	slices.SortFunc(pieces, func(x, y via) int { return int(x.t - y.t) })
	return pieces
}

// overItsCard reports whether the new half on f, open towards g, is a
// card laid over the card reported on f and g, field for field (T2c),
// with that card's colour on g: g shows just what it showed before, so
// only f's half is new.
func (w *Watcher) overItsCard(f, g tiles.Field) bool {
	cf, cg := w.content[f.Y][f.X], w.content[g.Y][g.X]
	_, isNew := w.halves[g]
	return !isNew && cf.kind == lookCard && cf.partner == g && cg.kind == lookCard && cg.partner == f && w.believed(g) == w.expected(g)
}

// waysFrom lists every way over pieces from field a to the card on p and
// to (first seen at seen), as findVias says; with corners, ways with a
// card met at a corner only (a wrong play, T2d) too: this card at the
// last stop, a piece on the way at the stop before it, or the first piece
// at a when the card lies beside a (not a stone back on a). A nearer
// colour a stone was glimpsed on since its card came (glimpsed, if not
// nil) is tried even when the farther one leads on; so is one when the
// farther leads on only to the stone seen on the card's nearer colour.
func waysFrom(pieces []via, a, p, to tiles.Field, seen int64, corners bool, glimpsed func(tiles.Field, int64) bool) [][]via {
	direct := touch(a, p) || touch(a, to)
	firstCorner := direct && a != to
	onCard := func(x tiles.Field) bool {
		return touch(x, p) || touch(x, to) || corners && (corner(x, p) || corner(x, to))
	}
	var ways [][]via
	var path []via
	used := make([]bool, len(pieces))
	var walk func(cur tiles.Field) bool
	walk = func(cur tiles.Field) bool {
		found := false
		for i, c := range pieces {
			if used[i] || c.card[0] == cur || c.card[1] == cur {
				continue
			}
			if outOfOrder(path, c, seen) {
				continue
			}
			c, at, nearer, cornerStep, can := stepOnto(c, cur, len(path) > 0, direct, corners && (len(path) > 0 || firstCorner))
			if !can {
				continue
			}
			if cornerStep {
				path[len(path)-1].cornered = true
			}
			used[i] = true
			for k, try := range [][]tiles.Field{at, nearer} {
				ok := false
				for _, x := range try {
					c.at, c.nearer = x, k == 1
					path = append(path, c)
					if onCard(x) && coveredFirst(path, p, to) {
						ways = append(ways, slices.Clone(path))
						if !touch(x, p) && !touch(x, to) {
							ways[len(ways)-1][len(path)-1].cornered = true
						}
						// a stop that puts the stone seen on the card's
						// nearer colour (T3a) leads on only by a wrong move
						ok = ok || !touch(x, to)
					}
					if len(path) < maxVias && walk(x) {
						ok = true
					}
					path = path[:len(path)-1]
				}
				if ok {
					found = true
					if k == 1 || glimpsed == nil || !slices.ContainsFunc(nearer, func(x tiles.Field) bool { return glimpsed(x, c.first) }) {
						break
					}
				}
			}
			if cornerStep {
				path[len(path)-1].cornered = false
			}
			used[i] = false
		}
		return found
	}
	walk(a)
	return ways
}

// stepOnto says how a stone on cur (a stop on a way if onWay) goes onto
// piece c: the stops it may take there (the farther colour, then the
// nearer), c marked a relocation (from a, only if the new card does not
// lie beside a: not direct) or not. With corners, c meeting cur at a
// corner only is a wrong play (T2d), the stone on its field away from
// cur: past the first stop, cornerStep (the stop before is marked); as
// the first, c is marked atCorner (only where the new card lies beside
// a: no relocation). False if it cannot go there.
func stepOnto(c via, cur tiles.Field, onWay, direct, corners bool) (v via, at, nearer []tiles.Field, cornerStep, ok bool) {
	near := touch(cur, c.card[0]) || touch(cur, c.card[1])
	c.reloc = !near
	if c.reloc && corners && (onWay || direct) && !c.joker && (corner(cur, c.card[0]) || corner(cur, c.card[1])) {
		c.reloc, c.atCorner = false, !onWay
		at, _ := c.stops(cur, false)
		return c, slices.DeleteFunc(at, func(x tiles.Field) bool { return corner(cur, x) }), nil, onWay, true
	}
	if c.reloc && (c.joker || direct || onWay) {
		return c, nil, nil, false, false
	}
	at, nearer = c.stops(cur, near)
	return c, at, nearer, false, true
}

// outOfOrder reports whether piece c was laid before the last piece on
// path (which the stone stood on first): seen whole before any half of
// that one showed (a hand may hide a half of it for a while); or after
// the card seen at seen: none of it showed before, not even in a glance,
// and it is not a card covered at once, which lies under a later one
// whenever its half showed (hands may hide it until then).
func outOfOrder(path []via, c via, seen int64) bool {
	return len(path) > 0 && c.t+500 < path[len(path)-1].first || c.shownAt() > seen+500 && !c.covered
}

// stops are the fields of piece c a stone from cur (near it or not) may
// have stood on: the farther colour (T3a), and the nearer only if that
// leads nowhere (a wrong move).
func (c via) stops(cur tiles.Field, near bool) (at, nearer []tiles.Field) {
	for _, x := range c.card {
		if !slices.Contains(at, x) && !(c.covered && x == c.card[1]) {
			at = append(at, x)
		}
	}
	switch {
	case c.covered && touch(cur, c.card[0]): // its seen half is the nearer colour
		at, nearer = nil, at
	case len(at) == 2 && near:
		nearer = slices.DeleteFunc(slices.Clone(at), func(x tiles.Field) bool { return !touch(cur, x) })
		at = slices.DeleteFunc(at, func(x tiles.Field) bool { return touch(cur, x) })
	}
	return at, nearer
}

// pickWay takes the one longest way; of several, those with the fewest
// steps a stone makes only when blocked or played wrongly (a relocation,
// the nearer colour, a corner), the move seen onto the card's nearer
// colour counted too, and, when wrong (the card's colours are not its
// fields'), the card judged T2a beside its stop, as is a wrong card on
// the way past its first stop; of several still, the one that takes
// the cards in the order their halves first showed, then one with a
// stop on a nearer colour over one with a corner, then the one on which
// the stone went on to the card's farther colour (T3a); false if not
// one. A way picked from several as good has its wrong stop on a
// nearer colour marked a guess (doubt).
func pickWay(ways [][]via, p, to tiles.Field, wrong bool) ([]via, bool) {
	if len(ways) == 0 {
		return nil, true
	}
	cost := func(wy []via) int {
		last := wy[len(wy)-1]
		n := irregular(wy)
		if wrong && !last.cornered {
			n++
		}
		for i, v := range wy {
			if i > 0 && v.wrong && !wy[i-1].cornered {
				n++ // called T2a too, unless met at a corner (T2d)
			}
		}
		if touch(last.at, to) {
			n++
		}
		return n
	}
	longest, fewest := 0, 1<<30
	for _, wy := range ways {
		longest = max(longest, len(wy))
	}
	for _, wy := range ways {
		if len(wy) == longest {
			fewest = min(fewest, cost(wy))
		}
	}
	var best [][]via
	for _, wy := range ways {
		if len(wy) == longest && cost(wy) == fewest {
			best = append(best, wy)
		}
	}
	tied := len(best) > 1
	if tied { // the cards in the order their halves first showed
		least := slices.MinFunc(best, func(x, y []via) int { return cmp.Compare(inversions(x), inversions(y)) })
		best = slices.DeleteFunc(best, func(wy []via) bool { return inversions(wy) > inversions(least) })
	}
	if len(best) > 1 && slices.ContainsFunc(best, byNearer) {
		// the stone onto a nearer colour (T3a) rather than a card met at
		// a corner (T2d): a guess either way
		best = slices.DeleteFunc(best, func(wy []via) bool {
			return !byNearer(wy) && slices.ContainsFunc(wy, byCorner)
		})
	}
	if len(best) > 1 { // the stone went on to this card's farther colour (T3a)
		best = slices.DeleteFunc(best, func(wy []via) bool {
			last := wy[len(wy)-1].at
			return !touch(last, p) || touch(last, to)
		})
	}
	if len(best) != 1 {
		return nil, false
	}
	way := best[0]
	if tied && fewest > 0 {
		// a way as good put the wrong step elsewhere: the camera did not
		// see which, and the call on the stop is a guess (a stop on a
		// nearer colour, T3a; a way ending at a corner calls the next
		// card, T2d, which is not marked)
		way = slices.Clone(way)
		if k := slices.IndexFunc(way, func(v via) bool { return v.nearer }); k >= 0 {
			way[k].doubt = true
		}
	}
	return way, true
}

// inversions counts the pairs of pieces on a way that a stone stood on
// before another whose half showed first.
func inversions(wy []via) int {
	n := 0
	for i, v := range wy {
		for _, u := range wy[i+1:] {
			if u.shownAt() < v.shownAt() {
				n++
			}
		}
	}
	return n
}

// byNearer reports whether a stone stops on a card's nearer colour (a
// wrong move, T3a) on way wy.
func byNearer(wy []via) bool { return slices.ContainsFunc(wy, func(v via) bool { return v.nearer }) }

// byCorner reports whether a card meets a stone's field at a corner
// only (T2d) at piece v: the next card at v's stop, or v at the stop
// before.
func byCorner(v via) bool { return v.cornered || v.atCorner }

// irregular counts the steps of a way that a stone makes only when
// blocked or played wrongly: a relocation, the nearer colour, a stop
// the next card meets at a corner, a card met at a corner; each kind
// once a stop, so a relocation met at a corner by the next card counts
// twice (a blocked stone and a wrong play).
func irregular(wy []via) int {
	n := 0
	for _, v := range wy {
		for _, b := range []bool{v.reloc, v.nearer, byCorner(v)} {
			if b {
				n++
			}
		}
	}
	return n
}

// viaCard checks the way a stone came to a new card. Every card laid at a
// stone gets the stone: cards seen whole (no stone on them) beside the
// field the stone left, just before, had the stone unseen (players at one
// stone a fraction of a second apart). It returns the stone's stops there
// (and those pieces, if not reported yet) to report first; false to wait
// for such a card when this one does not touch the field the stone left.
// A card that touches neither, with no such card, is a relocation (T3b):
// nothing to add.
func (w *Watcher) viaCard(it *item, p tiles.Field, tMS int64) ([]tiles.Observation, bool) {
	a := it.from
	if tMS-it.t < viaSettleMS { // a card just laid may not be in sight yet
		return nil, false
	}
	vias, sure := w.findVias(a, p, it.to, it.seen, it.came, tMS, it)
	switch {
	case tMS-it.t <= pairWaitMS && w.coveredShowing(p, it.to, it.seen, tMS):
		return nil, false // a half that may be a card it covers (coveredPieces)
	case !sure:
		w.unsure(tMS, "stone %d from %v to %v: more than one way it may have gone", it.stone+1, a, it.to)
		return nil, true
	case len(vias) > 0:
	case !touch(a, p) && !touch(a, it.to) && tMS-it.t <= pairWaitMS:
		return nil, false
	default:
		return nil, true
	}
	for k, v := range vias {
		if v.pair != nil && !v.pair.done && w.reportedOnWay(vias[:k], v.pair, it) {
			return nil, false // its owner read first
		}
	}
	// read every piece not reported yet first: all or (for a while) none
	owners := make([]string, len(vias))
	for i, v := range vias {
		if !v.pending {
			continue
		}
		var o, why string
		switch {
		case v.joker:
			o, why = w.owner(w.jokerPiece(v.at), nil, v.at)
		case v.covered:
			o, why = w.coveredOwner(v.card[0], v.card[1])
		default:
			o, why = w.owner(w.cardPiece(v.card[0], v.card[1]), nil, v.card[0], v.card[1])
		}
		if o == "" {
			if !it.patience(why, tMS) {
				return nil, false
			}
			w.unsure(tMS, "piece on %v: owner unsure (%s)", v.card, why)
		}
		owners[i] = o
	}
	var out []tiles.Observation
	for i, v := range vias {
		o := owners[i]
		switch {
		case v.joker:
			if o != "" {
				out = append(out, tiles.Observation{Kind: tiles.ObsJoker, TimeMS: tMS, SeenMS: v.first, Player: o, Fields: []tiles.Field{v.at}, Stone: it.stone + 1, By: "camera"})
			}
			w.content[v.at.Y][v.at.X] = cell{kind: lookJoker}
			delete(w.jokers, v.at)
		case v.covered:
			f, g := v.card[0], v.card[1]
			lf := w.believed(f)
			cg := w.coveredColour(f, g, lf.colour)
			w.unsure(tMS, "card on %v-%v: its half on %v covered at once, its colour taken as %v (it fits, if any does)", f, g, g, cg)
			if o != "" {
				out = append(out, tiles.Observation{Kind: tiles.ObsLay, TimeMS: tMS, SeenMS: v.first, Player: o, Fields: []tiles.Field{f, g},
					Colours: []tiles.Colour{lf.colour, cg}, Stone: it.stone + 1, By: "camera"})
			}
			w.content[f.Y][f.X] = cell{kind: lookCard, colour: lf.colour, partner: g}
			delete(w.halves, f)
		case v.pending:
			f, g := v.card[0], v.card[1]
			lf, lg := w.believed(f), w.believed(g)
			if o != "" {
				out = append(out, tiles.Observation{Kind: tiles.ObsLay, TimeMS: tMS, SeenMS: v.first, Player: o, Fields: []tiles.Field{f, g},
					Colours: []tiles.Colour{lf.colour, lg.colour}, Stone: it.stone + 1, By: "camera"})
			}
			w.content[f.Y][f.X] = cell{kind: lookCard, colour: lf.colour, partner: g}
			w.content[g.Y][g.X] = cell{kind: lookCard, colour: lg.colour, partner: f}
			delete(w.halves, f)
			delete(w.halves, g)
		case v.pair != nil:
			v.pair.pairStone = it.stone + 1
			if w.reportedOnWay(vias[:i], v.pair, it) {
				for _, o := range v.pair.obs {
					if o.Kind == tiles.ObsLay {
						o.Stone = it.stone + 1
					}
					out = append(out, o)
				}
				v.pair.obs = nil
			}
		}
		out = append(out, w.stop(v, it, p, tMS))
	}
	return out, true
}

// reportedOnWay reports whether card pr, a stop on the way of move it
// after the stops before, is reported with the way, before the stone's
// stop on it: it was seen whole after the move began, or held back over
// a card on the way it covered (overNewHalf).
func (w *Watcher) reportedOnWay(before []via, pr, it *item) bool {
	return w.after(pr, it) || slices.Contains(w.items, pr) && coversEarlier(before, pr)
}

// coversEarlier reports whether card pr lies over a card covered at once
// on the way before it.
func coversEarlier(before []via, pr *item) bool {
	return slices.ContainsFunc(before, func(v via) bool {
		return v.covered && slices.Contains(pr.halves[:], v.card[1])
	})
}

// stop is the stone of move it standing on via v, unseen, on its way to
// the card on p and it.to; unsure when a way as good puts its wrong step
// on that card instead (pickWay).
func (w *Watcher) stop(v via, it *item, p tiles.Field, tMS int64) tiles.Observation {
	o := tiles.Observation{Kind: tiles.ObsStone, TimeMS: tMS, Stone: it.stone + 1, Fields: []tiles.Field{v.at}, By: "camera"}
	if v.doubt {
		o.Unsure = fmt.Sprintf("the stone was not seen on the card at %v-%v: its one wrong step may have been onto the card at %v-%v instead",
			v.card[0], v.card[1], p, it.to)
		w.unsure(tMS, "%s", o.Unsure)
	}
	return o
}

// coveredColour is the colour taken for the half on g, covered at once,
// of a card whose half on f shows seen: the one that fits, g's field's;
// f's field's if the card shows g's on f (a card shows two colours: if it
// fits, it lies swapped); another when both fields show seen's, where no
// card fits (T2a either way).
func (w *Watcher) coveredColour(f, g tiles.Field, seen tiles.Colour) tiles.Colour {
	for _, c := range append([]tiles.Colour{w.board.Colour(g), w.board.Colour(f)}, referee.Colours[:]...) {
		if c != seen {
			return c
		}
	}
	return seen
}

// readJoker reads the owner of the joker the stone of it moved onto, and
// reports both when it is clear.
func (w *Watcher) readJoker(it *item, tMS int64, stoneObs tiles.Observation) {
	j := *it.jokerAt
	var o, why string
	switch l := w.believed(j); {
	case l.kind == lookJoker:
		o, why = w.owner(w.jokerPiece(j), nil, j)
	case l.stone() && l.joker:
		o, why = w.owner(w.jokerPiece(j), &j, j)
	default:
		why = "hidden"
	}
	switch {
	case o != "":
		w.reportJoker(it, o, tMS, stoneObs)
	case tMS-it.t > jokerWaitMS:
		w.giveUp(it, tMS, stoneObs, "joker at %v: owner unsure (%s)", j, why)
	}
}

func (w *Watcher) reportJoker(it *item, owner string, tMS int64, stoneObs tiles.Observation) {
	j := it.to
	if it.jokerAt != nil {
		j = *it.jokerAt
	}
	it.obs = []tiles.Observation{{Kind: tiles.ObsJoker, TimeMS: tMS, SeenMS: it.seen, Player: owner, Fields: []tiles.Field{j}, Stone: it.stone + 1, By: "camera"}, stoneObs}
	w.content[j.Y][j.X] = cell{kind: lookJoker}
	delete(w.jokers, j)
	it.done = true
}

// giveUp reports the stone's move alone (the referee must know where the
// stones stand) and says why the piece was not.
func (w *Watcher) giveUp(it *item, tMS int64, stoneObs tiles.Observation, format string, args ...any) {
	w.unsure(tMS, format, args...)
	if it.move {
		it.obs = append(it.pre, stoneObs)
	}
	it.done = true
}

// pairHalves reports two new card halves open towards each other, both
// in sight: a card laid with no stone moved onto it. A half that comes
// into sight long after its other half waited in vain (a stone or a hand
// hid it) makes a card seen late: which stone it was laid at, and where
// that stone stood, the watcher cannot tell.
func (w *Watcher) pairHalves(tMS int64) {
	keys := make([]tiles.Field, 0, len(w.halves))
	for f := range w.halves {
		keys = append(keys, f)
	}
	slices.SortFunc(keys, fieldOrder)
	for _, f := range keys {
		if _, ok := w.halves[f]; !ok {
			continue
		}
		l := w.believed(f)
		g := step(f, l.open)
		tg, ok := w.halves[g]
		t0, late := w.orphans[g]
		if !ok && !late || w.believed(g).open != sideTo(g, f) {
			continue
		}
		if late {
			tg = t0
			w.unsure(tMS, "card at %v-%v: its halves first seen %.1f s apart: reported late, its stone not judged", f, g, float64(w.halves[f]-t0)/1000)
		}
		first := min(w.halves[f], tg)
		glanced := min(w.glanced(f, w.halves[f]), w.glanced(g, tg))
		w.fields[f.Y][f.X].glanceAt, w.fields[g.Y][g.X].glanceAt = 0, 0 // used: a card over this one is new
		delete(w.halves, f)
		delete(w.halves, g)
		delete(w.orphans, g)
		it := &item{t: tMS, seen: first, late: late, halves: [2]tiles.Field{f, g}, colours: [2]tiles.Colour{l.colour, w.believed(g).colour},
			glanced: glanced}
		w.content[f.Y][f.X] = cell{kind: lookCard, colour: it.colours[0], partner: g}
		w.content[g.Y][g.X] = cell{kind: lookCard, colour: it.colours[1], partner: f}
		w.items = append(w.items, it)
		if !late { // the stone may have been and gone: no way it went is built on it
			// kept while a move seen within recentMS of it waits to report
			since := tMS
			for _, m := range w.items {
				if m.move && !m.done {
					since = min(since, m.t)
				}
			}
			w.pairs = append(slices.DeleteFunc(w.pairs, func(p *item) bool { return since-p.t > recentMS }), it)
		}
		w.readCard(it, tMS)
	}
}

// pairOn is the card seen whole lately that lies on f, if any.
func (w *Watcher) pairOn(f tiles.Field, tMS int64) *item {
	for _, p := range w.pairs {
		if tMS-p.t <= recentMS && (p.halves[0] == f || p.halves[1] == f) {
			return p
		}
	}
	return nil
}

// readCard reads the owner of a card seen whole (a stone may have come
// onto it since).
func (w *Watcher) readCard(it *item, tMS int64) {
	f, g := it.halves[0], it.halves[1]
	var mask *tiles.Field
	for _, h := range it.halves {
		switch l := w.believed(h); {
		case l.stone():
			h := h
			mask = &h
		case l.kind != lookCard:
			w.giveUp(it, tMS, tiles.Observation{}, "card at %v-%v: covered before it was read", f, g)
			return
		}
	}
	if tMS < it.nextRead {
		return
	}
	it.nextRead = tMS + readEveryMS
	o, why := w.owner(w.cardPiece(f, g), mask, f, g)
	if o == "" {
		if !it.patience(why, tMS) {
			return
		}
		if why == notInView {
			w.giveUp(it, tMS, tiles.Observation{}, "card at %v-%v: owner unsure (%s)", f, g, why)
			return
		}
		// Seen whole, its frame not clear: on the board for nobody.
		w.unsure(tMS, "card at %v-%v: owner unsure (%s): reported without an owner", f, g, why)
	}
	it.obs = []tiles.Observation{{Kind: tiles.ObsLay, TimeMS: tMS, SeenMS: it.seen, Player: o, Fields: []tiles.Field{f, g},
		Colours: it.colours[:], Stone: it.pairStone, SeenLate: it.late, By: "camera"}}
	it.done = true
}

// besideNewJoker reports whether a card seen whole lies beside a joker
// seen before it, or with it, whose stone has not come yet: the stone
// goes over the joker onto the card (T4), and the card is judged after
// the joker.
func (w *Watcher) besideNewJoker(it *item) bool {
	if it.move {
		return false
	}
	for j, t0 := range w.jokers {
		if t0 <= it.seen+500 && (touch(j, it.halves[0]) || touch(j, it.halves[1])) {
			return true
		}
	}
	return false
}

// pieceFields are the fields of an item's piece known so far (a fixed
// array: this runs every frame).
func (it *item) pieceFields() (fs [4]tiles.Field, n int) {
	if !it.move {
		return [4]tiles.Field{it.halves[0], it.halves[1]}, 2
	}
	fs[0], n = it.to, 1
	for _, f := range [...]*tiles.Field{it.half, it.pairCard, it.jokerAt} {
		if f != nil {
			fs[n] = *f
			n++
		}
	}
	return fs, n
}

// nearby reports whether the pieces of items a and b touch or meet at a
// corner.
func nearby(a, b *item) bool {
	fa, na := a.pieceFields()
	fb, nb := b.pieceFields()
	for _, f := range fa[:na] {
		if nearPiece(f, fb[:nb]) {
			return true
		}
	}
	return false
}

// seenFirstAhead puts an item before the items queued ahead of it whose
// piece lies near its own and was seen clearly later (a stone's move is
// found later when its pairing waits): a card is judged against the board
// as it was when it came down (a corner contact, T2d).
func (w *Watcher) seenFirstAhead() {
	for j := 1; j < len(w.items); j++ {
		it := w.items[j]
		if it.seen == 0 {
			continue
		}
		for i := range j {
			if x := w.items[i]; x.seen > it.seen+seenAheadMS && nearby(x, it) {
				copy(w.items[i+1:j+1], w.items[i:j])
				w.items[i] = it
				break
			}
		}
	}
}

// emit returns the observations of the items done, in the order seen: an
// item still being read, a card beside a joker awaiting its stone, a card
// near a half seen clearly earlier and not paired yet, or a card over a
// new half it may have covered at once, holds back those after it.
func (w *Watcher) emit(tMS int64) []tiles.Observation {
	var out []tiles.Observation
	n := 0
	w.seenFirstAhead()
	for _, it := range w.items {
		if !it.done || w.besideNewJoker(it) || w.besideEarlierHalf(it) || w.overNewHalf(it, tMS) {
			break
		}
		out = append(out, it.obs...)
		n++
	}
	for i := range out {
		out[i].TimeMS = tMS
	}
	w.items = w.items[n:]
	return out
}

// besideEarlierHalf reports whether card it, seen whole with no stone's
// move paired to it, lies near a new card half seen clearly earlier and
// not paired yet, whose card may lie by a stone where it stands: that
// card came down first and goes first (a card judged before the one its
// stone went over first is called wrong). A half that cannot be by a
// stone's field was laid where a stone went since, maybe over this card;
// one open towards this card lost its other half under it (T2c) and never
// pairs.
func (w *Watcher) besideEarlierHalf(it *item) bool {
	if it.move || it.seen == 0 || it.pairStone != 0 {
		return false
	}
	for f, t0 := range w.halves {
		if t0+seenAheadMS >= it.seen || !nearPiece(f, it.halves[:]) {
			continue
		}
		if o := w.believed(f).open; o >= 0 && slices.Contains(it.halves[:], step(f, o)) {
			continue
		}
		if slices.ContainsFunc(w.stones[:], func(s tiles.Field) bool { return abs(f.X-s.X)+abs(f.Y-s.Y) <= 2 }) {
			return true
		}
	}
	return false
}

// overNewHalf reports whether card it, seen whole with no stone's move
// paired to it, lies over the other half of a new card half, open
// towards it, that showed with it or soon after: a card it covered at
// once (T2c), laid before it. That card goes first; a stone's way over
// both reports them in order (viaCard), within coveredHoldMS.
func (w *Watcher) overNewHalf(it *item, tMS int64) bool {
	if it.move || it.seen == 0 || it.pairStone != 0 || it.late || tMS-it.t > coveredHoldMS {
		return false
	}
	for f, t0 := range w.halves {
		if t0 < it.seen-seenAheadMS || t0 > it.seen+coveredLateMS {
			continue
		}
		if o := w.believed(f).open; o >= 0 && slices.Contains(it.halves[:], step(f, o)) {
			return true
		}
	}
	return false
}

// coveredHoldMS is how long a card seen whole is held back while a card
// it may have covered at once waits for the stone's way over both.
const coveredHoldMS = 3000

// nearPiece reports whether f touches or meets at a corner one of fs.
func nearPiece(f tiles.Field, fs []tiles.Field) bool {
	return slices.ContainsFunc(fs, func(g tiles.Field) bool { return abs(f.X-g.X) <= 1 && abs(f.Y-g.Y) <= 1 })
}
