package table

import (
	"fmt"
	"image"

	"gocv.io/x/gocv"
)

// RGBA copies a BGR frame into a new RGBA image: what the stream encodes
// and what a sink may keep after the loop moved on.
func RGBA(bgr gocv.Mat) (*image.RGBA, error) {
	if bgr.Empty() || bgr.Type() != gocv.MatTypeCV8UC3 {
		return nil, fmt.Errorf("table: want an 8-bit BGR frame, got %dx%d type %v", bgr.Cols(), bgr.Rows(), bgr.Type())
	}
	rgba := gocv.NewMat()
	defer rgba.Close()
	gocv.CvtColor(bgr, &rgba, gocv.ColorBGRToRGBA)
	b, err := rgba.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("table: %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, rgba.Cols(), rgba.Rows()))
	if len(b) != len(img.Pix) {
		return nil, fmt.Errorf("table: frame of %d bytes for %v", len(b), img.Rect)
	}
	copy(img.Pix, b)
	return img, nil
}
