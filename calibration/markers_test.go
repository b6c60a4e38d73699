package calibration

import (
	"errors"
	"math"
	"testing"
)

// square is a marker of side s pixels with its top-left corner at (x, y),
// corners in the marker's own order.
func square(x, y, s float64) *[4]Point {
	return &[4]Point{{x, y}, {x + s, y}, {x + s, y + s}, {x, y + s}}
}

func TestPlaneFromMarkers_SizeFromTheMarkers(t *testing.T) {
	// A 1000x600 px table seen straight from above, 80 px markers of 80 mm
	// at its corners: 1 px a mm.
	got := [4]*[4]Point{square(0, 0, 80), square(920, 0, 80), square(920, 520, 80), square(0, 520, 80)}
	pl, err := PlaneFromMarkers(got, 80)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pl.WMM-1000) > 1 || math.Abs(pl.HMM-600) > 1 {
		t.Errorf("table %.1fx%.1f mm, want 1000x600", pl.WMM, pl.HMM)
	}
	want := [4]Point{{0, 0}, {1000, 0}, {1000, 600}, {0, 600}}
	if pl.Corners != want {
		t.Errorf("corners %v, want the markers' outer corners %v", pl.Corners, want)
	}
}

func TestPlaneFromMarkers_MissingOrMisorderedIsErrCorners(t *testing.T) {
	missing := [4]*[4]Point{square(0, 0, 80), nil, square(920, 520, 80), square(0, 520, 80)}
	if _, err := PlaneFromMarkers(missing, 80); !errors.Is(err, ErrCorners) {
		t.Errorf("a missing marker: %v, want ErrCorners", err)
	}
	swapped := [4]*[4]Point{square(920, 0, 80), square(0, 0, 80), square(920, 520, 80), square(0, 520, 80)}
	if _, err := PlaneFromMarkers(swapped, 80); !errors.Is(err, ErrCorners) {
		t.Errorf("markers out of order: %v, want ErrCorners", err)
	}
}
