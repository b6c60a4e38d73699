package tiles

import (
	"testing"

	"ligretto/referee/tiles"
)

// TestLoop_T3a_CardGivenBeforeTheOneItsStoneWentOntoFirstIsTakenBack:
// two cards laid at stone 1 in turn, the second beside where the stone
// stood and where the first took it, seen together but the second
// first, and the first reported only once the second was given (a hand
// hid it). The stone's way, seen after both, goes onto the first card,
// then the second: the referee takes the second back (tiles.ObsRetract),
// judges the first with the move seen, then the second with its own.
// Nothing is called, and stone 1 ends on the second card (T3a; dev 1404
// r1: the second card's move was assumed by the rules, the first called
// misplaced, and the stones' names were lost for three calls after).
func TestLoop_T3a_CardGivenBeforeTheOneItsStoneWentOntoFirstIsTakenBack(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	a, b, toA, toB := besideBoth(t, ref)
	seenA, seenB := seenLay(1400, a), seenLay(1000, b)
	seenA.SeenMS, seenB.SeenMS = 1067, 1000
	feedSteps(l, []fed{
		{1000, []tiles.Observation{seenB}},
		{1300, nil}, // its grace gone by: given
		{1400, []tiles.Observation{seenA}},
		{1500, []tiles.Observation{seenStone(1500, 1, toA)}},
		{1600, []tiles.Observation{seenStone(1600, 1, toB)}},
	})
	l.tick(1600 + StoneWaitMS + 100)
	retracts := 0
	for _, v := range *vs {
		if v.Obs.Kind == tiles.ObsRetract {
			retracts++
		}
	}
	if retracts != 1 {
		t.Errorf("%d cards taken back, want 1", retracts)
	}
	if want, order := []string{a.Player, b.Player}, legalOrder(t, *vs); len(order) < 2 || order[len(order)-2] != want[0] || order[len(order)-1] != want[1] {
		t.Errorf("cards judged in the order %v, want %v last", order, want)
	}
	if len(l.pieces) != 2 {
		t.Errorf("the loop has %d pieces, want 2 (the card taken back once)", len(l.pieces))
	}
	if at := ref.State().Stones[0].At; at != toB {
		t.Errorf("stone 1 on %v, want %v (the second card)", at, toB)
	}
}
