package scene

import (
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"ligretto/referee"
	"ligretto/referee/sim"
)

var pngDir = flag.String("png", "", "also write the sample frames as PNG files into this directory")

// timeline simulates a match and returns its events.
func timeline(t testing.TB, players int, seed uint64, rounds int) []sim.Event {
	t.Helper()
	var evs []sim.Event
	_, err := sim.Run(sim.Config{Players: players, Seed: seed, Rounds: rounds, Advanced: true}, func(e sim.Event) error {
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// newScene makes a scene with every event of evs applied.
func newScene(t testing.TB, cfg Config, players int, seed uint64, evs []sim.Event) *Scene {
	t.Helper()
	s, err := New(cfg, referee.DefaultPlayers(players), seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func render(t testing.TB, s *Scene, tMS int64) (*image.RGBA, []CardTruth) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, s.cfg.Width, s.cfg.Height))
	truth, err := s.RenderRGBA(tMS, img)
	if err != nil {
		t.Fatal(err)
	}
	return img, truth
}

func savePNG(t testing.TB, name string, img image.Image) {
	t.Helper()
	if *pngDir == "" {
		return
	}
	if err := os.MkdirAll(*pngDir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(*pngDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
