package vision

import (
	"sync"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee/sim"
	"ligretto/render/card"
	"ligretto/render/scene"
)

// simRound plays one simulated round and builds its scene.
func simRound(t testing.TB, players int, seed uint64, errRate float64) (*scene.Scene, []sim.Event, sim.Result) {
	return simRoundIn(t, nil, players, seed, errRate)
}

// simRoundIn is simRound with the camera's config changed by adjust
// (given the round's events), or the default config when adjust is nil.
func simRoundIn(t testing.TB, adjust func(*scene.Config, []sim.Event), players int, seed uint64, errRate float64) (*scene.Scene, []sim.Event, sim.Result) {
	t.Helper()
	var evs []sim.Event
	res, err := sim.Run(sim.Config{Players: players, Seed: seed, ErrorRate: errRate}, func(e sim.Event) error { evs = append(evs, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	cfg := scene.DefaultConfig()
	if adjust != nil {
		adjust(&cfg, evs)
	}
	sc, err := scene.New(cfg, evs[0].Players, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	return sc, evs, res
}

var (
	predOnce sync.Once
	testPred model.Predictor
	predErr  error
)

// testPredictor is the classifier the commands use: the embedded network
// with the embedded second network's opinion.
func testPredictor(t testing.TB) model.Predictor {
	t.Helper()
	predOnce.Do(func() { testPred, predErr = model.DefaultPredictor() })
	if predErr != nil {
		t.Fatal(predErr)
	}
	return testPred
}

// countTruth counts, per owner, the face-down backs the scene laid in the
// centre and in the seats' stacks after the stop.
func countTruth(tr []scene.CardTruth) (centre, stack map[string]int) {
	centre, stack = map[string]int{}, map[string]int{}
	for _, c := range tr {
		switch c.Role {
		case scene.RoleCentreBack:
			centre[c.Card.Owner]++
		case scene.RoleStackBack:
			stack[c.Card.Owner]++
		}
	}
	return centre, stack
}

// cutWithTable reads a fixture cut from a rendered frame,
// testdata/NAME.png, and the empty table under it, testdata/NAME-table.png;
// both are closed when the test ends.
func cutWithTable(t testing.TB, name string) (img, table gocv.Mat) {
	t.Helper()
	img = gocv.IMRead("testdata/"+name+".png", gocv.IMReadColor)
	table = gocv.IMRead("testdata/"+name+"-table.png", gocv.IMReadColor)
	t.Cleanup(func() {
		img.Close()
		table.Close()
	})
	if img.Empty() || table.Empty() {
		t.Fatalf("testdata/%s*.png do not load", name)
	}
	return img, table
}

// standardBacks enrols the twelve standard back designs from rendered
// crops, as the commands do.
func standardBacks(pred model.Predictor) ([]BackPrototype, error) {
	w, h := pred.Config().DetailSize()
	samples, err := card.StandardBackSamples(w, h, 4)
	if err != nil {
		return nil, err
	}
	return EnrolBacks(pred, samples)
}
