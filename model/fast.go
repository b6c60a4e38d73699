package model

import (
	"fmt"
	"math"
	"sync"

	"ligretto/model/internal/gemm"
)

// Fast is a plain Go forward pass of the network: no gorgonia, no graph.
// Batch-norm is folded into the convolutions (eval mode: running
// statistics); convolutions are im2col plus a matrix product whose inner
// kernel is AVX2/FMA assembly on amd64 (gonum's saxpy elsewhere). It gives
// the same outputs as Classifier (to about 1e-5) many times faster.
//
// A Fast is immutable after NewFast and safe for concurrent use; each call
// takes its scratch buffers from a pool.
type Fast struct {
	cfg   Config
	temps Temperatures
	convs []fastConv
	fc    fastDense
	heads [4]fastDense // side, colour, number, embed
	pool  sync.Pool    // *fastScratch
}

var _ Predictor = (*Fast)(nil)

type fastConv struct {
	cin, cout int
	h, w      int       // input size of this block
	wt        []float32 // (cout, cin*9), batch-norm scale folded in
	bias      []float32 // (cout), batch-norm shift
}

type fastDense struct {
	in, out int
	w       []float32 // (in, out)
	b       []float32 // (out)
}

type fastScratch struct {
	a, b   []float32 // activations, ping-pong: (C, N, H*W)
	col    []float32 // im2col of a chunk: (Cin*9, L), L = samples*H*W
	acc    []float32 // conv output of a chunk: (Cout, L)
	feats  []float32 // (N, F)
	hidden []float32 // (N, Hidden)
}

// colFloats bounds the im2col matrix of one chunk of samples (256 KiB), so
// that it stays in the L2 cache.
const colFloats = 64 << 10

// NewFast prepares the plain Go forward pass for w.
func NewFast(w *Weights) (*Fast, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	cfg := w.Config.clone()
	f := &Fast{cfg: cfg, temps: w.Temperatures}
	f.pool.New = func() any { return new(fastScratch) }
	in, h, wd := 3, cfg.Height, cfg.Width
	for i, cout := range cfg.Channels {
		p := fmt.Sprintf("conv%d.", i)
		wt := w.Tensor(p + "w").Data
		gamma, beta := w.Tensor(p+"gamma").Data, w.Tensor(p+"beta").Data
		mean, vr := w.Tensor(p+"mean").Data, w.Tensor(p+"var").Data
		c := fastConv{cin: in, cout: cout, h: h, w: wd, wt: make([]float32, len(wt)), bias: make([]float32, cout)}
		k := in * 9
		for o := 0; o < cout; o++ {
			// gorgonia (eval): (x - mean) / sqrt(var + eps) * gamma + beta
			alpha := float64(gamma[o]) / math.Sqrt(float64(vr[o])+cfg.BNEpsilon)
			for j := 0; j < k; j++ {
				c.wt[o*k+j] = float32(float64(wt[o*k+j]) * alpha)
			}
			c.bias[o] = float32(float64(beta[o]) - float64(mean[o])*alpha)
		}
		f.convs = append(f.convs, c)
		in, h, wd = cout, h/2, wd/2
	}
	dense := func(name string) fastDense {
		t := w.Tensor(name + ".w")
		return fastDense{in: t.Shape[0], out: t.Shape[1], w: t.Data, b: w.Tensor(name + ".b").Data}
	}
	// Weights are not changed after NewWeights/ReadWeights, but copy anyway
	// so that a caller editing its Weights cannot change a Fast.
	cp := func(d fastDense) fastDense {
		d.w = append([]float32(nil), d.w...)
		d.b = append([]float32(nil), d.b...)
		return d
	}
	f.fc = cp(dense("fc"))
	for i, name := range []string{"side", "colour", "number", "embed"} {
		f.heads[i] = cp(dense(name))
	}
	return f, nil
}

// Config returns the configuration of the weights.
func (f *Fast) Config() Config { return f.cfg.clone() }

// Classify runs the network on the crops, each read both ways up
// (withTurned).
func (f *Fast) Classify(crops []Crop) ([]Prediction, error) {
	return classifyWith(f.cfg, f.temps, f.forward, crops, true)
}

// ClassifyAsIs runs the network on the crops, each read once (see
// Predictor).
func (f *Fast) ClassifyAsIs(crops []Crop) ([]Prediction, error) {
	return classifyWith(f.cfg, f.temps, f.forward, crops, false)
}

// Close does nothing; it is there for Predictor.
func (f *Fast) Close() error { return nil }

// grow returns s[:n], or a new slice when s is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// forward computes the raw outputs for the crops.
func (f *Fast) forward(crops []Crop) (rawOutputs, error) {
	var r rawOutputs
	if err := checkCrops(f.cfg, crops); err != nil {
		return r, err
	}
	n := len(crops)
	if n == 0 {
		return r, nil
	}
	s := f.pool.Get().(*fastScratch)
	defer f.pool.Put(s)
	f.trunk(s, crops)
	outs := [4]*[]float32{&r.side, &r.colour, &r.number, &r.emb}
	for h, d := range f.heads {
		*outs[h] = make([]float32, n*d.out)
		d.run(s.hidden, *outs[h], n)
	}
	return r, nil
}

