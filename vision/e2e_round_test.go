//go:build e2e

package vision

// The end-to-end rounds: a simulated round rendered frame by frame, run
// through calibration and the pipeline, scored against the simulator. They
// take about 50 s a round on 2 cores and do not pass yet (issue: vision and
// calibration), so they run only with -tags e2e:
//
//	go test -tags e2e ./vision -run EndToEnd -v

import (
	"fmt"
	"ligretto/referee"
	"ligretto/referee/sim"
	"os"
	"slices"
	"testing"
)

func checkRound(t *testing.T, players int, seed uint64, errRate float64) {
	sc, evs, res := simRound(t, players, seed, errRate)
	cal := calibrateScene(t, sc, players)
	got := refereeScene(t, sc, cal, *evs[0].Settings, nil)
	// The piles the camera saw against the simulator's final piles.
	st := got.ref.State()
	var gotTops, wantTops []string
	for _, pv := range st.Piles {
		gotTops = append(gotTops, pv.Top.String())
	}
	if m := got.ref.Match(); m != nil && len(m.Rounds) > 0 {
		gotTops = nil
		for _, pv := range m.Rounds[0].Piles {
			gotTops = append(gotTops, referee.Face{Colour: pv.Colour, Number: pv.Top}.String())
		}
		t.Logf("scores: got %+v, want %+v (counting after the stop is not reliable yet)", m.Rounds[0].Players, res.Rounds[0].Players)
	}
	for _, pv := range res.Rounds[0].Piles {
		wantTops = append(wantTops, referee.Face{Colour: pv.Colour, Number: pv.Top}.String())
	}
	slices.Sort(gotTops)
	slices.Sort(wantTops)
	if !slices.Equal(gotTops, wantTops) {
		t.Errorf("final pile tops:\n got %v\nwant %v", gotTops, wantTops)
	}
	// Violations: exactly the injected ones, by rule.
	wantRules := map[referee.Rule]int{}
	for _, in := range res.Injected {
		wantRules[in.Rule]++
	}
	gotRules := map[referee.Rule]int{}
	for _, v := range got.violations {
		gotRules[v.Rule]++
	}
	if fmt.Sprint(wantRules) != fmt.Sprint(gotRules) {
		t.Errorf("violations: got %v, want %v (injected %+v)", gotRules, wantRules, res.Injected)
	}
	if t.Failed() || testing.Verbose() {
		for i, o := range got.obs {
			c := ""
			if o.Card != nil {
				c = o.Card.String()
			}
			t.Logf("%6d %-12s pile %2d %-10s %s %d -> %s %s", o.TimeMS, o.Kind, o.Pile, c, o.Player, o.Count, got.verdicts[i].Status, got.verdicts[i].Rule)
		}
	}
	t.Logf("%d players: %d frames, %d crops classified; per frame: rectify %v, detect %v, motion+crop %v, classify %v, track %v",
		players, got.timing.Frames, got.timing.Crops, per(got.timing.Rectify, got.timing.Frames), per(got.timing.Detect, got.timing.Frames),
		per(got.timing.Motion, got.timing.Frames), per(got.timing.Classify, got.timing.Frames), per(got.timing.Track, got.timing.Frames))
	_ = os.Getenv
	_ = sim.EvStop
}

func TestEndToEnd2Players(t *testing.T) { checkRound(t, 2, 5, 0) }
func TestEndToEnd4Players(t *testing.T) { checkRound(t, 4, 3, 0) }
