// Package aruco draws and detects the table-corner markers: ArUco markers
// of OpenCV's DICT_4X4_50 dictionary, through a small cgo wrapper of
// cv::aruco (gocv's contrib package does not build on Debian 12).
//
// A marker is 6x6 cells: a one-cell black border round 4x4 data bits.
// Corners come in the marker's own order: top-left, top-right,
// bottom-right, bottom-left of the marker as drawn.
package aruco

/*
#cgo !windows pkg-config: opencv4
#cgo CXXFLAGS: --std=c++11
#include <stdlib.h>
#include "aruco.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"gocv.io/x/gocv"
)

// Dictionary is the number of markers in DICT_4X4_50.
const Dictionary = 50

// ErrMarker is returned for a marker id or size out of range.
var ErrMarker = errors.New("aruco: bad marker")

// Marker draws marker id (0..49) as a side x side grayscale image, 0 black
// and 255 white, with its one-cell black border and no white margin.
func Marker(id, side int) ([]byte, error) {
	if id < 0 || id >= Dictionary || side < 6 || side > 4096 {
		return nil, fmt.Errorf("%w: id %d, side %d", ErrMarker, id, side)
	}
	out := make([]byte, side*side)
	if C.aruco_marker(C.int(id), C.int(side), (*C.uchar)(unsafe.Pointer(&out[0]))) != 0 {
		return nil, fmt.Errorf("%w: id %d", ErrMarker, id)
	}
	return out, nil
}

// Detection is one marker found in an image.
type Detection struct {
	ID      int
	Corners [4][2]float32 // pixels: top-left, top-right, bottom-right, bottom-left of the marker
}

// Detect finds DICT_4X4_50 markers in a gray or BGR image, with sub-pixel
// corner refinement.
func Detect(img gocv.Mat) ([]Detection, error) {
	if img.Empty() {
		return nil, fmt.Errorf("%w: empty image", ErrMarker)
	}
	const max = 64
	ids := make([]C.int, max)
	cs := make([]C.float, 8*max)
	n := int(C.aruco_detect(unsafe.Pointer(img.Ptr()), max, &ids[0], &cs[0]))
	n = min(n, max)
	out := make([]Detection, n)
	for i := range n {
		out[i].ID = int(ids[i])
		for k := range 4 {
			out[i].Corners[k] = [2]float32{float32(cs[8*i+2*k]), float32(cs[8*i+2*k+1])}
		}
	}
	return out, nil
}
