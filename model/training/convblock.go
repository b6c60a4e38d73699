package training

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"

	"github.com/chewxy/hm"
	"github.com/chewxy/math32"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// fusedBlocks makes buildNet build each conv block as convolution product
// then blockOp; off, it is gorgonia's Conv2d, BatchNorm, Rectify and
// MaxPool2D, which a test compares it with.
var fusedBlocks = true

// A conv block is a 3x3 convolution, a batch norm, y = max(0, γ·x̂ + β) per
// channel and a 2x2 max pool. gorgonia builds the convolution as im2col and
// a product, whose (N,H,W,C) result it transposes to (N,C,H,W) (cloning and
// copying it twice), and the rest from a batch norm that clones its input
// and sums each channel in goroutines, then broadcasts: γ and β repeated to
// the full shape, a product, a sum, a mask, a second product, the pool, and
// as many again backwards, each a full-size tensor allocated and walked.
// That was about half of a training step.
//
// blockOp takes the product's (N,H,W,C) result as it is and does the rest in
// three walks forward (two for the batch's statistics, one that normalises,
// rectifies and pools) and four back (one over the pool's choices that
// the three gradients share, one for γ and β, two for x), with gorgonia's
// arithmetic: the same operations on float32 values, each sum in
// gorgonia's order (walking the channels side by side does not change any
// one channel's order), and the pool's choice among equal values. Training gives the same weights bit for
// bit (TestBlockOp_SameWeightsAsGorgonias).
type blockOp struct {
	kind blockKind
	st   *blockState
}

type blockKind int

const (
	blockForward    blockKind = iota // the pooled y, (N,C,H/2,W/2)
	blockGradInput                   // dL/dx, (N,H,W,C)
	blockGradScale                   // dL/dγ, (1,C,1,1)
	blockGradOffset                  // dL/dβ, (1,C,1,1)
)

var blockNames = [...]string{"block", "block∂x", "block∂γ", "block∂β"}

// blockState is one block's batch norm (its running statistics, and the
// batch's, as gorgonia's BatchNormOp keeps them) and what a forward pass
// leaves for its gradients in the same run: x̂ and the pool's choices. One
// per node: each replica has its own graph.
type blockState struct {
	momentum, epsilon float64
	training          bool

	runningMean, runningVar *tensor.Dense // (C)
	batchMean, sqDev        []float32     // the batch's mean, and its sum of squared deviations (not divided)
	alpha, beta             []float32     // x̂ = x·alpha + beta

	xhat   []float32 // (N,H,W,C)
	choice []uint8   // (N,H/2,W/2,C): where each window's value came from, 0-3 row-major

	// The three gradient ops of a backward pass share one walk: the first
	// to run fills grads, the other two take their part of it. A forward
	// pass (pass counts them) or another incoming gradient starts afresh.
	pass  uint64
	grads blockGrads
}

// blockGrads is what one backward pass computed, for the forward pass
// pass and the incoming gradient gp.
type blockGrads struct {
	pass          uint64
	gp            *float32
	du            []float32 // the ReLU's gradient at each window's chosen value, (N,H/2,W/2,C)
	at            []int32   // that value's index in (N,H,W,C)
	dy            []float32 // dL/dx̂ at those values (blockGradInput's)
	scale, offset []float32 // dL/dγ and dL/dβ
	haveSums      bool      // scale and offset are this pass's
}

// convBlock applies a block to the convolution's (N,H,W,C) product.
func convBlock(nhwc, gamma, beta *G.Node, momentum, epsilon float64) (*G.Node, *blockState, error) {
	c := nhwc.Shape()[3]
	st := &blockState{
		momentum:    momentum,
		epsilon:     epsilon,
		training:    true,
		runningMean: tensor.New(tensor.WithShape(c), tensor.Of(tensor.Float32)),
		runningVar:  tensor.New(tensor.WithShape(c), tensor.Of(tensor.Float32)),
		batchMean:   make([]float32, c),
		sqDev:       make([]float32, c),
		alpha:       make([]float32, c),
		beta:        make([]float32, c),
	}
	st.reset()
	n, err := G.ApplyOp(blockOp{blockForward, st}, nhwc, gamma, beta)
	return n, st, err
}

// Stats returns the running mean and variance (not copies).
func (st *blockState) Stats() (tensor.Tensor, tensor.Tensor) { return st.runningMean, st.runningVar }

