package tiles

import (
	"math/rand/v2"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
)

// The lookup table classifies as OpenCV's conversion to HSV would.
func TestTilesVision_HSVAsOpenCV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 4096
	img := gocv.NewMatWithSize(1, n, gocv.MatTypeCV8UC3)
	defer img.Close()
	hsv := gocv.NewMat()
	defer hsv.Close()
	px, _ := img.DataPtrUint8()
	for i := range px {
		px[i] = uint8(rng.IntN(256))
	}
	gocv.CvtColor(img, &hsv, gocv.ColorBGRToHSV)
	want, _ := hsv.DataPtrUint8()
	for i := range n {
		got := hsvOf(px[3*i], px[3*i+1], px[3*i+2])
		for k := range 3 {
			if d := int(got[k]) - int(want[3*i+k]); d < -1 || d > 1 {
				t.Fatalf("BGR %v: HSV %v, OpenCV %v", px[3*i:3*i+3], got, want[3*i:3*i+3])
			}
		}
	}
}

// The stones are paired at the least total cost, whichever side is longer.
func TestTilesVision_Cheapest(t *testing.T) {
	for _, c := range []struct {
		cost [][]int
		want [][2]int
	}{
		{[][]int{{5, 1}, {1, 5}}, [][2]int{{0, 1}, {1, 0}}},
		{[][]int{{4, 9, 1}}, [][2]int{{0, 2}}},
		{[][]int{{7}, {2}, {9}}, [][2]int{{1, 0}}},
		{[][]int{{1, 2}, {2, 100}}, [][2]int{{0, 1}, {1, 0}}},
	} {
		got := cheapest(c.cost)
		slices.SortFunc(got, func(a, b [2]int) int { return a[0] - b[0] })
		if !slices.Equal(got, c.want) {
			t.Errorf("cheapest(%v) = %v, want %v", c.cost, got, c.want)
		}
	}
}

// stagedRound stages seed 7's 4-player round for rendering, without the
// preamble: its events up to untilMS (every one when 0; the match and the
// round always) and the scene they were applied to.
func stagedRound(tb testing.TB, untilMS int64) ([]tilesim.Event, *rtiles.Scene) {
	tb.Helper()
	var events []tilesim.Event
	if _, err := tilesim.Run(tilesim.Config{Players: 4, Seed: 7, Rounds: 1}, func(e tilesim.Event) error {
		if untilMS == 0 || e.TimeMS <= untilMS || e.Kind == tilesim.EvMatch || e.Kind == tilesim.EvRound {
			events = append(events, e)
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	cfg := scene.DefaultConfig()
	cfg.Preamble = false
	sc, err := rtiles.New(cfg, events[0].Players, 7)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			tb.Fatal(err)
		}
	}
	return events, sc
}

// The first 12 s of a rendered 4-player round: the board and stones are
// read, and every card reported is one laid, with its colours and owner.
func TestTilesVision_FirstSecondsOfARound(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 180 frames")
	}
	events, sc := stagedRound(t, 12000)
	w := NewWatcher(Config{Players: events[0].Players})
	defer w.Close()
	mat := gocv.NewMat()
	defer mat.Close()
	var got []tiles.Observation
	for k := range 15 * 12 {
		tm := int64(k) * 1000 / 15
		if _, err := sc.Render(tm, &mat); err != nil {
			t.Fatal(err)
		}
		obs, err := w.Feed(mat, tm)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, obs...)
	}
	// lays whose card and stone settled by 10 s must be read
	var settled []tilesim.Event
	for _, e := range events {
		if e.Kind == tilesim.EvLay && e.TimeMS < 10000 {
			settled = append(settled, e)
		}
	}
	s := scoreWatch(events, got)
	t.Logf("%v; unsure %v", s, w.Unsure)
	if s.matches != 1 || s.roundsRight != 1 {
		t.Errorf("%d matches, %d of 1 boards right", s.matches, s.roundsRight)
	}
	for _, x := range append(s.wrong, s.wrongStones...) {
		t.Errorf("reported, not made: %s", x)
	}
	if s.laysRead < len(settled) {
		t.Errorf("%d lays read, %d were laid by 10 s", s.laysRead, len(settled))
	}
}
