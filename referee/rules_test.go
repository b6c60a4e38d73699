package referee

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func face(s string) Face {
	f, err := ParseFace(s)
	if err != nil {
		panic(err)
	}
	return f
}

func card(s, owner string) Card { return Card{Face: face(s), Owner: owner} }

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// fixedRound lays out a round by hand for two players A and B.
func fixedRound(t *testing.T, advanced bool, edit func(a, b *Seat)) *Round {
	t.Helper()
	r, err := Deal([]string{"A", "B"}, advanced, rng(1))
	if err != nil {
		t.Fatal(err)
	}
	edit(r.seats[0], r.seats[1])
	return r
}

// setTop makes c the visible card of a seat's part, swapping it with
// wherever it lay so that the seat still holds one whole deck.
func setTop(s *Seat, part *[]Card, c Card) {
	all := append([][]Card{s.Stack, s.Hand, s.Counted}, s.Row...)
	for _, p := range all {
		if i := slices.Index(p, c); i >= 0 {
			p[i] = (*part)[len(*part)-1]
			(*part)[len(*part)-1] = c
			return
		}
	}
	panic("card not in seat")
}

func wantRule(t *testing.T, err error, r Rule) {
	t.Helper()
	var v *Violation
	if !errors.As(err, &v) || v.Rule != r {
		t.Fatalf("got %v, want a violation of %s", err, r)
	}
	if !errors.Is(err, ErrIllegal) {
		t.Fatalf("violation %v does not match ErrIllegal", err)
	}
}

func TestDeck_C1_FortyDistinctCards(t *testing.T) {
	d := Deck("A")
	seen := map[Face]bool{}
	for _, c := range d {
		if !c.Valid() || seen[c.Face] || c.Owner != "A" {
			t.Fatalf("bad or repeated card %v", c)
		}
		seen[c.Face] = true
	}
	if len(seen) != 40 {
		t.Fatalf("deck has %d distinct cards, want 40", len(seen))
	}
}

func TestMatch_C1_BacksMustBeDistinct(t *testing.T) {
	_, err := NewMatch([]Player{{"A", "cubes"}, {"B", "cubes"}}, Settings{})
	wantRule(t, err, C1)
	if _, err := NewMatch([]Player{{"A", "cubes"}, {"B", "spheres"}}, Settings{}); err != nil {
		t.Fatal(err)
	}
}

func TestDeal_C2_TwoToTwelvePlayers(t *testing.T) {
	for n := 0; n <= 13; n++ {
		names := make([]string, n)
		for i := range names {
			names[i] = string(rune('A' + i))
		}
		_, err := Deal(names, false, rng(1))
		if (n >= 2 && n <= 12) != (err == nil) {
			t.Fatalf("%d players: err %v", n, err)
		}
		if err != nil {
			wantRule(t, err, C2)
		}
	}
}

// C3, C4, C5: stack of 10, row by player count, hand holds the rest.
func TestDeal_C3_C4_C5_Layout(t *testing.T) {
	for n, row := range map[int]int{2: 5, 3: 4, 4: 3, 8: 3, 12: 3} {
		names := make([]string, n)
		for i := range names {
			names[i] = string(rune('A' + i))
		}
		r, err := Deal(names, false, rng(uint64(n)))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			s, _ := r.Seat(name)
			if len(s.Stack) != 10 || len(s.Row) != row || len(s.Hand) != 40-10-row || len(s.Counted) != 0 {
				t.Fatalf("%d players: stack %d row %d hand %d", n, len(s.Stack), len(s.Row), len(s.Hand))
			}
		}
		if err := r.Audit(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPile_C6_NewPileNeedsAOne(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) { setTop(a, &a.Stack, card("red 2", "A")); setTop(b, &b.Stack, card("blue 1", "B")) })
	_, err := r.Play("A", Source{Kind: FromStack}, NewPile)
	wantRule(t, err, C6)
	o, err := r.Play("B", Source{Kind: FromStack}, NewPile)
	if err != nil || !o.NewPile || o.Pile != 1 {
		t.Fatalf("blue 1 should start pile 1: %+v %v", o, err)
	}
	if CheckStart(face("green 1")) != nil || CheckStart(face("green 10")) == nil {
		t.Fatal("CheckStart disagrees with C6")
	}
}

