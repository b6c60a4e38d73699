package scene

/*
#cgo !windows pkg-config: opencv4
#cgo CXXFLAGS: --std=c++11 -O3
#include <stdlib.h>
#include "imgops.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// remapper holds the fixed-point camera maps (C++ memory).
type remapper struct {
	p    unsafe.Pointer
	w, h int
}

func newRemapper(mx, my []float32, w, h int) *remapper {
	r := &remapper{p: C.scene_maps_new((*C.float)(&mx[0]), (*C.float)(&my[0]), C.int(w), C.int(h)), w: w, h: h}
	runtime.SetFinalizer(r, (*remapper).free)
	return r
}

func (r *remapper) free() {
	if r.p != nil {
		C.scene_maps_free(r.p)
		r.p = nil
	}
}

// remap warps the BGR canvas src into dst (BGR, r.w x r.h, stride bytes a row).
func (r *remapper) remap(src []byte, sw, sh int, dst []byte, stride int, bg [3]uint8) {
	C.scene_remap(r.p, (*C.uchar)(&src[0]), C.int(sw), C.int(sh),
		(*C.uchar)(&dst[0]), C.int(stride), C.int(bg[0]), C.int(bg[1]), C.int(bg[2]))
	runtime.KeepAlive(r)
}

func post(img []byte, w, h, stride int, vig, row, col []float32, gain [3]float32, noise []int8, offs []int32, black int) {
	C.scene_post((*C.uchar)(&img[0]), C.int(w), C.int(h), C.int(stride),
		(*C.float)(&vig[0]), (*C.float)(&row[0]), (*C.float)(&col[0]), (*C.float)(&gain[0]),
		(*C.schar)(unsafe.Pointer(&noise[0])), (*C.int)(unsafe.Pointer(&offs[0])), C.int(black))
}

func blur(img []byte, w, h, stride int, sigma float64) {
	C.scene_blur((*C.uchar)(&img[0]), C.int(w), C.int(h), C.int(stride), C.double(sigma))
}

var errJPEG = errors.New("scene: JPEG round trip failed")

func jpegRoundTrip(img []byte, w, h, stride, quality int) error {
	if C.scene_jpeg((*C.uchar)(&img[0]), C.int(w), C.int(h), C.int(stride), C.int(quality)) != 0 {
		return errJPEG
	}
	return nil
}

// SetOpenCVThreads sets the number of threads OpenCV uses (process-wide)
// and returns the previous setting. Benchmarks use it to measure on one
// core; the scene itself never changes it.
func SetOpenCVThreads(n int) int { return int(C.scene_threads(C.int(n))) }
