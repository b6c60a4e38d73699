package training

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"ligretto/model"
)

// Tests of the gorgonia graph (Classifier) and the trainer's input checks,
// moved from package model with the code they test; randomWeights,
// randomCrops and the synthetic task (synth_test.go) are copies of model's
// test helpers.

// randomWeights returns weights for cfg with every tensor, the batch-norm
// scale, shift and running statistics included, away from its initial
// value, so that folding batch-norm is really exercised.
func randomWeights(t testing.TB, cfg model.Config, seed uint64) *model.Weights {
	t.Helper()
	w, err := model.NewWeights(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	for i := range w.Tensors {
		tn := &w.Tensors[i]
		for j := range tn.Data {
			switch {
			case hasSuffix(tn.Name, ".gamma"):
				tn.Data[j] = 0.5 + rng.Float32()
			case hasSuffix(tn.Name, ".var"):
				tn.Data[j] = 0.2 + 2*rng.Float32()
			case hasSuffix(tn.Name, ".mean"), hasSuffix(tn.Name, ".beta"), hasSuffix(tn.Name, ".b"):
				tn.Data[j] = 0.5 * float32(rng.NormFloat64())
			default:
				tn.Data[j] += 0.01 * float32(rng.NormFloat64())
			}
		}
	}
	return w
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

func randomCrops(cfg model.Config, n int, seed uint64) []model.Crop {
	s := newSynth(cfg, seed)
	designs := []int{0, 1, 2}
	crops := make([]model.Crop, n)
	for i := range crops {
		crops[i] = s.draw(designs).crop
	}
	return crops
}

func benchClassify(b *testing.B, p model.Predictor, cfg model.Config) {
	crops := randomCrops(cfg, 32, 4)
	if _, err := p.Classify(crops); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Classify(crops); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(crops)), "ms/crop")
}

