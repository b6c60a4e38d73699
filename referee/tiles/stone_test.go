package tiles

import "testing"

// occupy lays someone's cards on fields, as if played earlier.
func occupy(tb *Table, fields ...Field) {
	for _, f := range fields {
		tb.pieces[tb.board.index(f)] = Piece{Kind: PieceCard, Owner: "X", Colour: tb.board.Colour(f)}
	}
}

func TestTiles_T3a_StoneGoesToTheFartherColour(t *testing.T) {
	tb := newTestTable(t, false)
	// Straight out from (2,2): (3,2) then (4,2); the stone goes to (4,2).
	if j := judge(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2})); j.StoneTo != (Field{4, 2}) {
		t.Errorf("straight: stone to %v, want (4,2)", j.StoneTo)
	}
	// Bent: (2,3) then (3,3), which lies diagonal to the stone: farther.
	l := fitting(tb, "A", Field{3, 3}, Field{2, 3}) // the far field listed first
	j := judge(t, tb, l)
	if j.StoneTo != (Field{3, 3}) {
		t.Errorf("bent: stone to %v, want (3,3)", j.StoneTo)
	}
	tb.ApplyLay(l, j)
	_, v, err := tb.CheckStone(1, Field{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	wantRule(t, v, T3a)
	if who, v, _ := tb.CheckStone(1, Field{3, 3}); v != nil || who != "A" {
		t.Fatalf("the right move: %v by %q", v, who)
	}
}

func TestTiles_T3a_StoneMovedWithoutACard(t *testing.T) {
	tb := newTestTable(t, false)
	_, v, err := tb.CheckStone(2, Field{9, 3})
	if err != nil {
		t.Fatal(err)
	}
	wantRule(t, v, T3a)
}

// TestTiles_T3b_DeadEndIsRelocatedByItsPlayer: A lays stone 1 into a
// pocket with no free field beside it. A owes the stone: A's next card
// may go to any free place where it fits, and the stone onto either of
// its fields; nobody else may lay a card away from the stones.
func TestTiles_T3b_DeadEndIsRelocatedByItsPlayer(t *testing.T) {
	tb := newTestTable(t, false)
	occupy(tb, Field{4, 1}, Field{5, 2}, Field{4, 3})
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2}))
	if s := tb.Stones()[0]; s.At != (Field{4, 2}) || s.Owed != "A" || !tb.Blocked(1) {
		t.Fatalf("stone 1 after the dead end: %+v", s)
	}
	far := [2]Field{{6, 6}, {7, 6}}
	wantRule(t, judge(t, tb, fitting(tb, "B", far[0], far[1])).Violation, T2b)
	l := fitting(tb, "A", far[0], far[1])
	j := judge(t, tb, l)
	if j.Violation != nil || !j.Relocates || j.Stone != 1 {
		t.Fatalf("A's free lay: %+v", j)
	}
	l.Colours[1] = other(l.Colours[0], l.Colours[1])
	wantRule(t, judge(t, tb, l).Violation, T2a) // the colours must still fit
	l = fitting(tb, "A", far[0], far[1])
	tb.ApplyLay(l, j)
	_, v, _ := tb.CheckStone(1, Field{5, 6})
	wantRule(t, v, T3b)
	who, v, _ := tb.CheckStone(1, far[0]) // the nearer field will do too
	if v != nil || who != "A" {
		t.Fatalf("relocating onto %v: %v", far[0], v)
	}
	tb.ApplyStone(1, far[0], who, nil)
	if s := tb.Stones()[0]; s.Owed != "" || s.At != far[0] {
		t.Fatalf("stone 1 after relocation: %+v", s)
	}
}

