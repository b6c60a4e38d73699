package demo

import (
	"context"
	"testing"
	"time"

	"ligretto/referee"
)

// TestRun_FramesAndObservations runs the demo fast for a moment: frames
// come at the scene's size with advancing clocks, and the observations
// start a match the referee accepts.
func TestRun_FramesAndObservations(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Speed, cfg.FPS = 40, 50 // 40 simulated seconds a second
	cfg.Scene.Width, cfg.Scene.Height = 320, 180
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var frames []Frame
	ref := referee.New()
	accepted := 0
	err := Run(ctx, cfg, func(f Frame) { frames = append(frames, f) }, func(o referee.Observation) {
		if _, err := ref.Apply(o); err == nil {
			accepted++
		} else {
			t.Errorf("referee refused %s: %v", o.Kind, err)
		}
	})
	if err != context.DeadlineExceeded {
		t.Fatalf("Run ended with %v", err)
	}
	if len(frames) < 10 {
		t.Fatalf("%d frames in 2 s", len(frames))
	}
	for i, f := range frames {
		if f.Image.Bounds().Dx() != 320 || f.Image.Bounds().Dy() != 180 {
			t.Fatalf("frame %d is %v", i, f.Image.Bounds())
		}
		if i > 0 && f.Match == frames[i-1].Match && f.TimeMS < frames[i-1].TimeMS {
			t.Fatalf("the clock ran back: %d then %d", frames[i-1].TimeMS, f.TimeMS)
		}
	}
	piles := 0
	for _, f := range frames {
		piles = max(piles, len(f.Truth))
	}
	if accepted < 3 || ref.State().Round < 1 || piles == 0 {
		t.Fatalf("accepted %d observations, round %d, at most %d cards in truth", accepted, ref.State().Round, piles)
	}
}

func TestRun_RefusesBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FPS = 0
	if err := Run(context.Background(), cfg, func(Frame) {}, func(referee.Observation) {}); err == nil {
		t.Fatal("fps 0 must be refused")
	}
}
