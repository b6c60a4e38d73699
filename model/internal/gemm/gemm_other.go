//go:build !amd64 || purego

package gemm

const useKernel = false

func kernel4x16(k int, a []float32, lda, ak int, b []float32, ldb int, c []float32, ldc int) {
	panic("gemm: no SIMD kernel on this platform")
}