// TestTiles_T3c_BlockingAnotherStone: A's card at stone 1 takes the last
// way on from stone 2; A owes stone 2 as if it were A's own dead end.
func TestTiles_T3c_BlockingAnotherStone(t *testing.T) {
	l, _ := DefaultLayout(4)
	b, _ := NewBoard(l)
	tb, err := NewTable(b, [Stones]Field{{2, 2}, {5, 2}, {2, 9}, {9, 9}}, false)
	if err != nil {
		t.Fatal(err)
	}
	occupy(tb, Field{5, 1}, Field{6, 2}, Field{5, 3}, Field{4, 1}, Field{4, 3})
	if tb.Blocked(2) {
		t.Fatal("stone 2 is blocked already")
	}
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{3, 3}))
	st := tb.Stones()
	if !tb.Blocked(2) || st[1].Owed != "A" {
		t.Fatalf("stone 2: blocked %v, owed by %q; want A", tb.Blocked(2), st[1].Owed)
	}
	if st[0].Owed != "" {
		t.Fatalf("stone 1 is not blocked, but owed by %q", st[0].Owed)
	}
}

func TestTiles_T4c_JokerBesideTheStoneAndTheStoneOntoIt(t *testing.T) {
	tb := newTestTable(t, false)
	if v, err := tb.CheckJoker("A", Field{4, 2}, 1); err != nil || v == nil || v.Rule != T4c {
		t.Fatalf("a joker two fields away: %v %v", v, err)
	}
	occupy(tb, Field{2, 1})
	if v, _ := tb.CheckJoker("A", Field{2, 1}, 1); v == nil || v.Rule != T4c {
		t.Fatalf("a joker on a card: %v", v)
	}
	if v, _ := tb.CheckJoker("A", Field{3, 2}, 1); v != nil {
		t.Fatal(v)
	}
	tb.ApplyJoker("A", Field{3, 2}, 1, nil)
	_, v, _ := tb.CheckStone(1, Field{4, 2})
	wantRule(t, v, T4c)
	who, v, _ := tb.CheckStone(1, Field{3, 2})
	if v != nil || who != "A" {
		t.Fatal(v, who)
	}
	tb.ApplyStone(1, Field{3, 2}, who, nil)
	if s := tb.Stones()[0]; s.Reserved != "A" {
		t.Fatalf("stone 1 on A's joker: %+v", s)
	}
}

func TestTiles_T4a_OnlyTheJokersOwnerLaysOnIt(t *testing.T) {
	tb := newTestTable(t, false)
	tb.ApplyJoker("A", Field{3, 2}, 1, nil)
	tb.ApplyStone(1, Field{3, 2}, "A", nil)
	wantRule(t, judge(t, tb, fitting(tb, "B", Field{4, 2}, Field{5, 2})).Violation, T4a)
	if v, _ := tb.CheckJoker("B", Field{3, 3}, 1); v == nil || v.Rule != T4a {
		t.Fatalf("B's joker on A's: %v", v)
	}
	play(t, tb, fitting(tb, "A", Field{4, 2}, Field{5, 2}))
	if s := tb.Stones()[0]; s.Reserved != "" || s.At != (Field{5, 2}) {
		t.Fatalf("after A's card the stone is free to all: %+v", s)
	}
	if j := judge(t, tb, fitting(tb, "B", Field{6, 2}, Field{7, 2})); j.Violation != nil {
		t.Fatal(j.Violation)
	}
}

func TestTiles_T4b_TheCardOnTheJokerComesAtOnce(t *testing.T) {
	tb := newTestTable(t, false)
	tb.ApplyJoker("A", Field{3, 2}, 1, nil)
	tb.ApplyStone(1, Field{3, 2}, "A", nil)
	wantRule(t, judge(t, tb, fitting(tb, "A", Field{9, 3}, Field{9, 4})).Violation, T4b)
	if v, _ := tb.CheckJoker("A", Field{9, 3}, 2); v == nil || v.Rule != T4b {
		t.Fatalf("a joker elsewhere first: %v", v)
	}
	// Both jokers in a row, side by side, are allowed (the rulebook's hint).
	if v, _ := tb.CheckJoker("A", Field{4, 2}, 1); v != nil {
		t.Fatalf("a second joker beside the first: %v", v)
	}
	tb.ApplyJoker("A", Field{4, 2}, 1, nil)
	tb.ApplyStone(1, Field{4, 2}, "A", nil)
	if v, _ := tb.CheckJoker("A", Field{5, 2}, 1); v == nil || v.Rule != T1 {
		t.Fatalf("a third joker: %v, want T1", v)
	}
}

