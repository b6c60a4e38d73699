package tiles

import "testing"

// TestTiles_T3b_CardCalledBesideNoStoneRelocatesTheStoneItsPlayerBlocked:
// A lays a card that takes stone 1 into a dead end, and then, as T3b
// lets them, a card on a free place far away. The camera saw the far card
// first reported (the stone's move onto the first was seen late), so it
// was called T2b; once the stone is seen blocked by A's first card, the
// far one, first seen after it, is its relocation: the call is withdrawn,
// and the stone goes onto it (dev 1176 r2). A far card first seen before
// the blocking card was not its relocation, and stays called.
func TestTiles_T3b_CardCalledBesideNoStoneRelocatesTheStoneItsPlayerBlocked(t *testing.T) {
	for _, c := range []struct {
		name     string
		seenFar  int64
		withdraw bool
	}{{"far card seen after", 1500, true}, {"far card seen before", 500, false}} {
		r := New()
		l, _ := DefaultLayout(4)
		for _, o := range []Observation{
			{Kind: ObsMatch, Players: DefaultPlayers(4), Settings: &Settings{Rounds: 2}},
			{Kind: ObsRound, Layout: &l, Stones: starts[:]},
		} {
			if _, err := r.Apply(o); err != nil {
				t.Fatal(err)
			}
		}
		tb := r.Table()
		occupy(tb, Field{4, 1}, Field{5, 2}, Field{4, 3})
		block := fitting(tb, "P1", Field{3, 2}, Field{4, 2})
		far := fitting(tb, "P1", Field{6, 6}, Field{7, 6})
		v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2000, SeenMS: c.seenFar, Player: "P1", Fields: far.Fields[:], Colours: far.Colours[:]})
		if err != nil || v.Rule != T2b {
			t.Fatalf("%s: the far card: %+v %v, want T2b", c.name, v, err)
		}
		farCall := v.Seq
		for _, o := range []Observation{
			{Kind: ObsLay, TimeMS: 2100, SeenMS: 1000, Player: "P1", Fields: block.Fields[:], Colours: block.Colours[:]},
			{Kind: ObsStone, TimeMS: 2200, Stone: 1, Fields: []Field{{4, 2}}},
		} {
			if v, err = r.Apply(o); err != nil || v.Status != StatusOK {
				t.Fatalf("%s: %s: %+v %v, want ok", c.name, o.Kind, v, err)
			}
		}
		if withdrawn := v.Withdraws == farCall; withdrawn != c.withdraw {
			t.Errorf("%s: stone 1 into the dead end: %+v, want the T2b call withdrawn %v", c.name, v, c.withdraw)
		}
		if faulted := len(r.State().Faults["P1"]) > 0; faulted == c.withdraw {
			t.Errorf("%s: P1's faults %v", c.name, r.State().Faults["P1"])
		}
		if !c.withdraw {
			continue
		}
		if !r.Table().Awaited(1) {
			t.Errorf("%s: stone 1 awaits no move onto the far card", c.name)
		}
		v, err = r.Apply(Observation{Kind: ObsStone, TimeMS: 2500, Stone: 1, Fields: []Field{{7, 6}}})
		if err != nil || v.Status != StatusOK || v.Withdraws != 0 {
			t.Errorf("%s: stone 1 onto the far card: %+v %v, want legal, the relocation", c.name, v, err)
		}
	}
}
