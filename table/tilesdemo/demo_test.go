package tilesdemo

import (
	"errors"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	vtiles "ligretto/vision/tiles"
)

// TestSource_MatchesFollowOneAnother: the demo renders a simulated tile
// match frame by frame at its frame rate, the table's time running on
// across matches; the first frame of each match says NewTable (the loop
// looks for the board afresh), the next match takes the next seed, and
// the board shows once the preamble's empty table is over.
func TestSource_MatchesFollowOneAnother(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Rounds, cfg.FPS = 1, 5
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	img := gocv.NewMat()
	defer img.Close()
	next := func() (int64, bool) {
		t.Helper()
		shot, err := s.Next(&img)
		if err != nil {
			t.Fatal(err)
		}
		if img.Cols() != cfg.Scene.Width || img.Rows() != cfg.Scene.Height || shot.Caption != Caption {
			t.Fatalf("frame %dx%d, caption %q", img.Cols(), img.Rows(), shot.Caption)
		}
		return shot.TimeMS, shot.NewTable
	}
	if tm, fresh := next(); tm != 0 || !fresh {
		t.Fatalf("first frame at %d ms, new table %v", tm, fresh)
	}
	empty := gocv.NewMat()
	defer empty.Close()
	img.CopyTo(&empty)
	if tm, fresh := next(); tm != 200 || fresh {
		t.Fatalf("second frame at %d ms, new table %v", tm, fresh)
	}
	if m, seed := s.Match(); m != 1 || seed != cfg.Seed || s.clip.PreambleFrames < 2 || s.clip.Frames < 100 {
		t.Fatalf("match %d seed %d, clip %+v", m, seed, s.clip)
	}
	// Past the preamble the board lies on the table.
	s.k = s.clip.PreambleFrames + 5
	next()
	diff := gocv.NewMat()
	defer diff.Close()
	gocv.AbsDiff(img, empty, &diff)
	gray := gocv.NewMat()
	defer gray.Close()
	gocv.CvtColor(diff, &gray, gocv.ColorBGRToGray)
	gocv.Threshold(gray, &gray, 60, 255, gocv.ThresholdBinary)
	if n := gocv.CountNonZero(gray); n < cfg.Scene.Width*cfg.Scene.Height/20 {
		t.Fatalf("the board changed only %d pixels of the empty table", n)
	}
	// The match's last frame, then the next match.
	last := s.clip.Frames - 1
	s.k = last
	if tm, fresh := next(); tm != int64(last)*200 || fresh {
		t.Fatalf("last frame at %d ms, new table %v", tm, fresh)
	}
	if tm, fresh := next(); tm != int64(last+1)*200 || !fresh {
		t.Fatalf("the next match's first frame at %d ms, new table %v", tm, fresh)
	}
	if m, seed := s.Match(); m != 2 || seed != cfg.Seed+1 {
		t.Fatalf("match %d seed %d", m, seed)
	}
}

// TestSource_BoardIsRead: the demo's first board, with 2 players and
// with 4 (T1: 6 and 9 parts), is one the tile camera finds with the four
// stones once the preamble is over: the match and its first round begin.
func TestSource_BoardIsRead(t *testing.T) {
	for _, players := range []int{2, 4} {
		cfg := DefaultConfig()
		cfg.Players = players
		boardRead(t, cfg)
	}
}

func boardRead(t *testing.T, cfg Config) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := vtiles.NewWatcher(vtiles.Config{Players: tiles.DefaultPlayers(cfg.Players)})
	defer w.Close()
	img := gocv.NewMat()
	defer img.Close()
	var kinds []tiles.Kind
	for k := 0; k < 5*int(cfg.FPS) && len(kinds) == 0; k++ {
		shot, err := s.Next(&img)
		if err != nil {
			t.Fatal(err)
		}
		obs, _ := w.Feed(img, shot.TimeMS) // no board yet is not an error
		for _, o := range obs {
			kinds = append(kinds, o.Kind)
		}
	}
	if len(kinds) != 2 || kinds[0] != tiles.ObsMatch || kinds[1] != tiles.ObsRound {
		t.Fatalf("%d players: the camera saw %v in the first 5 s, want the match and its round", cfg.Players, kinds)
	}
}

// TestNew_RefusesBadConfig: players outside 2..4 (T1), a frame rate
// outside (0, 60].
func TestNew_RefusesBadConfig(t *testing.T) {
	for _, tweak := range []func(*Config){
		func(c *Config) { c.Players = 5 },
		func(c *Config) { c.Players = 1 },
		func(c *Config) { c.FPS = 0 },
		func(c *Config) { c.FPS = 90 },
		func(c *Config) { c.Errors = 2 },
	} {
		cfg := DefaultConfig()
		tweak(&cfg)
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
