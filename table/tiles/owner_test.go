package tiles

import (
	"fmt"
	"testing"

	"ligretto/referee/tiles"
)

// TestLoop_T5a_OwnerReadLateCountsTheCard: a card reported for nobody (its
// frame not read), then its owner, read once its stone has left it: the
// card counts for that player (T5a), whether the referee had judged it
// already or the loop still held it.
func TestLoop_T5a_OwnerReadLateCountsTheCard(t *testing.T) {
	for _, ownerAt := range []int64{1100, 3000} { // the card still held, judged
		l, ref, vs := twoPlayerRound(t)
		a, toA := legalLay(t, ref, "P1", 1)
		card := seenLay(1000, a)
		card.Player, card.SeenMS = "", 1000
		steps := []struct {
			tMS int64
			obs []tiles.Observation
		}{
			{1000, []tiles.Observation{card}},
			{ownerAt, []tiles.Observation{{Kind: tiles.ObsOwner, TimeMS: ownerAt, Player: "P1", Fields: a.Fields[:], By: "camera"}}},
			{1500, []tiles.Observation{seenStone(1500, 1, toA)}},
		}
		if ownerAt > 1500 {
			steps[1], steps[2] = steps[2], steps[1]
		}
		for _, s := range steps {
			l.tick(s.tMS)
			l.apply(s.obs)
		}
		l.tick(4000)
		noneCalled(t, *vs, fmt.Sprintf("owner at %d ms: ", ownerAt))
		if n := ref.State().Laid["P1"]; n != 1 {
			t.Errorf("owner at %d ms: P1 laid %d, want 1", ownerAt, n)
		}
	}
}

// TestLoop_T5a_OwnerReadBeforeTheInferredCardCountsIt: the camera saw a
// card only as its stone's move onto it (its frame not in full view), and
// read its owner before the loop inferred the card (missedCard, after
// OrphanWaitMS): the owner waits for the card, which then counts for that
// player (T5a), whichever field the loop took for the card's other half.
func TestLoop_T5a_OwnerReadBeforeTheInferredCardCountsIt(t *testing.T) {
	l, ref, vs := twoPlayerRound(t)
	a, toA := legalLay(t, ref, "P1", 1)
	l.tick(1000)
	l.apply([]tiles.Observation{seenStone(1000, 1, toA)})
	l.tick(1200)
	l.apply([]tiles.Observation{{Kind: tiles.ObsOwner, TimeMS: 1200, Player: "P1", Fields: a.Fields[:], By: "camera"}})
	l.tick(1000 + OrphanWaitMS + 500)
	l.apply(nil)
	noneCalled(t, *vs)
	if p, _ := ref.Table().Piece(toA); p.Owner != "P1" {
		t.Errorf("the card under stone 1 on %v is %q's, want P1's", toA, p.Owner)
	}
	if n := ref.State().Laid["P1"]; n != 1 {
		t.Errorf("P1 laid %d, want 1", n)
	}
}
