package training

import (
	"errors"
	"ligretto/model"
	"slices"
	"testing"
	"time"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// smallConfig is a network small enough to train in the tests, also under
// the race detector (which slows gorgonia's Go loops about 15 times): 16x24
// crops, narrow blocks, batches of 16.
func tinyConfig() model.Config {
	c := model.DefaultConfig()
	c.Width, c.Height = 16, 24
	c.Channels = []int{8, 16, 16}
	c.Hidden = 32
	c.EmbedDim = 16
	c.BackClasses = 8
	c.LearnRate = 3e-3
	c.BatchSize = 16
	return c
}

// TestTrainSyntheticTask trains the small network on the synthetic task and
// checks it on held-out samples: side, colour and number accuracy above 0.9,
// and backs recognised by the nearest enrolled prototype, both for designs
// seen in training and for designs never seen.
func TestTrainSyntheticTask(t *testing.T) {
	cfg := tinyConfig()
	steps := 400
	train := newSynth(cfg, 1)
	designs := make([]int, cfg.BackClasses)
	for i := range designs {
		designs[i] = i
	}
	start := time.Now()
	var last Losses
	w, err := Train(cfg, nil, func() (Batch, error) { return train.batch(designs), nil }, steps, func(step int, l Losses) {
		last = l
		if step%50 == 0 {
			t.Logf("step %d: %v", step, l)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trained %d steps in %v; last: %v", steps, time.Since(start).Round(time.Millisecond), last)

	fast, err := model.NewFast(w)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClassifier(w, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	// Held-out samples, from another seed.
	test := newSynth(cfg, 99)
	var crops []model.Crop
	var want []sample
	for i := 0; i < 300; i++ {
		s := test.draw(designs)
		crops = append(crops, s.crop)
		want = append(want, s)
	}
	got, err := fast.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	gg, err := cl.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	var side, colour, number, faces, agree int
	for i, p := range got {
		if p.Side == want[i].side {
			side++
		}
		if gg[i].Side == p.Side && gg[i].Colour == p.Colour && gg[i].Number == p.Number {
			agree++
		}
		if want[i].side != model.SideFace {
			continue
		}
		faces++
		if p.Colour == want[i].colour {
			colour++
		}
		if p.Number == want[i].number {
			number++
		}
	}
	accs := map[string]float64{
		"side":   float64(side) / float64(len(got)),
		"colour": float64(colour) / float64(faces),
		"number": float64(number) / float64(faces),
	}
	t.Logf("held-out accuracy: side %.3f, colour %.3f, number %.3f (%d faces of %d)", accs["side"], accs["colour"], accs["number"], faces, len(got))
	for name, a := range accs {
		if !(a > 0.9) {
			t.Errorf("held-out %s accuracy %.3f, want > 0.9", name, a)
		}
	}
	if agree != len(got) {
		t.Errorf("gorgonia and fast paths disagree on %d of %d crops", len(got)-agree, len(got))
	}

	// Backs by nearest prototype: enrol 5 crops of each design, then
	// classify 20 new crops of each.
	backAccuracy := func(ids []int) float64 {
		var protos [][]float32
		for _, id := range ids {
			var enrol []model.Crop
			for j := 0; j < 5; j++ {
				enrol = append(enrol, test.back(id))
			}
			p, err := fast.Classify(enrol)
			if err != nil {
				t.Fatal(err)
			}
			var embs [][]float32
			for _, q := range p {
				embs = append(embs, q.Embedding)
			}
			protos = append(protos, model.MeanEmbedding(embs...))
		}
		right, total := 0, 0
		for k, id := range ids {
			var cs []model.Crop
			for j := 0; j < 20; j++ {
				cs = append(cs, test.back(id))
			}
			p, err := fast.Classify(cs)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range p {
				total++
				if i, _ := model.Nearest(q.Embedding, protos); i == k {
					right++
				}
			}
		}
		return float64(right) / float64(total)
	}
	seen := backAccuracy(designs)
	unseen := backAccuracy([]int{100, 101, 102, 103})
	t.Logf("backs by nearest prototype: seen designs %.3f, unseen designs %.3f", seen, unseen)
	if !(seen > 0.9) {
		t.Errorf("seen back designs: accuracy %.3f, want > 0.9", seen)
	}
	if !(unseen > 0.8) {
		t.Errorf("unseen back designs: accuracy %.3f, want > 0.8", unseen)
	}
}

// trainFive trains a fresh trainer of cfg for five fixed batches.
func trainFive(t *testing.T, cfg model.Config) *model.Weights {
	t.Helper()
	data := newSynth(cfg, 4)
	tr, err := NewTrainer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for range 5 {
		if _, err := tr.Step(data.batch([]int{0, 1, 2, 3, 4, 5, 6, 7})); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Weights()
}

// TestFastEngine_SameWeightsAsGorgonias: training on fastEngine gives the
// very bits gorgonia's own engine gives (its Transpose only moves data).
func TestFastEngine_SameWeightsAsGorgonias(t *testing.T) {
	cfg := tinyConfig()
	run := func(e tensor.Engine) *model.Weights {
		old := vmEngine
		vmEngine = e
		defer func() { vmEngine = old }()
		return trainFive(t, cfg)
	}
	a, b := run(fastEngine{}), run(G.StandardEngine{})
	init, err := model.NewWeights(cfg)
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for i := range a.Tensors {
		if d := maxAbsDiff(a.Tensors[i].Data, b.Tensors[i].Data); d != 0 {
			t.Errorf("%s differs by %g between the two engines", a.Tensors[i].Name, d)
		}
		if maxAbsDiff(a.Tensors[i].Data, init.Tensors[i].Data) != 0 {
			moved = true
		}
	}
	if !moved {
		t.Error("training changed no weight: the comparison proves nothing")
	}
}

// The committed weights are reproduced from a seed: two trainers with the
// same model.Config and batches must end with the same weights, bit for bit,
// although their replicas run on goroutines in any order.
func TestTrainer_ReplicasAreDeterministic(t *testing.T) {
	cfg := tinyConfig()
	cfg.Workers = 2
	cfg.BackMargin = 0.2
	a, b := trainFive(t, cfg), trainFive(t, cfg)
	for i := range a.Tensors {
		if d := maxAbsDiff(a.Tensors[i].Data, b.Tensors[i].Data); d != 0 {
			t.Errorf("%s differs by %g between two identical runs", a.Tensors[i].Name, d)
		}
	}
}

// TestLosses_HardListsFacesOnly: an untrained network is unsure of every
// face (about 1/4 on colour, under HardBelow), so Hard lists each face with a
// label, in order, and never a back or a face left out of the losses.
func TestLosses_HardListsFacesOnly(t *testing.T) {
	cfg := tinyConfig()
	data := newSynth(cfg, 4)
	tr, err := NewTrainer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := data.batch([]int{0, 1, 2, 3, 4, 5, 6, 7})
	var want []int
	for i, side := range b.Side {
		if side != model.SideFace {
			continue
		}
		if i%5 == 0 { // out of the colour and number losses
			b.Colour[i], b.Number[i] = -1, -1
			continue
		}
		want = append(want, i)
	}
	if len(want) == 0 || len(want) == len(b.Side) {
		t.Fatalf("batch of %d with %d labelled faces: want both faces and backs", len(b.Side), len(want))
	}
	l, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.Hard, want) {
		t.Errorf("hard %v, want the labelled faces %v", l.Hard, want)
	}
}

// TestTrain_SnapshotsChangeNothing: a second network starts from a
// snapshot of the first's run, so the snapshot must hold the weights of
// that step and taking it must leave the run's own weights bit for bit as
// they are; a snapshot outside the run is refused before any step.
func TestTrain_SnapshotsChangeNothing(t *testing.T) {
	cfg := tinyConfig()
	const steps = 4
	run := func(snaps ...Snapshot) *model.Weights {
		data := newSynth(cfg, 4)
		w, err := Train(cfg, nil, func() (Batch, error) { return data.batch([]int{0, 1, 2, 3, 4, 5, 6, 7}), nil }, steps, nil, snaps...)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	var atTwo, atEnd *model.Weights
	with := run(Snapshot{Step: 2, Save: func(w *model.Weights) error { atTwo = w; return nil }},
		Snapshot{Step: steps, Save: func(w *model.Weights) error { atEnd = w; return nil }})
	without := run()
	if atTwo == nil || atEnd == nil {
		t.Fatal("a snapshot was not taken")
	}
	movedAfterTwo := false
	for i := range without.Tensors {
		name := without.Tensors[i].Name
		if d := maxAbsDiff(with.Tensors[i].Data, without.Tensors[i].Data); d != 0 {
			t.Errorf("%s differs by %g when snapshots are taken", name, d)
		}
		if d := maxAbsDiff(atEnd.Tensors[i].Data, without.Tensors[i].Data); d != 0 {
			t.Errorf("%s: the last step's snapshot differs by %g from the run's weights", name, d)
		}
		if maxAbsDiff(atTwo.Tensors[i].Data, without.Tensors[i].Data) != 0 {
			movedAfterTwo = true
		}
	}
	if !movedAfterTwo {
		t.Error("the snapshot after step 2 equals the end of the run: it was not taken at step 2")
	}
	for _, bad := range []int{0, steps + 1} {
		_, err := Train(cfg, nil, func() (Batch, error) { t.Fatal("a batch was asked for"); return Batch{}, nil }, steps, nil,
			Snapshot{Step: bad, Save: func(*model.Weights) error { return nil }})
		if !errors.Is(err, model.ErrConfig) {
			t.Errorf("snapshot at step %d of %d: error %v, want model.ErrConfig", bad, steps, err)
		}
	}
}
