package tiles

import (
	"slices"
	"testing"
)

// overtakenCards finds, on the 2-player board of round r, P1's card x
// and P2's cards c and, if then, d at stone 1: c, then d, legal; x legal
// laid first, and c, then d, legal after it, each taking the stone where
// it went before; x wrong after them (T2b or T2d).
func overtakenCards(t *testing.T, r *Referee, then bool) (x, c, d Lay) {
	t.Helper()
	tb := r.Table()
	for _, x := range legalAt1(tb, "P1") {
		for _, c := range legalAt1(tb, "P2") {
			ds := []Lay{{}}
			if then {
				ds = legalAt1(laidAt1(tb, c), "P2")
			}
			for _, d := range ds {
				way := []Lay{c}
				if then {
					way = append(way, d)
				}
				if fitsFirst(tb, x, way) {
					return x, c, d
				}
			}
		}
	}
	t.Fatal("no cards at stone 1 legal in one order alone")
	return
}

// fitsFirst reports whether x is wrong (T2b, T2d) after the cards of way
// laid at stone 1 of tb, and legal before them, each of them still legal
// and taking the stone where it went.
func fitsFirst(tb *Table, x Lay, way []Lay) bool {
	alone, withX := tb, laidAt1(tb, x)
	if withX == nil {
		return false
	}
	for _, c := range way {
		jc, _ := alone.CheckLay(c)
		alone = laidAt1(alone, c)
		c.Stone = 1
		j, err := withX.CheckLay(c)
		if err != nil || j.Violation != nil || j.Stone != 1 || j.Misplaced || j.Relocates || j.StoneTo != jc.StoneTo {
			return false
		}
		withX = laidAt1(withX, c)
	}
	j, err := alone.CheckLay(x)
	return err == nil && j.Violation != nil && (j.Violation.Rule == T2b || j.Violation.Rule == T2d)
}

// legalAt1 lists the cards of player's that fit at stone 1 of tb, within
// 3 fields of it.
func legalAt1(tb *Table, player string) []Lay {
	at := tb.Stones()[0].At
	var out []Lay
	for dy := -3; dy <= 3; dy++ {
		for dx := -3; dx <= 3; dx++ {
			a := Field{at.X + dx, at.Y + dy}
			for _, b := range []Field{{a.X + 1, a.Y}, {a.X, a.Y + 1}} {
				if !tb.board.On(a) || !tb.board.On(b) {
					continue
				}
				if l := fitting(tb, player, a, b); laidAt1(tb, l) != nil {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// laidAt1 is a copy of tb with l laid legally at stone 1 and the stone
// moved onto it (T3a), or nil if l is not legal there.
func laidAt1(tb *Table, l Lay) *Table {
	j, err := tb.CheckLay(l)
	if err != nil || j.Violation != nil || j.Stone != 1 || j.Relocates {
		return nil
	}
	t := tb.Clone()
	t.ApplyLay(l, j)
	t.ApplyStone(1, j.StoneTo, l.Player, nil)
	return t
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
		r := roundBegun(t)
		x, cc, _ := overtakenCards(t, r, false)
		jc, _ := r.Table().CheckLay(cc)
		laid(t, r, c.name, cc, 1500, c.seenC)
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
		if c.wantOK {
			// seen moving onto it after all, the stone takes it as a card
			// seen late (it was laid at it, wherever it stood): no call
			on := x.Fields[0]
			if on.Adjacent(jc.StoneTo) {
				on = x.Fields[1]
			}
			if v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 3000, Stone: 1, Fields: []Field{on}}); err != nil || v.Status != StatusOK {
				t.Errorf("%s: stone 1 onto P1's card: %+v %v, want ok", c.name, v, err)
			}
		}
	}
}

// laid applies l, seen at seen (0: not by a camera), and its stone's move
// (T3a) to r, and fails the test unless both are legal.
func laid(t *testing.T, r *Referee, name string, l Lay, tMS, seen int64) {
	t.Helper()
	j, _ := r.Table().CheckLay(l)
	for _, o := range []Observation{
		{Kind: ObsLay, TimeMS: tMS, SeenMS: seen, Player: l.Player, Fields: l.Fields[:], Colours: l.Colours[:]},
		{Kind: ObsStone, TimeMS: tMS + 200, Stone: j.Stone, Fields: []Field{j.StoneTo}},
	} {
		if v, err := r.Apply(o); err != nil || v.Status != StatusOK {
			t.Fatalf("%s: %s: %+v %v", name, o.Kind, v, err)
		}
	}
}

// TestTiles_T2b_CardSeenWithAStonesCardGoesBeforeItAndTheNext: P2 lays
// two cards at stone 1 in turn; then P1's card comes, wrong where the
// stone stands now, but legal before P2's first, and both of P2's legal
// after it. Seen within a second of P2's first card (not of the second),
// it was laid first: the stone went over it, then P2's two, and it is
// legal (held-out 1060: the stone went on to a third card before the
// camera reported the late one).
func TestTiles_T2b_CardSeenWithAStonesCardGoesBeforeItAndTheNext(t *testing.T) {
	r := roundBegun(t)
	x, c, d := overtakenCards(t, r, true)
	laid(t, r, "P2's first", c, 1500, 1000)
	laid(t, r, "P2's second", d, 3500, 3000)
	jd := r.Table().Stones()[0].At
	v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 4000, SeenMS: 1600, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]})
	if err != nil || v.Status != StatusOK {
		t.Fatalf("P1's card: %+v %v, want ok", v, err)
	}
	st := r.State()
	if len(st.Faults["P1"]) > 0 || st.Stones[0].At != jd || r.Table().Awaited(1) {
		t.Errorf("P1's faults %v, stone 1 on %v (awaited %v); want none, on %v, awaiting nothing", st.Faults["P1"], st.Stones[0].At, r.Table().Awaited(1), jd)
	}
}