// TestTiles_T3b_RelocationLearntFromTheStone: a camera may not know which
// stone a card is for. A's card beside stone 2, then A's blocked stone 1
// moving onto it, is A relocating stone 1; stone 2 waits for nothing.
func TestTiles_T3b_RelocationLearntFromTheStone(t *testing.T) {
	tb := newTestTable(t, false)
	occupy(tb, Field{4, 1}, Field{5, 2}, Field{4, 3})
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2})) // stone 1 into a dead end
	if tb.Stones()[0].Owed != "A" {
		t.Fatal("stone 1 is not A's to relocate")
	}
	l := fitting(tb, "A", Field{9, 3}, Field{9, 4}) // beside stone 2 at (9,2), no stone named
	j := judge(t, tb, l)
	if j.Violation != nil || j.Stone != 2 || j.Relocates {
		t.Fatalf("judged %+v, want a lay at stone 2", j)
	}
	tb.ApplyLay(l, j)
	who, v, err := tb.CheckStone(1, Field{9, 4})
	if err != nil || v != nil || who != "A" {
		t.Fatalf("stone 1 onto A's card: %v %v %q", err, v, who)
	}
	tb.ApplyStone(1, Field{9, 4}, who, nil)
	st := tb.Stones()
	if st[0].At != (Field{9, 4}) || st[0].Owed != "" || st[1].At != (Field{9, 2}) {
		t.Fatalf("stones %+v", st)
	}
	if _, v, _ := tb.CheckStone(2, Field{9, 4}); v == nil || v.Rule != T3a {
		t.Fatalf("stone 2 still waits for a card: %v", v)
	}
	if err := tb.CheckBoard(); err != nil {
		t.Fatal(err)
	}
}

// TestTiles_T3a_UnownedCardMovesItsStone: a card whose owner the camera
// could not read (Player "") lies on the board and its stone moves onto
// it (T3a), so the next card at that stone is judged where the stone
// stands; it counts for nobody, charges nobody and relocates nothing.
func TestTiles_T3a_UnownedCardMovesItsStone(t *testing.T) {
	tb := newTestTable(t, false)
	j := play(t, tb, fitting(tb, "", Field{3, 2}, Field{4, 2}))
	if j.Stone != 1 || tb.Stones()[0].At != (Field{4, 2}) {
		t.Fatalf("stone %d at %v, want stone 1 at (4,2)", j.Stone, tb.Stones()[0].At)
	}
	if laid := tb.Laid(); len(laid) != 0 {
		t.Errorf("laid %v, want nobody's", laid)
	}
	// The next card, beside (4,2) only, fits at stone 1 where it now is.
	if j := judge(t, tb, fitting(tb, "A", Field{5, 2}, Field{6, 2})); j.Violation != nil || j.Stone != 1 {
		t.Fatalf("next card: stone %d, %v", j.Stone, j.Violation)
	}
	// An unowned card beside no stone is wrong (T2b) but relocates no
	// stone, and nobody is charged.
	l := fitting(tb, "", Field{6, 6}, Field{6, 7})
	j = judge(t, tb, l)
	wantRule(t, j.Violation, T2b)
	tb.ApplyLay(l, j)
	if f := tb.Faults(); len(f) != 0 {
		t.Errorf("faults %v, want none", f)
	}
}

