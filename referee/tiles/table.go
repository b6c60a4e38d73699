package tiles

import (
	"fmt"
	"maps"
	"slices"
)

// PieceKind says what lies on a field.
type PieceKind string

// What a field can hold besides the board's colour.
const (
	PieceCard  PieceKind = "card"
	PieceJoker PieceKind = "joker"
)

// Piece is what lies on one field: half of a card, or a joker.
type Piece struct {
	Kind   PieceKind `json:"kind"`
	Owner  string    `json:"owner"`
	Card   int       `json:"card,omitempty"`   // the card's ID, if known
	Colour Colour    `json:"colour,omitempty"` // the card half's colour; none on a joker
	Seq    int       `json:"seq"`              // 1 for the round's first piece, and so on
}

// Lay is a card put on the board: the colours of its halves as they lie
// on Fields. Stone (1..4) is the stone it is laid at; 0 lets the table
// choose the stone next to it.
type Lay struct {
	Player  string    `json:"player"`
	Card    int       `json:"card,omitempty"`
	Fields  [2]Field  `json:"fields"`
	Colours [2]Colour `json:"colours"`
	Stone   int       `json:"stone,omitempty"`
}

// Judgement is the table's view of a lay: the stone it belongs to (1..4,
// 0 for none), whether it relocates a blocked stone (T3b), where that
// stone must go, and the first rule it breaks, if any.
type Judgement struct {
	Stone     int  `json:"stone,omitempty"`
	Relocates bool `json:"relocates,omitempty"`
	// Misplaced: the card was laid at Stone (the camera saw it move onto
	// it), which stood elsewhere than the table has it: a card laid at it
	// was missed. Either field will do for its move, as for a relocation.
	Misplaced bool       `json:"misplaced,omitempty"`
	StoneTo   Field      `json:"stone_to"` // the farther field (T3a); for a relocation, either field will do
	Violation *Violation `json:"violation,omitempty"`
}

// StoneView is a Ligretto stone as seen from above, with the duties on it.
type StoneView struct {
	At Field `json:"at"`
	// Owed names the player who blocked the stone (T3b, T3c) and must
	// relocate it with their next card.
	Owed string `json:"owed,omitempty"`
	// Reserved names the player whose joker the stone stands on (T4a).
	Reserved string `json:"reserved,omitempty"`
}

// pending is a lay or joker whose stone has not moved yet.
type pending struct {
	player    string
	fields    []Field
	to        Field
	relocates bool
	joker     bool
	named     bool // laid naming its stone
	wrong     bool // judged a wrong play
}

// Table is the board with what lies on it and the four stones: the state
// both models share, and the one place where T2-T4 are decided. It is not
// safe for concurrent use.
type Table struct {
	board   *Board
	strict  bool // T2e: a swapped card is a fault
	pieces  []Piece
	stones  [Stones]StoneView
	pending [Stones]*pending
	joker   map[string]int // the stone (1..4) a player must lay at next, after their joker (T4b)
	laid    map[string]int
	jokers  map[string]int
	faults  map[string][]Violation
	// unownedFaults are the faults of cards laid for nobody (their frames not
	// read), by Seq: charged to whoever they turn out to be (own).
	unownedFaults map[int]Violation
	// relocatedOnto is, per stone, the relocating card it stands on (or a
	// card named for it where it did not stand, which takes it the same
	// way) while no card is laid at it: either field may take the stone
	// (T3b), so turning it onto the other is no move.
	relocatedOnto [Stones]*pending
	seq           int
}

// NewTable puts the stones on their starting places. strict makes a
// card laid with its colours swapped a fault (T2e, hint 4).
func NewTable(b *Board, starts [Stones]Field, strict bool) (*Table, error) {
	t := &Table{board: b, strict: strict, pieces: make([]Piece, b.w*b.h),
		joker: map[string]int{}, laid: map[string]int{}, jokers: map[string]int{}, faults: map[string][]Violation{},
		unownedFaults: map[int]Violation{}}
	for i, f := range starts {
		if !b.On(f) {
			return nil, fmt.Errorf("%w: stone %d starts off the board at %v", ErrInvalid, i+1, f)
		}
		for _, g := range starts[:i] {
			if g == f {
				return nil, fmt.Errorf("%w: two stones start on %v", ErrInvalid, f)
			}
		}
		t.stones[i].At = f
	}
	return t, nil
}

