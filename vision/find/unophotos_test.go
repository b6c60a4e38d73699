package find

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/dataset/realphotos"
)

const photoDir = "../../../shared/data/uno-photos"

// TestCards_RealPhotos: on the real photos, the labelled corner index
// of every card must lie inside a found card. Reports the rate.
func TestCards_RealPhotos(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(photoDir, "images"))
	if err != nil {
		t.Fatalf("the shared photos must be beside the repository: %v", err)
	}
	labelled, found := 0, 0
	var missed []string
	for _, e := range entries {
		img := gocv.IMRead(filepath.Join(photoDir, "images", e.Name()), gocv.IMReadColor)
		if img.Empty() {
			img.Close()
			t.Fatalf("cannot read %s", e.Name())
		}
		lf, err := os.Open(filepath.Join(photoDir, "labels", strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))+".txt"))
		if err != nil {
			img.Close()
			continue
		}
		boxes, _, err := realphotos.ParseLabels(lf)
		lf.Close()
		if err != nil {
			t.Fatal(err)
		}
		quads := Cards(img, FrameOptions(img.Cols(), img.Rows()))
		for _, b := range boxes {
			labelled++
			x, y := b.CX*float64(img.Cols()), b.CY*float64(img.Rows())
			hit := false
			for _, q := range quads {
				if q.Contains(x, y) {
					hit = true
					break
				}
			}
			if hit {
				found++
			} else {
				missed = append(missed, e.Name())
			}
		}
		img.Close()
	}
	rate := float64(found) / float64(labelled)
	t.Logf("real photos: %d of %d labelled cards found (%.1f%%)", found, labelled, 100*rate)
	if len(missed) > 0 {
		t.Logf("missed in: %v", missed[:min(10, len(missed))])
	}
	if rate < 0.9 {
		t.Errorf("found %.3f of labelled cards, want >= 0.9", rate)
	}
}
