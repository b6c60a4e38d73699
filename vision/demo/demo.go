// Package demo is the built-in source that needs no camera: simulated
// matches (referee/sim) rendered live as a camera would see them
// (vision/scene), one after another. Each match is calibrated from its
// rendered preamble and refereed through the vision pipeline, as a real
// camera would be: the referee sees only what the pipeline reads from the
// pictures, and the pictures are annotated by the pipeline.
package demo

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/vision"
	"ligretto/vision/scene"
)

// Config says what the demo plays and how fast.
type Config struct {
	Players   int     // 2..12
	Seed      uint64  // the first match's seed; each next match adds one
	FPS       float64 // frames per second
	Speed     float64 // simulated seconds per real second
	ErrorRate float64 // illegal plays on purpose, so the referee has something to call
	Deadlock  referee.DeadlockRule
	Scene     scene.Config
	// Log gets the demo's progress (calibrations made and failed, matches
	// over) and, at debug level, the observations the referee refused.
	// nil: none.
	Log *slog.Logger
}

// DefaultConfig plays four players at real speed, 25 frames a second.
func DefaultConfig() Config {
	return Config{Players: 4, Seed: 1, FPS: 25, Speed: 1, ErrorRate: 0.03, Deadlock: referee.DeadlockRestart, Scene: scene.DefaultConfig()}
}

// Referee takes the pipeline's observations; its state is drawn on the
// frames. *referee.Referee is one; the server passes its game.
type Referee interface {
	Apply(referee.Observation) (referee.Verdict, error)
	State() referee.State
}

// Frame is one rendered, annotated frame.
type Frame struct {
	Image  *image.RGBA
	TimeMS int64 // the simulated clock it shows
	// Truth is where the scene put the cards, for tests: the annotation
	// and the referee do not use it.
	Truth []scene.CardTruth
	Match int    // which match of the run (1, 2, ...)
	Seed  uint64 // the match's seed
	// Calibrating is true while the demo calibrates from the preamble; the
	// pipeline reads (and the referee is fed) only after it.
	Calibrating bool
}

// calStepMS bounds the simulated time between two frames the calibrator
// sees: it needs a few still frames of each player's back, which a high
// Speed would skip.
const calStepMS = 50

// maxCalFailures is how many matches in a row may fail to calibrate
// before Run gives up: past that the scene or the calibrator is broken,
// not the seed unlucky.
const maxCalFailures = 5

// errNotCalibrated marks a match whose preamble did not calibrate.
var errNotCalibrated = errors.New("demo: not calibrated")

