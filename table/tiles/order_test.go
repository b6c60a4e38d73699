package tiles

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"ligretto/referee"
	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
)

// togetherPair finds two legal cards at stone 1 of ref's table: a, then
// b beside where a takes the stone, b wrong (T2b or T2d) were it laid
// first. It returns them with the fields the stone moves onto.
func togetherPair(t *testing.T, ref *tiles.Referee) (a, b tiles.Lay, toA, toB tiles.Field) {
	t.Helper()
	tb := ref.Table()
	return pairAtStone1(t, tb, func(b tiles.Lay) bool {
		first, err := tb.CheckLay(b)
		return err == nil && first.Violation != nil && (first.Violation.Rule == tiles.T2b || first.Violation.Rule == tiles.T2d)
	})
}

// besideBoth finds two legal cards at stone 1 of ref's table: a, then b
// beside both where the stone stood and where a takes it.
func besideBoth(t *testing.T, ref *tiles.Referee) (a, b tiles.Lay, toA, toB tiles.Field) {
	t.Helper()
	tb := ref.Table()
	at := tb.Stones()[0].At
	return pairAtStone1(t, tb, func(b tiles.Lay) bool { return slices.ContainsFunc(b.Fields[:], at.Adjacent) })
}

// pairAtStone1 finds two legal cards at stone 1 of tb: P1's a, then P2's
// b where a takes the stone, b one that want picks. It returns them with
// the fields the stone moves onto.
func pairAtStone1(t *testing.T, tb *tiles.Table, want func(b tiles.Lay) bool) (a, b tiles.Lay, toA, toB tiles.Field) {
	t.Helper()
	for _, a := range allLays(tb, "P1", 1) {
		ja, err := tb.CheckLay(a)
		if err != nil || ja.Violation != nil {
			continue
		}
		after := tb.Clone()
		after.ApplyLay(a, ja)
		after.ApplyStone(1, ja.StoneTo, "P1", nil)
		for _, b := range allLays(after, "P2", 1) {
			if jb, err := after.CheckLay(b); err == nil && jb.Violation == nil && want(b) {
				return a, b, ja.StoneTo, jb.StoneTo
			}
		}
	}
	t.Fatal("no such pair of cards at stone 1")
	return
}

