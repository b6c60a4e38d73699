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

	"ligretto/model"
	"ligretto/referee"
	"ligretto/render/card"
	"ligretto/render/scene"
	"ligretto/table"
	"ligretto/vision"
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

// runDemo runs the match loop on the demo source with the default pair of
// networks, as serve does, until ctx ends or the source fails. Each
// frame goes to frame, converted to RGBA, with the source's truth.
func runDemo(ctx context.Context, t *testing.T, cfg Config, ref table.Referee, frame func(f table.Frame, img *image.RGBA, src *Source)) error {
	t.Helper()
	pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	std, err := standardBacks(pred)
	if err != nil {
		t.Fatal(err)
	}
	src, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	defer src.Close()
	loop, err := table.New(table.Config{Players: cfg.Players, Calibrator: []vision.CalibratorOption{vision.WithStandardBacks(std)},
		Pipeline: vision.DefaultPipelineConfig(), Annotate: true, Log: cfg.Log,
		OnFrame: func(f table.Frame) {
			img, err := table.RGBA(f.Image)
			if err != nil {
				t.Fatal(err)
			}
			frame(f, img, src)
		}}, pred, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer loop.Close()
	return loop.Run(ctx, src)
}

type demoFrame struct {
	img         *image.RGBA
	timeMS      int64
	match       int
	calibrating bool
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
	var frames []demoFrame
	outlined := 0 // frames with the pile outline on a pile of the scene
	opened := -1  // the frame at which the pipeline opened a pile
	err := runDemo(ctx, t, cfg, ref, func(tf table.Frame, img *image.RGBA, src *Source) {
		match, _ := src.Match()
		f := demoFrame{img: img, timeMS: tf.TimeMS, match: match, calibrating: tf.Calibrating}
		frames = append(frames, f)
		if opened < 0 && hasPileNew(ref.obs) {
			opened = len(frames)
		}
		if f.calibrating {
			if n := colourPixels(img, img.Bounds(), vision.PileColour); n > 0 {
				t.Errorf("frame at %d ms, calibrating, has %d pixels of the pile outline colour", f.timeMS, n)
			}
			return
		}
		for _, c := range src.Truth() {
			if c.Role == scene.RolePile && colourPixels(img, truthBox(c.Quad, 6), vision.PileColour) > 20 {
				outlined++
				break
			}
		}
		// Stop once the outline was looked for over a few seconds of play.
		if opened > 0 && (len(frames) > opened+10 && outlined > 0 || len(frames) > opened+100) {
			cancel()
		}
	})
	if !errors.Is(err, table.ErrStopped) {
		t.Fatalf("Run ended with %v after %d frames; log:\n%s", err, len(frames), logs.String())
	}
	for i, f := range frames {
		if f.img.Bounds().Dx() != 640 || f.img.Bounds().Dy() != 360 {
			t.Fatalf("frame %d is %v", i, f.img.Bounds())
		}
		if i > 0 && f.match == frames[i-1].match && f.timeMS < frames[i-1].timeMS {
			t.Fatalf("the clock ran back: %d then %d", frames[i-1].timeMS, f.timeMS)
		}
		if i > 0 && f.calibrating && !frames[i-1].calibrating && f.match == frames[i-1].match {
			t.Fatalf("frame %d calibrates again within match %d", i, f.match)
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
	if st.Match.Settings.Deadlock != cfg.Deadlock {
		t.Errorf("the match opened with deadlock rule %q, the simulated match's is %q", st.Match.Settings.Deadlock, cfg.Deadlock)
	}
	if outlined == 0 {
		t.Fatal("no frame shows the pipeline's outline on a pile of the scene")
	}
	t.Logf("%d frames, %d observations, %d piles; the outline on a pile in %d frames", len(frames), len(ref.obs), len(st.Piles), outlined)
	if !strings.Contains(logs.String(), "msg=calibrated") {
		t.Errorf("the log does not say the table was calibrated:\n%s", logs.String())
	}
}

// TestRun_SkipsSeedsThatDoNotCalibrate: without a preamble nothing
// calibrates; each seed is logged and skipped, then the source gives up.
func TestRun_SkipsSeedsThatDoNotCalibrate(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Players, cfg.FPS = 2, 1000
	cfg.Scene.Width, cfg.Scene.Height = 320, 180
	cfg.Scene.Preamble = false
	var logs bytes.Buffer
	cfg.Log = slog.New(slog.NewTextHandler(&logs, nil))
	ref := &recorder{Referee: referee.New()}
	err := runDemo(context.Background(), t, cfg, ref, func(table.Frame, *image.RGBA, *Source) {})
	if !errors.Is(err, ErrNotCalibrated) {
		t.Fatalf("Run ended with %v", err)
	}
	if got := strings.Count(logs.String(), "trying the next seed"); got != maxCalFailures {
		t.Errorf("%d seeds logged as not calibrated, want %d:\n%s", got, maxCalFailures, logs.String())
	}
	for s := 1; s <= maxCalFailures; s++ {
		if !strings.Contains(logs.String(), fmt.Sprintf("seed=%d\n", s)) {
			t.Errorf("seed %d not in the log", s)
		}
	}
	if len(ref.obs) != 0 {
		t.Errorf("the referee was fed %d observations without a calibration", len(ref.obs))
	}
}

func TestNew_RefusesBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.FPS = 0
	if _, err := New(context.Background(), cfg); err == nil {
		t.Fatal("fps 0 must be refused")
	}
	cfg = DefaultConfig()
	cfg.Players = 13
	if _, err := New(context.Background(), cfg); err == nil {
		t.Fatal("13 players must be refused (C2)")
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

// standardBacks enrols the twelve standard back designs from rendered
// crops, as the commands do.
func standardBacks(pred model.Predictor) ([]vision.BackPrototype, error) {
	w, h := pred.Config().DetailSize()
	samples, err := card.StandardBackSamples(w, h, 4)
	if err != nil {
		return nil, err
	}
	return vision.EnrolBacks(pred, samples)
}
