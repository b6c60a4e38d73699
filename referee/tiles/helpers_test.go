package tiles

import (
	"testing"

	"ligretto/referee"
)

// starts puts the stones far apart on the 12x12 board of 3-4 players.
var starts = [Stones]Field{{2, 2}, {9, 2}, {2, 9}, {9, 9}}

func newTestTable(t *testing.T, strict bool) *Table {
	t.Helper()
	return tableWithStones(t, starts, strict)
}

// tableWithStones is a table on the 12x12 board with the stones on at.
func tableWithStones(t *testing.T, at [Stones]Field, strict bool) *Table {
	t.Helper()
	l, err := DefaultLayout(4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBoard(l)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := NewTable(b, at, strict)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// fitting is a card for a and b, the right way round.
func fitting(tb *Table, player string, a, b Field) Lay {
	return Lay{Player: player, Fields: [2]Field{a, b}, Colours: [2]Colour{tb.board.Colour(a), tb.board.Colour(b)}}
}

// other returns a colour that is neither of cs.
func other(cs ...Colour) Colour {
	for _, c := range referee.Colours {
		ok := true
		for _, x := range cs {
			ok = ok && c != x
		}
		if ok {
			return c
		}
	}
	return 0
}

// judge checks l and fails the test on a malformed lay.
func judge(t *testing.T, tb *Table, l Lay) Judgement {
	t.Helper()
	j, err := tb.CheckLay(l)
	if err != nil {
		t.Fatalf("%+v: %v", l, err)
	}
	return j
}

// play lays l legally and moves its stone where T3a says.
func play(t *testing.T, tb *Table, l Lay) Judgement {
	t.Helper()
	j := judge(t, tb, l)
	if j.Violation != nil {
		t.Fatalf("%+v: %v", l, j.Violation)
	}
	tb.ApplyLay(l, j)
	who, v, err := tb.CheckStone(j.Stone, j.StoneTo)
	if err != nil || v != nil {
		t.Fatalf("stone %d to %v: %v %v", j.Stone, j.StoneTo, err, v)
	}
	tb.ApplyStone(j.Stone, j.StoneTo, who, nil)
	return j
}

func wantRule(t *testing.T, v *Violation, r Rule) {
	t.Helper()
	if v == nil || v.Rule != r {
		t.Fatalf("got %v, want a violation of %s", v, r)
	}
}
