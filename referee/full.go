package referee

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// SourceKind says where a played card comes from (C10).
type SourceKind uint8

// The three places a card may be played from (C10).
const (
	FromStack SourceKind = iota + 1 // the top of the Ligretto stack
	FromRow                         // the top card of one row slot
	FromHand                        // the visible card of the counted-off hand
)

var sourceNames = map[SourceKind]string{FromStack: "stack", FromRow: "row", FromHand: "hand"}

func (k SourceKind) String() string {
	if n, ok := sourceNames[k]; ok {
		return n
	}
	return fmt.Sprintf("source(%d)", uint8(k))
}

// MarshalText writes the source's name.
func (k SourceKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a source's name.
func (k *SourceKind) UnmarshalText(b []byte) error {
	for v, n := range sourceNames {
		if n == string(b) {
			*k = v
			return nil
		}
	}
	return fmt.Errorf("%w: source %q (want stack, row or hand)", ErrInvalid, b)
}

// Source is a place a card is played from; Index is the row slot for FromRow.
type Source struct {
	Kind  SourceKind `json:"from"`
	Index int        `json:"row_index,omitempty"`
}

func (s Source) String() string {
	if s.Kind == FromRow {
		return fmt.Sprintf("row %d", s.Index)
	}
	return s.Kind.String()
}

// NewPile is the pile argument that starts a new centre pile.
const NewPile = 0

// RowSize is the number of row cards for n players (C4).
func RowSize(players int) int {
	switch players {
	case 2:
		return 5
	case 3:
		return 4
	default:
		return 3
	}
}

// Seat is one player's cards during a round. Every slice lists its cards
// bottom first, so the visible or next card is the last one.
type Seat struct {
	Name    string   `json:"name"`
	Stack   []Card   `json:"stack"`   // Ligretto stack, face up, top visible (C3)
	Row     [][]Card `json:"row"`     // row slots; more than one card only with C18
	Hand    []Card   `json:"hand"`    // face down, still to be counted off (C5)
	Counted []Card   `json:"counted"` // counted off, face up: the top is playable (C10)
}

func (s *Seat) top(src Source) (Card, bool) {
	var from []Card
	switch src.Kind {
	case FromStack:
		from = s.Stack
	case FromHand:
		from = s.Counted
	case FromRow:
		if src.Index < 0 || src.Index >= len(s.Row) {
			return Card{}, false
		}
		from = s.Row[src.Index]
	}
	if len(from) == 0 {
		return Card{}, false
	}
	return from[len(from)-1], true
}

func (s *Seat) take(src Source) Card {
	pop := func(p *[]Card) Card { c := (*p)[len(*p)-1]; *p = (*p)[:len(*p)-1]; return c }
	switch src.Kind {
	case FromStack:
		return pop(&s.Stack)
	case FromHand:
		return pop(&s.Counted)
	default:
		return pop(&s.Row[src.Index])
	}
}

// Cards returns every card the seat holds, wherever it lies.
func (s *Seat) Cards() []Card {
	all := slices.Concat(s.Stack, s.Hand, s.Counted)
	for _, slot := range s.Row {
		all = append(all, slot...)
	}
	return all
}

// Outcome is what one accepted play did to the table.
type Outcome struct {
	Player    string     `json:"player"`
	Card      Card       `json:"card"`
	From      Source     `json:"source"`
	Pile      int        `json:"pile,omitempty"`      // the pile it went on (0 for a row lay)
	NewPile   bool       `json:"new_pile,omitempty"`  // it started the pile (C6)
	RowIndex  int        `json:"to_row,omitempty"`    // for a C18 lay: the row slot, 1-based
	Refill    *Card      `json:"refill,omitempty"`    // the stack card that filled the row gap (C11)
	Violation *Violation `json:"violation,omitempty"` // set only by PlayAnyway
	StackLeft int        `json:"stack_left"`          // the player's Ligretto stack afterwards
}

// Round is the full model of one round: everything on the table, as the
// simulator knows it. It is not safe for concurrent use.
type Round struct {
	seats     []*Seat
	index     map[string]int
	piles     []Pile
	advanced  bool
	stoppedBy string
	ended     bool
	deadlock  bool
}

// Deal shuffles each player's deck with rng and lays out stack, row and hand
// (C3, C4, C5). Players are named by names, which must be distinct (C1, C2).
func Deal(names []string, advanced bool, rng *rand.Rand) (*Round, error) {
	if err := checkPlayers(names); err != nil {
		return nil, err
	}
	r := &Round{index: map[string]int{}, advanced: advanced}
	rowN := RowSize(len(names))
	for i, n := range names {
		d := Deck(n)
		rng.Shuffle(len(d), func(a, b int) { d[a], d[b] = d[b], d[a] })
		s := &Seat{Name: n, Stack: d[:10:10]}
		for j := range rowN {
			s.Row = append(s.Row, []Card{d[10+j]})
		}
		s.Hand = slices.Clone(d[10+rowN:])
		r.seats = append(r.seats, s)
		r.index[n] = i
	}
	return r, nil
}

func checkPlayers(names []string) error {
	if len(names) < 2 || len(names) > 12 {
		return violation(C2, "%d players: Ligretto takes 2 to 12", len(names))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("%w: empty player name", ErrInvalid)
		}
		if seen[n] {
			return violation(C1, "player %q twice: every player needs a deck of their own", n)
		}
		seen[n] = true
	}
	return nil
}

