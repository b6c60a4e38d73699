package training

import (
	"ligretto/model"
	"ligretto/model/internal/gemm"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The graph's BLAS must give gonum's products (to float32 rounding) for
// every transpose combination, scaling, leading dimension and a size big
// enough to be split over the cores.
func TestGraphBLAS_SgemmEqualsGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {4, 16, 9}, {33, 17, 27}, {96, 64, 288}, {1536, 16, 27}, {200, 27, 50}, {128, 144, 16}}
	trans := []blas.Transpose{blas.NoTrans, blas.Trans}
	scales := [][2]float32{{1, 0}, {1, 1}, {0.5, -2}, {0, 3}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, tA := range trans {
			for _, tB := range trans {
				for _, ab := range scales {
					ar, ac := m, k
					if tA == blas.Trans {
						ar, ac = k, m
					}
					br, bc := k, n
					if tB == blas.Trans {
						br, bc = n, k
					}
					lda, ldb, ldc := ac+1, bc+2, n+3 // leading dimensions wider than the rows
					a, b, c := fill(ar*lda), fill(br*ldb), fill(m*ldc)
					want := append([]float32(nil), c...)
					gonum.Implementation{}.Sgemm(tA, tB, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
					graphBLAS{}.Sgemm(tA, tB, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					for i := range c {
						tol := 1e-4 * float32(math.Sqrt(float64(k))) * (1 + float32(math.Abs(float64(want[i]))))
						if d := c[i] - want[i]; d > tol || d < -tol {
							t.Fatalf("%dx%dx%d tA=%v tB=%v alpha=%v beta=%v: c[%d]=%v, gonum %v", m, n, k, tA, tB, ab[0], ab[1], i, c[i], want[i])
						}
					}
				}
			}
		}
	}
}

// Training runs through the graph: how long one step takes with the
// graph's BLAS (the default) and with gonum's.
func BenchmarkTrainStep(b *testing.B) {
	cfg := model.DefaultConfig()
	cfg.BackClasses = 256
	tr, err := NewTrainer(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	batch := Batch{X: make([]float32, cfg.BatchSize*cfg.CropLen()), Side: make([]int, cfg.BatchSize),
		Colour: make([]int, cfg.BatchSize), Number: make([]int, cfg.BatchSize), BackClass: make([]int, cfg.BatchSize)}
	for i := range batch.X {
		batch.X[i] = rng.Float32()
	}
	for i := range cfg.BatchSize {
		batch.Side[i] = i % 2
		batch.Colour[i], batch.Number[i], batch.BackClass[i] = i%4, 1+i%10, i%cfg.BackClasses
	}
	b.ResetTimer()
	for range b.N {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/step")
}

// Reading a transposed A in place (by strides) must give the very bits a
// transposed copy gave: the committed weights were trained through it.
func TestGemmStrided_SameBitsAsTransposedCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sh := range [][3]int{{16, 27, 300}, {32, 144, 61}, {7, 40, 9}, {96, 10, 16}, {1, 3, 2}} {
		m, n, k := sh[0], sh[1], sh[2]
		lda := m + 3
		at := make([]float32, k*lda) // A stored transposed: k x m, leading dimension lda
		for i := range at {
			at[i] = float32(rng.NormFloat64())
		}
		b := make([]float32, k*n)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		a := make([]float32, m*k)
		transpose(k, m, at, lda, a)
		want, got := make([]float32, m*n), make([]float32, m*n)
		gemm.Mul(m, n, k, a, k, b, n, want, n)
		gemm.Strided(m, n, k, at, 1, lda, b, n, got, n)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%dx%dx%d: c[%d] %v in place, %v from a copy", m, n, k, i, got[i], want[i])
			}
		}
	}
}
