//go:build matprofile

package scene

import (
	"testing"

	"gocv.io/x/gocv"

	"ligretto/vision/aruco"
)

// Rendering into Mats, whole clips and marker detection leak no Mat.
// Run with: go test -tags matprofile ./vision/scene/
func TestNoLeakedMats(t *testing.T) {
	evs := timeline(t, 3, 2, 1)
	cfg := small()
	s := newScene(t, cfg, 3, 2, evs)
	before := gocv.MatProfile.Count()
	mat := gocv.NewMat() // empty: Render allocates it
	for _, at := range []int64{s.Start(), 0, 4000, 9000} {
		if _, err := s.Render(at, &mat); err != nil {
			t.Fatal(err)
		}
		if _, err := aruco.Detect(mat); err != nil {
			t.Fatal(err)
		}
	}
	mat.Close()
	clip, err := s.Clip(5)
	if err != nil {
		t.Fatal(err)
	}
	clip.Frames = min(clip.Frames, 40)
	if err := s.RenderClip(clip, func(Frame) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if after := gocv.MatProfile.Count(); after != before {
		t.Errorf("%d Mats leaked", after-before)
	}
	// The check itself works: an unclosed Mat is counted.
	leak := gocv.NewMat()
	if gocv.MatProfile.Count() != before+1 {
		t.Errorf("MatProfile does not count Mats: %d then %d", before, gocv.MatProfile.Count())
	}
	leak.Close()
}
