package tiles

import "testing"

// overtakenPair finds, on the 2-player board of round r, P1's card x
// and P2's card c at stone 1: each legal laid first, c legal after x
// (taking the stone where it takes it laid first), and x wrong after c
// (T2b or T2d).
func overtakenPair(t *testing.T, r *Referee) (x, c Lay) {
	t.Helper()
	tb := r.Table()
	at := tb.Stones()[0].At
	var near []Lay // legal cards at stone 1
	for dy := -3; dy <= 3; dy++ {
		for dx := -3; dx <= 3; dx++ {
			a := Field{at.X + dx, at.Y + dy}
			for _, b := range []Field{{a.X + 1, a.Y}, {a.X, a.Y + 1}} {
				if !tb.board.On(a) || !tb.board.On(b) {
					continue
				}
				if l := fitting(tb, "", a, b); judgeOK(tb, l, 1) {
					near = append(near, l)
				}
			}
		}
	}
	for _, x := range near {
		for _, c := range near {
			x.Player, c.Player = "P1", "P2"
			jc, _ := tb.CheckLay(c)
			first := tb.Clone()
			first.ApplyLay(c, jc)
			first.ApplyStone(1, jc.StoneTo, "P2", nil)
			if jx, err := first.CheckLay(x); err != nil || jx.Violation == nil || (jx.Violation.Rule != T2b && jx.Violation.Rule != T2d) {
				continue
			}
			after := tb.Clone()
			jx, _ := after.CheckLay(x)
			after.ApplyLay(x, jx)
			after.ApplyStone(1, jx.StoneTo, "P1", nil)
			c.Stone = 1
			if j, err := after.CheckLay(c); err == nil && j.Violation == nil && j.Stone == 1 && !j.Misplaced && !j.Relocates && j.StoneTo == jc.StoneTo {
				c.Stone = 0
				return x, c
			}
		}
	}
	t.Fatal("no pair of cards at stone 1 legal in one order alone")
	return
}

// judgeOK reports whether l is legal at stone.
func judgeOK(tb *Table, l Lay, stone int) bool {
	j, err := tb.CheckLay(l)
	return err == nil && j.Violation == nil && j.Stone == stone
}

// TestTiles_T2b_CardSeenWithTheStonesLastOneWasLaidBeforeIt: P2's card
// is judged and its stone moves; then P1's card comes, which lies by no
// stone now (T2b, or T2d at a corner) but was legal before P2's, and
// P2's stays legal after it, the stone ending where it went. A camera
// that first saw the two within a second cannot tell which came first:
// P1's card is legal (laid first, the stone went over it unseen). Seen
// 1.5 s apart, or not by a camera (no first sighting: a simulator's
// order is sure), it is called.
func TestTiles_T2b_CardSeenWithTheStonesLastOneWasLaidBeforeIt(t *testing.T) {
	for _, c := range []struct {
		name         string
		seenC, seenX int64
		wantOK       bool
	}{
		{"seen together", 1000, 1300, true},
		{"seen first", 1300, 1000, true},
		{"seen 1.5 s apart", 1000, 2500, false},
		{"not seen by a camera", 0, 0, false},
	} {
		obs, _ := script(t)
		r := New()
		for _, o := range obs[:2] {
			if _, err := r.Apply(o); err != nil {
				t.Fatal(err)
			}
		}
		x, cc := overtakenPair(t, r)
		jc, _ := r.Table().CheckLay(cc)
		steps := []Observation{
			{Kind: ObsLay, TimeMS: 1500, SeenMS: c.seenC, Player: cc.Player, Fields: cc.Fields[:], Colours: cc.Colours[:]},
			{Kind: ObsStone, TimeMS: 1700, Stone: 1, Fields: []Field{jc.StoneTo}},
		}
		for _, o := range steps {
			if v, err := r.Apply(o); err != nil || v.Status != StatusOK {
				t.Fatalf("%s: %s: %+v %v", c.name, o.Kind, v, err)
			}
		}
		v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2800, SeenMS: c.seenX, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]})
		if err != nil {
			t.Fatal(err)
		}
		if ok := v.Status == StatusOK; ok != c.wantOK {
			t.Errorf("%s: P1's card judged %+v, want ok %v", c.name, v, c.wantOK)
		}
		st := r.State()
		if faulted := len(st.Faults["P1"]) > 0; faulted == c.wantOK {
			t.Errorf("%s: P1's faults %v, want some %v", c.name, st.Faults["P1"], !c.wantOK)
		}
		if st.Laid["P1"] != 1 || st.Stones[0].At != jc.StoneTo {
			t.Errorf("%s: P1 laid %d, stone 1 on %v; want 1, on %v", c.name, st.Laid["P1"], st.Stones[0].At, jc.StoneTo)
		}
		if c.wantOK && r.Table().Awaited(1) {
			t.Errorf("%s: stone 1 awaits a move onto P1's card, laid before the one it stands on", c.name)
		}
	}
}