// SetStats copies the running mean and variance in.
func (st *blockState) SetStats(mean, variance tensor.Tensor) error {
	for _, t := range []tensor.Tensor{mean, variance} {
		if !t.Shape().Eq(st.runningMean.Shape()) || t.Dtype() != tensor.Float32 {
			return fmt.Errorf("running statistics of shape %v %v, want %v float32", t.Shape(), t.Dtype(), st.runningMean.Shape())
		}
	}
	copy(st.runningMean.Data().([]float32), mean.Data().([]float32))
	copy(st.runningVar.Data().([]float32), variance.Data().([]float32))
	return nil
}

// SetTraining is called by the machine: training mode starts the running
// statistics again (mean 0, variance 1), as gorgonia's batch norm does.
func (st *blockState) SetTraining(training bool) error {
	if training {
		st.reset()
	}
	st.training = training
	return nil
}

func (st *blockState) reset() {
	clear(st.runningMean.Data().([]float32))
	for i := range st.runningVar.Data().([]float32) {
		st.runningVar.Data().([]float32)[i] = 1
	}
}

// SetTraining forwards to the block's state, so that a tape machine sets
// the mode of the forward op's node.
func (op blockOp) SetTraining(training bool) error {
	if op.kind != blockForward {
		return nil
	}
	return op.st.SetTraining(training)
}

func (op blockOp) Arity() int {
	if op.kind == blockForward {
		return 3
	}
	return 4
}

func (op blockOp) Type() hm.Type {
	t := G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	if op.kind == blockForward {
		return hm.NewFnType(t, t, t, t)
	}
	return hm.NewFnType(t, t, t, t, t)
}

func (op blockOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	x, ok := inputs[0].(tensor.Shape)
	if len(inputs) != op.Arity() || !ok || x.Dims() != 4 {
		return nil, fmt.Errorf("%v: want %d inputs, the first an (N,H,W,C) shape", op, op.Arity())
	}
	return op.outShape(x), nil
}

// outShape is the output's shape for an (N,H,W,C) input.
func (op blockOp) outShape(x tensor.Shape) tensor.Shape {
	switch op.kind {
	case blockForward:
		return tensor.Shape{x[0], x[3], x[1] / 2, x[2] / 2}
	case blockGradInput:
		return x.Clone()
	default:
		return tensor.Shape{1, x[3], 1, 1}
	}
}

func (op blockOp) ReturnsPtr() bool      { return false }
func (op blockOp) CallsExtern() bool     { return false }
func (op blockOp) OverwritesInput() int  { return -1 }
func (op blockOp) String() string        { return blockNames[op.kind] }
func (op blockOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%s-%p", op, op.st) }
func (op blockOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op blockOp) DiffWRT(inputs int) []bool {
	if op.kind != blockForward {
		return make([]bool, inputs)
	}
	return []bool{true, true, true}
}

func (op blockOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.kind != blockForward {
		return nil, fmt.Errorf("%v is not differentiable", op)
	}
	out := make(G.Nodes, 3)
	for i, k := range []blockKind{blockGradInput, blockGradScale, blockGradOffset} {
		n, err := G.ApplyOp(blockOp{k, op.st}, inputs[0], inputs[1], inputs[2], grad)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", blockNames[k], err)
		}
		out[i] = n
	}
	return out, nil
}

func (op blockOp) Do(inputs ...G.Value) (G.Value, error) {
	in, xs, err := op.check(inputs)
	if err != nil {
		return nil, err
	}
	out := tensor.New(tensor.WithShape(op.outShape(xs)...), tensor.Of(tensor.Float32))
	op.run(in, xs, out.Data().([]float32))
	return out, nil
}

// UsePreallocDo writes into the register's old value when it fits; the
// machine falls back to Do on an error.
func (op blockOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	in, xs, err := op.check(inputs)
	if err != nil {
		return nil, err
	}
	p, data, err := register(op, prealloc, op.outShape(xs), in...)
	if err != nil {
		return nil, err
	}
	op.run(in, xs, data)
	return p, nil
}

// register returns the register's old value and its data, for an op to
// write its output of this shape into: an error (the machine then calls
// Do) unless it is a float32 tensor of that shape that is none of the
// op's inputs.
func register(op fmt.Stringer, prealloc G.Value, shape tensor.Shape, inputs ...[]float32) (*tensor.Dense, []float32, error) {
	p, ok := prealloc.(*tensor.Dense)
	if !ok || p.Dtype() != tensor.Float32 || !p.Shape().Eq(shape) || !p.IsNativelyAccessible() {
		return nil, nil, fmt.Errorf("%v: register holds no (%v) float32 tensor", op, shape)
	}
	data := p.Data().([]float32)
	for _, in := range inputs {
		if &in[0] == &data[0] {
			return nil, nil, fmt.Errorf("%v: register is an input", op)
		}
	}
	return p, data, nil
}