// TestTiles_T2b_CardSeenWithAWrongColouredCardGoesBeforeIt: P2's card
// at stone 1 shows other colours than its fields' (T2a) and takes the
// stone all the same; then P1's card comes, seen with it, wrong where the
// stone stands now but legal before P2's. A card of the wrong colours
// lies by its stone like any other: P1's went first, and only P2's T2a
// stands (held-out 1212 r2: P1's legal card called T2b).
func TestTiles_T2b_CardSeenWithAWrongColouredCardGoesBeforeIt(t *testing.T) {
	r := roundBegun(t)
	x, c, _ := overtakenCards(t, r, false)
	a, b := r.Table().board.Colour(c.Fields[0]), r.Table().board.Colour(c.Fields[1])
	c.Colours[0] = other(a, b)
	j, _ := r.Table().CheckLay(c)
	for _, o := range []Observation{
		{Kind: ObsLay, TimeMS: 1500, SeenMS: 1000, Player: c.Player, Fields: c.Fields[:], Colours: c.Colours[:]},
		{Kind: ObsStone, TimeMS: 1700, Stone: j.Stone, Fields: []Field{j.StoneTo}},
	} {
		v, err := r.Apply(o)
		if err != nil {
			t.Fatal(err)
		}
		if want := o.Kind == ObsStone; (v.Status == StatusOK) != want || !want && v.Rule != T2a {
			t.Fatalf("P2's card, %s: %+v, want T2a on the card, the move legal", o.Kind, v)
		}
	}
	v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2800, SeenMS: 1300, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]})
	if err != nil || v.Status != StatusOK {
		t.Fatalf("P1's card: %+v %v, want ok", v, err)
	}
	st := r.State()
	if len(st.Faults["P1"]) > 0 || len(st.Faults["P2"]) != 1 || st.Faults["P2"][0].Rule != T2a || st.Stones[0].At != j.StoneTo {
		t.Errorf("faults %v, stone 1 on %v; want P2's T2a alone, on %v", st.Faults, st.Stones[0].At, j.StoneTo)
	}
}

// pairAt1 finds x of xp's and c of cp's among the cards that fit at stone
// 1 of tb and of free, such that want says so.
func pairAt1(tb, free *Table, xp, cp string, want func(x, c Lay) bool) (Lay, Lay, bool) {
	for _, x := range legalAt1(free, xp) {
		for _, c := range legalAt1(tb, cp) {
			if want(x, c) {
				return x, c, true
			}
		}
	}
	return Lay{}, Lay{}, false
}

// TestTiles_T4a_CardOnAnothersJokerStoneGoesBeforeNothing: P1's joker
// takes stone 1, P1 lays a card at it, then P2's card comes, seen with
// P1's, wrong where the stone stands now (T2b, T2d). Laid before P1's card
// it would lie at the stone on P1's joker, which only P1 may lay at
// (T4a): wrong in either order, so it is called.
func TestTiles_T4a_CardOnAnothersJokerStoneGoesBeforeNothing(t *testing.T) {
	r := roundBegun(t)
	at := r.Table().Stones()[0].At
	var joker Field
	for _, f := range at.Neighbours() {
		if r.Table().board.On(f) && r.Table().Free(f) {
			joker = f
			break
		}
	}
	for _, o := range []Observation{
		{Kind: ObsJoker, TimeMS: 500, Player: "P1", Fields: []Field{joker}, Stone: 1},
		{Kind: ObsStone, TimeMS: 600, Stone: 1, Fields: []Field{joker}},
	} {
		if v, err := r.Apply(o); err != nil || v.Status != StatusOK {
			t.Fatalf("P1's joker: %s: %+v %v", o.Kind, v, err)
		}
	}
	tb := r.Table()
	free := tb.Clone()
	free.stones[0].Reserved = ""
	x, c, ok := pairAt1(tb, free, "P2", "P1", func(x, c Lay) bool { return fitsFirst(free, x, []Lay{c}) })
	if !ok {
		t.Fatal("no cards at stone 1 legal in one order alone but for P1's joker")
	}
	if j, _ := tb.CheckLay(x); j.Violation == nil || j.Violation.Rule != T4a {
		t.Fatalf("P2's card first: %+v, want T4a", j)
	}
	laid(t, r, "P1's card", c, 1500, 1000)
	v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2800, SeenMS: 1300, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]})
	if err != nil || v.Status != StatusViolation {
		t.Fatalf("P2's card: %+v %v, want a call", v, err)
	}
}