// Clone returns a copy of the table that shares nothing that changes.
func (t *Table) Clone() *Table {
	c := *t
	c.pieces = slices.Clone(t.pieces)
	for i, p := range t.pending {
		if p != nil {
			q := *p
			q.fields = slices.Clone(p.fields)
			c.pending[i] = &q
		}
	}
	for i, r := range t.relocatedOnto {
		if r != nil {
			q := *r
			q.fields = slices.Clone(r.fields)
			c.relocatedOnto[i] = &q
		}
	}
	c.joker, c.laid, c.jokers = maps.Clone(t.joker), maps.Clone(t.laid), maps.Clone(t.jokers)
	c.unownedFaults = maps.Clone(t.unownedFaults)
	c.faults = make(map[string][]Violation, len(t.faults))
	for k, v := range t.faults {
		c.faults[k] = slices.Clone(v)
	}
	return &c
}

// Board returns the board under the table.
func (t *Table) Board() *Board { return t.board }

// Stones returns the four stones.
func (t *Table) Stones() [Stones]StoneView { return t.stones }

// Piece returns what lies on f, if anything.
func (t *Table) Piece(f Field) (Piece, bool) {
	if !t.board.On(f) {
		return Piece{}, false
	}
	p := t.pieces[t.board.index(f)]
	return p, p.Kind != ""
}

// CardFits reports whether the card lying on fs shows its fields'
// colours (T2a; swapped, as T2e allows).
func (t *Table) CardFits(fs [2]Field) bool {
	a, aok := t.Piece(fs[0])
	b, bok := t.Piece(fs[1])
	if !aok || !bok || a.Kind != PieceCard || b.Kind != PieceCard {
		return false
	}
	return t.ColoursFit(fs, [2]Colour{a.Colour, b.Colour})
}

// ColoursFit reports whether a card of colours cs fits fields fs (T2a;
// swapped, as T2e allows unless the orientation is strict).
func (t *Table) ColoursFit(fs [2]Field, cs [2]Colour) bool {
	return t.checkColours(Lay{Fields: fs, Colours: cs}) == nil
}

// Laid returns the cards each player has laid this round.
func (t *Table) Laid() map[string]int { return maps.Clone(t.laid) }

// Faults returns the wrong plays each player made this round (T5b).
func (t *Table) Faults() map[string][]Violation {
	out := make(map[string][]Violation, len(t.faults))
	for k, v := range t.faults {
		out[k] = slices.Clone(v)
	}
	return out
}

// JokersLaid returns how many jokers player has laid.
func (t *Table) JokersLaid(player string) int { return t.jokers[player] }

// stoneOn returns the stone (1..4) on f, or 0.
func (t *Table) stoneOn(f Field) int {
	for i, s := range t.stones {
		if s.At == f {
			return i + 1
		}
	}
	return 0
}

// Free reports whether f is on the board with nothing on it and no stone.
func (t *Table) Free(f Field) bool { return t.free(f) }

// Owes returns the first blocked stone (1..4) player must relocate (T3b,
// T3c), or 0.
func (t *Table) Owes(player string) int { return t.owedBy(player, 0) }

// free reports whether f is on the board with nothing on it and no stone.
func (t *Table) free(f Field) bool {
	return t.board.On(f) && t.pieces[t.board.index(f)].Kind == "" && t.stoneOn(f) == 0
}

// wellFormed checks what no camera can see wrongly on a real card.
func (t *Table) wellFormed(l Lay) error {
	switch {
	case !l.Fields[0].Adjacent(l.Fields[1]):
		return fmt.Errorf("%w: a card covers two edge-adjacent fields, not %v and %v", ErrInvalid, l.Fields[0], l.Fields[1])
	case !t.board.On(l.Fields[0]) || !t.board.On(l.Fields[1]):
		return fmt.Errorf("%w: a card at %v-%v lies off the board", ErrInvalid, l.Fields[0], l.Fields[1])
	case !l.Colours[0].Valid() || !l.Colours[1].Valid() || l.Colours[0] == l.Colours[1]:
		return fmt.Errorf("%w: a card shows two different colours, not %v and %v", ErrInvalid, l.Colours[0], l.Colours[1])
	case l.Stone < 0 || l.Stone > Stones:
		return fmt.Errorf("%w: stone %d (want 1..4)", ErrInvalid, l.Stone)
	}
	return nil
}

