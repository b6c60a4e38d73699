package training

import (
	"ligretto/model"
	"math"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradients compares gorgonia's symbolic gradients with central
// differences on a tiny network, for every learnable tensor.
func TestGradients(t *testing.T) {
	cfg := model.DefaultConfig()
	cfg.Width, cfg.Height = 8, 8
	cfg.Channels = []int{3, 4}
	cfg.Hidden = 6
	cfg.EmbedDim = 3
	cfg.BackClasses = 3
	cfg.BatchSize = 6
	cfg.BackMargin = 0.2 // the margin's path too
	tr, err := NewTrainer(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	s := newSynth(cfg, 3)
	b := s.batch([]int{0, 1, 2})
	// make sure every head has samples
	b.Side[0], b.Colour[0], b.Number[0] = model.SideFace, 1, 3
	b.Side[1], b.BackClass[1] = model.SideBack, 2

	// Two updates first: gradients must not pile up from run to run.
	for i := 0; i < 2; i++ {
		if _, err := tr.Step(s.batch([]int{0, 1, 2})); err != nil {
			t.Fatal(err)
		}
	}
	grads := make([][]float32, len(tr.grad))
	if _, err := tr.runWith(b, false, func(i int, g []float32) { grads[i] = append([]float32(nil), g...) }); err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		l, err := tr.run(b, false)
		if err != nil {
			t.Fatal(err)
		}
		return l.Total
	}
	const h = 5e-4
	// A weight is perturbed in every replica: the gradient checked is the
	// sum over the batch's shares.
	set := func(i, j int, v float32) {
		for _, r := range tr.reps {
			w, _ := float32s(r.params[i].Value())
			w[j] = v
		}
	}
	for i, p := range tr.reps[0].params {
		w, _ := float32s(p.Value())
		worst := 0.0
		for _, j := range []int{0, len(w) / 2, len(w) - 1} {
			orig := w[j]
			set(i, j, orig+h)
			up := loss()
			set(i, j, orig-h)
			down := loss()
			set(i, j, orig)
			num := (up - down) / (2 * h)
			got := float64(grads[i][j])
			err := math.Abs(num-got) / math.Max(0.05, math.Abs(num)+math.Abs(got))
			worst = max(worst, err)
			if err > 0.1 {
				t.Errorf("%s[%d]: symbolic %.5f, numeric %.5f", p.Name(), j, got, num)
			}
		}
		t.Logf("%s: worst relative error %.4f", p.Name(), worst)
	}
}

// The loss must stay finite however confident the network gets: gorgonia's
// LogSoftMax shifts every row by the first row's first value, so a row far
// above it overflows (a training run turned NaN after 14,700 steps). The
// log-softmax the trainer builds shifts each row by its own maximum.
func TestLogSoftmaxRows_ConfidentRows(t *testing.T) {
	g := G.NewGraph()
	x := G.NewMatrix(g, tensor.Float32, G.WithShape(2, 2), G.WithName("x"),
		G.WithValue(tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]float32{-100, -100, 100, -100}))))
	logp, err := logSoftmaxRows(x)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := G.Sum(logp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(sum, x); err != nil {
		t.Fatal(err)
	}
	var out G.Value
	G.Read(logp, &out)
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	got := out.Data().([]float32)
	want := []float32{-float32(math.Ln2), -float32(math.Ln2), 0, -200}
	for i := range want {
		if math.IsNaN(float64(got[i])) || math.Abs(float64(got[i]-want[i])) > 1e-4 {
			t.Fatalf("log-softmax %v, want %v", got, want)
		}
	}
}
