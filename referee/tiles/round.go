package tiles

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Seat is one player's cards in a round.
type Seat struct {
	Player  string `json:"player"`
	Hand    []Card `json:"hand"`    // face down, the top last
	Discard []Card `json:"discard"` // face up, the top last
	Up      *Card  `json:"up,omitempty"`
	Aside   []Card `json:"aside"` // on the player board, out of this round (T5c)
}

// left counts the cards the player has not laid.
func (s *Seat) left() int {
	n := len(s.Hand) + len(s.Discard)
	if s.Up != nil {
		n++
	}
	return n
}

// Round is the full model of one round: the table and every player's
// cards. The simulator plays it; every action is checked by the table's
// rules. It is not safe for concurrent use.
type Round struct {
	t        *Table
	names    []string
	seats    map[string]*Seat
	onBoard  map[string][]Card // the cards each player laid, for Audit
	stopper  string
	deadlock bool
	ended    bool
}

// Deal shuffles each player's 15 cards, puts as many aside as their player
// board holds, and sets the stones on starts.
func Deal(m *Match, l Layout, starts [Stones]Field, rng *rand.Rand) (*Round, error) {
	seats := make([]Seat, 0, len(m.players))
	for i, name := range m.Names() {
		d := Deck(name, i)
		Shuffle(d, rng)
		k := m.boards[name]
		seats = append(seats, Seat{Player: name, Aside: d[:k:k], Hand: d[k:]})
	}
	return NewRound(l, starts, seats, m.settings.StrictOrientation)
}

// NewRound restores a round as dealt.
func NewRound(l Layout, starts [Stones]Field, seats []Seat, strict bool) (*Round, error) {
	b, err := NewBoard(l)
	if err != nil {
		return nil, err
	}
	t, err := NewTable(b, starts, strict)
	if err != nil {
		return nil, err
	}
	r := &Round{t: t, seats: map[string]*Seat{}, onBoard: map[string][]Card{}}
	for _, s := range seats {
		if len(s.Hand)+len(s.Aside) != CardsPerPlayer || len(s.Discard) != 0 || s.Up != nil {
			return nil, violation(T1, "%s is dealt %d cards and %d aside: a player has %d", s.Player, len(s.Hand), len(s.Aside), CardsPerPlayer)
		}
		c := Seat{Player: s.Player, Hand: slices.Clone(s.Hand), Aside: slices.Clone(s.Aside)}
		r.seats[s.Player] = &c
		r.names = append(r.names, s.Player)
	}
	return r, nil
}

// Table returns the round's table (read it; change it only through the round).
func (r *Round) Table() *Table { return r.t }

// Players returns the players in seat order.
func (r *Round) Players() []string { return slices.Clone(r.names) }

// Seat returns a copy of the player's cards.
func (r *Round) Seat(name string) (Seat, error) {
	s, err := r.seat(name)
	if err != nil {
		return Seat{}, err
	}
	c := Seat{Player: s.Player, Hand: slices.Clone(s.Hand), Discard: slices.Clone(s.Discard), Aside: slices.Clone(s.Aside)}
	if s.Up != nil {
		u := *s.Up
		c.Up = &u
	}
	return c, nil
}

// Left returns how many cards the player has not laid.
func (r *Round) Left(name string) int {
	if s, ok := r.seats[name]; ok {
		return s.left()
	}
	return 0
}

// Up returns the card the player holds turned up, if any.
func (r *Round) Up(name string) (Card, bool) {
	if s, ok := r.seats[name]; ok && s.Up != nil {
		return *s.Up, true
	}
	return Card{}, false
}

// Ended reports whether the round is over.
func (r *Round) Ended() bool { return r.ended }

func (r *Round) seat(name string) (*Seat, error) {
	s, ok := r.seats[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPlayer, name)
	}
	return s, nil
}

func (r *Round) open(name string) (*Seat, error) {
	if r.ended {
		return nil, fmt.Errorf("%w: the round is over (T5a)", ErrPhase)
	}
	return r.seat(name)
}

// Turn turns the player's top card up. An empty hand is first refilled
// with the discard pile turned over; recycled says so.
func (r *Round) Turn(name string) (c Card, recycled bool, err error) {
	s, err := r.open(name)
	if err != nil {
		return Card{}, false, err
	}
	if s.Up != nil {
		return Card{}, false, fmt.Errorf("%w: %s already holds %v up", ErrPhase, name, *s.Up)
	}
	if len(s.Hand) == 0 {
		if len(s.Discard) == 0 {
			return Card{}, false, fmt.Errorf("%w: %s has no card left", ErrPhase, name)
		}
		// The face-up pile turned over: its first card is now on top.
		s.Hand, s.Discard, recycled = s.Discard, nil, true
		slices.Reverse(s.Hand)
	}
	c = s.Hand[len(s.Hand)-1]
	s.Hand = s.Hand[:len(s.Hand)-1]
	s.Up = &c
	return c, recycled, nil
}