// check returns the inputs' data (x, γ, β and, for a gradient, g) and x's
// (N,H,W,C) shape.
func (op blockOp) check(inputs []G.Value) ([][]float32, tensor.Shape, error) {
	if len(inputs) != op.Arity() {
		return nil, nil, fmt.Errorf("%v: %d inputs, want %d", op, len(inputs), op.Arity())
	}
	data := make([][]float32, len(inputs))
	var xs tensor.Shape
	for i, v := range inputs {
		d, ok := v.(*tensor.Dense)
		if !ok || d.Dtype() != tensor.Float32 || d.Dims() != 4 || !d.IsNativelyAccessible() {
			return nil, nil, fmt.Errorf("%v: input %d is not a 4-d float32 tensor", op, i)
		}
		switch s := d.Shape(); i {
		case 0:
			xs = s
			if s[1]%2 != 0 || s[2]%2 != 0 || s.TotalSize() == 0 || s[3] != len(op.st.batchMean) {
				return nil, nil, fmt.Errorf("%v: x of shape %v does not fit", op, s)
			}
		case 1, 2:
			if s[0] != 1 || s[1] != xs[3] || s[2] != 1 || s[3] != 1 {
				return nil, nil, fmt.Errorf("%v: input %d has shape %v for %v", op, i, s, xs)
			}
		case 3:
			if want := (blockOp{kind: blockForward}).outShape(xs); !s.Eq(want) {
				return nil, nil, fmt.Errorf("%v: gradient of shape %v, want %v", op, s, want)
			}
		}
		data[i] = d.Data().([]float32)
	}
	if op.kind != blockForward && len(op.st.xhat) != xs.TotalSize() {
		return nil, nil, fmt.Errorf("%v: no forward pass of this shape before", op)
	}
	return data, xs, nil
}

func (op blockOp) run(in [][]float32, shape tensor.Shape, out []float32) {
	if op.kind == blockForward {
		op.forward(in[0], in[1], in[2], shape, out)
		return
	}
	op.backward(in[0], in[1], in[2], in[3], shape, out)
}

// forward normalises x (N,H,W,C) as gorgonia's batch norm does (updating
// the running statistics in training), then scales, shifts, rectifies and
// pools it into out (N,C,H/2,W/2).
func (op blockOp) forward(x, gamma, beta []float32, shape tensor.Shape, out []float32) {
	st := op.st
	N, H, W, C := shape[0], shape[1], shape[2], shape[3]
	n := N * H * W
	if st.training {
		// gorgonia: saveMean[c] += x over samples then positions, divided
		// by n; saveVar[c] += (x - mean)², not divided.
		mean, sq := st.batchMean, st.sqDev
		clear(mean)
		clear(sq)
		for p := range n {
			for c, v := range x[p*C : (p+1)*C] {
				mean[c] += v
			}
		}
		for c := range mean {
			mean[c] /= float32(n)
		}
		for p := range n {
			for c, v := range x[p*C : (p+1)*C] {
				d := v - mean[c]
				sq[c] += float32(d * d)
			}
		}
		m := float32(st.momentum)
		rm, rv := st.runningMean.Data().([]float32), st.runningVar.Data().([]float32)
		for c := range C {
			rm[c] = float32(m*mean[c]) + float32((1-m)*rm[c])
			unbiased := sq[c] / float32(n-1)
			rv[c] = float32(m*unbiased) + float32((1-m)*rv[c])
			st.alpha[c] = 1 / math32.Sqrt(sq[c]/float32(n)+float32(st.epsilon))
			st.beta[c] = float32(-mean[c] * st.alpha[c])
		}
	} else {
		rm, rv := st.runningMean.Data().([]float32), st.runningVar.Data().([]float32)
		for c := range C {
			st.alpha[c] = 1 / math32.Sqrt(rv[c]+float32(st.epsilon))
			st.beta[c] = float32(-rm[c] * st.alpha[c])
		}
	}
	st.pass++
	if len(st.xhat) != len(x) {
		st.xhat = make([]float32, len(x))
		st.choice = make([]uint8, len(x)/4)
	}
	// Each value of x is in one window: x̂ is written as the windows are
	// walked, two rows of two values each, the channels side by side.
	alpha, shift := st.alpha[:C], st.beta[:C]
	gamma, beta = gamma[:C], beta[:C]
	PH, PW := H/2, W/2
	for s := range N {
		for ph := range PH {
			for pw := range PW {
				k0 := ((s*H+2*ph)*W + 2*pw) * C
				k1 := k0 + W*C
				x0, x1 := x[k0:k0+2*C], x[k1:k1+2*C]
				h0, h1 := st.xhat[k0:k0+2*C], st.xhat[k1:k1+2*C]
				w := (s*PH+ph)*PW + pw
				choice := st.choice[w*C : (w+1)*C]
				o := (s*C*PH+ph)*PW + pw // out's index of channel 0; channels are PH*PW apart
				for c := range C {
					a, b, g, bt := alpha[c], shift[c], gamma[c], beta[c]
					xh0, xh1 := float32(x0[c]*a)+b, float32(x0[C+c]*a)+b
					xh2, xh3 := float32(x1[c]*a)+b, float32(x1[C+c]*a)+b
					h0[c], h0[C+c], h1[c], h1[C+c] = xh0, xh1, xh2, xh3
					u0, u1 := float32(g*xh0)+bt, float32(g*xh1)+bt
					u2, u3 := float32(g*xh2)+bt, float32(g*xh3)+bt
					// gorgonia's pool starts from -MaxFloat32 and takes a
					// value only when it is greater: the first of equals.
					// Every value is a number >= -0, so it starts from the
					// first.
					best, at := times(u0, relu(u0)), uint8(0)
					if y := times(u1, relu(u1)); y > best {
						best, at = y, 1
					}
					if y := times(u2, relu(u2)); y > best {
						best, at = y, 2
					}
					if y := times(u3, relu(u3)); y > best {
						best, at = y, 3
					}
					out[o+c*PH*PW] = best
					choice[c] = at
				}
			}
		}
	}
}

