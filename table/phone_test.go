package table

import (
	"context"
	"errors"
	"image"
	"image/color"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// ycbcr makes a 4:2:0 picture of one colour, inside a larger buffer (as
// a decoder may hand out), so that strides and offsets are exercised. Its
// values are BT.601 video range, as VP8 codes them (not the full range
// of color.RGBToYCbCr).
func ycbcr(w, h int, c color.RGBA) *image.YCbCr {
	big := image.NewYCbCr(image.Rect(0, 0, w+16, h+8), image.YCbCrSubsampleRatio420)
	r, g, b := float64(c.R), float64(c.G), float64(c.B)
	y := uint8(16 + 0.257*r + 0.504*g + 0.098*b + 0.5)
	cb := uint8(128 - 0.148*r - 0.291*g + 0.439*b + 0.5)
	cr := uint8(128 + 0.439*r - 0.368*g - 0.071*b + 0.5)
	for i := range big.Y {
		big.Y[i] = y
	}
	for i := range big.Cb {
		big.Cb[i], big.Cr[i] = cb, cr
	}
	return big.SubImage(image.Rect(8, 4, 8+w, 4+h)).(*image.YCbCr)
}

// TestPhone_PicturesBecomeBGRFrames: a decoded picture (4:2:0, or any
// other image) comes out of Next as a BGR frame of its size and colour,
// timed from the source's start; when the loop is behind only the newest
// waits and the others are counted as dropped; Next waits for a phone
// that dropped and ends with its context.
func TestPhone_PicturesBecomeBGRFrames(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := NewPhone(ctx, nil)
	p.IngestLive(true)
	m := gocv.NewMat()
	defer m.Close()

	p.IngestFrame(ycbcr(64, 48, color.RGBA{200, 40, 30, 255}), time.Now())
	shot, err := p.Next(&m)
	if err != nil || m.Cols() != 64 || m.Rows() != 48 || m.Channels() != 3 {
		t.Fatalf("frame %dx%dx%d, %v", m.Cols(), m.Rows(), m.Channels(), err)
	}
	if shot.TimeMS < 0 || shot.TimeMS > 1000 {
		t.Errorf("frame at %d ms from the start", shot.TimeMS)
	}
	if v := m.GetVecbAt(20, 30); absDiff(v[2], 200) > 6 || absDiff(v[1], 40) > 6 || absDiff(v[0], 30) > 6 {
		t.Errorf("red picture read as BGR %v", v)
	}

	// Three pictures while the loop was busy: the newest only, two dropped.
	for i, c := range []color.RGBA{{0, 0, 255, 255}, {0, 255, 0, 255}, {255, 255, 255, 255}} {
		rgba := image.NewRGBA(image.Rect(0, 0, 32+2*i, 24))
		for j := 0; j < len(rgba.Pix); j += 4 {
			rgba.Pix[j], rgba.Pix[j+1], rgba.Pix[j+2], rgba.Pix[j+3] = c.R, c.G, c.B, 255
		}
		p.IngestFrame(rgba, time.Now())
	}
	if _, err := p.Next(&m); err != nil || m.Cols() != 36 {
		t.Fatalf("newest frame: %d wide, %v", m.Cols(), err)
	}
	if v := m.GetVecbAt(5, 5); v[0] != 255 || v[1] != 255 || v[2] != 255 {
		t.Errorf("white picture read as %v", v)
	}
	if p.Dropped() != 2 {
		t.Errorf("%d dropped, want 2", p.Dropped())
	}

	// The phone drops and comes back: Next waits, the clock runs on.
	p.IngestLive(false)
	go func() {
		time.Sleep(300 * time.Millisecond)
		p.IngestLive(true)
		p.IngestFrame(ycbcr(64, 48, color.RGBA{10, 10, 200, 255}), time.Now())
	}()
	later, err := p.Next(&m)
	if err != nil || later.TimeMS < shot.TimeMS+250 {
		t.Fatalf("after the phone came back: %+v, %v (first at %d ms)", later, err, shot.TimeMS)
	}
	if p.Reconnects() != 1 || !p.Live() {
		t.Errorf("reconnects %d, live %v", p.Reconnects(), p.Live())
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	if _, err := p.Next(&m); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after its context ended: %v", err)
	}
}

func absDiff(a uint8, b int) int {
	if d := int(a) - b; d > 0 {
		return d
	} else {
		return -d
	}
}

// TestLoop_FitsFramesToTheCalibration: frames of the calibration's shape
// but fewer pixels (a phone on a poor link) are scaled to it; frames of
// another shape are not refereed, and the caption says why.
func TestLoop_FitsFramesToTheCalibration(t *testing.T) {
	pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	l, err := New(Config{Calibration: &calibration.File{ImageW: 640, ImageH: 360}}, pred, referee.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	small := gocv.NewMatWithSize(180, 320, gocv.MatTypeCV8UC3)
	defer small.Close()
	if ok, _ := l.fitCalibration(&small); !ok || small.Cols() != 640 || small.Rows() != 360 {
		t.Fatalf("a 320x180 frame: ok %v, now %dx%d", ok, small.Cols(), small.Rows())
	}
	square := gocv.NewMatWithSize(480, 480, gocv.MatTypeCV8UC3)
	defer square.Close()
	ok, words := l.fitCalibration(&square)
	if ok || square.Cols() != 480 || words == "" {
		t.Fatalf("a 480x480 frame: ok %v, %q", ok, words)
	}
}