// stoneFor finds the stone a card at fs is laid at: one whose field shares
// an edge with a card field (T2b). hint (1..4) wins if it qualifies; then
// the player's own joker stone, then a stone nobody reserved, then any.
func (t *Table) stoneFor(player string, fs [2]Field, hint int) int {
	var best, rank int
	for i, s := range t.stones {
		if !s.At.Adjacent(fs[0]) && !s.At.Adjacent(fs[1]) {
			continue
		}
		r := 1
		switch {
		case i+1 == hint:
			r = 4
		case s.Reserved == player:
			r = 3
		case s.Reserved == "":
			r = 2
		}
		if r > rank {
			best, rank = i+1, r
		}
	}
	return best
}

// owedBy returns the first blocked stone player must relocate, or 0.
func (t *Table) owedBy(player string, hint int) int {
	if player == "" {
		return 0 // nobody's card relocates a blocked stone
	}
	if hint > 0 && t.stones[hint-1].Owed == player {
		return hint
	}
	for i, s := range t.stones {
		if s.Owed == player {
			return i + 1
		}
	}
	return 0
}

// apart reports whether a card on fs neither lies by stone (1..4) nor
// meets its field at a corner (T2d is judged as ever).
func (t *Table) apart(stone int, fs [2]Field) bool {
	at := t.stones[stone-1].At
	for _, f := range fs {
		if at.Adjacent(f) || at.Diagonal(f) {
			return false
		}
	}
	return true
}

// cornerStone returns a stone that a card field meets at a corner alone:
// hint (1..4, the stone it was laid at) if it is one.
func (t *Table) cornerStone(fs [2]Field, hint int) int {
	if hint > 0 && hint <= Stones {
		if at := t.stones[hint-1].At; at.Diagonal(fs[0]) || at.Diagonal(fs[1]) {
			return hint
		}
	}
	for i, s := range t.stones {
		if s.At.Diagonal(fs[0]) || s.At.Diagonal(fs[1]) {
			return i + 1
		}
	}
	return 0
}

// farther returns the card field farther from from, and the other one.
func farther(fs [2]Field, from Field) (far, near Field) {
	if fs[0].dist2(from) > fs[1].dist2(from) {
		return fs[0], fs[1]
	}
	return fs[1], fs[0]
}

// CheckLay judges a card laid at l without changing anything. A malformed
// lay is an error (ErrInvalid); a wrong one is a judgement with its first
// violation, in the order T2c, T2b/T2d, T2a, T2e, T4a, T4b.
func (t *Table) CheckLay(l Lay) (Judgement, error) {
	if err := t.wellFormed(l); err != nil {
		return Judgement{}, err
	}
	var j Judgement
	if h := l.Stone; h > 0 && t.apart(h, l.Fields) && (t.stones[h-1].Owed != "" || t.usable(l.Player, h)) {
		// Named for a stone it does not lie by. Blocked, the stone is
		// relocated onto it (T3b) by whoever lays it: who blocked a stone
		// depends on the order of cards laid at once, which a camera
		// cannot always tell (T3c). Else the stone stood elsewhere.
		j.Stone = h
		j.Relocates = t.stones[h-1].Owed != ""
		j.Misplaced = !j.Relocates
	} else if s := t.stoneFor(l.Player, l.Fields, l.Stone); s > 0 {
		j.Stone = s
	} else if s := t.owedBy(l.Player, l.Stone); s > 0 {
		j.Stone, j.Relocates = s, true
	} else if s := t.cornerStone(l.Fields, l.Stone); s > 0 {
		j.Stone = s
		j.Violation = violation(T2d, "%s's card at %v-%v meets stone %d's field %v at a corner alone", owner(l.Player), l.Fields[0], l.Fields[1], s, t.stones[s-1].At)
	} else {
		j.Violation = violation(T2b, "%s's card at %v-%v lies next to no Ligretto stone", owner(l.Player), l.Fields[0], l.Fields[1])
	}
	if j.Stone > 0 {
		j.StoneTo, _ = farther(l.Fields, t.stones[j.Stone-1].At)
	}
	if x := t.covers(l, true); x != nil {
		j.Violation = x
		return j, nil
	}
	if j.Violation != nil {
		return j, nil
	}
	j.Violation = t.checkColours(l)
	if j.Violation == nil && l.Player != "" {
		j.Violation = t.checkJoker(l.Player, j.Stone, j.Relocates, "card")
	}
	return j, nil
}

