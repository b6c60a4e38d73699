package tiles

import (
	"os"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
)

// TestDiagVideo runs the watcher over TILES_VIDEO and logs what it reports.
func TestDiagVideo(t *testing.T) {
	path := os.Getenv("TILES_VIDEO")
	if path == "" {
		t.Skip("TILES_VIDEO not set")
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	w := NewWatcher(Config{Players: []tiles.Player{{Name: "P1", Frame: tiles.Plain}, {Name: "P2", Frame: tiles.Double}}})
	defer w.Close()
	img := gocv.NewMat()
	defer img.Close()
	for k := 0; vc.Read(&img) && !img.Empty(); k++ {
		obs, err := w.Feed(img, int64(k)*1000/30-2000)
		if err != nil && k%100 == 0 {
			t.Logf("frame %d: %v", k, err)
		}
		for _, o := range obs {
			t.Logf("frame %d: %s %s %v %v stone %d", k, o.Kind, o.Player, o.Fields, o.Colours, o.Stone)
		}
	}
	for _, u := range w.Styles {
		t.Log("style:", u)
	}
	for _, u := range w.Unsure {
		t.Log("unsure:", u)
	}
}
