package aruco

import (
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// A drawn marker, pasted on a white sheet, is found again with its id and
// corners where it was pasted.
func TestMarkerRoundTrip(t *testing.T) {
	const side, margin = 120, 40
	for id := range 4 {
		m, err := Marker(id, side)
		if err != nil {
			t.Fatal(err)
		}
		// The border cells are black, and the marker is not all black.
		if m[0] != 0 || m[side*side-1] != 0 {
			t.Fatalf("marker %d: border is not black", id)
		}
		white := 0
		for _, v := range m {
			if v == 255 {
				white++
			}
		}
		if white == 0 {
			t.Fatalf("marker %d has no white cells", id)
		}
		n := side + 2*margin
		img := gocv.NewMatWithSize(n, n, gocv.MatTypeCV8UC1)
		img.SetTo(gocv.NewScalar(255, 0, 0, 0))
		for y := range side {
			for x := range side {
				img.SetUCharAt(y+margin, x+margin, m[y*side+x])
			}
		}
		ds, err := Detect(img)
		img.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].ID != id {
			t.Fatalf("marker %d: detected %+v", id, ds)
		}
		want := [4]image.Point{{margin, margin}, {margin + side, margin}, {margin + side, margin + side}, {margin, margin + side}}
		for k, c := range ds[0].Corners {
			if math.Hypot(float64(c[0])-float64(want[k].X), float64(c[1])-float64(want[k].Y)) > 1.5 {
				t.Errorf("marker %d corner %d at %v, want %v", id, k, c, want[k])
			}
		}
	}
}

func TestMarkerRange(t *testing.T) {
	if _, err := Marker(50, 60); err == nil {
		t.Error("id 50 accepted")
	}
	if _, err := Marker(0, 3); err == nil {
		t.Error("side 3 accepted")
	}
}