// Seat returns a copy of a player's cards.
func (r *Round) Seat(name string) (Seat, error) {
	s, err := r.seat(name)
	if err != nil {
		return Seat{}, err
	}
	c := Seat{Name: s.Name, Stack: slices.Clone(s.Stack), Hand: slices.Clone(s.Hand), Counted: slices.Clone(s.Counted)}
	for _, slot := range s.Row {
		c.Row = append(c.Row, slices.Clone(slot))
	}
	return c, nil
}

// Players lists the players in seat order.
func (r *Round) Players() []string {
	out := make([]string, len(r.seats))
	for i, s := range r.seats {
		out[i] = s.Name
	}
	return out
}

// Piles returns a copy of the centre piles, oldest first.
func (r *Round) Piles() []Pile {
	out := make([]Pile, len(r.piles))
	for i, p := range r.piles {
		out[i] = Pile{ID: p.ID, Cards: slices.Clone(p.Cards)}
	}
	return out
}

// Ended reports whether the round is over (stop or deadlock).
func (r *Round) Ended() bool { return r.ended }

// Advanced reports whether the C18 variant is on.
func (r *Round) Advanced() bool { return r.advanced }

func (r *Round) seat(name string) (*Seat, error) {
	i, ok := r.index[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPlayer, name)
	}
	return r.seats[i], nil
}

func (r *Round) pile(id int) (*Pile, error) {
	if id < 1 || id > len(r.piles) {
		return nil, fmt.Errorf("%w: %d", ErrUnknownPile, id)
	}
	return &r.piles[id-1], nil
}

func (r *Round) open() error {
	if r.ended {
		return fmt.Errorf("%w: the round is over (C13)", ErrPhase)
	}
	return nil
}

// visible returns the card at src, or a C10 violation when nothing playable lies there.
func (r *Round) visible(s *Seat, src Source) (Card, error) {
	if src.Kind == FromRow && (src.Index < 0 || src.Index >= len(s.Row)) {
		return Card{}, fmt.Errorf("%w: row slot %d of %d", ErrInvalid, src.Index, len(s.Row))
	}
	c, ok := s.top(src)
	if !ok {
		return Card{}, violation(C10, "%s has no visible card in the %s", s.Name, src)
	}
	return c, nil
}