// TestTiles_T3b_RelocatedStoneTurnedOntoTheCardsOtherField: a relocated
// stone may stand on either field of its new card, so a stone seen on
// one and then on the other has not moved without a card; once a card is
// laid at it, or it has gone on, that card is no longer its own.
func TestTiles_T3b_RelocatedStoneTurnedOntoTheCardsOtherField(t *testing.T) {
	tb := newTestTable(t, false)
	occupy(tb, Field{4, 1}, Field{5, 2}, Field{4, 3})
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2}))
	far := [2]Field{{6, 6}, {7, 6}}
	l := fitting(tb, "A", far[0], far[1])
	tb.ApplyLay(l, judge(t, tb, l))
	tb.ApplyStone(1, far[0], "A", nil)
	who, v, err := tb.CheckStone(1, far[1])
	if err != nil || v != nil || who != "A" {
		t.Fatalf("turned onto the card's other field: %q %v %v", who, v, err)
	}
	tb.ApplyStone(1, far[1], who, nil)
	if s := tb.Stones()[0]; s.At != far[1] || s.Owed != "" {
		t.Fatalf("stone 1 after the turn: %+v", s)
	}
	if who, v, _ := tb.CheckStone(1, far[0]); v != nil || who != "A" {
		t.Fatalf("turned back: %q %v", who, v)
	}
	_, v, _ = tb.CheckStone(1, Field{8, 6}) // off the card
	wantRule(t, v, T3a)
	next := fitting(tb, "B", Field{8, 6}, Field{9, 6})
	j := judge(t, tb, next)
	if j.Violation != nil {
		t.Fatalf("B's card at stone 1: %v", j.Violation)
	}
	tb.ApplyLay(next, j)
	_, v, _ = tb.CheckStone(1, far[0]) // a card is laid at it: it goes onto that
	wantRule(t, v, T3a)
	tb.ApplyStone(1, j.StoneTo, "B", nil)
	_, v, _ = tb.CheckStone(1, far[0])
	wantRule(t, v, T3a)
}

// TestTiles_T3a_StoneOntoACardJudgedForAnotherBesideIt: a card that names
// no stone lies by stones 1 and 2 and is judged for stone 1; then stone 2
// moves onto its field farther from stone 2. A camera may see stone 2
// come beside a card only after the card: the move says the card was
// laid at stone 2, which takes it (held-out 1211 r2: the move called
// T3a, and three cards after it T2b). Named for stone 1 by the camera,
// the card stays stone 1's and the move is called.
func TestTiles_T3a_StoneOntoACardJudgedForAnotherBesideIt(t *testing.T) {
	for _, named := range []bool{false, true} {
		tb := tableWithStones(t, [Stones]Field{{4, 5}, {6, 6}, {2, 9}, {9, 9}}, false)
		l := fitting(tb, "A", Field{5, 5}, Field{6, 5})
		if named {
			l.Stone = 1
		}
		j := judge(t, tb, l)
		if j.Violation != nil || j.Stone != 1 || j.StoneTo != (Field{6, 5}) {
			t.Fatalf("named %v: A's card: %+v, want legal at stone 1, onto (6,5)", named, j)
		}
		tb.ApplyLay(l, j)
		who, v, err := tb.CheckStone(2, Field{5, 5})
		if err != nil {
			t.Fatal(err)
		}
		if named {
			wantRule(t, v, T3a)
			continue
		}
		if v != nil || who != "A" {
			t.Fatalf("stone 2 onto (5,5): %v by %q, want legal, A's", v, who)
		}
		tb.ApplyStone(2, Field{5, 5}, who, v)
		if tb.Awaited(1) || tb.Awaited(2) || tb.Stones()[1].At != (Field{5, 5}) || len(tb.Faults()["A"]) > 0 {
			t.Errorf("after stone 2's move: awaited %v %v, stone 2 on %v, A's faults %v; want none, (5,5), none",
				tb.Awaited(1), tb.Awaited(2), tb.Stones()[1].At, tb.Faults()["A"])
		}
	}
}
