package model

import (
	"fmt"
	"math"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Batch is one training batch of Config.BatchSize samples.
//
// Side is required for every sample. Colour (0..3, ColourNames order) and
// Number (1..10) only count for face samples and BackClass
// (0..BackClasses-1) only for back samples; the other samples' values are
// ignored. A label of -1, or a nil slice, leaves the sample out of that
// head's loss (a side of -1 leaves it out of every loss).
type Batch struct {
	X         []float32 // BatchSize crops, each Config.CropLen() values (see Crop)
	Side      []int
	Colour    []int
	Number    []int
	BackClass []int
}

// Losses are the mean cross-entropies of one batch and the accuracies of the
// heads on it (before the update). A head with no sample in the batch has
// loss 0 and accuracy NaN.
type Losses struct {
	Total, Side, Colour, Number, Back      float64
	SideAcc, ColourAcc, NumberAcc, BackAcc float64
}

func (l Losses) String() string {
	return fmt.Sprintf("loss %.4f (side %.4f colour %.4f number %.4f back %.4f) acc side %.3f colour %.3f number %.3f back %.3f",
		l.Total, l.Side, l.Colour, l.Number, l.Back, l.SideAcc, l.ColourAcc, l.NumberAcc, l.BackAcc)
}

// Trainer trains the network on caller-supplied batches. It owns a gorgonia
// graph and tape machine: not safe for concurrent use.
type Trainer struct {
	cfg  Config
	base *Weights
	net  *net
	vm   G.VM

	input   *tensor.Dense
	targets [4]*tensor.Dense // side, colour, number, back: one-hot times 1/count
	tnodes  [4]*G.Node
	lossV   [5]G.Value // total, side, colour, number, back

	params G.Nodes
	decay  []bool // decoupled weight decay for this param
	m, v   [][]float32
	steps  int
	lr     float64
	closed bool
}

// NewTrainer makes a trainer for cfg starting from init, or from
// NewWeights(cfg) when init is nil. init must have cfg's architecture; its
// training fields are replaced by cfg's.
func NewTrainer(cfg Config, init *Weights) (t *Trainer, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var w *Weights
	if init == nil {
		if w, err = NewWeights(cfg); err != nil {
			return nil, err
		}
	} else {
		if err := init.Check(cfg); err != nil {
			return nil, err
		}
		w = init.Clone()
		w.Config = cfg.clone()
	}
	n, err := buildNet(w, cfg.BatchSize, true)
	if err != nil {
		return nil, err
	}
	t = &Trainer{cfg: cfg.clone(), base: w, net: n, lr: cfg.LearnRate}
	if err := t.buildLoss(); err != nil {
		return nil, err
	}
	var idx []int
	t.params, idx = n.learnables()
	for i, p := range t.params {
		size := p.Shape().TotalSize()
		t.m = append(t.m, make([]float32, size))
		t.v = append(t.v, make([]float32, size))
		t.decay = append(t.decay, strings.HasSuffix(n.specs[idx[i]].name, ".w"))
	}
	t.vm = G.NewTapeMachine(n.g, G.BindDualValues(t.params...))
	// Making a training machine resets the batch-norm statistics: set them
	// only now.
	if err := n.setStats(w); err != nil {
		t.vm.Close()
		return nil, err
	}
	t.input = tensor.New(tensor.WithShape(cfg.BatchSize, 3, cfg.Height, cfg.Width), tensor.Of(tensor.Float32))
	return t, nil
}

// buildLoss adds the targets, the losses and the gradients to the graph.
func (t *Trainer) buildLoss() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("model: building the loss: %v", r)
		}
	}()
	n, g, N := t.net, t.net.g, t.cfg.BatchSize
	heads := []struct {
		logits *G.Node
		k      int
		name   string
	}{
		{n.side, NumSides, "side"},
		{n.colour, NumColours, "colour"},
		{n.number, NumNumbers, "number"},
		{n.back, t.cfg.BackClasses, "back"},
	}
	var total *G.Node
	for i, h := range heads {
		t.targets[i] = tensor.New(tensor.WithShape(N, h.k), tensor.Of(tensor.Float32))
		t.tnodes[i] = G.NewMatrix(g, tensor.Float32, G.WithShape(N, h.k), G.WithName("target_"+h.name))
		logp, err := G.LogSoftMax(h.logits)
		if err != nil {
			return err
		}
		prod, err := G.HadamardProd(t.tnodes[i], logp)
		if err != nil {
			return err
		}
		sum, err := G.Sum(prod)
		if err != nil {
			return err
		}
		loss, err := G.Neg(sum)
		if err != nil {
			return err
		}
		G.Read(loss, &t.lossV[i+1])
		if i == 3 {
			if loss, err = G.Mul(loss, G.NewConstant(float32(t.cfg.BackWeight))); err != nil {
				return err
			}
		}
		if total == nil {
			total = loss
		} else if total, err = G.Add(total, loss); err != nil {
			return err
		}
	}
	G.Read(total, &t.lossV[0])
	params, _ := n.learnables()
	_, err = G.Grad(total, params...)
	return err
}

