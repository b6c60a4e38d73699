// Package gemm is the single-precision matrix product both the fast
// forward pass (model.Fast) and the training graph's BLAS
// (training.graphBLAS) run on.
package gemm

import (
	"fmt"

	"gonum.org/v1/gonum/blas/gonum"
)

var blasImpl gonum.Implementation

// SIMD reports whether the AVX2/FMA kernel is in use.
func SIMD() bool { return useKernel }

// Mul sets C (m x n) = A (m x k) * B (k x n); row-major, with leading
// dimensions lda, ldb, ldc. On amd64 with AVX2 and FMA the 4x16 tiles go
// to an assembly kernel that keeps the tile in registers; the edges, and
// everything elsewhere, use gonum's saxpy over rows of B.
func Mul(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	Strided(m, n, k, a, lda, 1, b, ldb, c, ldc)
}

// Strided is Mul with A[i][kk] at a[i*as+kk*ak]: (lda, 1) for a
// row-major A, (1, lda) for one stored transposed, which the kernel then
// reads in place instead of from a transposed copy.
func Strided(m, n, k int, a []float32, as, ak int, b []float32, ldb int, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	checkBounds(m, n, k, len(a), as, ak, len(b), ldb, len(c), ldc)
	// rowOf returns row i of A, contiguous (a copy into tmp if A is strided).
	tmp := []float32(nil)
	rowOf := func(i int) []float32 {
		if ak == 1 {
			return a[i*as : i*as+k]
		}
		if tmp == nil {
			tmp = make([]float32, k)
		}
		for kk := range tmp {
			tmp[kk] = a[i*as+kk*ak]
		}
		return tmp
	}
	mt, nt := 0, 0
	if useKernel {
		mt, nt = m/4*4, n/16*16
		// Panels of 16 columns of B outside, so that a panel stays in cache
		// while every block of 4 rows of A passes over it.
		for j := 0; j < nt; j += 16 {
			for i := 0; i < mt; i += 4 {
				kernel4x16(k, a[i*as:], as, ak, b[j:], ldb, c[i*ldc+j:], ldc)
			}
		}
	}
	// Rows below the tiles. With the kernel, pad them to a block of 4 so
	// that every row gets the same arithmetic (a crop's outputs then do not
	// depend on which batch it came in).
	if useKernel && mt < m && nt > 0 {
		pa := make([]float32, 4*k)
		pc := make([]float32, 4*nt)
		for i := mt; i < m; i++ {
			copy(pa[(i-mt)*k:(i-mt+1)*k], rowOf(i))
		}
		for j := 0; j < nt; j += 16 {
			kernel4x16(k, pa, k, 1, b[j:], ldb, pc[j:], nt)
		}
		for i := mt; i < m; i++ {
			copy(c[i*ldc:i*ldc+nt], pc[(i-mt)*nt:(i-mt+1)*nt])
		}
		mt = m // the column edge below covers these rows too
	}
	for i := mt; i < m; i++ {
		rowAxpy(n, k, rowOf(i), b, ldb, c[i*ldc:i*ldc+n])
	}
	// Columns right of the tiles, for the tiled rows.
	if nt < n {
		for i := 0; i < mt; i++ {
			ci := c[i*ldc+nt : i*ldc+n]
			clear(ci)
			for kk, av := range rowOf(i) {
				if av != 0 {
					br := b[kk*ldb+nt : kk*ldb+n]
					for j := range ci {
						ci[j] += av * br[j]
					}
				}
			}
		}
	}
}

// checkBounds panics unless A (m x k, strides as and ak), B (k x n,
// leading dimension ldb) and C (m x n, ldc) fit in slices of lengths la,
// lb and lc, with strides that do not overlap rows; m and n are not 0.
// It runs once per product, not in its loops.
func checkBounds(m, n, k, la, as, ak, lb, ldb, lc, ldc int) {
	if k == 0 || as < 1 || ak < 1 || la < (m-1)*as+(k-1)*ak+1 || lb < (k-1)*ldb+n || lc < (m-1)*ldc+n ||
		ldb < n || ldc < n || (ak == 1 && as < k) || (as == 1 && ak < m) {
		panic(fmt.Sprintf("gemm: %dx%dx%d out of bounds (len a %d strides %d,%d, b %d ldb %d, c %d ldc %d)",
			m, n, k, la, as, ak, lb, ldb, lc, ldc))
	}
}

// rowAxpy sets c (n) = a (k) * B (k x n) with saxpy over the rows of B,
// skipping zero elements of a.
func rowAxpy(n, k int, a, b []float32, ldb int, c []float32) {
	clear(c)
	for kk, av := range a[:k] {
		if av != 0 {
			blasImpl.Saxpy(n, av, b[kk*ldb:kk*ldb+n], 1, c, 1)
		}
	}
}