func TestPile_C6_SeveralPilesOfOneColour(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) { setTop(a, &a.Stack, card("red 1", "A")); setTop(b, &b.Stack, card("red 1", "B")) })
	for _, p := range []string{"A", "B"} {
		if _, err := r.Play(p, Source{Kind: FromStack}, NewPile); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.Piles()) != 2 {
		t.Fatalf("want two red piles, got %v", r.Piles())
	}
}

func TestPile_C7_ColourAndNumber(t *testing.T) {
	cases := []struct {
		top, card string
		ok        bool
	}{
		{"red 4", "red 5", true},
		{"red 4", "green 5", false}, // colour differs
		{"red 4", "red 6", false},   // skips a number
		{"red 4", "red 4", false},   // does not rise
		{"red 4", "red 3", false},   // falls
		{"yellow 9", "yellow 10", true},
	}
	for _, c := range cases {
		v := CheckPlace(face(c.top), face(c.card))
		if (v == nil) != c.ok {
			t.Errorf("%s on %s: got %v, want ok=%v", c.card, c.top, v, c.ok)
		}
		if v != nil && v.Rule != C7 {
			t.Errorf("%s on %s: rule %s, want C7", c.card, c.top, v.Rule)
		}
	}
	if v := CheckPlace(face("green 4"), face("red 5")); v == nil || v.Reason != "red 5 on green 4: colour differs" {
		t.Errorf("reason %v", v)
	}
}

// FitsOn and Next are what the camera pipeline asks: the card a pile takes
// next, none after a 10 (C8), and the predicate agreeing with CheckPlace.
func TestPile_C7_FitsOnAndNext(t *testing.T) {
	for _, c := range []struct {
		top, next string // next "" : nothing follows
	}{
		{"red 1", "red 2"}, {"green 4", "green 5"}, {"yellow 9", "yellow 10"}, {"blue 10", ""},
	} {
		n, ok := Next(face(c.top))
		if want := c.next != ""; ok != want || ok && n != face(c.next) {
			t.Errorf("Next(%s) = %v, %v; want %q", c.top, n, ok, c.next)
		}
	}
	for _, top := range Deck("A") {
		for _, f := range Deck("A") {
			if got, want := FitsOn(top.Face, f.Face), CheckPlace(top.Face, f.Face) == nil; got != want {
				t.Errorf("FitsOn(%s, %s) = %v, CheckPlace says %v", top.Face, f.Face, got, want)
			}
		}
	}
	if FitsOn(face("blue 10"), Face{Colour: Blue, Number: 11}) {
		t.Error("nothing follows a 10")
	}
	if !Starts(face("green 1")) || Starts(face("green 2")) {
		t.Error("only a 1 starts a pile (C6)")
	}
}

func TestPile_C8_ClosedAtTen(t *testing.T) {
	v := CheckPlace(face("blue 10"), face("blue 1"))
	if v == nil || v.Rule != C8 {
		t.Fatalf("got %v, want C8", v)
	}
	p := Pile{Cards: []Card{card("blue 10", "A")}}
	if !p.Closed() {
		t.Fatal("a pile topped by 10 is closed")
	}
}

func TestPile_C9_AnyoneOnAnyPile(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) { setTop(a, &a.Stack, card("green 1", "A")); setTop(b, &b.Stack, card("green 2", "B")) })
	if _, err := r.Play("A", Source{Kind: FromStack}, NewPile); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Play("B", Source{Kind: FromStack}, 1); err != nil {
		t.Fatalf("B may play on A's pile: %v", err)
	}
}