// SetLearnRate sets the Adam step size for the next steps.
func (t *Trainer) SetLearnRate(lr float64) { t.lr = lr }

// Steps is the number of steps taken.
func (t *Trainer) Steps() int { return t.steps }

// Step runs one forward and backward pass on b and updates the weights.
func (t *Trainer) Step(b Batch) (Losses, error) {
	l, err := t.run(b, true)
	if err != nil {
		return l, err
	}
	if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
		return l, fmt.Errorf("model: training diverged at step %d (loss %v)", t.steps, l.Total)
	}
	return l, nil
}

// run does the forward and backward pass; with update set it also takes an
// Adam step, else it leaves the weights alone and hands the gradients to
// grads (when not nil) before the machine is reset.
func (t *Trainer) run(b Batch, update bool) (l Losses, err error) {
	return t.runWith(b, update, nil)
}

func (t *Trainer) runWith(b Batch, update bool, grads func(i int, g []float32)) (l Losses, err error) {
	if t.closed {
		return l, ErrClosed
	}
	valid, err := t.setBatch(b)
	if err != nil {
		return l, err
	}
	defer t.vm.Reset()
	if err = t.vm.RunAll(); err != nil {
		return l, err
	}
	if l, err = t.readLosses(valid); err != nil {
		return l, err
	}
	if grads != nil {
		for i, p := range t.params {
			gv, err := p.Grad()
			if err != nil {
				return l, err
			}
			g, err := float32s(gv)
			if err != nil {
				return l, err
			}
			grads(i, g)
		}
	}
	if update {
		err = t.update()
	}
	// The machine adds each run's gradients to the dual values: zero them
	// (gorgonia's own solvers do this in Step).
	for _, p := range t.params {
		if gv, gerr := p.Grad(); gerr == nil {
			if g, ok := gv.(tensor.Tensor); ok {
				g.Zero()
			}
		}
	}
	return l, err
}

// labelAt returns labels[i], or -1 for a nil slice.
func labelAt(labels []int, i int) int {
	if labels == nil {
		return -1
	}
	return labels[i]
}

// setBatch checks b and loads it and its targets into the graph. valid[h][i]
// is the class of sample i for head h, or -1.
func (t *Trainer) setBatch(b Batch) (valid [4][]int, err error) {
	N := t.cfg.BatchSize
	if len(b.X) != N*t.cfg.CropLen() {
		return valid, fmt.Errorf("%w: batch has %d values, want %d crops of %d", ErrInput, len(b.X), N, t.cfg.CropLen())
	}
	if len(b.Side) != N {
		return valid, fmt.Errorf("%w: %d side labels for %d samples", ErrInput, len(b.Side), N)
	}
	for _, s := range []struct {
		name   string
		labels []int
	}{{"colour", b.Colour}, {"number", b.Number}, {"back class", b.BackClass}} {
		if s.labels != nil && len(s.labels) != N {
			return valid, fmt.Errorf("%w: %d %s labels for %d samples", ErrInput, len(s.labels), s.name, N)
		}
	}
	for h := range valid {
		valid[h] = make([]int, N)
	}
	limits := [4]int{NumSides, NumColours, NumNumbers, t.cfg.BackClasses}
	for i := 0; i < N; i++ {
		side := b.Side[i]
		valid[0][i] = side
		c, num, bc := -1, -1, -1
		switch side {
		case SideFace:
			c, num = labelAt(b.Colour, i), labelAt(b.Number, i)
			if num != -1 && (num < 1 || num > NumNumbers) {
				return valid, fmt.Errorf("%w: sample %d has number %d (want 1..10 or -1)", ErrInput, i, num)
			}
			if num != -1 {
				num-- // 1..10 -> class 0..9
			}
			if c < -1 || c >= NumColours {
				return valid, fmt.Errorf("%w: sample %d has colour %d (want 0..3 or -1)", ErrInput, i, c)
			}
		case SideBack:
			bc = labelAt(b.BackClass, i)
			if bc < -1 || bc >= t.cfg.BackClasses {
				return valid, fmt.Errorf("%w: sample %d has back class %d (want 0..%d or -1)", ErrInput, i, bc, t.cfg.BackClasses-1)
			}
		case -1:
		default:
			return valid, fmt.Errorf("%w: sample %d has side %d", ErrInput, i, side)
		}
		valid[1][i], valid[2][i], valid[3][i] = c, num, bc
	}
	for h := range valid {
		data := t.targets[h].Data().([]float32)
		clear(data)
		count := 0
		for _, v := range valid[h] {
			if v >= 0 {
				count++
			}
		}
		if count > 0 {
			for i, v := range valid[h] {
				if v >= 0 {
					data[i*limits[h]+v] = 1 / float32(count)
				}
			}
		}
		if err := G.Let(t.tnodes[h], t.targets[h]); err != nil {
			return valid, err
		}
	}
	copy(t.input.Data().([]float32), b.X)
	return valid, G.Let(t.net.x, t.input)
}