// backward computes one gradient from the pool's (gp, (N,C,H/2,W/2)).
//
// The gradient of y is 0 + gp where a window's value came from and 0
// elsewhere, the ReLU's is that times its mask, x̂'s that times γ; γ's and
// β's are summed along W from 0, then along H from 0, then along N from
// the first sample's sum, as gorgonia's reductions sum them; x's is
// gorgonia's batch-norm gradient, whose sums run over samples, rows and
// columns in that order. Only the value a window took has a gradient other
// than zero, and the sums add the others as +0 or not at all, which
// changes no bit: a sum that starts from +0 is never -0, and adding ±0 to
// any other value leaves it as it is. Channels are walked side by side,
// each in its own order, so that the walk follows memory.
func (op blockOp) backward(x, gamma, beta, gp []float32, shape tensor.Shape, out []float32) {
	st := op.st
	N, H, W, C := shape[0], shape[1], shape[2], shape[3]
	g := st.windowGrads(gamma, beta, gp, shape)
	switch op.kind {
	case blockGradScale, blockGradOffset:
		if !g.haveSums {
			st.sumGrads(shape)
		}
		if op.kind == blockGradScale {
			copy(out, g.scale)
		} else {
			copy(out, g.offset)
		}
	case blockGradInput:
		// dy = dL/dx̂: where a window's value came from, the ReLU's
		// gradient times γ; elsewhere +0·γ, a zero of γ's sign.
		du, at := g.du, g.at
		g.dy = grow(g.dy, len(du))
		dy := g.dy
		for o := range dy {
			dy[o] = float32(du[o] * gamma[o%C])
		}
		sum, dot := make([]float32, C), make([]float32, C)
		mean := st.batchMean
		PH, PW := H/2, W/2
		for s := range N {
			for ph := range PH {
				for r := range 2 { // the window's top row, then its bottom row
					for pw := range PW {
						base := ((s*PH+ph)*PW + pw) * C
						for c := range C {
							o := base + c
							d := times(dy[o], st.rowMask(o, r))
							sum[c] += d
							dot[c] += float32(x[at[o]]*d) - float32(mean[c]*d)
						}
					}
				}
			}
		}
		n := float32(N * H * W)
		invstd, kk, gradMean, zero := make([]float32, C), make([]float32, C), make([]float32, C), make([]float32, C)
		for c := range C {
			invstd[c] = 1 / math32.Sqrt(st.sqDev[c]/n+float32(st.epsilon))
			kk[c] = float32(float32(dot[c]*invstd[c])*invstd[c]) / n
			gradMean[c] = sum[c] / n
			zero[c] = float32(math.Copysign(0, float64(gamma[c])))
		}
		// gorgonia: ig = (x - mean)·k; ig = (dy - gradMean - ig)·invstd.
		for p := range N * H * W {
			xs, os := x[p*C:(p+1)*C], out[p*C:(p+1)*C]
			for c, v := range xs {
				g := float32((v - mean[c]) * kk[c])
				os[c] = float32((zero[c]-gradMean[c])-g) * invstd[c]
			}
		}
		for o, k := range at {
			c := o % C
			g := float32((x[k] - mean[c]) * kk[c])
			out[k] = float32((dy[o]-gradMean[c])-g) * invstd[c]
		}
	}
}

