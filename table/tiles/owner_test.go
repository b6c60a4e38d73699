package tiles

import (
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
		for _, v := range *vs {
			if v.Err != nil || v.Verdict.Status == tiles.StatusViolation {
				t.Errorf("owner at %d ms: %s at %d: %s %v", ownerAt, v.Obs.Kind, v.Obs.TimeMS, v.Verdict.Reason, v.Err)
			}
		}
		if n := ref.State().Laid["P1"]; n != 1 {
			t.Errorf("owner at %d ms: P1 laid %d, want 1", ownerAt, n)
		}
	}
}