// Discard puts the card turned up onto the player's discard pile.
func (r *Round) Discard(name string) error {
	s, err := r.open(name)
	if err != nil {
		return err
	}
	if s.Up == nil {
		return fmt.Errorf("%w: %s has no card up", ErrPhase, name)
	}
	s.Discard = append(s.Discard, *s.Up)
	s.Up = nil
	return nil
}

// Lay lays the player's card turned up at fields (Fields[i] under
// Colours[i] of the card) next to stone, if the rules allow it; a
// *Violation otherwise, and nothing changes.
func (r *Round) Lay(name string, fields [2]Field, stone int) (Judgement, error) {
	return r.lay(name, fields, stone, false)
}

// LayAnyway lays the card even if it breaks a rule, as a player in a hurry
// might; the judgement names the rule, and the fault counts (T5b).
func (r *Round) LayAnyway(name string, fields [2]Field, stone int) (Judgement, error) {
	return r.lay(name, fields, stone, true)
}

func (r *Round) lay(name string, fields [2]Field, stone int, anyway bool) (Judgement, error) {
	s, err := r.open(name)
	if err != nil {
		return Judgement{}, err
	}
	if s.Up == nil {
		return Judgement{}, fmt.Errorf("%w: %s has no card up", ErrPhase, name)
	}
	l := Lay{Player: name, Card: s.Up.ID, Fields: fields, Colours: s.Up.Colours, Stone: stone}
	j, err := r.t.CheckLay(l)
	if err != nil {
		return j, err
	}
	if j.Violation != nil && !anyway {
		return j, j.Violation
	}
	r.t.ApplyLay(l, j)
	r.onBoard[name] = append(r.onBoard[name], *s.Up)
	s.Up = nil
	return j, nil
}

// MoveStone moves stone (1..4) onto to, if the rules allow it (T3, T4c).
func (r *Round) MoveStone(stone int, to Field) error {
	v, err := r.move(stone, to, false)
	if err == nil && v != nil {
		return v
	}
	return err
}

// MoveStoneAnyway moves the stone even if it breaks a rule, which it
// returns; the mover's fault counts (T5b).
func (r *Round) MoveStoneAnyway(stone int, to Field) (*Violation, error) {
	return r.move(stone, to, true)
}

func (r *Round) move(stone int, to Field, anyway bool) (*Violation, error) {
	if r.ended {
		return nil, fmt.Errorf("%w: the round is over (T5a)", ErrPhase)
	}
	who, v, err := r.t.CheckStone(stone, to)
	if err != nil {
		return nil, err
	}
	if v != nil && !anyway {
		return v, nil
	}
	r.t.ApplyStone(stone, to, who, v)
	return v, nil
}

// Joker lays one of the player's jokers on f next to stone (T4c).
func (r *Round) Joker(name string, f Field, stone int) error {
	if _, err := r.open(name); err != nil {
		return err
	}
	v, err := r.t.CheckJoker(name, f, stone)
	if err != nil {
		return err
	}
	if v != nil {
		return v
	}
	r.t.ApplyJoker(name, f, stone, nil)
	return nil
}

// Stop is the player's "Ligretto Stopp": they have laid every card (T5a).
func (r *Round) Stop(name string) error {
	s, err := r.open(name)
	if err != nil {
		return err
	}
	if n := s.left(); n > 0 {
		return violation(T5a, "%s called Ligretto Stopp with %d cards left", name, n)
	}
	r.stopper, r.ended = name, true
	return nil
}

// CanPlay reports whether the player could lay any of their cards now,
// directly or over a joker.
func (r *Round) CanPlay(name string) bool {
	s, ok := r.seats[name]
	if !ok {
		return false
	}
	cards := slices.Concat(s.Hand, s.Discard)
	if s.Up != nil {
		cards = append(cards, *s.Up)
	}
	for _, c := range cards {
		if len(r.t.Lays(name, c.ID, c.Colours)) > 0 || len(r.t.Bridges(name, c.ID, c.Colours)) > 0 {
			return true
		}
	}
	return false
}

// EndInDeadlock ends the round because nobody can lay (T6a).
func (r *Round) EndInDeadlock() error {
	if r.ended {
		return fmt.Errorf("%w: the round is over", ErrPhase)
	}
	for _, n := range r.names {
		if r.CanPlay(n) {
			return fmt.Errorf("%w: %s can still lay a card (T6a)", ErrPhase, n)
		}
	}
	r.deadlock, r.ended = true, true
	return nil
}

// Tallies counts every player's round for scoring.
func (r *Round) Tallies() map[string]Tally {
	out := make(map[string]Tally, len(r.names))
	for _, n := range r.names {
		out[n] = Tally{Laid: r.t.laid[n], CardsLeft: r.seats[n].left(), Fault: len(r.t.faults[n]) > 0}
	}
	return out
}

// Result scores the ended round against the match's boards.
func (r *Round) Result(m *Match) (RoundResult, error) {
	if !r.ended {
		return RoundResult{}, fmt.Errorf("%w: the round is still being played", ErrPhase)
	}
	return m.Score(r.stopper, r.deadlock, r.Tallies()), nil
}
