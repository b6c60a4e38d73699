package tiles

import (
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
)

// timeline simulates a tile match and returns its events.
func timeline(t testing.TB, players int, seed uint64, rounds int) []tilesim.Event {
	t.Helper()
	var evs []tilesim.Event
	_, err := tilesim.Run(tilesim.Config{Players: players, Seed: seed, Rounds: rounds, Board: tilesim.BoardDefault}, func(e tilesim.Event) error {
		evs = append(evs, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// newScene makes a scene with every event of evs applied.
func newScene(t testing.TB, cfg scene.Config, players int, seed uint64, evs []tilesim.Event) *Scene {
	t.Helper()
	s, err := New(cfg, tiles.DefaultPlayers(players), seed)
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

// render draws the frame at tMS into a new Mat (the caller closes it).
func render(t testing.TB, s *Scene, tMS int64) (gocv.Mat, []PieceTruth) {
	t.Helper()
	mat := gocv.NewMat()
	truth, err := s.Render(tMS, &mat)
	if err != nil {
		mat.Close()
		t.Fatal(err)
	}
	return mat, truth
}