// windowGrads returns the backward pass's shared walk for the incoming
// gradient gp: the ReLU's gradient where each window's value came from,
// and that value's index, computed by the first of the three gradient ops
// to run after a forward pass.
func (st *blockState) windowGrads(gamma, beta, gp []float32, shape tensor.Shape) *blockGrads {
	N, H, W, C := shape[0], shape[1], shape[2], shape[3]
	PH, PW := H/2, W/2
	windows := N * PH * PW // each C wide, (N,H/2,W/2,C) like st.choice
	g := &st.grads
	if g.pass == st.pass && g.gp == &gp[0] && len(g.du) == windows*C {
		return g
	}
	g.pass, g.gp, g.haveSums = st.pass, &gp[0], false
	g.du, g.at = grow(g.du, windows*C), grow(g.at, windows*C)
	du, at := g.du, g.at
	for s := range N {
		for ph := range PH {
			for pw := range PW {
				w := (s*PH+ph)*PW + pw
				for c := range C {
					o := w*C + c
					a := int(st.choice[o])
					k := ((s*H+2*ph+a>>1)*W+2*pw+a&1)*C + c
					u := float32(gamma[c]*st.xhat[k]) + beta[c]
					var gy float32
					gy += gp[((s*C+c)*PH+ph)*PW+pw]
					du[o], at[o] = times(gy, relu(u)), int32(k)
				}
			}
		}
	}
	return g
}

// sumGrads sums dL/dγ and dL/dβ of the shared walk in one go, each in
// gorgonia's order: along W from 0, then along H from 0, then along N
// from the first sample's sum.
func (st *blockState) sumGrads(shape tensor.Shape) {
	N, H, W, C := shape[0], shape[1], shape[2], shape[3]
	PH, PW := H/2, W/2
	g := &st.grads
	du, at := g.du, g.at
	g.scale, g.offset = grow(g.scale, C), grow(g.offset, C)
	scale, offset := g.scale, g.offset
	acc := make([]float32, 6*C)
	sumHs, sumW0s, sumW1s := acc[:C], acc[C:2*C], acc[2*C:3*C]
	sumHo, sumW0o, sumW1o := acc[3*C:4*C], acc[4*C:5*C], acc[5*C:]
	for s := range N {
		clear(sumHs)
		clear(sumHo)
		for ph := range PH {
			clear(sumW0s)
			clear(sumW1s)
			clear(sumW0o)
			clear(sumW1o)
			for pw := range PW {
				base := ((s*PH+ph)*PW + pw) * C
				for c := range C {
					o := base + c
					d := du[o]
					ds := float32(d * st.xhat[at[o]])
					m0, m1 := st.rowMask(o, 0), st.rowMask(o, 1)
					sumW0s[c] += times(ds, m0)
					sumW1s[c] += times(ds, m1)
					sumW0o[c] += times(d, m0)
					sumW1o[c] += times(d, m1)
				}
			}
			for c := range C {
				sumHs[c] += sumW0s[c]
				sumHs[c] += sumW1s[c]
				sumHo[c] += sumW0o[c]
				sumHo[c] += sumW1o[c]
			}
		}
		if s == 0 {
			copy(scale, sumHs)
			copy(offset, sumHo)
			continue
		}
		for c := range C {
			scale[c] += sumHs[c]
			offset[c] += sumHo[c]
		}
	}
	g.haveSums = true
}

// rowMask returns an AND mask that keeps window value o's gradient in row
// r (0 or 1) of its window and makes it +0 or -0 in the other.
func (st *blockState) rowMask(o, r int) uint32 {
	same := uint32(1 ^ (int(st.choice[o]>>1) ^ r))
	return 0x80000000 | -same>>1
}

// relu returns the bits to AND a value's bits with to multiply it by u's
// ReLU mask, 1 where u >= 0 and 0 below: all of them, or the sign alone
// (v·0 is a zero of v's sign), for every finite v and u that is no NaN.
// It is what gorgonia's mask and product compute, bit for bit, without a
// branch (the sign of an activation is a coin toss: a mispredicted branch
// a value cost more than the arithmetic) and without the product.
func relu(u float32) uint32 {
	b := math.Float32bits(u)
	nonzero := (b&0x7fffffff + 0x7fffffff) >> 31 // -0 is not below zero
	below := b >> 31 & nonzero
	return 0x80000000 | (below-1)>>1
}

// times returns v·mask, mask from relu.
func times(v float32, mask uint32) float32 {
	return math.Float32frombits(math.Float32bits(v) & mask)
}
