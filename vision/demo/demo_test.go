package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"strings"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/vision"
	"ligretto/vision/scene"
)

// recorder is a real referee that keeps what it was given.
type recorder struct {
	*referee.Referee
	obs     []referee.Observation
	refused []error
}

func (r *recorder) Apply(o referee.Observation) (referee.Verdict, error) {
	r.obs = append(r.obs, o)
	v, err := r.Referee.Apply(o)
	if err != nil {
		r.refused = append(r.refused, err)
	}
	return v, err
}

// TestRun_PipelineFeedsTheReferee runs the demo on a small 2-player table
// until the camera pipeline has opened a pile: frames come at the scene's
// size with advancing clocks, the referee hears only the pipeline (By
// "camera") and accepts it, and the frames after calibration carry the
// pipeline's outlines on the piles the scene laid.
func TestRun_PipelineFeedsTheReferee(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players, cfg.Speed, cfg.FPS = 2, 4, 50
	cfg.Scene.Width, cfg.Scene.Height = 640, 360
	var logs bytes.Buffer
	cfg.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ref := &recorder{Referee: referee.New()}
	var frames []Frame
	outlined := 0 // frames with the pile outline on a pile of the scene
	opened := -1  // the frame at which the pipeline opened a pile
	err := Run(ctx, cfg, func(f Frame) {
		frames = append(frames, f)
		if opened < 0 && hasPileNew(ref.obs) {
			opened = len(frames)
		}
		if f.Calibrating {
			if n := colourPixels(f.Image, f.Image.Bounds(), vision.PileColour); n > 0 {
				t.Errorf("frame at %d ms, calibrating, has %d pixels of the pile outline colour", f.TimeMS, n)
			}
			return
		}
		for _, c := range f.Truth {
			if c.Role == scene.RolePile && colourPixels(f.Image, truthBox(c.Quad, 6), vision.PileColour) > 20 {
				outlined++
				break
			}
		}
		// Stop once the outline was looked for over a few seconds of play.
		if opened > 0 && (len(frames) > opened+10 && outlined > 0 || len(frames) > opened+100) {
			cancel()
		}
	}, ref)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run ended with %v after %d frames; log:\n%s", err, len(frames), logs.String())
	}
	for i, f := range frames {
		if f.Image.Bounds().Dx() != 640 || f.Image.Bounds().Dy() != 360 {
			t.Fatalf("frame %d is %v", i, f.Image.Bounds())
		}
		if i > 0 && f.Match == frames[i-1].Match && f.TimeMS < frames[i-1].TimeMS {
			t.Fatalf("the clock ran back: %d then %d", frames[i-1].TimeMS, f.TimeMS)
		}
		if i > 0 && f.Calibrating && !frames[i-1].Calibrating && f.Match == frames[i-1].Match {
			t.Fatalf("frame %d calibrates again within match %d", i, f.Match)
		}
	}
	for _, o := range ref.obs {
		if o.By != "camera" {
			t.Errorf("%s observation by %q, want the camera pipeline's", o.Kind, o.By)
		}
	}
	if len(ref.refused) > 0 {
		t.Errorf("the referee refused %d observations: %v", len(ref.refused), ref.refused)
	}
	st := ref.State()
	if st.Match == nil || len(st.Match.Players) != 2 || st.Round < 1 || len(st.Piles) == 0 {
		t.Fatalf("referee state %+v after %d observations", st, len(ref.obs))
	}
	if outlined == 0 {
		t.Fatal("no frame shows the pipeline's outline on a pile of the scene")
	}
	t.Logf("%d frames, %d observations, %d piles; the outline on a pile in %d frames", len(frames), len(ref.obs), len(st.Piles), outlined)
	if !strings.Contains(logs.String(), "calibrated from the rendered preamble") {
		t.Errorf("the log does not say the table was calibrated:\n%s", logs.String())
	}
}

// TestRun_SkipsSeedsThatDoNotCalibrate: without a preamble nothing
// calibrates; each seed is logged and skipped, then Run gives up.
func TestRun_SkipsSeedsThatDoNotCalibrate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players, cfg.FPS = 2, 1000
	cfg.Scene.Width, cfg.Scene.Height = 320, 180
	cfg.Scene.Preamble = false
	var logs bytes.Buffer
	cfg.Log = slog.New(slog.NewTextHandler(&logs, nil))
	ref := &recorder{Referee: referee.New()}
	n := 0
	err := Run(context.Background(), cfg, func(Frame) { n++ }, ref)
	if err == nil || !strings.Contains(err.Error(), "did not calibrate") {
		t.Fatalf("Run ended with %v", err)
	}
	if got := strings.Count(logs.String(), "trying the next seed"); got != maxCalFailures {
		t.Errorf("%d seeds logged as not calibrated, want %d:\n%s", got, maxCalFailures, logs.String())
	}
	for s := 1; s <= maxCalFailures; s++ {
		if !strings.Contains(logs.String(), fmt.Sprintf("seed=%d ", s)) {
			t.Errorf("seed %d not in the log", s)
		}
	}
	if len(ref.obs) != 0 {
		t.Errorf("the referee was fed %d observations without a calibration", len(ref.obs))
	}
}

func TestRun_RefusesBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FPS = 0
	if err := Run(context.Background(), cfg, func(Frame) {}, referee.New()); err == nil {
		t.Fatal("fps 0 must be refused")
	}
}

func hasPileNew(obs []referee.Observation) bool {
	for _, o := range obs {
		if o.Kind == referee.ObsPileNew {
			return true
		}
	}
	return false
}

// colourPixels counts the pixels of r that are exactly c.
func colourPixels(img *image.RGBA, r image.Rectangle, c interface{ RGBA() (r, g, b, a uint32) }) int {
	cr, cg, cb, _ := c.RGBA()
	n := 0
	r = r.Intersect(img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := img.RGBAAt(x, y)
			if uint32(p.R)*0x101 == cr && uint32(p.G)*0x101 == cg && uint32(p.B)*0x101 == cb {
				n++
			}
		}
	}
	return n
}

func truthBox(q scene.Quad, grow int) image.Rectangle {
	r := image.Rectangle{Min: image.Pt(int(q[0].X), int(q[0].Y)), Max: image.Pt(int(q[0].X)+1, int(q[0].Y)+1)}
	for _, p := range q[1:] {
		r = r.Union(image.Rect(int(p.X), int(p.Y), int(p.X)+1, int(p.Y)+1))
	}
	return r.Inset(-grow)
}