// Check tells whether player may play the card at src onto pile (NewPile to
// start one), without changing anything.
func (r *Round) Check(player string, src Source, pile int) (Card, error) {
	if err := r.open(); err != nil {
		return Card{}, err
	}
	s, err := r.seat(player)
	if err != nil {
		return Card{}, err
	}
	c, err := r.visible(s, src)
	if err != nil {
		return Card{}, err
	}
	if pile == NewPile {
		if v := CheckStart(c.Face); v != nil {
			return c, v
		}
		return c, nil
	}
	p, err := r.pile(pile)
	if err != nil {
		return c, err
	}
	if v := CheckPlace(p.Top().Face, c.Face); v != nil {
		return c, v
	}
	return c, nil
}

// Play plays the card at src onto pile (NewPile to start one) if the rules
// allow it (C6-C10), refilling a row gap from the stack (C11).
func (r *Round) Play(player string, src Source, pile int) (Outcome, error) {
	if _, err := r.Check(player, src, pile); err != nil {
		return Outcome{}, err
	}
	return r.place(player, src, pile, nil), nil
}

// PlayAnyway lays the card even when it breaks C6-C8, as a careless player
// would; the outcome names the rule broken. Source rules (C10) still hold,
// because a card that is not visible cannot be played at all.
func (r *Round) PlayAnyway(player string, src Source, pile int) (Outcome, error) {
	_, err := r.Check(player, src, pile)
	var v *Violation
	if err != nil {
		if !asViolation(err, &v) || v.Rule == C10 {
			return Outcome{}, err
		}
	}
	return r.place(player, src, pile, v), nil
}

func (r *Round) place(player string, src Source, pile int, v *Violation) Outcome {
	s, _ := r.seat(player)
	c := s.take(src)
	o := Outcome{Player: player, Card: c, From: src, Violation: v}
	if pile == NewPile {
		r.piles = append(r.piles, Pile{ID: len(r.piles) + 1, Cards: []Card{c}})
		o.Pile, o.NewPile = len(r.piles), true
	} else {
		p, _ := r.pile(pile)
		p.Cards = append(p.Cards, c)
		o.Pile = pile
	}
	if src.Kind == FromRow && len(s.Row[src.Index]) == 0 && len(s.Stack) > 0 {
		f := s.take(Source{Kind: FromStack}) // C11: the gap is filled at once
		s.Row[src.Index] = append(s.Row[src.Index], f)
		o.Refill = &f
	}
	o.StackLeft = len(s.Stack)
	return o
}

// LayOnRow lays the card at src (stack or hand) onto row slot row, in the
// advanced variant only (C18).
func (r *Round) LayOnRow(player string, src Source, row int) (Outcome, error) {
	if err := r.open(); err != nil {
		return Outcome{}, err
	}
	if !r.advanced {
		return Outcome{}, violation(C18, "cards may be laid on the row only in the advanced variant")
	}
	s, err := r.seat(player)
	if err != nil {
		return Outcome{}, err
	}
	if src.Kind == FromRow {
		return Outcome{}, violation(C18, "only stack or hand cards may be laid on the row")
	}
	if row < 0 || row >= len(s.Row) {
		return Outcome{}, fmt.Errorf("%w: row slot %d of %d", ErrInvalid, row, len(s.Row))
	}
	c, err := r.visible(s, src)
	if err != nil {
		return Outcome{}, err
	}
	slot := s.Row[row]
	if len(slot) == 0 {
		return Outcome{}, violation(C18, "row slot %d is empty: a gap is filled from the stack (C11)", row)
	}
	if v := CheckRowLay(slot[len(slot)-1].Face, c.Face); v != nil {
		return Outcome{}, v
	}
	s.take(src)
	s.Row[row] = append(s.Row[row], c)
	return Outcome{Player: player, Card: c, From: src, RowIndex: row + 1, StackLeft: len(s.Stack)}, nil
}

