package tiles

import (
	"errors"
	"testing"
)

// dominoes lists every pair of edge-adjacent fields of the board once.
func dominoes(b *Board) [][2]Field {
	var out [][2]Field
	w, h := b.Size()
	for y := range h {
		for x := range w {
			for _, g := range []Field{{x + 1, y}, {x, y + 1}} {
				if b.On(g) {
					out = append(out, [2]Field{{x, y}, g})
				}
			}
		}
	}
	return out
}

// legalAt counts the places where a fitting card may go at stone.
func legalAt(t *testing.T, tb *Table, stone int) int {
	n := 0
	for _, d := range dominoes(tb.board) {
		l := fitting(tb, "A", d[0], d[1])
		if l.Colours[0] == l.Colours[1] {
			continue
		}
		if j := judge(t, tb, l); j.Violation == nil && j.Stone == stone {
			n++
		}
	}
	return n
}

// TestTiles_T2b_NineWaysBesideAStoneOnACard pins the reading of "neben dem
// Ligretto-Stein": a card shares an edge with the stone's own field. The
// rulebook's example counts 9 ways, which is 3 free neighbours of the
// stone's field times 3 ways on from each.
func TestTiles_T2b_NineWaysBesideAStoneOnACard(t *testing.T) {
	tb := newTestTable(t, false)
	if n := legalAt(t, tb, 1); n != 12 {
		t.Errorf("a stone on a bare field: %d places, want 4x3", n)
	}
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2}))
	if n := legalAt(t, tb, 1); n != 9 {
		t.Errorf("a stone on a card in the open: %d places, want 9", n)
	}
}

func TestTiles_T2b_CardAwayFromEveryStone(t *testing.T) {
	tb := newTestTable(t, false)
	j := judge(t, tb, fitting(tb, "A", Field{5, 5}, Field{6, 5}))
	wantRule(t, j.Violation, T2b)
	if j.Stone != 0 {
		t.Errorf("stone %d for a card next to none", j.Stone)
	}
	// Touching the stone's card but not the stone's field is not enough.
	play(t, tb, fitting(tb, "A", Field{2, 3}, Field{2, 4})) // stone 1 now on (2,4), its card (2,3)-(2,4)
	wantRule(t, judge(t, tb, fitting(tb, "A", Field{2, 2}, Field{2, 1})).Violation, T2b)
}

func TestTiles_T2a_ColoursMustBeTheFields(t *testing.T) {
	tb := newTestTable(t, false)
	a, b := Field{3, 2}, Field{4, 2}
	l := fitting(tb, "A", a, b)
	if j := judge(t, tb, l); j.Violation != nil || j.Stone != 1 {
		t.Fatalf("a fitting card: %+v", j)
	}
	l.Colours[1] = other(l.Colours[0], l.Colours[1])
	wantRule(t, judge(t, tb, l).Violation, T2a)
	l.Colours = [2]Colour{l.Colours[0], l.Colours[0]}
	if _, err := tb.CheckLay(l); !errors.Is(err, ErrInvalid) {
		t.Errorf("a one-colour card: %v, want ErrInvalid", err)
	}
}

// TestTiles_T2e_SwappedCardIsAFaultOnlyWhenAgreed: hint 4 leaves a card
// laid with its colours swapped to the table; the referee passes it unless
// the match is strict.
func TestTiles_T2e_SwappedCardIsAFaultOnlyWhenAgreed(t *testing.T) {
	for _, strict := range []bool{false, true} {
		tb := newTestTable(t, strict)
		l := fitting(tb, "A", Field{3, 2}, Field{4, 2})
		l.Colours[0], l.Colours[1] = l.Colours[1], l.Colours[0]
		v := judge(t, tb, l).Violation
		if strict {
			wantRule(t, v, T2e)
		} else if v != nil {
			t.Errorf("lenient: %v", v)
		}
	}
}