// readLosses reads the losses and the batch accuracies.
func (t *Trainer) readLosses(valid [4][]int) (Losses, error) {
	var l Losses
	var vals [5]float64
	for i, v := range t.lossV {
		switch d := valueData(v).(type) {
		case float32:
			vals[i] = float64(d)
		case []float32:
			vals[i] = float64(d[0])
		default:
			return l, fmt.Errorf("model: loss %d holds %T", i, d)
		}
	}
	l.Total, l.Side, l.Colour, l.Number, l.Back = vals[0], vals[1], vals[2], vals[3], vals[4]
	outs := [4]G.Value{t.net.sideV, t.net.colourV, t.net.numberV, t.net.backV}
	accs := [4]*float64{&l.SideAcc, &l.ColourAcc, &l.NumberAcc, &l.BackAcc}
	for h, v := range outs {
		logits, err := float32s(v)
		if err != nil {
			return l, err
		}
		k := len(logits) / t.cfg.BatchSize
		right, count := 0, 0
		for i, want := range valid[h] {
			if want < 0 {
				continue
			}
			count++
			if argmax(logits[i*k:(i+1)*k]) == want {
				right++
			}
		}
		*accs[h] = float64(right) / float64(count) // NaN for no samples
	}
	return l, nil
}

func valueData(v G.Value) any {
	if v == nil {
		return nil
	}
	return v.Data()
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// update applies one AdamW step to every learnable.
func (t *Trainer) update() error {
	t.steps++
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(t.steps))
	c2 := 1 - math.Pow(b2, float64(t.steps))
	lr := float32(t.lr * math.Sqrt(c2) / c1)
	wd := float32(t.lr * t.cfg.WeightDecay)
	for i, p := range t.params {
		gv, err := p.Grad()
		if err != nil {
			return fmt.Errorf("model: gradient of %s: %w", p.Name(), err)
		}
		g, err := float32s(gv)
		if err != nil {
			return err
		}
		w, err := float32s(p.Value())
		if err != nil {
			return err
		}
		m, v := t.m[i], t.v[i]
		if len(g) != len(w) || len(m) != len(w) {
			return fmt.Errorf("model: gradient of %s has %d values for %d weights", p.Name(), len(g), len(w))
		}
		decay := t.decay[i]
		for j, gj := range g {
			m[j] = b1*m[j] + (1-b1)*gj
			v[j] = b2*v[j] + (1-b2)*gj*gj
			step := lr * m[j] / (float32(math.Sqrt(float64(v[j]))) + eps)
			if decay {
				step += wd * w[j]
			}
			w[j] -= step
		}
	}
	return nil
}

// Weights returns a copy of the current weights, with the batch-norm
// running statistics, and the trainer's Config.
func (t *Trainer) Weights() *Weights {
	return t.net.snapshot(t.base)
}

// Close releases the machine.
func (t *Trainer) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	return t.vm.Close()
}

// LearnRateAt is the schedule Train uses: a linear warm-up over the first
// 5% of the steps (at most 100), then a cosine decay from cfg.LearnRate to
// 5% of it at the last step.
func LearnRateAt(cfg Config, step, steps int) float64 {
	warm := min(100, steps/20)
	if step < warm {
		return cfg.LearnRate * float64(step+1) / float64(warm)
	}
	if steps-warm <= 1 {
		return cfg.LearnRate
	}
	f := float64(step-warm) / float64(steps-warm-1)
	return cfg.LearnRate * (0.05 + 0.95*0.5*(1+math.Cos(math.Pi*f)))
}

// Train trains a fresh network (NewWeights(cfg)) for steps batches, each
// from next, with the LearnRateAt schedule, calling progress (if not nil)
// after every step. It stops at the first error of next or of a step.
func Train(cfg Config, next func() (Batch, error), steps int, progress func(step int, l Losses)) (*Weights, error) {
	t, err := NewTrainer(cfg, nil)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	for s := 0; s < steps; s++ {
		b, err := next()
		if err != nil {
			return nil, fmt.Errorf("model: batch %d: %w", s, err)
		}
		t.SetLearnRate(LearnRateAt(cfg, s, steps))
		l, err := t.Step(b)
		if err != nil {
			return nil, fmt.Errorf("model: step %d: %w", s, err)
		}
		if progress != nil {
			progress(s, l)
		}
	}
	return t.Weights(), nil
}
