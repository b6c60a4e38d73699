//go:build amd64 && !purego

package gemm

// sgemm4x16 is in gemm_amd64.s.
//
//go:noescape
func sgemm4x16(k int, a *float32, lda, ak int, b *float32, ldb int, c *float32, ldc int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv0() (eax, edx uint32)

// hasAVX2FMA reports whether the CPU and the OS support AVX2 and FMA.
func hasAVX2FMA() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv0(); xcr0&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

var useKernel = hasAVX2FMA()

// kernel4x16 multiplies a 4xk block of A, A[i][kk] at a[i*lda+kk*ak], by
// a kx16 panel of B into C.
func kernel4x16(k int, a []float32, lda, ak int, b []float32, ldb int, c []float32, ldc int) {
	sgemm4x16(k, &a[0], lda, ak, &b[0], ldb, &c[0], ldc)
}