func TestTiles_T2c_NoCardOverACardJokerOrStone(t *testing.T) {
	tb := newTestTable(t, false)
	play(t, tb, fitting(tb, "A", Field{3, 2}, Field{4, 2})) // stone 1 on (4,2)
	// Over the card just laid (its near half), reaching out from the stone.
	wantRule(t, judge(t, tb, fitting(tb, "B", Field{3, 1}, Field{3, 2})).Violation, T2c)
	// Over the stone's own field.
	wantRule(t, judge(t, tb, fitting(tb, "B", Field{4, 2}, Field{5, 2})).Violation, T2c)
	// Over a bare field with a stone on it (stone 2 at the start).
	wantRule(t, judge(t, tb, fitting(tb, "B", Field{9, 2}, Field{9, 3})).Violation, T2c)
	// Over a joker.
	if v, err := tb.CheckJoker("B", Field{5, 2}, 1); v != nil || err != nil {
		t.Fatal(v, err)
	}
	tb.ApplyJoker("B", Field{5, 2}, 1, nil)
	wantRule(t, judge(t, tb, fitting(tb, "B", Field{5, 2}, Field{5, 3})).Violation, T2c)
}

func TestTiles_T2d_CornerAloneIsNotNextToTheStone(t *testing.T) {
	tb := newTestTable(t, false)
	// (3,3) meets stone 1's field (2,2) at a corner alone.
	j := judge(t, tb, fitting(tb, "A", Field{3, 3}, Field{4, 3}))
	wantRule(t, j.Violation, T2d)
	if j.Stone != 1 || j.StoneTo != (Field{4, 3}) {
		t.Errorf("judged at stone %d to %v, want stone 1 to (4,3)", j.Stone, j.StoneTo)
	}
}

// TestTiles_T2d_CornerCardJudgedAtTheStoneNamed: a card meeting two
// stones' fields at a corner alone is judged at the stone it was laid at,
// if named (dev 787: it was judged at the other, which then moved).
func TestTiles_T2d_CornerCardJudgedAtTheStoneNamed(t *testing.T) {
	for _, named := range []int{0, 1, 2} {
		tb := tableWithStones(t, [Stones]Field{{2, 2}, {4, 2}, {2, 9}, {9, 9}}, false)
		lay := fitting(tb, "A", Field{3, 3}, Field{3, 4}) // (3,3) meets (2,2) and (4,2) at corners
		lay.Stone = named
		j := judge(t, tb, lay)
		wantRule(t, j.Violation, T2d)
		if want := max(named, 1); j.Stone != want {
			t.Errorf("laid at stone %d: judged at stone %d, want %d", named, j.Stone, want)
		}
	}
}

// TestTiles_T2d_CornerCardTakenByTheOtherCornerStone: a card named for no
// stone meets two stones' fields at a corner alone (T2d) and is judged at
// the first; the other stone moving onto its field farther from it shows
// the card was laid at that one: the call stands, the move is legal, and
// the first stone awaits nothing (dev 1212 r1: the move seen was renamed
// for the first stone, the stones swapped, and the next legal card called
// T3a). Onto the card's nearer field it is a wrong move still.
func TestTiles_T2d_CornerCardTakenByTheOtherCornerStone(t *testing.T) {
	for _, to := range []Field{{10, 7}, {10, 8}} {
		tb := tableWithStones(t, [Stones]Field{{9, 9}, {11, 9}, {2, 2}, {2, 9}}, false)
		lay := fitting(tb, "A", Field{10, 7}, Field{10, 8}) // (10,8) meets (9,9) and (11,9) at corners
		j := judge(t, tb, lay)
		wantRule(t, j.Violation, T2d)
		if j.Stone != 1 {
			t.Fatalf("judged at stone %d, want 1 (the first)", j.Stone)
		}
		tb.ApplyLay(lay, j)
		who, v, err := tb.CheckStone(2, to)
		if err != nil {
			t.Fatal(err)
		}
		legal := to == Field{10, 7}
		if (v == nil) != legal || legal && who != "A" {
			t.Errorf("stone 2 onto %v: %q %v, want legal %v (A's card)", to, who, v, legal)
		}
		tb.ApplyStone(2, to, who, v)
		if tb.Awaited(1) == legal {
			t.Errorf("stone 2 onto %v: stone 1 awaits the card %v, want %v", to, tb.Awaited(1), !legal)
		}
	}
}
