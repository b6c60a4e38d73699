package vision

import (
	"fmt"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
)

// TestCount_RenderedCountFrame counts the backs on the count frame of
// rendered rounds and checks every player's centre and stack against the
// scene's truth (C14 scores both). The rounds cover every back design:
// 4p seed 3 (green backs on a beige table, a group of 22 fanned tight,
// stacks along seats on every side), 8p seed 1 (a row of 12 fanned
// "stars", whose print has stronger edges than the cards'), 12p seed 2
// (all twelve designs) and 3p seed 4 (a loud gingham cloth under drifting
// light, on which cards lying apart must stay apart).
func TestCount_RenderedCountFrame(t *testing.T) {
	for _, rs := range [][2]int{{4, 3}, {8, 1}, {12, 2}, {3, 4}} {
		players, seed := rs[0], uint64(rs[1])
		t.Run(fmt.Sprintf("%dp_seed%d", players, seed), func(t *testing.T) {
			t.Parallel() // independent scenes; most of the time is calibration
			testCountFrame(t, players, seed)
		})
	}
}

func testCountFrame(t *testing.T, players int, seed uint64) {
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
	back := map[string]string{}
	for _, pl := range evs[0].Players {
		back[pl.Name] = pl.Back
	}
	for _, n := range p.names {
		if gotC[n] != min(wantC[n], 40) || gotS[n] != min(wantS[n], 10) {
			t.Errorf("%s (%s backs): centre %d want %d, stack %d want %d", n, back[n], gotC[n], wantC[n], gotS[n], wantS[n])
		}
	}
}