func TestPlay_C10_OnlyVisibleCards(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) {})
	_, err := r.Play("A", Source{Kind: FromHand}, NewPile) // nothing counted off yet
	wantRule(t, err, C10)
	if _, err := r.Play("A", Source{Kind: FromRow, Index: 9}, NewPile); !errors.Is(err, ErrInvalid) {
		t.Fatalf("row slot 9 of 5: %v", err)
	}
	// After counting off three, the third card is the visible one.
	s, _ := r.Seat("A")
	third := s.Hand[len(s.Hand)-3]
	c, err := r.CountOff("A")
	if err != nil || c != third {
		t.Fatalf("count off showed %v, want the third card %v (%v)", c, third, err)
	}
	// Playing it uncovers the card beneath: the second counted card.
	s, _ = r.Seat("A")
	second := s.Counted[1]
	if third.Number == 1 {
		if _, err := r.Play("A", Source{Kind: FromHand}, NewPile); err != nil {
			t.Fatal(err)
		}
		s, _ = r.Seat("A")
		if s.Counted[len(s.Counted)-1] != second {
			t.Fatal("the card beneath did not become visible")
		}
	}
}

func TestPlay_C11_RowGapRefilledFromStack(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) { setTop(a, &a.Row[2], card("yellow 1", "A")) })
	before, _ := r.Seat("A")
	o, err := r.Play("A", Source{Kind: FromRow, Index: 2}, NewPile)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := r.Seat("A")
	want := before.Stack[len(before.Stack)-1]
	if o.Refill == nil || *o.Refill != want || after.Row[2][0] != want || len(after.Stack) != 9 || len(after.Row) != 5 {
		t.Fatalf("gap not refilled from the stack top: %+v row %v", o, after.Row)
	}
}

func TestHand_C12_RecycleAfterUsedUp(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) {})
	s, _ := r.Seat("A")
	order := slices.Clone(s.Hand)
	if err := r.Recycle("A"); !errors.Is(err, ErrPhase) {
		t.Fatalf("recycle with cards in hand: %v", err)
	}
	for {
		if _, err := r.CountOff("A"); err != nil {
			if !errors.Is(err, ErrPhase) {
				t.Fatal(err)
			}
			break
		}
	}
	if err := r.Recycle("A"); err != nil {
		t.Fatal(err)
	}
	s, _ = r.Seat("A")
	if !slices.Equal(s.Hand, order) || len(s.Counted) != 0 {
		t.Fatal("turning the counted-off cards over must give back the hand in its order")
	}
}

func TestStop_C13_OnlyWithEmptyStackAndEndsTheRound(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) {})
	wantRule(t, r.Stop("A"), C13)
	r.seats[0].Hand = append(r.seats[0].Hand, r.seats[0].Stack...)
	r.seats[0].Stack = nil
	if err := r.Stop("A"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Play("B", Source{Kind: FromStack}, NewPile); !errors.Is(err, ErrPhase) {
		t.Fatalf("a play after the stop must be refused: %v", err)
	}
}

func TestScore_C14(t *testing.T) {
	if s := Score(15, 3); s.Score != 9 {
		t.Fatalf("15 centre, 3 left: %d, want 9", s.Score)
	}
	r := fixedRound(t, false, func(a, b *Seat) { setTop(a, &a.Stack, card("red 1", "A")); setTop(b, &b.Stack, card("red 2", "B")) })
	if _, err := r.Play("A", Source{Kind: FromStack}, NewPile); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Play("B", Source{Kind: FromStack}, 1); err != nil {
		t.Fatal(err)
	}
	res := r.Result()
	if res.Players["A"] != (PlayerScore{1, 9, 1 - 18}) || res.Players["B"] != (PlayerScore{1, 9, -17}) {
		t.Fatalf("scores %+v", res.Players)
	}
}

