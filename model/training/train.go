package training

import (
	"errors"
	"fmt"
	"ligretto/model"
	"math"
	"strings"
	"sync"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Batch is one training batch of model.Config.BatchSize samples.
//
// Side is required for every sample. Colour (0..3, model.ColourNames order) and
// Number (1..10) only count for face samples and BackClass
// (0..BackClasses-1) only for back samples; the other samples' values are
// ignored. A label of -1, or a nil slice, leaves the sample out of that
// head's loss (a side of -1 leaves it out of every loss).
type Batch struct {
	X         []float32 // BatchSize crops, each model.Config.CropLen() values (see model.Crop)
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
	// Hard lists, in batch order, the face samples whose colour or number
	// the network got wrong, or gave its truth less than HardBelow of
	// probability: what a replay of hard examples draws again.
	Hard []int
}

// HardBelow is the probability of the truth under which a face sample is
// hard (Losses.Hard) though the network read it right.
const HardBelow = 0.6

func (l Losses) String() string {
	return fmt.Sprintf("loss %.4f (side %.4f colour %.4f number %.4f back %.4f) acc side %.3f colour %.3f number %.3f back %.3f",
		l.Total, l.Side, l.Colour, l.Number, l.Back, l.SideAcc, l.ColourAcc, l.NumberAcc, l.BackAcc)
}

// Trainer trains the network on caller-supplied batches. It owns
// model.Config.Workers gorgonia graphs and tape machines (replicas): each takes an
// equal share of a batch on its own goroutine, their gradients are summed
// and one AdamW step is taken, then the replicas get the new weights. Not
// safe for concurrent use.
type Trainer struct {
	cfg  model.Config
	base *model.Weights
	reps []*replica

	decay  []bool // decoupled weight decay for this param
	m, v   [][]float32
	grad   [][]float32 // gradients summed over the replicas
	steps  int
	lr     float64
	closed bool
}

// replica is one graph of the network for a share of the batch, with its
// loss and its machine.
type replica struct {
	net     *net
	vm      G.VM
	input   *tensor.Dense
	targets [4]*tensor.Dense // side, colour, number, back: one-hot times 1/(count in the whole batch)
	tnodes  [4]*G.Node
	lossV   [5]G.Value // total, side, colour, number, back
	params  G.Nodes
	margin  *tensor.Dense // EmbedScale*BackMargin at each back sample's class (nil without a margin)
	mnode   *G.Node
}

// NewTrainer makes a trainer for cfg starting from init, or from
// model.NewWeights(cfg) when init is nil. init must have cfg's architecture; its
// training fields are replaced by cfg's.
func NewTrainer(cfg model.Config, init *model.Weights) (t *Trainer, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var w *model.Weights
	if init == nil {
		if w, err = model.NewWeights(cfg); err != nil {
			return nil, err
		}
	} else {
		if err := init.Check(cfg); err != nil {
			return nil, err
		}
		w = init.Clone()
		w.Config = cloneConfig(cfg)
		w.Temperatures = model.Temperatures{} // fitted for the starting weights, not for what training makes of them
	}
	t = &Trainer{cfg: cloneConfig(cfg), base: w, lr: cfg.LearnRate}
	share := cfg.BatchSize / workers(cfg)
	for range workers(cfg) {
		r, err := newReplica(w, share)
		if err != nil {
			t.Close()
			return nil, err
		}
		t.reps = append(t.reps, r)
	}
	_, idx := t.reps[0].net.learnables()
	for i, p := range t.reps[0].params {
		size := p.Shape().TotalSize()
		t.m = append(t.m, make([]float32, size))
		t.v = append(t.v, make([]float32, size))
		t.grad = append(t.grad, make([]float32, size))
		t.decay = append(t.decay, strings.HasSuffix(t.reps[0].net.specs[idx[i]].Name, ".w"))
	}
	return t, nil
}

func newReplica(w *model.Weights, share int) (*replica, error) {
	n, err := buildNet(w, share, true)
	if err != nil {
		return nil, err
	}
	r := &replica{net: n}
	if err := r.buildLoss(w.Config); err != nil {
		return nil, err
	}
	r.params, _ = n.learnables()
	r.vm = G.NewTapeMachine(n.g, G.BindDualValues(r.params...), G.WithEngine(vmEngine))
	// Making a training machine resets the batch-norm statistics: set them
	// only now.
	if err := n.setStats(w); err != nil {
		r.vm.Close()
		return nil, err
	}
	r.input = tensor.New(tensor.WithShape(share, 3, w.Config.Height, w.Config.Width), tensor.Of(tensor.Float32))
	return r, nil
}

// buildLoss adds the targets, the losses and the gradients to the graph.
func (r *replica) buildLoss(cfg model.Config) (err error) {
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("model: building the loss: %v", rec)
		}
	}()
	n, g, N := r.net, r.net.g, r.net.batch
	heads := []struct {
		logits *G.Node
		k      int
		name   string
	}{
		{n.side, model.NumSides, "side"},
		{n.colour, model.NumColours, "colour"},
		{n.number, model.NumNumbers, "number"},
		{n.back, cfg.BackClasses, "back"},
	}
	var total *G.Node
	for i, h := range heads {
		r.targets[i] = tensor.New(tensor.WithShape(N, h.k), tensor.Of(tensor.Float32))
		r.tnodes[i] = G.NewMatrix(g, tensor.Float32, G.WithShape(N, h.k), G.WithName("target_"+h.name))
		logits := h.logits
		if i == 3 && cfg.BackMargin > 0 {
			// CosFace: the true class's cosine must win by BackMargin, which
			// packs each design's crops tighter than plain softmax does.
			r.margin = tensor.New(tensor.WithShape(N, h.k), tensor.Of(tensor.Float32))
			r.mnode = G.NewMatrix(g, tensor.Float32, G.WithShape(N, h.k), G.WithName("back_margin"))
			if logits, err = G.Sub(logits, r.mnode); err != nil {
				return err
			}
		}
		logp, err := logSoftmaxRows(logits)
		if err != nil {
			return err
		}
		prod, err := G.HadamardProd(r.tnodes[i], logp)
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
		G.Read(loss, &r.lossV[i+1])
		if i == 3 {
			if loss, err = G.Mul(loss, G.NewConstant(float32(cfg.BackWeight))); err != nil {
				return err
			}
		}
		if total == nil {
			total = loss
		} else if total, err = G.Add(total, loss); err != nil {
			return err
		}
	}
	G.Read(total, &r.lossV[0])
	params, _ := n.learnables()
	_, err = G.Grad(total, params...)
	return err
}

