package find

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/dataset/realphotos"
)

// cardPhotos are the real photos of playing cards kept in the repository:
// the test split, which no threshold was tuned on.
const cardPhotos = "../testdata/card-photos"

// scoreOnCardPhotos runs find over the test photos and sums the score.
func scoreOnCardPhotos(t *testing.T, options func(w, h int) Options) Score {
	t.Helper()
	entries, err := os.ReadDir(cardPhotos)
	if err != nil {
		t.Fatal(err)
	}
	var total Score
	photos := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".JPG") {
			continue
		}
		f, err := os.Open(filepath.Join(cardPhotos, strings.TrimSuffix(e.Name(), ".JPG")+".xml"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := realphotos.ParseVOC(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		img := gocv.IMRead(filepath.Join(cardPhotos, e.Name()), gocv.IMReadColor)
		if img.Empty() {
			t.Fatalf("cannot read %s", e.Name())
		}
		total = total.Add(ScoreWholeCards(Cards(img, options(img.Cols(), img.Rows())), v.Boxes))
		img.Close()
		photos++
	}
	if photos != 60 {
		t.Fatalf("%d photos in %s, want the 60 of the test split", photos, cardPhotos)
	}
	return total
}

// On real photos of cards on carpet, wood and cloth, the photo finder
// finds more cards than the finder for a calibrated table's crops, and
// takes fewer other things for cards.
func TestCardsInPhoto_RealCardPhotos(t *testing.T) {
	photo := scoreOnCardPhotos(t, PhotoOptions)
	table := scoreOnCardPhotos(t, FrameOptions)
	t.Logf("photo finder: %+v; table finder: %+v", photo, table)
	if photo.Found <= table.Found || photo.FalseFinds >= table.FalseFinds {
		t.Errorf("the photo finder (%+v) must find more and make fewer false finds than the edges alone (%+v)", photo, table)
	}
	// Floors a little under what the committed finder does, so that a
	// change that loses real cards fails.
	if rate := float64(photo.Found) / float64(photo.Labelled); rate < 0.53 {
		t.Errorf("found %.3f of the labelled cards, want >= 0.53", rate)
	}
	if rate := float64(photo.FalseFinds) / float64(photo.Labelled); rate > 0.17 {
		t.Errorf("false finds %.3f of the labelled cards, want <= 0.17", rate)
	}
}
