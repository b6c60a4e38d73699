//go:build e2e

package tiles

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
)

// TestTilesVision_ReadsARenderedRound: a 2-player round (seed 3, no wrong
// plays) is simulated and rendered frame by frame, and the watcher reads
// it. The board it finds is the simulation's (every field's colour, the
// stones' fields); every lay it reports is one the simulation made, with
// its fields, colours and owner (T2a: a camera that reads a card's colours
// wrong would call a legal play wrong); it reports most lays. The target is
// every lay; the record it must not fall below is 70%.
//
//	go test -tags e2e -run TilesVision -v ./vision/tiles
func TestTilesVision_ReadsARenderedRound(t *testing.T) {
	var events []tilesim.Event
	if _, err := tilesim.Run(tilesim.Config{Players: 2, Seed: 3, Rounds: 1}, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var players []tiles.Player
	var layout *tiles.Layout
	var stones []tiles.Field
	type lay struct {
		player  string
		fields  string
		colours string
	}
	var lays []lay
	// A lay is the same whichever of its two fields is named first.
	key := func(player string, fs []tiles.Field, cs []tiles.Colour) lay {
		if len(fs) == 2 && len(cs) == 2 && (fs[1].Y < fs[0].Y || fs[1].Y == fs[0].Y && fs[1].X < fs[0].X) {
			fs = []tiles.Field{fs[1], fs[0]}
			cs = []tiles.Colour{cs[1], cs[0]}
		}
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = c.String()
		}
		return lay{player, fmt.Sprint(fs), strings.Join(names, " ")}
	}
	for _, e := range events {
		switch e.Kind {
		case tilesim.EvMatch:
			players = e.Players
		case tilesim.EvRound:
			layout, stones = e.Layout, e.Stones
		}
		for _, o := range e.Observations() {
			if o.Kind == tiles.ObsLay {
				lays = append(lays, key(o.Player, o.Fields, o.Colours))
			}
		}
	}
	sc, err := rtiles.New(scene.DefaultConfig(), players, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	clip, err := sc.Clip(30)
	if err != nil {
		t.Fatal(err)
	}
	// Through a video, as the camera referee gets it: Motion JPEG, as
	// `ligretto tiles simulate --render` writes.
	path := filepath.Join(t.TempDir(), "round.mkv")
	vw, err := gocv.VideoWriterFile(path, "MJPG", clip.FPS, 1280, 720, true)
	if err != nil || !vw.IsOpened() {
		t.Fatalf("video writer: %v", err)
	}
	err = sc.RenderClip(clip, func(f rtiles.Frame) error { return vw.Write(f.Image) })
	vw.Close()
	if err != nil {
		t.Fatal(err)
	}
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	w := NewWatcher(Config{Players: players})
	defer w.Close()
	var got []tiles.Observation
	img := gocv.NewMat()
	defer img.Close()
	for k := 0; vc.Read(&img) && !img.Empty(); k++ {
		obs, _ := w.Feed(img, clip.Time(k)) // before the board is found, frames say so: not a failure
		got = append(got, obs...)
	}

	var sawRound bool
	reported, wrong := 0, 0
	for _, o := range got {
		switch o.Kind {
		case tiles.ObsRound, tiles.ObsMatch:
			if o.Layout != nil {
				sawRound = true
				if fmt.Sprint(*o.Layout) != fmt.Sprint(*layout) {
					t.Errorf("the board read:\n%v\nwant the simulation's:\n%v", *o.Layout, *layout)
				}
				if s1, s2 := slices.Clone(o.Stones), slices.Clone(stones); fmt.Sprint(sorted(s1)) != fmt.Sprint(sorted(s2)) {
					t.Errorf("the stones read on %v, want %v", o.Stones, stones)
				}
			}
		case tiles.ObsLay:
			if slices.Contains(lays, key(o.Player, o.Fields, o.Colours)) {
				reported++
			} else {
				wrong++
				t.Errorf("a lay the simulation did not make: %s on %v in %v", o.Player, o.Fields, o.Colours)
			}
		}
	}
	if !sawRound {
		t.Fatal("the board was never found")
	}
	t.Logf("%d of %d lays read, %d wrong; %d unsure: %v", reported, len(lays), wrong, len(w.Unsure), w.Unsure)
	if reported*10 < len(lays)*7 {
		t.Errorf("%d of %d lays read: below the record of 70%%", reported, len(lays))
	}
}

func sorted(fs []tiles.Field) []tiles.Field {
	slices.SortFunc(fs, func(a, b tiles.Field) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
	return fs
}
