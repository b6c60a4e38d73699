package tiles

import (
	"errors"
	"testing"
)

// stayedCards finds, on the board of round r, P2's card c legal at stone
// 1 and P1's card x legal at stone 1 once it stands on c, but beside no
// stone before c was laid (T2b).
func stayedCards(t *testing.T, r *Referee) (x, c Lay) {
	t.Helper()
	tb := r.Table()
	for _, c := range legalAt1(tb, "P2") {
		after := laidAt1(tb, c)
		for _, x := range legalAt1(after, "P1") {
			if j, err := tb.CheckLay(x); err == nil && j.Violation != nil && j.Violation.Rule == T2b && j.Stone == 0 {
				return x, c
			}
		}
	}
	t.Fatal("no card legal only once stone 1 has moved onto another")
	return
}

// TestTiles_T2b_CardWhoseStoneStayedWasLaidBeforeItCame: P2's card brings
// stone 1 beside P1's card, which is judged legal at it; but the stone is
// seen standing where it stood long after, never moving onto P1's card.
// Seen within a second of P2's card, P1's came first, when no stone was
// beside it (T2b); seen later, P1 left the stone where it stood (T3a).
// Either way P1 laid wrongly and the stone awaits nothing; a move onto
// P1's card seen after all withdraws the call.
func TestTiles_T2b_CardWhoseStoneStayedWasLaidBeforeItCame(t *testing.T) {
	for _, c := range []struct {
		name  string
		seenX int64
		want  Rule
	}{
		{"seen together", 1300, T2b},
		{"seen 1.5 s after", 2500, T3a},
	} {
		r := roundBegun(t)
		x, cc := stayedCards(t, r)
		laid(t, r, c.name, cc, 1500, 1000)
		jx, _ := r.Table().CheckLay(x)
		v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2800, SeenMS: c.seenX, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]})
		if err != nil || v.Status != StatusOK || v.Stone != 1 {
			t.Fatalf("%s: P1's card: %+v %v, want ok at stone 1", c.name, v, err)
		}
		at := r.State().Stones[0].At
		v, err = r.Apply(Observation{Kind: ObsStayed, TimeMS: 6000, Stone: 1, Fields: x.Fields[:]})
		if err != nil || v.Status != StatusViolation || v.Rule != c.want || v.Player != "P1" {
			t.Fatalf("%s: stone 1 stayed: %+v %v, want P1's %s", c.name, v, err, c.want)
		}
		st := r.State()
		if len(st.Faults["P1"]) != 1 || st.Laid["P1"] != 1 || st.Stones[0].At != at || r.Table().Awaited(1) {
			t.Errorf("%s: P1's faults %v, laid %d, stone 1 on %v (awaited %v); want 1 fault, 1 laid, on %v, awaiting nothing",
				c.name, st.Faults["P1"], st.Laid["P1"], st.Stones[0].At, r.Table().Awaited(1), at)
		}
		if r.Reclaims(1, jx.StoneTo, 6500) {
			t.Errorf("%s: stone 1 standing beside P1's card reclaims it: it stood there all along", c.name)
		}
		v, err = r.Apply(Observation{Kind: ObsStone, TimeMS: 7000, Stone: 1, Fields: []Field{jx.StoneTo}})
		if err != nil || v.Status != StatusOK || v.Withdraws == 0 || len(r.State().Faults["P1"]) != 0 {
			t.Errorf("%s: stone 1 onto P1's card after all: %+v %v, faults %v; want ok, the call withdrawn", c.name, v, err, r.State().Faults["P1"])
		}
	}
}