// logSoftmaxRows is the log-softmax of each row of the matrix x, shifted
// by the row's own maximum. gorgonia's LogSoftMax (tensor v0.9.24) shifts
// every row by the largest of the first row's first value and the row's
// other values: once the logits of a confident row run 88 above that, exp
// overflows and the loss turns NaN (a training run diverged so after 14,700
// steps).
func logSoftmaxRows(x *G.Node) (*G.Node, error) {
	n := x.Shape()[0]
	m, err := G.Max(x, 1)
	if err != nil {
		return nil, err
	}
	if m, err = G.Reshape(m, tensor.Shape{n, 1}); err != nil {
		return nil, err
	}
	shifted, err := G.BroadcastSub(x, m, nil, []byte{1})
	if err != nil {
		return nil, err
	}
	e, err := G.Exp(shifted)
	if err != nil {
		return nil, err
	}
	sum, err := G.Sum(e, 1)
	if err != nil {
		return nil, err
	}
	lse, err := G.Log(sum)
	if err != nil {
		return nil, err
	}
	if lse, err = G.Reshape(lse, tensor.Shape{n, 1}); err != nil {
		return nil, err
	}
	return G.BroadcastSub(shifted, lse, nil, []byte{1})
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
// Adam step, else it leaves the weights alone and hands the summed
// gradients to grads (when not nil).
func (t *Trainer) run(b Batch, update bool) (l Losses, err error) {
	return t.runWith(b, update, nil)
}

func (t *Trainer) runWith(b Batch, update bool, grads func(i int, g []float32)) (l Losses, err error) {
	if t.closed {
		return l, model.ErrClosed
	}
	valid, err := t.checkBatch(b)
	if err != nil {
		return l, err
	}
	share := t.cfg.BatchSize / len(t.reps)
	errs := make([]error, len(t.reps))
	var wg sync.WaitGroup
	for ri, r := range t.reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[ri] = r.run(t.cfg, b, valid, ri*share, share)
		}()
	}
	wg.Wait()
	defer func() {
		for _, r := range t.reps {
			r.vm.Reset()
		}
	}()
	if err := errors.Join(errs...); err != nil {
		return l, err
	}
	if l, err = t.readLosses(valid); err != nil {
		return l, err
	}
	for i := range t.grad {
		sum := t.grad[i]
		clear(sum)
		for _, r := range t.reps {
			gv, err := r.params[i].Grad()
			if err != nil {
				return l, err
			}
			g, err := float32s(gv)
			if err != nil {
				return l, err
			}
			if len(g) != len(sum) {
				return l, fmt.Errorf("model: gradient of %s has %d values for %d weights", r.params[i].Name(), len(g), len(sum))
			}
			for j, v := range g {
				sum[j] += v
			}
			// The machine adds each run's gradients to the dual values:
			// zero them (gorgonia's own solvers do this in Step).
			if gt, ok := gv.(tensor.Tensor); ok {
				gt.Zero()
			}
		}
		if grads != nil {
			grads(i, sum)
		}
	}
	if update {
		err = t.update()
	}
	return l, err
}

