// Package cvthreads sets how many threads OpenCV's parallel loops use
// (cv::setNumThreads), which gocv v0.31 does not bind. Debian's OpenCV
// runs them on TBB, which ignores OPENCV_FOR_THREADS_NUM; only this call
// holds it to one thread.
package cvthreads

/*
#cgo !windows pkg-config: opencv4
#cgo CXXFLAGS: --std=c++11
#include "cvthreads.h"
*/
import "C"

// Set makes OpenCV's parallel loops use n threads; n <= 0 restores
// OpenCV's default (as many as the machine has). It applies to the whole
// process.
func Set(n int) {
	if n < 1 {
		n = -1 // OpenCV's own 0 means one thread, negative its default
	}
	C.cvthreads_set(C.int(n))
}

// Get is how many threads OpenCV's parallel loops use.
func Get() int { return int(C.cvthreads_get()) }
