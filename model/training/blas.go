package training

import (
	"ligretto/model/internal/gemm"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
)

// graphBLAS is the BLAS the gorgonia graph runs on: gonum's, except that
// single-precision matrix products go to the same 4x16 AVX2/FMA kernel as
// the fast path (gemm). Convolutions and dense layers are such products,
// and they were nearly half of a training step on gonum's pure-Go sgemm.
// It stays on the caller's core: the trainer runs one graph per core.
type graphBLAS struct {
	gonum.Implementation
}

var useGraphBLAS sync.Once

// installGraphBLAS makes gorgonia (and its tensor package) use graphBLAS.
// It is global to the process, so it is done once, before the first graph.
func installGraphBLAS() {
	useGraphBLAS.Do(func() { G.Use(graphBLAS{}) })
}

// scratch holds transposed operands and products between calls.
var scratch = sync.Pool{New: func() any { return new([]float32) }}

func getScratch(n int) *[]float32 {
	p := scratch.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	*p = (*p)[:n]
	return p
}

// Sgemm sets C = alpha * op(A) * op(B) + beta * C, row-major, as gonum's.
func (graphBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scaleRows(m, n, beta, c, ldc)
		return
	}
	// op(A) is read in place, by strides (a transposed A is the backward
	// pass's weight gradients: a copy of it was a tenth of a step); op(B)
	// as a k x n row-major matrix.
	as, ak := lda, 1
	if tA != blas.NoTrans {
		as, ak = 1, lda
	}
	var tmps []*[]float32
	defer func() {
		for _, t := range tmps {
			scratch.Put(t)
		}
	}()
	if tB != blas.NoTrans {
		t := getScratch(k * n)
		tmps = append(tmps, t)
		transpose(n, k, b, ldb, *t)
		b, ldb = *t, n
	}
	// The kernel works on 16 columns at a time: pad op(B) with zero
	// columns rather than leave the last ones to the scalar edge loop
	// (the backward pass has products 27 and 144 columns wide, and the
	// first block's weight gradient is 16 x 27 over 24,576 pixels).
	nn := n
	if n%16 != 0 && m >= 4 {
		nn = (n + 15) / 16 * 16
		t := getScratch(k * nn)
		tmps = append(tmps, t)
		for kk := range k {
			row := (*t)[kk*nn : (kk+1)*nn]
			copy(row, b[kk*ldb:kk*ldb+n])
			clear(row[n:])
		}
		b, ldb = *t, nn
	}
	// gemm overwrites its output: accumulate through a product buffer
	// unless C is simply replaced.
	out, ldo := c, ldc
	direct := alpha == 1 && beta == 0 && nn == n
	if !direct {
		t := getScratch(m * nn)
		tmps = append(tmps, t)
		out, ldo = *t, nn
	}
	gemm.Strided(m, nn, k, a, as, ak, b, ldb, out, ldo)
	if direct {
		return
	}
	for i := range m {
		ci, oi := c[i*ldc:i*ldc+n], out[i*ldo:i*ldo+n]
		if beta == 0 && alpha == 1 {
			copy(ci, oi)
			continue
		}
		if beta == 0 {
			for j, v := range oi {
				ci[j] = alpha * v
			}
			continue
		}
		for j, v := range oi {
			ci[j] = alpha*v + beta*ci[j]
		}
	}
}

// transpose writes the r x c matrix src (leading dimension lds) into dst as
// c x r, contiguous.
func transpose(r, c int, src []float32, lds int, dst []float32) {
	const blk = 32 // tiles, so that both sides stay in cache
	for i0 := 0; i0 < r; i0 += blk {
		for j0 := 0; j0 < c; j0 += blk {
			for i := i0; i < min(i0+blk, r); i++ {
				row := src[i*lds:]
				for j := j0; j < min(j0+blk, c); j++ {
					dst[j*r+i] = row[j]
				}
			}
		}
	}
}

func scaleRows(m, n int, beta float32, c []float32, ldc int) {
	for i := range m {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
			continue
		}
		for j := range ci {
			ci[j] *= beta
		}
	}
}