// TestTiles_T3a_StayedNamesTheCardItsStoneAwaits: a stone that stayed
// must await the legal card named, lying whole; else the observation is
// refused.
func TestTiles_T3a_StayedNamesTheCardItsStoneAwaits(t *testing.T) {
	r := roundBegun(t)
	x, cc := stayedCards(t, r)
	for _, o := range []Observation{
		{Kind: ObsStayed, TimeMS: 1000, Stone: 1, Fields: cc.Fields[:]}, // nothing laid yet
		{Kind: ObsStayed, TimeMS: 1000, Stone: 5, Fields: cc.Fields[:]},
		{Kind: ObsStayed, TimeMS: 1000, Stone: 1, Fields: x.Fields[:1]},
	} {
		if v, err := r.Apply(o); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: %+v %v, want %v", o, v, err, ErrInvalid)
		}
	}
	laid(t, r, "P2's card", cc, 1500, 1000)
	if v, err := r.Apply(Observation{Kind: ObsStayed, TimeMS: 3000, Stone: 1, Fields: cc.Fields[:]}); !errors.Is(err, ErrInvalid) {
		t.Errorf("stayed for a card the stone moved onto: %+v %v, want %v", v, err, ErrInvalid)
	}
	// P1's card, awaiting stone 1, covered since on one field (T2c)
	if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 4000, SeenMS: 3900, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]}); err != nil || v.Status != StatusOK {
		t.Fatalf("P1's card: %+v %v", v, err)
	}
	tb := r.Table()
	for _, g := range x.Fields[0].Neighbours() {
		if g == x.Fields[1] || !tb.Board().On(g) || !tb.Free(g) {
			continue
		}
		cover := fitting(tb, "P2", x.Fields[0], g)
		if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 4500, SeenMS: 4400, Player: "P2", Fields: cover.Fields[:], Colours: cover.Colours[:]}); err != nil || v.Rule != T2c {
			t.Fatalf("P2's cover: %+v %v, want T2c", v, err)
		}
		if v, err := r.Apply(Observation{Kind: ObsStayed, TimeMS: 7000, Stone: 1, Fields: x.Fields[:]}); !errors.Is(err, ErrInvalid) {
			t.Errorf("stayed for a card covered since: %+v %v, want %v", v, err, ErrInvalid)
		}
		return
	}
	t.Fatal("no free field beside P1's card to cover it from")
}

// wentOverCards finds, on the board of round r, P2's cards c, then d,
// legal at stone 1, and P1's card x legal at stone 1 after them, and
// before them too, each of them still legal after it and taking the
// stone where it went.
func wentOverCards(t *testing.T, r *Referee) (x, c, d Lay) {
	t.Helper()
	tb := r.Table()
	for _, c := range legalAt1(tb, "P2") {
		t1 := laidAt1(tb, c)
		for _, d := range legalAt1(t1, "P2") {
			for _, x := range legalAt1(laidAt1(t1, d), "P1") {
				if stillLegal(laidAt1(tb, x), tb, c, d) {
					return x, c, d
				}
			}
		}
	}
	t.Fatal("no card legal at stone 1 both before and after two others")
	return
}

// stillLegal reports whether the cards of way, laid at stone 1 of from
// (nil: none), are legal there, each taking the stone where it went on
// alone.
func stillLegal(from, alone *Table, way ...Lay) bool {
	if from == nil {
		return false
	}
	for _, c := range way {
		jc, _ := alone.CheckLay(c)
		c.Stone = 1
		j, err := from.CheckLay(c)
		if err != nil || j.Violation != nil || j.Stone != 1 || j.Relocates || j.Misplaced || j.StoneTo != jc.StoneTo {
			return false
		}
		from, alone = laidAt1(from, c), laidAt1(alone, c)
	}
	return true
}

// TestTiles_T3a_CardWhoseStoneStayedWentOverItFirst: P2's two cards take
// stone 1 on; P1's card, judged legal beside it there, was seen later,
// but the stone stays where it stands. P1's card fits before P2's (the
// stone back where it stood, each of P2's still taking it where it went):
// it was laid first and the stone went over it unseen. Legal; nothing
// awaits it.
func TestTiles_T3a_CardWhoseStoneStayedWentOverItFirst(t *testing.T) {
	r := roundBegun(t)
	x, c, d := wentOverCards(t, r)
	laid(t, r, "P2's first", c, 1500, 1000)
	laid(t, r, "P2's second", d, 3000, 2500)
	at := r.State().Stones[0].At
	if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 4000, SeenMS: 3500, Player: x.Player, Fields: x.Fields[:], Colours: x.Colours[:]}); err != nil || v.Status != StatusOK || v.Stone != 1 {
		t.Fatalf("P1's card: %+v %v, want ok at stone 1", v, err)
	}
	v, err := r.Apply(Observation{Kind: ObsStayed, TimeMS: 7000, Stone: 1, Fields: x.Fields[:]})
	if err != nil || v.Status != StatusOK {
		t.Fatalf("stone 1 stayed: %+v %v, want ok (it went over P1's card first)", v, err)
	}
	st := r.State()
	if len(st.Faults["P1"]) != 0 || st.Laid["P1"] != 1 || st.Stones[0].At != at || r.Table().Awaited(1) {
		t.Errorf("P1's faults %v, laid %d, stone 1 on %v (awaited %v); want none, 1, on %v, awaiting nothing",
			st.Faults["P1"], st.Laid["P1"], st.Stones[0].At, r.Table().Awaited(1), at)
	}
}