func TestScore_C15_ConsistencyCheck(t *testing.T) {
	res := RoundResult{Piles: []PileSummary{{Top: 3, Cards: 3}, {Top: 10, Cards: 10}},
		Players: map[string]PlayerScore{"A": Score(8, 0), "B": Score(5, 0)}}
	if v := res.CheckConsistency(); v != nil {
		t.Fatalf("13 = 3 + 10, yet %v", v)
	}
	res.Players["B"] = Score(4, 0)
	if v := res.CheckConsistency(); v == nil || v.Rule != C15 {
		t.Fatalf("12 != 13 must fail C15, got %v", v)
	}
}

func players(n int) []Player { return DefaultPlayers(n) }

// record records a round that the match must take.
func record(t *testing.T, m *Match, r RoundResult) {
	t.Helper()
	if err := m.Record(r); err != nil {
		t.Fatalf("record: %v", err)
	}
}

func roundOf(scores map[string]int) RoundResult {
	r := RoundResult{Players: map[string]PlayerScore{}}
	for n, s := range scores {
		r.Players[n] = PlayerScore{Centre: s, Score: s}
	}
	return r
}

func TestMatch_C16_TargetAndTieBreak(t *testing.T) {
	m, _ := NewMatch(players(3), Settings{})
	record(t, m, roundOf(map[string]int{"P1": 60, "P2": 50, "P3": 0}))
	if m.Over() {
		t.Fatal("nobody reached 99")
	}
	record(t, m, roundOf(map[string]int{"P1": 40, "P2": 55, "P3": 0})) // both pass 99: 100 vs 105
	if !m.Over() || m.Winner() != "P2" {
		t.Fatalf("highest total must win: over %v winner %q totals %v", m.Over(), m.Winner(), m.Totals())
	}
	if err := m.Record(roundOf(map[string]int{"P1": 1})); !errors.Is(err, ErrPhase) {
		t.Fatalf("a round after the end: %v", err)
	}
}

func TestMatch_C16_TieAtTheTopPlaysOn(t *testing.T) {
	m, _ := NewMatch(players(2), Settings{Target: 20})
	record(t, m, roundOf(map[string]int{"P1": 25, "P2": 25}))
	if m.Over() {
		t.Fatal("a tie at the top must play on")
	}
	record(t, m, roundOf(map[string]int{"P1": 3, "P2": 1}))
	if m.Winner() != "P1" {
		t.Fatalf("winner %q", m.Winner())
	}
}

func TestMatch_C16_FixedRounds(t *testing.T) {
	m, _ := NewMatch(players(2), Settings{Rounds: 2})
	record(t, m, roundOf(map[string]int{"P1": 5, "P2": 1}))
	if m.Over() {
		t.Fatal("one of two rounds played")
	}
	record(t, m, roundOf(map[string]int{"P1": 0, "P2": 7}))
	if !m.Over() || m.Winner() != "P2" {
		t.Fatalf("over %v winner %q", m.Over(), m.Winner())
	}
}

func TestMatch_C17_DeadlockLeaderWins(t *testing.T) {
	m, _ := NewMatch(players(3), Settings{Deadlock: DeadlockLeader})
	r := roundOf(map[string]int{"P1": 4, "P2": 9, "P3": -2})
	r.Deadlock = true
	record(t, m, r)
	if !m.Over() || m.Winner() != "P2" {
		t.Fatalf("the leader wins at a deadlock: over %v winner %q", m.Over(), m.Winner())
	}
	m2, _ := NewMatch(players(3), Settings{Deadlock: DeadlockRestart})
	record(t, m2, r)
	if m2.Over() {
		t.Fatal("under the restart rule a deadlocked round does not end the match")
	}
}