// trunk runs the layers the heads share on the crops (checked), leaving
// the last conv block's output flattened in s.feats, (N, C*P), and the
// hidden layer after its ReLU in s.hidden, (N, Hidden).
func (f *Fast) trunk(s *fastScratch, crops []Crop) {
	n := len(crops)
	// Input to (C, N, H*W).
	plane := f.cfg.Height * f.cfg.Width
	s.a = grow(s.a, 3*n*plane)
	for i, c := range crops {
		for ch := 0; ch < 3; ch++ {
			copy(s.a[(ch*n+i)*plane:(ch*n+i+1)*plane], c[ch*plane:(ch+1)*plane])
		}
	}
	for _, c := range f.convs {
		s.b = grow(s.b, c.cout*n*(c.h/2)*(c.w/2))
		c.run(s, n)
		s.a, s.b = s.b, s.a
	}

	// Flatten (C, N, P) to (N, C*P), the order of gorgonia's reshape of NCHW.
	last := f.convs[len(f.convs)-1]
	C, P := last.cout, (last.h/2)*(last.w/2)
	F := C * P
	s.feats = grow(s.feats, n*F)
	for c := 0; c < C; c++ {
		for i := 0; i < n; i++ {
			copy(s.feats[i*F+c*P:i*F+(c+1)*P], s.a[(c*n+i)*P:(c*n+i+1)*P])
		}
	}
	s.hidden = grow(s.hidden, n*f.fc.out)
	f.fc.run(s.feats, s.hidden, n)
	for i, v := range s.hidden {
		s.hidden[i] = max(v, 0)
	}
}

// run computes y = x*W + b for n rows.
func (d fastDense) run(x, y []float32, n int) {
	gemm.Mul(n, d.out, d.in, x, d.in, d.w, d.out, y, d.out)
	for i := 0; i < n; i++ {
		yi := y[i*d.out : (i+1)*d.out]
		for j, b := range d.b {
			yi[j] += b
		}
	}
}

// run applies the block (3x3 conv with folded batch-norm, 2x2 max pool,
// ReLU) to s.a, (cin, n, h*w), writing s.b, (cout, n, h/2*w/2). The conv is
// im2col and gemm over chunks of samples. Max pool and ReLU commute, and the
// bias is constant per channel, so pooling first gives the same values as
// gorgonia's conv, batch-norm, ReLU, pool.
func (c fastConv) run(s *fastScratch, n int) {
	H, W := c.h, c.w
	HW := H * W
	oh, ow := H/2, W/2
	ohw := oh * ow
	K := c.cin * 9
	per := max(1, colFloats/(K*HW))
	for n0 := 0; n0 < n; n0 += per {
		m := min(per, n-n0)
		L := m * HW
		s.col = grow(s.col, K*L)
		for ci := 0; ci < c.cin; ci++ {
			src := s.a[(ci*n+n0)*HW : (ci*n+n0+m)*HW]
			for ky := 0; ky < 3; ky++ {
				for kx := 0; kx < 3; kx++ {
					k := ci*9 + ky*3 + kx
					shift(s.col[k*L:(k+1)*L], src, m, H, W, ky-1, kx-1)
				}
			}
		}
		s.acc = grow(s.acc, c.cout*L)
		gemm.Mul(c.cout, L, K, c.wt, K, s.col, L, s.acc, L)
		for co := 0; co < c.cout; co++ {
			bias := c.bias[co]
			for j := 0; j < m; j++ {
				in := s.acc[co*L+j*HW : co*L+(j+1)*HW]
				out := s.b[(co*n+n0+j)*ohw : (co*n+n0+j+1)*ohw]
				for py := 0; py < oh; py++ {
					r0 := in[2*py*W : 2*py*W+W]
					r1 := in[(2*py+1)*W : (2*py+1)*W+W]
					o := out[py*ow : py*ow+ow]
					for px := range o {
						v := max(r0[2*px], r0[2*px+1], r1[2*px], r1[2*px+1]) + bias
						o[px] = max(v, 0)
					}
				}
			}
		}
	}
}

// shift writes into dst the m planes (h x w) of src moved so that
// dst(y, x) = src(y+dy, x+dx), with zeros outside: the input under one tap
// of a 3x3 kernel with padding 1 (|dy|, |dx| <= 1). Each plane is one
// offset copy; the values that wrapped around a row edge are then zeroed.
func shift(dst, src []float32, m, h, w, dy, dx int) {
	hw := h * w
	off := dy*w + dx
	for j := 0; j < m; j++ {
		d := dst[j*hw : (j+1)*hw]
		sp := src[j*hw : (j+1)*hw]
		if off >= 0 {
			copy(d[:hw-off], sp[off:])
			clear(d[hw-off:])
		} else {
			copy(d[-off:], sp[:hw+off])
			clear(d[:-off])
		}
		switch dx {
		case 1:
			for i := w - 1; i < hw; i += w {
				d[i] = 0
			}
		case -1:
			for i := 0; i < hw; i += w {
				d[i] = 0
			}
		}
	}
}
