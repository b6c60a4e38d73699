package vision

import (
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
)

// TestCount_RenderedCountFrame counts the backs on the count frame of a
// rendered 4-player round (green backs on a beige table, a group of 22
// fanned tight, stacks along seats on every side) and checks every
// player's centre and stack against the scene's truth.
func TestCount_RenderedCountFrame(t *testing.T) {
	const players, seed = 4, 3
	sc, evs, _ := simRound(t, players, seed, 0)
	cal := calibrateScene(t, sc, players)
	var stop int64 = -1
	for _, e := range evs {
		if e.Kind == sim.EvStop || e.Kind == sim.EvDeadlock {
			stop = e.TimeMS
			break
		}
	}
	if stop < 0 {
		t.Fatal("the round has no stop")
	}
	pred, cfg := testPredictor(t)
	p, err := NewPipeline(cal, pred, cfg, DefaultPipelineConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	m := gocv.NewMat()
	defer m.Close()
	at := stop + sc.Config().CountDelay + 400
	tr, err := sc.Render(at, &m)
	if err != nil {
		t.Fatal(err)
	}
	wantC, wantS := countTruth(tr)
	if len(wantC) == 0 {
		t.Fatal("no centre backs on the count frame")
	}
	gotC, gotS := map[string]int{}, map[string]int{}
	for _, o := range p.count(m, at) {
		switch o.Kind {
		case referee.ObsCentre:
			gotC[o.Player] = o.Count
		case referee.ObsStackLeft:
			gotS[o.Player] = o.Count
		}
	}
	for _, n := range p.names {
		if gotC[n] != min(wantC[n], 40) || gotS[n] != min(wantS[n], 10) {
			t.Errorf("%s: centre %d want %d, stack %d want %d", n, gotC[n], wantC[n], gotS[n], wantS[n])
		}
	}
}