// CheckLate judges a card seen only long after it came: the stones may
// have moved on since, so the stone it was laid at, and whether it lay by
// one (T2b, T2d, T3, T4b), cannot be told. What the board still shows can:
// the pieces it covers (T2c; a stone on it may have moved onto it) and
// its fields' colours (T2a).
func (t *Table) CheckLate(l Lay) (Judgement, error) {
	if err := t.wellFormed(l); err != nil {
		return Judgement{}, err
	}
	x := t.covers(l, false)
	if x == nil {
		x = t.checkColours(l)
	}
	return Judgement{Violation: x}, nil
}

// covers applies T2c: the first piece (and stone, if stones) the card
// covers.
func (t *Table) covers(l Lay, stones bool) *Violation {
	for _, f := range l.Fields {
		p, _ := t.Piece(f)
		if t.free(f) || p.Kind == "" && !stones {
			continue
		}
		what := "a card"
		switch p.Kind {
		case PieceJoker:
			what = "a joker"
		case "":
			what = "a stone"
		}
		return violation(T2c, "%s's card at %v-%v covers %s on %v", owner(l.Player), l.Fields[0], l.Fields[1], what, f)
	}
	return nil
}

// checkColours applies T2a (and T2e when strict).
func (t *Table) checkColours(l Lay) *Violation {
	a, b := t.board.Colour(l.Fields[0]), t.board.Colour(l.Fields[1])
	c := l.Colours
	switch {
	case c[0] == a && c[1] == b:
		return nil
	case c[0] == b && c[1] == a:
		if t.strict {
			return violation(T2e, "%s's %s-%s card lies swapped on %s-%s fields", owner(l.Player), c[0], c[1], a, b)
		}
		return nil
	}
	return violation(T2a, "%s's %s-%s card lies on %s-%s fields", owner(l.Player), c[0], c[1], a, b)
}

// owner names a card's owner in a verdict: "" is a card whose frame the
// camera did not read.
func owner(player string) string {
	if player == "" {
		return "an unread frame"
	}
	return player
}

// ApplyLay puts the card on the board as judged (a wrong card too: it
// lies there until the check after the stop, T5b) and leaves its stone
// waiting to be moved.
func (t *Table) ApplyLay(l Lay, j Judgement) {
	t.seq++
	for i, f := range l.Fields {
		t.pieces[t.board.index(f)] = Piece{Kind: PieceCard, Owner: l.Player, Card: l.Card, Colour: l.Colours[i], Seq: t.seq}
	}
	// A card whose frame was not read (Player "") lies on the board and
	// moves its stone, but counts for nobody and charges nobody.
	switch {
	case l.Player != "":
		t.laid[l.Player]++
		if j.Violation != nil {
			t.faults[l.Player] = append(t.faults[l.Player], *j.Violation)
		}
	case j.Violation != nil:
		t.unownedFaults[t.seq] = *j.Violation
	}
	if j.Stone > 0 {
		if own := t.joker[l.Player]; own == j.Stone && !j.Relocates {
			delete(t.joker, l.Player)
		}
		t.pending[j.Stone-1] = &pending{player: l.Player, fields: l.Fields[:], to: j.StoneTo, relocates: j.Relocates || j.Misplaced, named: l.Stone > 0, wrong: j.Violation != nil}
	}
	t.block(l.Player)
}