// CountOff turns the next three hand cards (or fewer) face up onto the
// counted-off pile, so that the third becomes playable (C10). It returns
// the card now visible.
func (r *Round) CountOff(player string) (Card, error) {
	if err := r.open(); err != nil {
		return Card{}, err
	}
	s, err := r.seat(player)
	if err != nil {
		return Card{}, err
	}
	if len(s.Hand) == 0 {
		return Card{}, fmt.Errorf("%w: %s's hand is used up: recycle it first (C12)", ErrPhase, player)
	}
	for i := 0; i < 3 && len(s.Hand) > 0; i++ {
		s.Counted = append(s.Counted, s.Hand[len(s.Hand)-1])
		s.Hand = s.Hand[:len(s.Hand)-1]
	}
	return s.Counted[len(s.Counted)-1], nil
}

// Recycle turns the counted-off cards over into a new hand once the hand is
// used up (C12).
func (r *Round) Recycle(player string) error {
	if err := r.open(); err != nil {
		return err
	}
	s, err := r.seat(player)
	if err != nil {
		return err
	}
	if len(s.Hand) > 0 {
		return fmt.Errorf("%w: %s still has %d hand cards (C12)", ErrPhase, player, len(s.Hand))
	}
	slices.Reverse(s.Counted) // turning the pile over puts its bottom card on top
	s.Hand, s.Counted = s.Counted, nil
	return nil
}

// Shuffle gathers a player's hand and counted-off cards and shuffles them
// face down: the cut of C12, and the restart of C17. It returns the new hand.
func (r *Round) Shuffle(player string, rng *rand.Rand) ([]Card, error) {
	s, err := r.seat(player)
	if err != nil {
		return nil, err
	}
	hand := slices.Concat(s.Hand, s.Counted)
	rng.Shuffle(len(hand), func(a, b int) { hand[a], hand[b] = hand[b], hand[a] })
	return hand, r.SetHand(player, hand)
}

// SetHand replaces a player's hand and counted-off cards by hand, face
// down, which must hold the same cards: a shuffle whose order is known, as
// when a timeline is replayed.
func (r *Round) SetHand(player string, hand []Card) error {
	if err := r.open(); err != nil {
		return err
	}
	s, err := r.seat(player)
	if err != nil {
		return err
	}
	if !sameCards(hand, slices.Concat(s.Hand, s.Counted)) {
		return fmt.Errorf("%w: new hand for %s is not the cards of the old one", ErrInvalid, player)
	}
	s.Hand, s.Counted = slices.Clone(hand), nil
	return nil
}