func TestClassifyInputErrors(t *testing.T) {
	cfg := model.DefaultConfig()
	w := randomWeights(t, cfg, 6)
	cl, err := NewClassifier(w, 4)
	if err != nil {
		t.Fatal(err)
	}
	fast, _ := model.NewFast(w)
	for _, p := range []model.Predictor{cl, fast} {
		if _, err := p.Classify([]model.Crop{make(model.Crop, 10)}); !errors.Is(err, model.ErrInput) {
			t.Errorf("%T: short crop: %v, want model.ErrInput", p, err)
		}
		got, err := p.Classify(nil)
		if err != nil || len(got) != 0 {
			t.Errorf("%T: no crops: %v, %v", p, got, err)
		}
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Classify(randomCrops(cfg, 1, 1)); !errors.Is(err, model.ErrClosed) {
		t.Errorf("after Close: %v, want model.ErrClosed", err)
	}
	if _, err := NewClassifier(w, 1); !errors.Is(err, model.ErrInput) {
		t.Errorf("batch 1: %v, want model.ErrInput", err)
	}
}

func TestTrainerInputErrors(t *testing.T) {
	cfg := tinyConfig()
	tr, err := NewTrainer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	s := newSynth(cfg, 1)
	designs := []int{0, 1}
	for name, edit := range map[string]func(*Batch){
		"short X":         func(b *Batch) { b.X = b.X[:len(b.X)-1] },
		"short sides":     func(b *Batch) { b.Side = b.Side[1:] },
		"bad side":        func(b *Batch) { b.Side[0] = 2 },
		"colour 4":        func(b *Batch) { b.Side[0], b.Colour[0] = model.SideFace, 4 },
		"number 0":        func(b *Batch) { b.Side[0], b.Number[0] = model.SideFace, 0 },
		"number 11":       func(b *Batch) { b.Side[0], b.Number[0] = model.SideFace, 11 },
		"back class high": func(b *Batch) { b.Side[0], b.BackClass[0] = model.SideBack, cfg.BackClasses },
		"short colours":   func(b *Batch) { b.Colour = b.Colour[:3] },
	} {
		b := s.batch(designs)
		edit(&b)
		if _, err := tr.Step(b); !errors.Is(err, model.ErrInput) {
			t.Errorf("%s: %v, want model.ErrInput", name, err)
		}
	}
	// Unknown labels (-1, nil) are fine.
	b := s.batch(designs)
	b.Colour, b.BackClass = nil, nil
	b.Number[0] = -1
	b.Side[1] = -1
	if _, err := tr.Step(b); err != nil {
		t.Errorf("batch with unknown labels: %v", err)
	}
	if tr.Steps() != 1 {
		t.Errorf("Steps = %d, want 1", tr.Steps())
	}
}

func TestLearnRateSchedule(t *testing.T) {
	cfg := model.DefaultConfig()
	steps := 1000
	if lr := LearnRateAt(cfg, 0, steps); lr >= cfg.LearnRate/10 {
		t.Errorf("first step lr %g: no warm-up", lr)
	}
	peak := LearnRateAt(cfg, 50, steps)
	if math.Abs(peak-cfg.LearnRate) > 1e-12 {
		t.Errorf("lr after warm-up %g, want %g", peak, cfg.LearnRate)
	}
	if end := LearnRateAt(cfg, steps-1, steps); math.Abs(end-0.05*cfg.LearnRate) > 1e-12 {
		t.Errorf("last lr %g, want %g", end, 0.05*cfg.LearnRate)
	}
}

// TestFastMatchesGorgonia: the plain Go forward pass and the gorgonia graph
// in eval mode give the same logits and embeddings, to 1e-4, for a batch
// that is not a multiple of the graph batch (so padding is covered too).
func TestFastMatchesGorgonia(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() model.Config
	}{
		{"default", model.DefaultConfig},
		{"two blocks", func() model.Config {
			c := model.DefaultConfig()
			c.Width, c.Height, c.Channels, c.Hidden, c.EmbedDim = 16, 24, []int{5, 7}, 9, 4
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			w := randomWeights(t, cfg, 11)
			crops := randomCrops(cfg, 37, 2)
			cl, err := NewClassifier(w, 16)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			fast, err := model.NewFast(w)
			if err != nil {
				t.Fatal(err)
			}
			ag, err := cl.ClassifyAsIs(crops)
			if err != nil {
				t.Fatal(err)
			}
			af, err := fast.ClassifyAsIs(crops)
			if err != nil {
				t.Fatal(err)
			}
			if len(ag) != len(crops) || len(af) != len(crops) {
				t.Fatalf("got %d and %d readings for %d crops", len(ag), len(af), len(crops))
			}
			var gs, fs [4][]float32
			for i := range ag {
				for k, p := range []*model.Prediction{&ag[i], &af[i]} {
					o := &gs
					if k == 1 {
						o = &fs
					}
					o[0] = append(o[0], p.Raw.Side[:]...)
					o[1] = append(o[1], p.Raw.Colour[:]...)
					o[2] = append(o[2], p.Raw.Number[:]...)
					o[3] = append(o[3], p.Embedding...)
				}
			}
			for k, name := range []string{"side", "colour", "number", "embedding"} {
				d := maxAbsDiff(gs[k], fs[k])
				t.Logf("%s: max |gorgonia - fast| = %.2g over %d values", name, d, len(gs[k]))
				if d > 1e-4 {
					t.Errorf("%s: fast path differs from gorgonia by %g", name, d)
				}
			}
			pg, err := cl.Classify(crops)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := fast.Classify(crops)
			if err != nil {
				t.Fatal(err)
			}
			if len(pg) != len(crops) || len(pf) != len(crops) {
				t.Fatalf("got %d and %d predictions for %d crops", len(pg), len(pf), len(crops))
			}
			for i := range pg {
				if d := maxAbsDiff(pg[i].NumberProbs[:], pf[i].NumberProbs[:]); d > 1e-4 {
					t.Errorf("crop %d: number probabilities differ by %g", i, d)
				}
				if d := maxAbsDiff(pg[i].Embedding, pf[i].Embedding); d > 1e-4 {
					t.Errorf("crop %d: embeddings differ by %g", i, d)
				}
			}
		})
	}
}

func BenchmarkClassifyGorgonia(b *testing.B) {
	cfg := model.DefaultConfig()
	w := randomWeights(b, cfg, 1)
	cl, err := NewClassifier(w, 32)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	benchClassify(b, cl, cfg)
}

// batch draws a training batch; back classes index designs.
func (s *synth) batch(designs []int) Batch {
	N := s.cfg.BatchSize
	b := Batch{Side: make([]int, N), Colour: make([]int, N), Number: make([]int, N), BackClass: make([]int, N)}
	for i := 0; i < N; i++ {
		sm := s.draw(designs)
		b.X = append(b.X, sm.crop...)
		b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = sm.side, sm.colour, sm.number, sm.bc
	}
	return b
}

// The trainer and the graph refuse weights of another architecture, or
// inconsistent ones, as model.Check and NewFast do.
func TestShapeMismatch_TrainerAndClassifier(t *testing.T) {
	cfg := model.DefaultConfig()
	other := cfg
	other.Channels = []int{8, 16, 32}
	if _, err := NewTrainer(cfg, randomWeights(t, other, 5)); !errors.Is(err, model.ErrShapeMismatch) {
		t.Errorf("NewTrainer with another architecture: %v, want ErrShapeMismatch", err)
	}
	bad := randomWeights(t, cfg, 4)
	bad.Tensors = bad.Tensors[1:]
	if _, err := NewClassifier(bad, 4); !errors.Is(err, model.ErrShapeMismatch) {
		t.Errorf("NewClassifier of inconsistent weights: %v, want ErrShapeMismatch", err)
	}
}