func TestRound_C17_StuckAndShuffle(t *testing.T) {
	// A round where every visible and reachable card is a 2 or higher and no
	// pile exists: nobody can play.
	r := fixedRound(t, false, func(a, b *Seat) {})
	for _, s := range r.seats {
		var ones, rest []Card
		for _, c := range s.Cards() {
			if c.Number == 1 {
				ones = append(ones, c)
			} else {
				rest = append(rest, c)
			}
		}
		// Bury every 1 in the stack, under its top.
		s.Stack = append(ones, rest[:10-len(ones)]...)
		slices.Reverse(s.Stack)
		s.Stack[0], s.Stack[9] = s.Stack[9], s.Stack[0]
		rest = rest[10-len(ones):]
		for i := range s.Row {
			s.Row[i] = []Card{rest[i]}
		}
		s.Hand, s.Counted = slices.Clone(rest[len(s.Row):]), nil
	}
	if err := r.Audit(); err != nil {
		t.Fatal(err)
	}
	if !r.Stuck(ReachPasses) || !r.Stuck(ReachWholeHand) {
		t.Fatal("every 1 is hidden in a stack: the round is stuck")
	}
	if _, err := r.Shuffle("A", rng(3)); err != nil || r.Audit() != nil {
		t.Fatalf("shuffle: %v %v", err, r.Audit())
	}
	// Bring one buried 1 into A's row: now A can start a pile.
	a := r.seats[0]
	i := slices.IndexFunc(a.Stack, func(c Card) bool { return c.Number == 1 })
	a.Stack[i], a.Row[0][0] = a.Row[0][0], a.Stack[i]
	if r.Stuck(ReachPasses) || r.Stuck(ReachWholeHand) {
		t.Fatal("a 1 in the row can start a pile: not stuck")
	}
	// Put that 1 deep in A's hand, at a place counting in threes never shows:
	// stuck by passes, not when the hand may be cut.
	a.Stack[i], a.Row[0][0] = a.Row[0][0], a.Stack[i]
	one := a.Stack[i]
	a.Stack[i] = a.Hand[len(a.Hand)-1]
	a.Hand[len(a.Hand)-1] = one // the top hand card: covered by the next two
	if !r.Stuck(ReachPasses) || r.Stuck(ReachWholeHand) {
		t.Fatalf("a 1 as the top hand card: passes %v, whole hand %v", r.Stuck(ReachPasses), r.Stuck(ReachWholeHand))
	}
	if err := r.EndInDeadlock(); err != nil || !r.Result().Deadlock {
		t.Fatal("a deadlock ends the round")
	}
}

func TestRow_C18_DescendingAlternatingColours(t *testing.T) {
	r := fixedRound(t, true, func(a, b *Seat) {
		setTop(a, &a.Row[0], card("yellow 10", "A"))
		setTop(a, &a.Stack, card("green 9", "A"))
	})
	o, err := r.LayOnRow("A", Source{Kind: FromStack}, 0)
	if err != nil || o.RowIndex != 1 {
		t.Fatalf("green 9 on yellow 10: %v", err)
	}
	if err := r.Audit(); err != nil {
		t.Fatal(err)
	}
	if v := CheckRowLay(face("blue 6"), face("blue 5")); v == nil || v.Rule != C18 {
		t.Fatalf("blue 5 on blue 6 must break C18: %v", v)
	}
	if v := CheckRowLay(face("blue 6"), face("red 7")); v == nil || v.Rule != C18 {
		t.Fatalf("ascending must break C18: %v", v)
	}
	plain := fixedRound(t, false, func(a, b *Seat) {})
	_, err = plain.LayOnRow("A", Source{Kind: FromStack}, 0)
	wantRule(t, err, C18)
}

func TestRestore_C1_RejectsForeignDeal(t *testing.T) {
	r := fixedRound(t, false, func(a, b *Seat) {})
	a, _ := r.Seat("A")
	b, _ := r.Seat("B")
	if _, err := Restore([]Seat{a, b}, false); err != nil {
		t.Fatal(err)
	}
	a.Stack[0] = b.Stack[0]
	_, err := Restore([]Seat{a, b}, false)
	wantRule(t, err, C1)
}
