package model

import (
	"fmt"
	"ligretto/model/internal/gemm"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomWeights returns weights for cfg with every tensor, the batch-norm
// scale, shift and running statistics included, away from its initial
// value, so that folding batch-norm is really exercised.
func randomWeights(t testing.TB, cfg Config, seed uint64) *Weights {
	t.Helper()
	w, err := NewWeights(cfg)
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

// randomCrops are n crops of cfg's size, each a few random colour blocks
// over noise: not cards, but not the same turned either. Training's tests
// draw a synthetic card task (model/training); these test inference on
// random weights, where what the crops show does not matter.
func randomCrops(cfg Config, n int, seed uint64) []Crop {
	rng := rand.New(rand.NewPCG(seed, 11))
	plane := cfg.Height * cfg.Width
	crops := make([]Crop, n)
	for i := range crops {
		c := make(Crop, 3*plane)
		for j := range c {
			c[j] = 0.1 * rng.Float32()
		}
		for range 4 {
			x0, y0 := rng.IntN(cfg.Width), rng.IntN(cfg.Height)
			x1, y1 := x0+1+rng.IntN(cfg.Width-x0), y0+1+rng.IntN(cfg.Height-y0)
			for ch := range 3 {
				v := rng.Float32()
				for y := y0; y < y1; y++ {
					for x := x0; x < x1; x++ {
						c[ch*plane+y*cfg.Width+x] += 0.9 * v
					}
				}
			}
		}
		crops[i] = c
	}
	return crops
}

// maxAbsDiff is the largest absolute difference of two equal-length slices
// (Inf when the lengths differ).
func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestShift checks the im2col shift against the definition.
func TestShift(t *testing.T) {
	const m, h, w = 2, 4, 5
	src := make([]float32, m*h*w)
	for i := range src {
		src[i] = float32(i + 1)
	}
	dst := make([]float32, len(src))
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			for i := range dst {
				dst[i] = -1
			}
			shift(dst, src, m, h, w, dy, dx)
			for j := 0; j < m; j++ {
				for y := 0; y < h; y++ {
					for x := 0; x < w; x++ {
						want := float32(0)
						if sy, sx := y+dy, x+dx; sy >= 0 && sy < h && sx >= 0 && sx < w {
							want = src[j*h*w+sy*w+sx]
						}
						if got := dst[j*h*w+y*w+x]; got != want {
							t.Fatalf("shift(%d,%d) sample %d (%d,%d) = %v, want %v", dy, dx, j, y, x, got, want)
						}
					}
				}
			}
		}
	}
}

// TestGemm checks the matrix product (SIMD tiles and edges) against a
// plain triple loop, for sizes with and without edges.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][3]int{{4, 16, 1}, {8, 32, 27}, {5, 21, 7}, {3, 10, 4}, {13, 50, 33}, {1, 1, 1}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := k+1, n+3, n+2
		a := make([]float32, m*lda)
		b := make([]float32, k*ldb)
		c := make([]float32, m*ldc)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		for i := range c {
			c[i] = 99 // overwritten inside the m x n block, kept outside
		}
		gemm.Mul(m, n, k, a, lda, b, ldb, c, ldc)
		for i := 0; i < m; i++ {
			for j := 0; j < ldc; j++ {
				want := 99.0
				if j < n {
					want = 0
					for kk := 0; kk < k; kk++ {
						want += float64(a[i*lda+kk]) * float64(b[kk*ldb+j])
					}
				}
				if got := float64(c[i*ldc+j]); got-want > 1e-4 || want-got > 1e-4 {
					t.Fatalf("%v: c[%d][%d] = %v, want %v", sz, i, j, got, want)
				}
			}
		}
	}
	t.Logf("SIMD kernel in use: %v", gemm.SIMD())
}

// TestFastConcurrent: one Fast serves several goroutines (run with -race).
func TestFastConcurrent(t *testing.T) {
	cfg := DefaultConfig()
	f, err := NewFast(randomWeights(t, cfg, 8))
	if err != nil {
		t.Fatal(err)
	}
	crops := randomCrops(cfg, 9, 3)
	want, err := f.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 5; i++ {
				got, err := f.Classify(crops[g:])
				if err != nil {
					errs <- err
					return
				}
				for j, p := range got {
					if p.NumberProbs != want[g+j].NumberProbs {
						errs <- fmt.Errorf("goroutine %d: crop %d differs", g, g+j)
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// Each crop is read both ways up: a crop and the same crop turned half a
// turn must get the same prediction, and that prediction must be the mean
// of the two one-way readings.
func TestClassify_ReadsBothWaysUp(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Width, cfg.Height, cfg.Channels, cfg.Hidden, cfg.EmbedDim = 16, 24, []int{5, 7}, 9, 4
	w := randomWeights(t, cfg, 5)
	fast, err := NewFast(w)
	if err != nil {
		t.Fatal(err)
	}
	crops := randomCrops(cfg, 6, 3)
	turned := withTurned(crops, cfg.Width, cfg.Height)[len(crops):]
	p, err := fast.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	q, err := fast.Classify(turned)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := fast.forward(crops)
	if err != nil {
		t.Fatal(err)
	}
	rawT, err := fast.forward(turned)
	if err != nil {
		t.Fatal(err)
	}
	one, oneT := predictions(raw, len(crops), cfg.EmbedDim, fast.temps), predictions(rawT, len(crops), cfg.EmbedDim, fast.temps)
	asIs, err := fast.ClassifyAsIs(crops)
	if err != nil {
		t.Fatal(err)
	}
	for i := range crops {
		if d := maxAbsDiff(asIs[i].NumberProbs[:], one[i].NumberProbs[:]); d != 0 {
			t.Errorf("crop %d: ClassifyAsIs differs from the one-way reading by %g", i, d)
		}
	}
	// The two readings' mean, before unsure faces are read again.
	twoWay := twoWayPredictions(rawOutputs{
		side:   append(slices.Clone(raw.side), rawT.side...),
		colour: append(slices.Clone(raw.colour), rawT.colour...),
		number: append(slices.Clone(raw.number), rawT.number...),
		emb:    append(slices.Clone(raw.emb), rawT.emb...),
	}, len(crops), cfg.EmbedDim, fast.temps)
	meanChecked := 0
	for i := range crops {
		if d := maxAbsDiff(p[i].NumberProbs[:], q[i].NumberProbs[:]); d > 1e-6 {
			t.Errorf("crop %d: turned crop's number probabilities differ by %g", i, d)
		}
		if d := maxAbsDiff(p[i].Embedding, q[i].Embedding); d > 1e-6 {
			t.Errorf("crop %d: turned crop's embedding differs by %g", i, d)
		}
		if twoWay[i].Side == SideFace && twoWay[i].RawFaceConfidence() < RereadBelow {
			continue // read again from moved views: TestClassify_RereadsUnsureFacesOnly
		}
		meanChecked++
		for k := range p[i].ColourProbs {
			if want := (one[i].ColourProbs[k] + oneT[i].ColourProbs[k]) / 2; math.Abs(float64(p[i].ColourProbs[k]-want)) > 1e-6 {
				t.Errorf("crop %d: colour %d probability %v, want the mean of the two readings %v", i, k, p[i].ColourProbs[k], want)
			}
		}
		if maxAbsDiff(one[i].NumberProbs[:], oneT[i].NumberProbs[:]) < 1e-3 {
			t.Errorf("crop %d: the two one-way readings agree; the test proves nothing", i)
		}
	}
	if meanChecked == 0 {
		t.Fatal("every crop was read again: no two-way mean checked")
	}
}