// run loads samples [from, from+n) of b into the replica and runs its
// forward and backward pass.
func (r *replica) run(cfg model.Config, b Batch, valid [4][]int, from, n int) error {
	limits := [4]int{model.NumSides, model.NumColours, model.NumNumbers, cfg.BackClasses}
	for h := range valid {
		data := r.targets[h].Data().([]float32)
		clear(data)
		// Scaled by the count over the whole batch, so that the replicas'
		// losses (and gradients) add up to the batch's mean.
		count := 0
		for _, v := range valid[h] {
			if v >= 0 {
				count++
			}
		}
		for i, v := range valid[h][from : from+n] {
			if v >= 0 {
				data[i*limits[h]+v] = 1 / float32(count)
			}
		}
		if err := G.Let(r.tnodes[h], r.targets[h]); err != nil {
			return err
		}
	}
	if r.margin != nil {
		data := r.margin.Data().([]float32)
		clear(data)
		for i, v := range valid[3][from : from+n] {
			if v >= 0 {
				data[i*cfg.BackClasses+v] = float32(cfg.EmbedScale * cfg.BackMargin)
			}
		}
		if err := G.Let(r.mnode, r.margin); err != nil {
			return err
		}
	}
	cl := cfg.CropLen()
	copy(r.input.Data().([]float32), b.X[from*cl:(from+n)*cl])
	if err := G.Let(r.net.x, r.input); err != nil {
		return err
	}
	return r.vm.RunAll()
}

// labelAt returns labels[i], or -1 for a nil slice.
func labelAt(labels []int, i int) int {
	if labels == nil {
		return -1
	}
	return labels[i]
}

// checkBatch checks b. valid[h][i] is the class of sample i for head h, or
// -1.
func (t *Trainer) checkBatch(b Batch) (valid [4][]int, err error) {
	N := t.cfg.BatchSize
	if len(b.X) != N*t.cfg.CropLen() {
		return valid, fmt.Errorf("%w: batch has %d values, want %d crops of %d", model.ErrInput, len(b.X), N, t.cfg.CropLen())
	}
	if len(b.Side) != N {
		return valid, fmt.Errorf("%w: %d side labels for %d samples", model.ErrInput, len(b.Side), N)
	}
	for _, s := range []struct {
		name   string
		labels []int
	}{{"colour", b.Colour}, {"number", b.Number}, {"back class", b.BackClass}} {
		if s.labels != nil && len(s.labels) != N {
			return valid, fmt.Errorf("%w: %d %s labels for %d samples", model.ErrInput, len(s.labels), s.name, N)
		}
	}
	for h := range valid {
		valid[h] = make([]int, N)
	}
	for i := 0; i < N; i++ {
		side := b.Side[i]
		valid[0][i] = side
		c, num, bc := -1, -1, -1
		switch side {
		case model.SideFace:
			c, num = labelAt(b.Colour, i), labelAt(b.Number, i)
			if num != -1 && (num < 1 || num > model.NumNumbers) {
				return valid, fmt.Errorf("%w: sample %d has number %d (want 1..10 or -1)", model.ErrInput, i, num)
			}
			if num != -1 {
				num-- // 1..10 -> class 0..9
			}
			if c < -1 || c >= model.NumColours {
				return valid, fmt.Errorf("%w: sample %d has colour %d (want 0..3 or -1)", model.ErrInput, i, c)
			}
		case model.SideBack:
			bc = labelAt(b.BackClass, i)
			if bc < -1 || bc >= t.cfg.BackClasses {
				return valid, fmt.Errorf("%w: sample %d has back class %d (want 0..%d or -1)", model.ErrInput, i, bc, t.cfg.BackClasses-1)
			}
		case -1:
		default:
			return valid, fmt.Errorf("%w: sample %d has side %d", model.ErrInput, i, side)
		}
		valid[1][i], valid[2][i], valid[3][i] = c, num, bc
	}
	return valid, nil
}