// Run plays matches until ctx ends. Each frame goes to frames (a new image
// each time: the receiver may keep it); what the pipeline observes goes
// to ref, whose state is drawn on the next frames. A match whose preamble
// does not calibrate is logged and skipped for the next seed. Run returns
// ctx's error, or the first error of the simulator, renderer or pipeline.
func Run(ctx context.Context, cfg Config, frames func(Frame), ref Referee) error {
	if cfg.FPS <= 0 || cfg.Speed <= 0 {
		return fmt.Errorf("demo: fps %v and speed %v must be positive", cfg.FPS, cfg.Speed)
	}
	if cfg.Log == nil {
		cfg.Log = discard()
	}
	w, pred, err := model.DefaultPredictor()
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer pred.Close()
	std, err := vision.StandardBacks(pred, w.Config)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	r := &runner{cfg: cfg, frames: frames, ref: ref, pred: pred, mcfg: w.Config, std: std, frame: gocv.NewMat(), rgba: gocv.NewMat()}
	defer r.frame.Close()
	defer r.rgba.Close()
	failed := 0
	for match := 1; ctx.Err() == nil; match++ {
		err := r.playMatch(ctx, match)
		switch {
		case errors.Is(err, errNotCalibrated):
			if failed++; failed >= maxCalFailures {
				return fmt.Errorf("demo: %d matches in a row did not calibrate: %w", failed, err)
			}
		case err != nil:
			return err
		default:
			failed = 0
		}
	}
	return ctx.Err()
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

type runner struct {
	cfg    Config
	frames func(Frame)
	ref    Referee
	pred   model.Predictor
	mcfg   model.Config
	std    []vision.BackPrototype
	frame  gocv.Mat // the rendered frame, BGR
	rgba   gocv.Mat
}

func (r *runner) playMatch(ctx context.Context, match int) error {
	cfg := r.cfg
	seed := cfg.Seed + uint64(match-1)
	var events []sim.Event
	if _, err := sim.Run(sim.Config{Players: cfg.Players, Seed: seed, Match: true, ErrorRate: cfg.ErrorRate, Deadlock: cfg.Deadlock},
		func(e sim.Event) error { events = append(events, e); return nil }); err != nil {
		return fmt.Errorf("demo match %d: %w", match, err)
	}
	if len(events) == 0 || events[0].Kind != sim.EvMatch || events[0].Settings == nil {
		return fmt.Errorf("demo match %d: the timeline does not open with the match", match)
	}
	sc, err := scene.New(cfg.Scene, referee.DefaultPlayers(cfg.Players), seed)
	if err != nil {
		return err
	}
	cal, err := vision.NewCalibrator(cfg.Players, r.pred, r.mcfg, vision.WithStandardBacks(r.std))
	if err != nil {
		return err
	}
	defer cal.Close()
	var pipe *vision.Pipeline
	defer func() {
		if pipe != nil {
			pipe.Close()
		}
	}()
	look := sc.Lookahead()
	clock := float64(sc.Start()) // simulated ms
	applied := 0
	tick := time.NewTicker(time.Duration(float64(time.Second) / cfg.FPS))
	defer tick.Stop()
	last := time.Now()
	for {
		shown := int64(clock)
		// The scene needs events up to a lookahead past what it shows:
		// a card leaves the player's hand before it lands. The match is
		// set up before the preamble, so that spectators see the players
		// while the table is calibrated.
		for applied < len(events) && (applied == 0 || events[applied].TimeMS <= shown+look) {
			if err := sc.Apply(events[applied]); err != nil {
				return fmt.Errorf("demo match %d: %w", match, err)
			}
			applied++
		}
		if applied == len(events) && shown > events[len(events)-1].TimeMS+5000 {
			r.matchOver(pipe, match, seed)
			return nil
		}
		truth, err := sc.Render(shown, &r.frame)
		if err != nil {
			return err
		}
		if pipe == nil {
			if pipe, err = r.calibrate(cal, events[0], shown, match, seed); err != nil {
				return err
			}
		} else if err := r.observe(pipe, shown); err != nil {
			return fmt.Errorf("demo match %d: %w", match, err)
		}
		img, err := r.image()
		if err != nil {
			return err
		}
		r.frames(Frame{Image: img, TimeMS: shown, Truth: truth, Match: match, Seed: seed, Calibrating: pipe == nil})
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		now := time.Now()
		step := float64(now.Sub(last)) / float64(time.Millisecond) * cfg.Speed
		last = now
		if pipe == nil {
			step = min(step, calStepMS)
		}
		clock += step
	}
}

// matchOver logs the end of the simulated match, with what the pipeline
// cost, and warns when the referee did not see it end: it then refuses
// the next match until the operator ends the round.
func (r *runner) matchOver(p *vision.Pipeline, match int, seed uint64) {
	attrs := []any{slog.Int("match", match), slog.Uint64("seed", seed)}
	if p != nil {
		if t := p.Timing(); t.Frames > 0 {
			per := (t.Rectify + t.Motion + t.Detect + t.Classify + t.Track) / time.Duration(t.Frames)
			attrs = append(attrs, slog.Int("frames", t.Frames), slog.Duration("pipeline_per_frame", per))
		}
	}
	r.cfg.Log.Info("demo match over", attrs...)
	if ph := r.ref.State().Phase; ph == referee.PhasePlaying || ph == referee.PhaseCounting {
		r.cfg.Log.Warn("demo: the referee is still in a round the camera did not see end; it will refuse the next match until the operator ends the round",
			slog.String("phase", string(ph)))
	}
}

// calibrate feeds the calibrator the frame at shown (still in r.frame)
// and captions it. Once every player is enrolled it returns the pipeline,
// after opening the match with its observations. A preamble that ends
// before that is errNotCalibrated.
func (r *runner) calibrate(cal *vision.Calibrator, opening sim.Event, shown int64, match int, seed uint64) (*vision.Pipeline, error) {
	log := r.cfg.Log
	fail := func(err error) (*vision.Pipeline, error) {
		log.Warn("demo: the table did not calibrate; trying the next seed", slog.Int("match", match), slog.Uint64("seed", seed), slog.Any("err", err))
		return nil, fmt.Errorf("%w: seed %d: %v", errNotCalibrated, seed, err)
	}
	if err := cal.Add(r.frame); err != nil {
		return fail(err)
	}
	if !cal.Done() {
		if shown >= 0 {
			return fail(fmt.Errorf("%w (%s)", vision.ErrNotCalibrated, cal.Stage()))
		}
		vision.Caption(&r.frame, "DEMO: simulated table. Calibrating: "+cal.Stage())
		return nil, nil
	}
	f, err := cal.File()
	if err != nil {
		return fail(err)
	}
	pc := vision.DefaultPipelineConfig()
	pc.Settings = *opening.Settings
	p, err := vision.NewPipeline(f, r.pred, r.mcfg, pc)
	if err != nil {
		return fail(err)
	}
	log.Info("demo: calibrated from the rendered preamble", slog.Int("match", match), slog.Uint64("seed", seed), slog.String("backs", backs(f)))
	r.apply(p.Start(max(shown, 0)))
	if err := p.Annotate(&r.frame, r.ref.State()); err != nil {
		p.Close()
		return nil, err
	}
	vision.Caption(&r.frame, "DEMO: simulated table. Calibrated: the vision pipeline referees from here")
	return p, nil
}

func backs(f *calibration.File) string {
	s := ""
	for i, seat := range f.Seats {
		if i > 0 {
			s += " "
		}
		s += seat.Player + "=" + seat.Back
	}
	return s
}

// observe runs the pipeline on the frame at shown (in r.frame), feeds the
// referee what it observed and annotates the frame with the outcome.
func (r *runner) observe(p *vision.Pipeline, shown int64) error {
	obs, err := p.Process(r.frame, shown)
	if err != nil {
		return err
	}
	r.apply(obs)
	if err := p.Annotate(&r.frame, r.ref.State()); err != nil {
		return err
	}
	vision.Caption(&r.frame, "DEMO: simulated table, refereed from this picture by the vision pipeline")
	return nil
}

// apply passes observations to the referee. One it refuses (the operator
// changed the match, or the camera missed the end of the last one)
// changes nothing and is skipped.
func (r *runner) apply(obs []referee.Observation) {
	for _, o := range obs {
		if _, err := r.ref.Apply(o); err != nil {
			var v *referee.Violation
			if !errors.As(err, &v) {
				r.cfg.Log.Debug("demo: observation refused", slog.String("kind", string(o.Kind)), slog.Any("err", err))
			}
		}
	}
}

// image copies the annotated BGR frame into a new RGBA image.
func (r *runner) image() (*image.RGBA, error) {
	gocv.CvtColor(r.frame, &r.rgba, gocv.ColorBGRToRGBA)
	b, err := r.rgba.DataPtrUint8()
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.rgba.Cols(), r.rgba.Rows()))
	if len(b) != len(img.Pix) {
		return nil, fmt.Errorf("demo: frame of %d bytes for %v", len(b), img.Rect)
	}
	copy(img.Pix, b)
	return img, nil
}