func sameCards(a, b []Card) bool {
	count := map[Card]int{}
	for _, c := range a {
		count[c]++
	}
	for _, c := range b {
		count[c]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// Restore lays out a round from a known deal, as a replayed timeline gives
// it. Each seat must hold exactly its owner's 40 cards (C1), dealt as C3-C5 say.
func Restore(seats []Seat, advanced bool) (*Round, error) {
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = s.Name
	}
	if err := checkPlayers(names); err != nil {
		return nil, err
	}
	r := &Round{index: map[string]int{}, advanced: advanced}
	for i, s := range seats {
		if !sameCards(s.Cards(), Deck(s.Name)) {
			return nil, violation(C1, "%s's cards are not one whole deck of 40", s.Name)
		}
		if len(s.Stack) != 10 || len(s.Row) != RowSize(len(seats)) || len(s.Counted) != 0 {
			return nil, violation(C3, "%s's deal is not a stack of 10 and a row of %d (C4)", s.Name, RowSize(len(seats)))
		}
		c := &Seat{Name: s.Name, Stack: slices.Clone(s.Stack), Hand: slices.Clone(s.Hand)}
		for _, slot := range s.Row {
			c.Row = append(c.Row, slices.Clone(slot))
		}
		r.seats = append(r.seats, c)
		r.index[s.Name] = i
	}
	return r, nil
}

// Stop is the call "Ligretto stop" (C13): allowed only to a player whose
// Ligretto stack is empty; it ends the round at once.
func (r *Round) Stop(player string) error {
	if err := r.open(); err != nil {
		return err
	}
	s, err := r.seat(player)
	if err != nil {
		return err
	}
	if len(s.Stack) > 0 {
		return violation(C13, "%s called stop with %d cards in the Ligretto stack", player, len(s.Stack))
	}
	r.ended, r.stoppedBy = true, player
	return nil
}

// EndInDeadlock ends the round because nobody can play (C17).
func (r *Round) EndInDeadlock() error {
	if err := r.open(); err != nil {
		return err
	}
	r.ended, r.deadlock = true, true
	return nil
}

// Move is one legal play: from a source onto a pile (NewPile to start one),
// or, with ToRow >= 0, onto a row slot (C18).
type Move struct {
	From  Source
	Pile  int
	ToRow int // -1 unless a C18 lay
	Card  Card
}

// Moves lists every legal play open to player now, centre plays first.
func (r *Round) Moves(player string) []Move {
	s, err := r.seat(player)
	if err != nil || r.ended {
		return nil
	}
	var out []Move
	for _, src := range s.sources() {
		c, _ := s.top(src)
		out = append(out, r.centreMoves(src, c)...)
	}
	if r.advanced {
		for _, src := range []Source{{Kind: FromStack}, {Kind: FromHand}} {
			c, ok := s.top(src)
			if !ok {
				continue
			}
			for i, slot := range s.Row {
				if len(slot) > 0 && fitsRow(slot[len(slot)-1].Face, c.Face) {
					out = append(out, Move{From: src, ToRow: i, Card: c})
				}
			}
		}
	}
	return out
}

// sources lists the places where the seat has a visible card.
func (s *Seat) sources() []Source {
	var out []Source
	if len(s.Stack) > 0 {
		out = append(out, Source{Kind: FromStack})
	}
	for i, slot := range s.Row {
		if len(slot) > 0 {
			out = append(out, Source{Kind: FromRow, Index: i})
		}
	}
	if len(s.Counted) > 0 {
		out = append(out, Source{Kind: FromHand})
	}
	return out
}

func (r *Round) centreMoves(src Source, c Card) []Move {
	var out []Move
	if Starts(c.Face) {
		out = append(out, Move{From: src, Pile: NewPile, ToRow: -1, Card: c})
	}
	for _, p := range r.piles {
		if FitsOn(p.Top().Face, c.Face) {
			out = append(out, Move{From: src, Pile: p.ID, ToRow: -1, Card: c})
		}
	}
	return out
}

// fits reports whether a face could go to the centre now.
func (r *Round) fits(f Face) bool {
	if Starts(f) {
		return true
	}
	for _, p := range r.piles {
		if FitsOn(p.Top().Face, f) {
			return true
		}
	}
	return false
}

// Reach says which hand cards a deadlock check may count on.
type Reach uint8

const (
	// ReachPasses: only the hand cards that come up when the hand is counted
	// off in threes, through the rest of this pass and one whole pass after
	// turning it over, as rulebook 003 has it: the restart rule (C17).
	ReachPasses Reach = iota
	// ReachWholeHand: every hand card, because players cut the hand when they
	// turn it over (C12); a deadlock then means every fitting card is hidden
	// in a Ligretto stack, as rulebooks 000 and 001 have it: the leader rule.
	ReachWholeHand
)

// Stuck reports a deadlock (C17): no player can play a visible card (stack
// top, row) or a reachable hand card to the centre, and (C18) nobody can
// dig into their stack by laying its top card on the row. Laying hand cards
// on the row does not count: it never brings a card to the centre.
func (r *Round) Stuck(reach Reach) bool {
	for _, s := range r.seats {
		for _, src := range s.sources() {
			c, _ := s.top(src)
			if r.fits(c.Face) {
				return false
			}
		}
		if top, ok := s.top(Source{Kind: FromStack}); ok && r.advanced && r.fitsRow(s, top.Face) {
			return false
		}
		hand := s.reachableHandCards()
		if reach == ReachWholeHand {
			hand = slices.Concat(s.Hand, s.Counted)
		}
		for _, c := range hand {
			if r.fits(c.Face) {
				return false
			}
		}
	}
	return true
}

func (r *Round) fitsRow(s *Seat, f Face) bool {
	for _, slot := range s.Row {
		if len(slot) > 0 && fitsRow(slot[len(slot)-1].Face, f) {
			return true
		}
	}
	return false
}

// reachableHandCards lists the hand cards that would become visible, one
// after another, if the player only counted off: through the rest of the
// hand, then a whole pass after recycling (C10, C12).
func (s *Seat) reachableHandCards() []Card {
	hand, counted := slices.Clone(s.Hand), slices.Clone(s.Counted)
	var seen []Card
	for pass := 0; pass < 2; pass++ {
		for len(hand) > 0 {
			for i := 0; i < 3 && len(hand) > 0; i++ {
				counted = append(counted, hand[len(hand)-1])
				hand = hand[:len(hand)-1]
			}
			seen = append(seen, counted[len(counted)-1])
		}
		slices.Reverse(counted)
		hand, counted = counted, nil
	}
	return seen
}

// Result scores the round (C14) and summarises its piles. It may be called
// at any time; the simulator calls it when the round has ended.
func (r *Round) Result() RoundResult {
	centre := map[string]int{}
	for _, p := range r.piles {
		for _, c := range p.Cards {
			centre[c.Owner]++
		}
	}
	res := RoundResult{Deadlock: r.deadlock, Players: map[string]PlayerScore{}}
	if r.stoppedBy != "" {
		name := r.stoppedBy
		res.StoppedBy = &name
	}
	for _, s := range r.seats {
		res.Players[s.Name] = Score(centre[s.Name], len(s.Stack))
	}
	for _, p := range r.piles {
		res.Piles = append(res.Piles, PileSummary{ID: p.ID, Colour: p.Top().Colour, Top: p.Top().Number, Cards: len(p.Cards)})
	}
	return res
}

// Audit checks the table's bookkeeping: every player's 40 cards lie
// somewhere, each exactly once (C1); every row keeps its size (C4); a row
// gap stays only while the stack is empty (C11). A failure is a bug.
func (r *Round) Audit() error {
	seen := make([][40]bool, len(r.seats))
	counts := make([]int, len(r.seats))
	mark := func(c Card) error {
		i, ok := r.index[c.Owner]
		if !ok || !c.Valid() {
			return violation(C1, "%v belongs to no player", c)
		}
		k := int(c.Colour-1)*10 + c.Number - 1
		if seen[i][k] {
			return violation(C1, "%v lies on the table twice", c)
		}
		seen[i][k] = true
		counts[i]++
		return nil
	}
	for _, p := range r.piles {
		for _, c := range p.Cards {
			if err := mark(c); err != nil {
				return err
			}
		}
	}
	rowN := RowSize(len(r.seats))
	for _, s := range r.seats {
		for _, part := range [][]Card{s.Stack, s.Hand, s.Counted} {
			for _, c := range part {
				if err := mark(c); err != nil {
					return err
				}
			}
		}
		if len(s.Row) != rowN {
			return violation(C4, "%s's row has %d slots, not %d", s.Name, len(s.Row), rowN)
		}
		for j, slot := range s.Row {
			if len(slot) == 0 && len(s.Stack) > 0 {
				return violation(C11, "%s's row slot %d is empty with %d cards in the stack", s.Name, j, len(s.Stack))
			}
			for _, c := range slot {
				if err := mark(c); err != nil {
					return err
				}
			}
		}
	}
	for i, s := range r.seats {
		if counts[i] != 40 {
			return violation(C1, "%s has %d cards on the table, not 40", s.Name, counts[i])
		}
	}
	return nil
}