// readLosses adds up the replicas' losses and scores the batch.
func (t *Trainer) readLosses(valid [4][]int) (Losses, error) {
	var l Losses
	var vals [5]float64
	var right, count [4]int
	share := t.cfg.BatchSize / len(t.reps)
	hard := make([]bool, t.cfg.BatchSize)
	for ri, r := range t.reps {
		for i, v := range r.lossV {
			switch d := valueData(v).(type) {
			case float32:
				vals[i] += float64(d)
			case []float32:
				vals[i] += float64(d[0])
			default:
				return l, fmt.Errorf("model: loss %d holds %T", i, d)
			}
		}
		outs := [4]G.Value{r.net.sideV, r.net.colourV, r.net.numberV, r.net.backV}
		for h, v := range outs {
			logits, err := float32s(v)
			if err != nil {
				return l, err
			}
			k := len(logits) / share
			for i, want := range valid[h][ri*share : (ri+1)*share] {
				if want < 0 {
					continue
				}
				count[h]++
				row := logits[i*k : (i+1)*k]
				if argmax(row) == want {
					right[h]++
				}
				if (h == 1 || h == 2) && probOf(row, want) < HardBelow {
					hard[ri*share+i] = true
				}
			}
		}
	}
	for i, h := range hard {
		if h {
			l.Hard = append(l.Hard, i)
		}
	}
	l.Total, l.Side, l.Colour, l.Number, l.Back = vals[0], vals[1], vals[2], vals[3], vals[4]
	accs := [4]*float64{&l.SideAcc, &l.ColourAcc, &l.NumberAcc, &l.BackAcc}
	for h := range accs {
		*accs[h] = float64(right[h]) / float64(count[h]) // NaN for no samples
	}
	return l, nil
}

func valueData(v G.Value) any {
	if v == nil {
		return nil
	}
	return v.Data()
}

// probOf is the softmax probability of class c of logits.
func probOf(logits []float32, c int) float64 {
	top := logits[argmax(logits)]
	sum := 0.0
	for _, x := range logits {
		sum += math.Exp(float64(x - top))
	}
	return math.Exp(float64(logits[c]-top)) / sum
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

// update applies one AdamW step with the summed gradients to the first
// replica's weights and copies them to the others.
func (t *Trainer) update() error {
	t.steps++
	const b1, b2, eps = 0.9, 0.999, 1e-8
	c1 := 1 - math.Pow(b1, float64(t.steps))
	c2 := 1 - math.Pow(b2, float64(t.steps))
	lr := float32(t.lr * math.Sqrt(c2) / c1)
	wd := float32(t.lr * t.cfg.WeightDecay)
	for i, p := range t.reps[0].params {
		g := t.grad[i]
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
		for _, r := range t.reps[1:] {
			wr, err := float32s(r.params[i].Value())
			if err != nil {
				return err
			}
			copy(wr, w)
		}
	}
	return nil
}

// model.Weights returns a copy of the current weights, with the batch-norm
// running statistics (averaged over the replicas), and the trainer's
// model.Config.
func (t *Trainer) Weights() *model.Weights {
	w := t.reps[0].net.snapshot(t.base)
	if len(t.reps) == 1 {
		return w
	}
	for i := range t.reps[0].net.bn {
		p := fmt.Sprintf("conv%d.", i)
		mean, vr := w.Tensor(p+"mean").Data, w.Tensor(p+"var").Data
		for _, r := range t.reps[1:] {
			m, v := r.net.bn[i].Stats()
			for j, x := range m.Data().([]float32) {
				mean[j] += x
			}
			for j, x := range v.Data().([]float32) {
				vr[j] += x
			}
		}
		k := 1 / float32(len(t.reps))
		for j := range mean {
			mean[j] *= k
			vr[j] *= k
		}
	}
	return w
}

// Close releases the machines.
func (t *Trainer) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	var errs []error
	for _, r := range t.reps {
		errs = append(errs, r.vm.Close())
	}
	return errors.Join(errs...)
}

// LearnRateAt is the schedule Train uses: a linear warm-up over the first
// 5% of the steps (at most 100), then a cosine decay from cfg.LearnRate to
// 5% of it at the last step.
func LearnRateAt(cfg model.Config, step, steps int) float64 {
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

// Snapshot asks Train for the weights after Step steps (1 to the run's
// steps), handed to Save. Taking one changes nothing in the run: a second
// network can start from a snapshot of the first's run without a run of
// its own to that step.
type Snapshot struct {
	Step int
	Save func(*model.Weights) error
}

// Train trains a network for steps batches, each from next, with the
// LearnRateAt schedule, calling progress (if not nil) after every step and
// handing over the weights at each snapshot's step. It starts from start,
// or from fresh weights (model.NewWeights(cfg)) when start is nil; a second run
// from the first one's weights is a warm restart of the schedule. It stops
// at the first error of next, of a step or of a snapshot's Save.
func Train(cfg model.Config, start *model.Weights, next func() (Batch, error), steps int, progress func(step int, l Losses), snapshots ...Snapshot) (*model.Weights, error) {
	for _, sn := range snapshots {
		if sn.Step < 1 || sn.Step > steps || sn.Save == nil {
			return nil, fmt.Errorf("model: snapshot at step %d of %d: %w", sn.Step, steps, model.ErrConfig)
		}
	}
	t, err := NewTrainer(cfg, start)
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
		for _, sn := range snapshots {
			if sn.Step == s+1 {
				if err := sn.Save(t.Weights()); err != nil {
					return nil, fmt.Errorf("model: snapshot at step %d: %w", sn.Step, err)
				}
			}
		}
	}
	return t.Weights(), nil
}