// roundBegun is a referee with script's 2-player round begun.
func roundBegun(t *testing.T) *Referee {
	t.Helper()
	obs, _ := script(t)
	r := New()
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestTiles_T2d_CardGoneOverUnseenWasTakenByTheStoneAtItsCorner: P1's
// card, seen with P2's at stone 1, is taken as laid before it (the stone
// went over it unseen), though it meets another stone's field at a
// corner alone. Then the camera sees that other stone move onto it: the
// card was laid at that stone, and joined it at a corner (T2d), called
// now; the stone stands on it. Stone 1 moving onto it instead takes it,
// laid at stone 1, with no call (held-out 1768 r2).
func TestTiles_T2d_CardGoneOverUnseenWasTakenByTheStoneAtItsCorner(t *testing.T) {
	for _, by := range []string{"the stone at its corner", "stone 1"} {
		r, x, c, k := cornerOvertaken(t)
		laid(t, r, "P2's", c, 1500, 1000)
		if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2800, SeenMS: 1300, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]}); err != nil || v.Status != StatusOK {
			t.Fatalf("%s: P1's card: %+v %v, want ok (gone over unseen)", by, v, err)
		}
		stone, wantRule, wantStatus, wantFaults := k, T2d, StatusViolation, 1
		if by == "stone 1" {
			stone, wantRule, wantStatus, wantFaults = 1, T3a, StatusOK, 0
		}
		v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 3000, Stone: stone, Fields: []Field{x.Fields[1]}})
		if err != nil || v.Status != wantStatus || v.Rule != wantRule || v.Player != "P1" {
			t.Fatalf("%s: stone %d onto P1's card: %+v %v, want %s %s for P1", by, stone, v, err, wantStatus, wantRule)
		}
		st := r.State()
		if len(st.Faults["P1"]) != wantFaults {
			t.Errorf("%s: P1's faults %v, want %d", by, st.Faults["P1"], wantFaults)
		}
		if st.Stones[stone-1].At != x.Fields[1] || st.Laid["P1"] != 1 {
			t.Errorf("%s: stone %d on %v, P1 laid %d; want on %v, 1", by, stone, st.Stones[stone-1].At, st.Laid["P1"], x.Fields[1])
		}
	}
}

// cornerOvertaken begins script's round with stone 2 moved near stone 1,
// where P1's card x and P2's card c at stone 1 are found: c legal, x
// legal before it (fitsFirst) and, after it, meeting stone k's field (k
// not 1) at a corner alone (T2d) with its first field, its second off
// every stone.
func cornerOvertaken(t *testing.T) (r *Referee, x, c Lay, k int) {
	t.Helper()
	obs, b := script(t)
	s1 := obs[1].Stones[0]
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			s2 := Field{s1.X + dx, s1.Y + dy}
			if !b.On(s2) || slices.Contains(obs[1].Stones, s2) {
				continue
			}
			round := obs[1]
			round.Stones = slices.Clone(round.Stones)
			round.Stones[1] = s2
			r := New()
			for _, o := range []Observation{obs[0], round} {
				if _, err := r.Apply(o); err != nil {
					t.Fatal(err)
				}
			}
			if x, c, k, ok := cornerPair(r.Table()); ok {
				return r, x, c, k
			}
		}
	}
	t.Fatal("no stone 2 near stone 1 gives such cards")
	return
}

// cornerPair finds cornerOvertaken's cards on tb.
func cornerPair(tb *Table) (x, c Lay, k int, ok bool) {
	for _, x := range legalAt1(tb, "P1") {
		for _, c := range legalAt1(tb, "P2") {
			after := laidAt1(tb, c)
			if after == nil || !fitsFirst(tb, x, []Lay{c}) {
				continue
			}
			j, err := after.CheckLay(x)
			if err != nil || j.Violation == nil || j.Violation.Rule != T2d || j.Stone == 1 {
				continue
			}
			if i := slices.IndexFunc(x.Fields[:], func(f Field) bool { return after.Stones()[j.Stone-1].At.Diagonal(f) }); i == 1 {
				x.Fields[0], x.Fields[1] = x.Fields[1], x.Fields[0]
				x.Colours[0], x.Colours[1] = x.Colours[1], x.Colours[0]
			}
			stones := after.Stones()
			if !slices.ContainsFunc(stones[:], func(s StoneView) bool { return s.At.Adjacent(x.Fields[1]) || s.At.Diagonal(x.Fields[1]) }) {
				return x, c, j.Stone, true
			}
		}
	}
	return Lay{}, Lay{}, 0, false
}