// allLays lists every place a card of player's fits at stone (1..4).
func allLays(tb *tiles.Table, player string, stone int) []tiles.Lay {
	var out []tiles.Lay
	for a := tiles.Colour(1); a <= 4; a++ {
		for b := tiles.Colour(1); b <= 4; b++ {
			for _, l := range tb.Lays(player, 0, [2]tiles.Colour{a, b}) {
				if l.Stone == stone {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// TestLoop_T2d_CardsSeenTogetherGoInTheOrderTheRulesAllow: two cards laid
// at one stone, the second beside where the first took it, first seen
// within togetherMS of each other but the second first: a frame apart, or
// further apart and reported at once (the card seen first was then under
// a hand, and its first sighting says little). Judged in the order seen, the
// second would meet the stone at a corner or lie by none (T2b, T2d); seen
// together, either order is as likely, and the referee takes the one in
// which both are legal: nothing is called and the stone ends on the
// second card (T3a).
func TestLoop_T2d_CardsSeenTogetherGoInTheOrderTheRulesAllow(t *testing.T) {
	for _, c := range []struct{ gap, reportB int64 }{{100, 1000}, {600, 1600}} {
		gap := c.gap
		l, ref, vs := twoPlayerRound(t)
		a, b, toA, toB := togetherPair(t, ref)
		seenB := seenLay(c.reportB, b)
		seenB.SeenMS = 1000
		seenA := seenLay(1000+gap, a)
		seenA.SeenMS = 1000 + gap
		feedSteps(l, []fed{
			{c.reportB, []tiles.Observation{seenB}},
			{1000 + gap, []tiles.Observation{seenA}},
			{1300 + gap, nil},
			{1500 + gap, []tiles.Observation{seenStone(1500+gap, 1, toA)}},
			{1800 + gap, []tiles.Observation{seenStone(1800+gap, 1, toB)}},
		})
		l.tick(1900 + gap)
		laid := 0
		for _, v := range *vs {
			if v.Err != nil || v.Verdict.Status == tiles.StatusViolation {
				t.Errorf("seen %d ms apart: %s at %d: %s %v", gap, v.Obs.Kind, v.Obs.TimeMS, v.Verdict.Reason, v.Err)
			}
			if v.Obs.Kind == tiles.ObsLay {
				laid++
			}
		}
		if laid != 2 {
			t.Errorf("seen %d ms apart: %d cards judged, want 2", gap, laid)
		}
		if at := ref.State().Stones[0].At; at != toB {
			t.Errorf("seen %d ms apart: stone 1 on %v, want %v (the second card)", gap, at, toB)
		}
	}
}

// TestLoop_T2d_CardSeenClearlyFirstIsJudgedFirst: the same second card,
// reported as late as the first but first seen more than togetherMS
// before it, came first: it is judged first, and called wrong (T2b or T2d).
func TestLoop_T2d_CardSeenClearlyFirstIsJudgedFirst(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	a, b, _, _ := togetherPair(t, ref)
	const tA = 2200         // 1.25 s between the sightings, more than togetherMS
	seenB := seenLay(tA, b) // reported late, waiting with a: only the sightings tell
	seenB.SeenMS = 1000
	seenA := seenLay(tA+50, a)
	seenA.SeenMS = tA + 50
	l.tick(tA)
	l.apply([]tiles.Observation{seenB})
	l.tick(tA + 50)
	l.apply([]tiles.Observation{seenA})
	l.tick(tA + StoneWaitMS + 100)
	var lays []Verdict
	for _, v := range *vs {
		if v.Obs.Kind == tiles.ObsLay {
			lays = append(lays, v)
		}
	}
	if len(lays) != 2 {
		t.Fatalf("%d cards judged, want 2", len(lays))
	}
	if r := lays[0].Verdict.Rule; lays[0].Obs.Player != b.Player || (r != tiles.T2b && r != tiles.T2d) {
		t.Errorf("first judged: %s's card, %s %s; want %s's called T2b or T2d", lays[0].Obs.Player, lays[0].Verdict.Status, r, b.Player)
	}
}

// TestLoop_T3a_StoneSeenOntoTheCardSeenFirstWentOverTheOther: the same
// two cards, the second first seen 1.2 s before the first (more than
// togetherMS: a hand hid the first) and the camera seeing stone 1 go
// onto the second; all reported in one batch. No stone goes onto a card
// laid by none (T2b), and stone 1 reaches the second card only over the
// first: the first came first, and nothing is called (dev 1434 r1: the
// move was renamed for a blocked stone, the first card left for stone 1,
// and four legal plays called wrong after it).
func TestLoop_T3a_StoneSeenOntoTheCardSeenFirstWentOverTheOther(t *testing.T) {
	wentOverTheOther(t, false)
}

// TestLoop_T3a_StoneSeenOntoTheCardSeenFirstWentOverTheWaitingOther: the
// same, but the two cards are reported a frame before the stone's move
// onto the second, so the first already waits when the move comes: the
// first came first all the same, and nothing is called.
func TestLoop_T3a_StoneSeenOntoTheCardSeenFirstWentOverTheWaitingOther(t *testing.T) {
	wentOverTheOther(t, true)
}

// wentOverTheOther plays the two tests above: the stone's move onto the
// second card reported with the cards, or a frame after them (waiting).
func wentOverTheOther(t *testing.T, waiting bool) {
	t.Helper()
	l, ref, vs := twoPlayerRound(t)
	a, b, _, toB := togetherPair(t, ref)
	const tAll = 2400
	seenB := seenLay(tAll, b)
	seenB.SeenMS, seenB.Stone = 1000, 1
	seenA := seenLay(tAll, a)
	seenA.SeenMS = 2200
	l.tick(tAll)
	if waiting {
		l.apply([]tiles.Observation{seenB, seenA})
		l.tick(tAll + 66)
		l.apply([]tiles.Observation{seenStone(tAll+66, 1, toB)})
	} else {
		l.apply([]tiles.Observation{seenB, seenStone(tAll, 1, toB), seenA})
	}
	l.tick(tAll + StoneWaitMS + 100)
	laid := 0
	for _, v := range *vs {
		if v.Err != nil || v.Verdict.Status == tiles.StatusViolation {
			t.Errorf("%s at %d: %s %s %v", v.Obs.Kind, v.Obs.TimeMS, v.Verdict.Rule, v.Verdict.Reason, v.Err)
		}
		if v.Obs.Kind == tiles.ObsLay {
			laid++
		}
	}
	if laid != 2 {
		t.Errorf("%d cards judged, want 2", laid)
	}
	if at := ref.State().Stones[0].At; at != toB {
		t.Errorf("stone 1 on %v, want %v (the second card)", at, toB)
	}
}

// TestLoop_T3b_UnseenRelocationTurnedOntoTheFieldTheNextCardNeeds: a
// blocked stone is relocated (T3b) and the camera never sees it land.
// The loop assumes it onto the field the camera listed first, which here
// is the other one; the next card at the stone lies only beside the
// field the stone took. Either field may take a relocated stone, so the
// loop turns it: nothing is called wrong, and the round is scored as the
// simulator did. So too when the next card shows other colours than its
// fields': it lies by the stone all the same, and only its colours are
// called (T2a; dev 1218 r1: called T2d at the field the loop guessed).
func TestLoop_T3b_UnseenRelocationTurnedOntoTheFieldTheNextCardNeeds(t *testing.T) {
	for _, wrongColours := range []bool{false, true} {
		if !unseenRelocationTurned(t, wrongColours) {
			t.Fatalf("wrong colours %v: no simulated round without wrong plays relocates a stone whose next card lies beside one field alone", wrongColours)
		}
	}
}

// unseenRelocationTurned plays the first simulated round found for
// TestLoop_T3b_UnseenRelocationTurnedOntoTheFieldTheNextCardNeeds, the
// next card's colours wrong or not, and reports whether it found one.
func unseenRelocationTurned(t *testing.T, wrongColours bool) bool {
	for _, players := range []int{2, 3, 4} {
		for seed := uint64(1); seed <= 300; seed++ {
			res, events, clean := cleanRound(t, players, seed)
			if !clean {
				continue
			}
			l, ref, vs := simLoop(t, players, res.Settings)
			found, next := false, -1
			for i, e := range events {
				l.tick(e.TimeMS)
				obs := cameraSaw(e, e.TimeMS)
				if i == next && wrongColours {
					obs[0].Colours = []tiles.Colour{colourOtherThan(obs[0].Colours...), obs[0].Colours[1]}
				}
				if !found && e.Kind == tilesim.EvLay && e.StoneTo != nil && ref.State().Stones[e.Stone-1].Owed == e.Player {
					other := e.Fields[0]
					if other == *e.StoneTo {
						other = e.Fields[1]
					}
					if n := nextAt(events[i+1:], e.Stone, 0); n >= 0 && !slices.ContainsFunc(events[i+1+n].Fields, other.Adjacent) {
						found, next = true, i+1+n
						lay := obs[0]
						if lay.Fields[0] != other {
							lay.Fields[0], lay.Fields[1] = lay.Fields[1], lay.Fields[0]
							lay.Colours[0], lay.Colours[1] = lay.Colours[1], lay.Colours[0]
						}
						obs = []tiles.Observation{lay} // the stone never seen
					}
				}
				l.apply(obs)
			}
			l.tick(events[len(events)-1].TimeMS + StoneWaitMS)
			l.Close()
			if !found {
				continue
			}
			turned := slices.ContainsFunc(*vs, func(v Verdict) bool {
				return v.Obs.Kind == tiles.ObsStone && v.Obs.By == "loop" && v.Verdict.Rule == tiles.T3b
			})
			if !turned {
				t.Errorf("seed %d, wrong colours %v: the relocated stone was never turned", seed, wrongColours)
			}
			if !wrongColours {
				scoredAsSimulated(t, seed, *vs, ref, res)
				return true
			}
			called := false
			for _, v := range *vs {
				onNext := v.Obs.Kind == tiles.ObsLay && v.Obs.TimeMS == events[next].TimeMS
				called = called || onNext && v.Verdict.Rule == tiles.T2a
				if v.Err != nil || v.Verdict.Status == tiles.StatusViolation && (!onNext || v.Verdict.Rule != tiles.T2a) {
					t.Errorf("seed %d: %s at %d: %s %s %v; want only the next card called, T2a", seed, v.Obs.Kind, v.Obs.TimeMS, v.Verdict.Rule, v.Verdict.Reason, v.Err)
				}
			}
			if !called {
				t.Errorf("seed %d: the next card, of the wrong colours, not called T2a", seed)
			}
			return true
		}
	}
	return false
}

// colourOtherThan is a colour that is none of cs.
func colourOtherThan(cs ...tiles.Colour) tiles.Colour {
	for _, c := range referee.Colours {
		if !slices.Contains(cs, c) {
			return c
		}
	}
	return 0
}

// TestLoop_T3a_HeldCardItsStoneWasSeenOnFirstStaysFirst: a card at
// stone 1 waits, its stone's move onto it already seen; the next card at
// that stone comes with the stone's move onto it. A stone moves onto each
// card laid at it in turn (T3a), so the waiting card came first: it is
// judged first, and both are legal (held-out 860: the second was judged
// first, and the first called T2d).
func TestLoop_T3a_HeldCardItsStoneWasSeenOnFirstStaysFirst(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	a, b, toA, toB := besideBoth(t, ref)
	l.tick(1000)
	seenA := seenLay(1000, a)
	seenA.SeenMS = 1000
	seenA.Stone = 1
	moveA := seenStone(1000, 1, toA)
	l.waiting = []*waiting{{card: seenA, since: 1000, grace: 3000, held: true, stone: &moveA}}
	l.tick(2000)
	seenB := seenLay(2000, b)
	seenB.SeenMS = 2000
	l.apply([]tiles.Observation{seenB, seenStone(2000, 1, toB)})
	l.tick(3000 + StoneWaitMS)
	order := legalOrder(t, *vs)
	if want := []string{a.Player, b.Player}; !slices.Equal(order, want) {
		t.Errorf("cards judged in the order %v, want %v", order, want)
	}
	if at := ref.State().Stones[0].At; at != toB {
		t.Errorf("stone 1 on %v, want %v", at, toB)
	}
}

// TestLoop_T3a_CardWhoseStoneWasSeenWaitsForTheCardTheRulesPutFirst: two
// cards at one stone, the second laid where the first took it. The camera
// saw the second 400 ms first (a hand lay over the first) and reports it
// after the first, with the stone's move onto it. Settled at once, the
// second would be judged against where the stone stood before the first
// card took it (T2b or T2d). Seen together, the rules say the first came
// first: both are legal, the stone ends on the second card (T3a), and
// the first card's move is the rules' at once, not StoneWaitMS later.
func TestLoop_T3a_CardWhoseStoneWasSeenWaitsForTheCardTheRulesPutFirst(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	a, b, _, toB := togetherPair(t, ref)
	seenA := seenLay(1400, a)
	seenA.SeenMS = 1400
	seenB := seenLay(1500, b)
	seenB.SeenMS = 1000
	l.tick(1400)
	l.apply([]tiles.Observation{seenA})
	l.tick(1500)
	l.apply([]tiles.Observation{seenB, seenStone(1500, 1, toB)})
	judgedInOrderBy1900(t, l, ref, vs, a, b, toB)
}

// TestLoop_T3a_CardWhoseStoneWasSeenWaitsForACardLaterInItsBatch: two
// cards at one stone, the second covering the field the stone stood on
// before the first took it. The camera saw the second first (a hand lay
// over the first) and reports both in one frame, the second first, with
// the stone's move onto it. Settled at once, the second would be judged
// against the stone still on the field it covers (T2c), and the first
// against the stone gone (T2b or T2d). The rules say the first came
// first: both are legal (held-out 1077: two wrong calls).
func TestLoop_T3a_CardWhoseStoneWasSeenWaitsForACardLaterInItsBatch(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	at := ref.Table().Stones()[0].At
	a, b, _, toB := pairAtStone1(t, ref.Table(), func(b tiles.Lay) bool { return slices.Contains(b.Fields[:], at) })
	if first, err := ref.Table().CheckLay(b); err != nil || first.Violation == nil || first.Violation.Rule != tiles.T2c {
		t.Fatalf("the second card laid first: %+v, %v; want T2c", first, err)
	}
	seenA := seenLay(1500, a)
	seenA.SeenMS = 1400
	seenB := seenLay(1500, b)
	seenB.SeenMS = 1000
	l.tick(1500)
	l.apply([]tiles.Observation{seenB, seenStone(1500, 1, toB), seenA})
	judgedInOrderBy1900(t, l, ref, vs, a, b, toB)
}

// TestLoop_T3b_OrderTriedWithTheRelocationTheCameraSaw: cards seen
// together are ordered by laying them on a copy of the table; a card
// whose stone's move was seen moves the stone there, not where the rules
// would (a relocated stone may stand on either field of its card, T3b).
// Here P1 relocates blocked stone 3 onto a card, and the camera sees the
// stone on the field the rules would not pick; P2's card beside that
// field is then legal, and the order is not wrong (dev 815: the cards
// were put in another order, and three legal ones called wrong). With
// the move not seen yet, either field will do; seen on the other, P2's
// card is wrong.
func TestLoop_T3b_OrderTriedWithTheRelocationTheCameraSaw(t *testing.T) {
	_, ref, _ := twoPlayerRound(t)
	tb := ref.Table()
	for _, r := range relocationsOf3(t, tb) {
		a, ja, other := r.lay, r.j, r.other()
		seen := tiles.Observation{Kind: tiles.ObsStone, Stone: 3, Fields: []tiles.Field{other}}
		onOther, onRules := r.after(tb, other), r.after(tb, ja.StoneTo)
		for _, b := range allLays(onOther, "P2", 3) {
			jb, err := onOther.CheckLay(b)
			if err != nil || jb.Violation != nil {
				continue
			}
			if jr, err := onRules.CheckLay(b); err != nil || jr.Violation == nil {
				continue
			}
			cardA := seenLay(1000, a)
			cardA.Stone = 3
			cardB := seenLay(1000, b)
			cardB.Stone = 3
			if n := wrongIn(tb, []tried{{card: cardA, seen: &seen}, {card: cardB}}); n != 0 {
				t.Errorf("stone seen on %v, the relocating card's other field: %d wrong, want 0", other, n)
			}
			if n := wrongIn(tb, []tried{{card: cardA}, {card: cardB}}); n != 0 {
				t.Errorf("stone's move not seen: %d wrong, want 0 (either field will do)", n)
			}
			seen.Fields[0] = ja.StoneTo
			if n := wrongIn(tb, []tried{{card: cardA, seen: &seen}, {card: cardB}}); n != 1 {
				t.Errorf("stone seen on %v: %d wrong, want 1", ja.StoneTo, n)
			}
			return
		}
	}
	t.Fatal("no relocation with a card legal only beside its other field")
}

// TestLoop_T3b_CardAtARelocatedStoneWaitsForTheRelocation: P1 relocates
// blocked stone 3 onto a card far from it (T3b), and P2 lays a card at
// once where that card takes the stone. The camera saw P2's card first
// (a hand lay over P1's) and reports both in one frame; P1's card is held
// for its stone's move. Judged at once, P2's card would lie by no stone
// (T2b, or T2d at a corner); it waits for the relocation, and the two
// seen together go in the order the rules allow: both are legal, the
// stone ends on P2's card (dev 978: a T2d called on a legal card).
func TestLoop_T3b_CardAtARelocatedStoneWaitsForTheRelocation(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	tb := ref.Table()
	for _, r := range relocationsOf3(t, tb) {
		a, ja := r.lay, r.j
		after := r.after(tb, ja.StoneTo)
		for _, b := range allLays(after, "P2", 3) {
			b.Stone = 0 // as the camera reports it
			jb, err := after.CheckLay(b)
			if err != nil || jb.Violation != nil {
				continue
			}
			if first, err := tb.CheckLay(b); err != nil || first.Violation == nil {
				continue
			}
			// P2 relocating the stone P1 blocked is wrong unnamed, and
			// may be named for it by its move (T3c)
			byP2 := seenLay(0, a)
			byP2.Player = "P2"
			var n []int
			for _, y := range relocating(tb, tried{card: byP2}) {
				n = append(n, wrongIn(tb, []tried{y}))
			}
			if !slices.Equal(n, []int{1, 0}) {
				t.Errorf("P2's relocation as it may go, unnamed then named for stone 3: %v wrong, want [1 0]", n)
			}
			seenB := seenLay(1800, b)
			seenB.SeenMS = 1000
			seenA := seenLay(1800, a)
			seenA.SeenMS = 1800
			feedSteps(l, []fed{
				{1800, []tiles.Observation{seenB, seenA}},
				{2200, nil},
				{2600, []tiles.Observation{seenStone(2600, 3, ja.StoneTo)}},
				{2800, []tiles.Observation{seenStone(2800, 3, jb.StoneTo)}},
				{3000, nil},
				{6000, nil},
			})
			relocationFirst(t, ref, *vs, a, b, jb.StoneTo)
			return
		}
	}
	t.Fatal("no relocation with a card legal only after it")
}

// TestLoop_T3b_WrongCardWaitsForARelocationReportedAfterIt: P1 relocates
// blocked stone 3 onto a card (T3b) and puts it on the field the rules
// do not name first (either will do); P2 lays a card at once beside that
// field. The camera saw P2's card 0.8 s first and reported it alone, and
// P1's card, named for stone 3, only after P2's grace (a hand over it).
// Judged at once, P2's card lies by no stone; it waits for cards seen
// with it (togetherMS from when it was seen), and the two go in the
// order the rules allow, the stone on either field of the relocation:
// both are legal (held-out 1187 r2: a T2d and a T3a called on two legal
// plays).
func TestLoop_T3b_WrongCardWaitsForARelocationReportedAfterIt(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	tb := ref.Table()
	for _, r := range relocationsOf3(t, tb) {
		a, ja, x := r.lay, r.j, r.other()
		for _, b := range allLays(r.after(tb, x), "P2", 3) {
			b.Stone = 0 // as the camera reports it
			jb, err := r.after(tb, x).CheckLay(b)
			if err != nil || jb.Violation != nil {
				continue
			}
			first, err := tb.CheckLay(b)
			if err != nil || first.Violation == nil {
				continue
			}
			if named, err := r.after(tb, ja.StoneTo).CheckLay(b); err != nil || named.Violation == nil {
				continue
			}
			seenB := seenLay(1800, b)
			seenB.SeenMS = 1300
			seenA := seenLay(2100, a)
			seenA.SeenMS, seenA.Stone = 2100, 3
			feedSteps(l, []fed{
				{1800, []tiles.Observation{seenB}},
				{2100, []tiles.Observation{seenA}},
				{2600, []tiles.Observation{seenStone(2600, 3, x)}},
				{2800, []tiles.Observation{seenStone(2800, 3, jb.StoneTo)}},
				{3000, nil},
				{6000, nil},
			})
			relocationFirst(t, ref, *vs, a, b, jb.StoneTo)
			return
		}
	}
	t.Fatal("no relocation with a card legal only beside its other field")
}

// relocation is a legal card that relocates a blocked stone, as judged.
type relocation struct {
	lay tiles.Lay
	j   tiles.Judgement
}

// relocationsOf3 walls stone 3 in with P1's cards and lists P1's legal
// relocations of it.
func relocationsOf3(t *testing.T, tb *tiles.Table) []relocation {
	t.Helper()
	wallStone(t, tb, 3, "P1")
	var out []relocation
	for _, a := range allLays(tb, "P1", 3) {
		if j, err := tb.CheckLay(a); err == nil && j.Violation == nil && j.Relocates {
			out = append(out, relocation{a, j})
		}
	}
	return out
}

// other is the field of the relocating card the rules do not name.
func (r relocation) other() tiles.Field {
	if r.lay.Fields[0] == r.j.StoneTo {
		return r.lay.Fields[1]
	}
	return r.lay.Fields[0]
}

// after is tb with r laid and stone 3 on x.
func (r relocation) after(tb *tiles.Table, x tiles.Field) *tiles.Table {
	t := tb.Clone()
	t.ApplyLay(r.lay, r.j)
	t.ApplyStone(3, x, r.lay.Player, nil)
	return t
}

// fed is what the loop hears at tMS.
type fed struct {
	tMS int64
	obs []tiles.Observation
}

// feedSteps ticks the loop to each step's time and applies its batch.
func feedSteps(l *Loop, steps []fed) {
	for _, s := range steps {
		l.tick(s.tMS)
		l.apply(s.obs)
	}
}

// relocationFirst fails t unless relocating card a and card b were
// judged legal in that order, stone 3 ending on at.
func relocationFirst(t *testing.T, ref *tiles.Referee, vs []Verdict, a, b tiles.Lay, at tiles.Field) {
	t.Helper()
	if want, order := []string{a.Player, b.Player}, legalOrder(t, vs); !slices.Equal(order, want) {
		t.Errorf("cards judged in the order %v, want %v", order, want)
	}
	if got := ref.State().Stones[2].At; got != at {
		t.Errorf("stone 3 on %v, want %v", got, at)
	}
}

// legalOrder fails t for every call or refusal among vs, and returns the
// players whose cards were judged, in order.
func legalOrder(t *testing.T, vs []Verdict) []string {
	t.Helper()
	var order []string
	for _, v := range vs {
		if v.Err != nil || v.Verdict.Status == tiles.StatusViolation {
			t.Errorf("%s at %d: %s %v", v.Obs.Kind, v.Obs.TimeMS, v.Verdict.Reason, v.Err)
		}
		if v.Obs.Kind == tiles.ObsLay {
			order = append(order, v.Obs.Player)
		}
	}
	return order
}

// judgedInOrderBy1900 ticks l to 1900 ms and checks that a, then b, were
// judged legal by then, and stone 1 stands on toB.
func judgedInOrderBy1900(t *testing.T, l *Loop, ref *tiles.Referee, vs *[]Verdict, a, b tiles.Lay, toB tiles.Field) {
	t.Helper()
	for _, tMS := range []int64{1600, 1700, 1800, 1900} {
		l.tick(tMS)
	}
	if want, order := []string{a.Player, b.Player}, legalOrder(t, *vs); !slices.Equal(order, want) {
		t.Errorf("cards judged by 1900 ms in the order %v, want %v", order, want)
	}
	if at := ref.State().Stones[0].At; at != toB {
		t.Errorf("stone 1 on %v, want %v", at, toB)
	}
}

// TestLoop_T2d_OrderPuttingACardAtAnotherStoneThanTheOneSeenOnItCounts:
// P2's card meets stone 1 at a corner (T2d), and the camera saw stone 1
// move onto it; P1's card, seen with it, takes stone 2 beside it. Tried
// after P1's card, P2's lies by stone 2 and is legal, but the camera saw
// stone 1, not stone 2, go onto it: that order is as wrong as the one
// seen, which then stands (held-out 1222 r1: the T2d not called, the
// stones swapped after it).
func TestLoop_T2d_OrderPuttingACardAtAnotherStoneThanTheOneSeenOnItCounts(t *testing.T) {
	_, ref, _ := twoPlayerRoundWith(t, []tiles.Field{{X: 3, Y: 3}, {X: 6, Y: 4}, {X: 1, Y: 7}, {X: 10, Y: 7}})
	tb := ref.Table()
	b := tb.Board()
	w, h := b.Size()
	s1 := tb.Stones()[0].At
	for _, a := range allLays(tb, "P1", 2) {
		ja, err := tb.CheckLay(a)
		if err != nil || ja.Violation != nil {
			continue
		}
		after := tb.Clone()
		after.ApplyLay(a, ja)
		after.ApplyStone(2, ja.StoneTo, "P1", nil)
		for i := range w * h * 2 { // every card's place: across, then down
			x, y := i/2%w, i/2/w
			fs := [2]tiles.Field{{X: x, Y: y}, {X: x + 1 - i%2, Y: y + i%2}}
			if !b.On(fs[1]) || !slices.ContainsFunc(fs[:], s1.Diagonal) {
				continue
			}
			c := tiles.Lay{Player: "P2", Fields: fs, Colours: [2]tiles.Colour{b.Colour(fs[0]), b.Colour(fs[1])}, Stone: 1}
			first, err1 := tb.CheckLay(c)
			then, err2 := after.CheckLay(c)
			if err1 != nil || err2 != nil || first.Violation == nil || first.Violation.Rule != tiles.T2d || first.Stone != 1 ||
				then.Violation != nil || then.Stone != 2 || then.Misplaced {
				continue
			}
			cardA, cardC := seenLay(1000, a), seenLay(1000, c)
			cardA.Stone, cardC.Stone = 2, 1
			moveA := seenStone(1000, 2, ja.StoneTo)
			moveC := seenStone(1000, 1, first.StoneTo)
			seenFirst := wrongIn(tb, []tried{{card: cardC, seen: &moveC}, {card: cardA, seen: &moveA}})
			seenAfter := wrongIn(tb, []tried{{card: cardA, seen: &moveA}, {card: cardC, seen: &moveC}})
			if seenFirst != 1 || seenAfter != 1 {
				t.Errorf("P2's card first: %d wrong, after P1's: %d wrong; want 1 and 1", seenFirst, seenAfter)
			}
			return
		}
	}
	t.Fatal("no card at stone 1's corner legal at stone 2 after a card there")
}

// TestLoop_T3b_RelocationSeenLateUnderAnotherStonesName: a blocked stone
// is relocated (T3b) and the camera sees it land only after the loop has
// assumed it onto the card's other field, and reports the move under
// another stone's name: the watcher had the two swapped. The move is the
// relocated stone's, turned onto the field seen, and the swap kept for
// the moves after: nothing is called wrong, and the round is scored as
// the simulator did (held-out 1229 r2: the other stone was called T3a,
// moved onto no card, and the next card at it T2b).
func TestLoop_T3b_RelocationSeenLateUnderAnotherStonesName(t *testing.T) {
	for _, players := range []int{2, 3, 4} {
		for seed := uint64(1); seed <= 300; seed++ {
			res, events, clean := cleanRound(t, players, seed)
			if !clean {
				continue
			}
			i, k := lateRelocation(events)
			if i < 0 {
				continue
			}
			l, ref, vs := simLoop(t, players, res.Settings)
			e := events[i]
			lateAt := e.TimeMS + StoneWaitMS + 500
			swap := func(s int) int {
				switch s {
				case e.Stone:
					return k
				case k:
					return e.Stone
				}
				return s
			}
			var late *tiles.Observation
			for j, ev := range events {
				if late != nil && ev.TimeMS > lateAt {
					l.tick(lateAt)
					l.applySeen([]tiles.Observation{*late})
					late = nil
				}
				l.tick(ev.TimeMS)
				obs := cameraSaw(ev, ev.TimeMS)
				for n := range obs {
					if j >= i && obs[n].Kind == tiles.ObsStone {
						obs[n].Stone, obs[n].By = swap(obs[n].Stone), "camera"
					}
				}
				if j == i {
					lay := obs[0]
					other := e.Fields[0]
					if other == *e.StoneTo {
						other = e.Fields[1]
					}
					if lay.Fields[0] != other { // the loop assumes the stone onto the field listed first
						lay.Fields[0], lay.Fields[1] = lay.Fields[1], lay.Fields[0]
						lay.Colours[0], lay.Colours[1] = lay.Colours[1], lay.Colours[0]
					}
					move := obs[1]
					move.TimeMS = lateAt
					late, obs = &move, []tiles.Observation{lay}
				}
				l.applySeen(obs)
			}
			l.tick(events[len(events)-1].TimeMS + StoneWaitMS)
			l.Close()
			seenLate := slices.ContainsFunc(*vs, func(v Verdict) bool {
				return v.Obs.Kind == tiles.ObsStone && v.Obs.TimeMS == lateAt && v.Obs.Stone == e.Stone && v.Verdict.Rule == tiles.T3b
			})
			if !seenLate {
				t.Errorf("seed %d: the move seen late was not taken as stone %d's relocation", seed, e.Stone)
			}
			scoredAsSimulated(t, seed, *vs, ref, res)
			return
		}
	}
	t.Fatal("no simulated round without wrong plays relocates a stone that rests long enough")
}

// lateRelocation finds, for TestLoop_T3b_RelocationSeenLateUnderAnotherStonesName,
// a relocation (its event's index: a card beside no field of the stone's
// that takes it) after which neither the stone nor another one (k) moves
// until well after the loop assumes its move; -1 if none.
func lateRelocation(events []tilesim.Event) (i, k int) {
	var at []tiles.Field
	for i, e := range events {
		if e.Kind == tilesim.EvRound {
			at = slices.Clone(e.Stones)
		}
		if e.Kind != tilesim.EvLay || e.StoneTo == nil || e.Stone < 1 || len(at) != tiles.Stones {
			continue
		}
		from := at[e.Stone-1]
		at[e.Stone-1] = *e.StoneTo
		if slices.ContainsFunc(e.Fields, from.Adjacent) {
			continue
		}
		quiet := func(s int) bool {
			for _, x := range events[i+1:] {
				if x.TimeMS > e.TimeMS+StoneWaitMS+1500 {
					return true
				}
				if x.Stone == s {
					return false
				}
			}
			return false
		}
		for k := 1; k <= tiles.Stones; k++ {
			if k != e.Stone && quiet(e.Stone) && quiet(k) {
				return i, k
			}
		}
	}
	return -1, 0
}

// TestLoop_T2d_CardSeenWithARelocationKeepsTheStoneSeenOntoIt: P1
// blocked stone 1. P2 lays a card meeting stone 2's field at a corner
// alone (T2d), and P1 relocates stone 1 beside it: the camera first sees
// both in one frame, reports the relocation first, then P2's card with
// stone 2's move onto it, then stone 1's relocation. Judged after the
// relocation, P2's card would lie legally by stone 1, and stone 2's move
// onto it would be called (T3a, a move with no card): as wrong as the
// order seen, but resting on the camera naming the wrong stone. P2's card
// comes first and is called T2d, with its owner (held-out 1541 r1).
func TestLoop_T2d_CardSeenWithARelocationKeepsTheStoneSeenOntoIt(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	tb := ref.Table()
	wallStone(t, tb, 1, "P1")
	w, h := tb.Board().Size()
	var reloc, wrong tiles.Lay
	var relocTo, wrongTo tiles.Field
	for y := range h {
		for x := range w {
			for _, d := range []tiles.Field{{X: 1}, {Y: 1}} {
				a, b := tiles.Field{X: x, Y: y}, tiles.Field{X: x + d.X, Y: y + d.Y}
				if !tb.Board().On(b) {
					continue
				}
				c := tiles.Lay{Fields: [2]tiles.Field{a, b}, Colours: [2]tiles.Colour{tb.Board().Colour(a), tb.Board().Colour(b)}}
				r := c
				r.Player, r.Stone = "P1", 1
				if j, err := tb.CheckLay(r); err == nil && j.Violation == nil && j.Relocates && len(stonesBeside(tb.Stones(), c.Fields[:])) == 0 && reloc.Player == "" {
					u := tb.Clone()
					u.ApplyLay(r, j)
					u.ApplyStone(1, j.StoneTo, "P1", nil)
					if q, to, ok := firstT2d(tb, u); ok {
						reloc, relocTo, wrong, wrongTo = r, j.StoneTo, q, to
					}
				}
			}
		}
	}
	if reloc.Player == "" {
		t.Fatal("no relocation of stone 1 beside a place meeting stone 2 at a corner")
	}
	r := seenLay(3000, reloc)
	r.SeenMS = 2900
	l.tick(3000)
	l.apply([]tiles.Observation{r})
	l.tick(5000)
	c := seenLay(5000, wrong)
	c.SeenMS = 2900
	c.Stone = 2
	l.apply([]tiles.Observation{c, seenStone(5000, 2, wrongTo)})
	l.tick(5600)
	l.apply([]tiles.Observation{seenStone(5600, 1, relocTo)})
	l.tick(5600 + StoneWaitMS + 100)
	var calls []string
	for _, v := range *vs {
		if v.Err != nil || v.Verdict.Status == tiles.StatusViolation {
			calls = append(calls, fmt.Sprintf("%s %s %s", v.Verdict.Player, v.Verdict.Rule, v.Verdict.Reason))
		}
	}
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "P2 T2d") {
		t.Errorf("calls %q, want P2's card called T2d alone", calls)
	}
	if st := ref.State().Stones; st[0].At != relocTo || st[1].At != wrongTo {
		t.Errorf("stones 1 and 2 on %v and %v, want %v and %v", st[0].At, st[1].At, relocTo, wrongTo)
	}
}

// firstT2d finds a card of P2's that meets stone 2's field at a corner
// alone on tb (T2d) and lies legally by stone 1 on after, and the field
// stone 2 goes onto with it.
func firstT2d(tb, after *tiles.Table) (tiles.Lay, tiles.Field, bool) {
	at := tb.Stones()[1].At
	for _, d := range []tiles.Field{{X: at.X - 1, Y: at.Y - 1}, {X: at.X + 1, Y: at.Y - 1}, {X: at.X - 1, Y: at.Y + 1}, {X: at.X + 1, Y: at.Y + 1}} {
		for _, b := range d.Neighbours() {
			if !tb.Board().On(d) || !tb.Board().On(b) {
				continue
			}
			c := tiles.Lay{Player: "P2", Fields: [2]tiles.Field{d, b}, Colours: [2]tiles.Colour{tb.Board().Colour(d), tb.Board().Colour(b)}, Stone: 2}
			j, err := tb.CheckLay(c)
			if err != nil || j.Violation == nil || j.Violation.Rule != tiles.T2d {
				continue
			}
			c1 := c
			c1.Stone = 1
			if k, err := after.CheckLay(c1); err == nil && k.Violation == nil && !k.Misplaced {
				return c, j.StoneTo, true
			}
		}
	}
	return tiles.Lay{}, tiles.Field{}, false
}
