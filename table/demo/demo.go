// Package demo is the built-in source that needs no camera: simulated
// matches (referee/sim) rendered live as a camera above the table would
// see them (vision/scene), one after another. It is a table.Source like a
// camera: the match loop calibrates from each match's rendered preamble
// and referees from the pictures alone. It also keeps where the scene put
// the cards, for tests; the loop does not use it.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
	"ligretto/table"
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
	// Log gets the demo's progress (matches begun and over, seeds that did
	// not calibrate). nil: none.
	Log *slog.Logger
}

// DefaultConfig plays four players at real speed, 25 frames a second.
func DefaultConfig() Config {
	return Config{Players: 4, Seed: 1, FPS: 25, Speed: 1, ErrorRate: 0.03, Deadlock: referee.DeadlockRestart, Scene: scene.DefaultConfig()}
}

// Caption is what the demo writes on its frames, so that nobody takes it
// for a real table.
const Caption = "DEMO: simulated table"

// calStepMS bounds the simulated time between two frames while the table
// is not calibrated: the calibrator needs a few still frames of each
// player's back, which a high Speed would skip.
const calStepMS = 50

// maxCalFailures is how many matches in a row may fail to calibrate
// before the demo gives up: past that the scene or the calibrator is
// broken, not the seed unlucky.
const maxCalFailures = 5

// ErrNotCalibrated means matches in a row ended their preamble before the
// loop had calibrated.
var ErrNotCalibrated = errors.New("demo: matches did not calibrate")

// Source renders simulated matches frame by frame, paced by a clock of
// FPS frames a second.
type Source struct {
	ctx  context.Context
	cfg  Config
	log  *slog.Logger
	tick *time.Ticker
	last time.Time

	status func() table.Status // how the loop's calibration goes

	match   int
	seed    uint64
	events  []sim.Event
	applied int
	sc      *scene.Scene
	clock   float64 // simulated ms
	fresh   bool    // the next frame is a new match's first
	failed  int
	truth   []scene.CardTruth
}

// New makes the demo source; it stops giving frames when ctx ends.
func New(ctx context.Context, cfg Config) (*Source, error) {
	if cfg.FPS <= 0 || cfg.Speed <= 0 {
		return nil, fmt.Errorf("demo: fps %v and speed %v must be positive", cfg.FPS, cfg.Speed)
	}
	if cfg.Players < 2 || cfg.Players > 12 {
		return nil, fmt.Errorf("demo: %d players, want 2 to 12", cfg.Players)
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Source{ctx: ctx, cfg: cfg, log: log, tick: time.NewTicker(time.Duration(float64(time.Second) / cfg.FPS))}
	if err := s.nextMatch(); err != nil {
		s.tick.Stop()
		return nil, err
	}
	return s, nil
}

// Watch implements table.Watched: the loop tells the demo how its
// calibration goes, so that a seed whose preamble did not calibrate is
// skipped and the preamble is not played faster than the calibrator can
// see it.
func (s *Source) Watch(status func() table.Status) { s.status = status }

func (s *Source) calibrated() bool { return s.status != nil && s.status().Calibrated }

// Settings implements table.MatchSettings: the simulated match's.
func (s *Source) Settings() (referee.Settings, bool) {
	if len(s.events) == 0 || s.events[0].Settings == nil {
		return referee.Settings{}, false
	}
	return *s.events[0].Settings, true
}

// Match is the match of the last frame (1, 2, ...) and its seed.
func (s *Source) Match() (int, uint64) { return s.match, s.seed }

// Truth is where the scene put the cards in the last frame.
func (s *Source) Truth() []scene.CardTruth { return s.truth }

// Close stops the clock.
func (s *Source) Close() error {
	s.tick.Stop()
	return nil
}

func (s *Source) nextMatch() error {
	s.match++
	s.seed = s.cfg.Seed + uint64(s.match-1)
	cfg := s.cfg
	var events []sim.Event
	if _, err := sim.Run(sim.Config{Players: cfg.Players, Seed: s.seed, Match: true, ErrorRate: cfg.ErrorRate, Deadlock: cfg.Deadlock},
		func(e sim.Event) error { events = append(events, e); return nil }); err != nil {
		return fmt.Errorf("demo match %d: %w", s.match, err)
	}
	if len(events) == 0 || events[0].Kind != sim.EvMatch || events[0].Settings == nil {
		return fmt.Errorf("demo match %d: the timeline does not open with the match", s.match)
	}
	sc, err := scene.New(cfg.Scene, referee.DefaultPlayers(cfg.Players), s.seed)
	if err != nil {
		return err
	}
	s.events, s.applied, s.sc = events, 0, sc
	s.clock = float64(sc.Start())
	s.fresh = true
	s.last = time.Now()
	s.log.Info("demo match begins", slog.Int("match", s.match), slog.Uint64("seed", s.seed))
	return nil
}

// Next renders the next frame once the clock ticks.
func (s *Source) Next(dst *gocv.Mat) (table.Shot, error) {
	if !s.fresh {
		select {
		case <-s.tick.C:
		case <-s.ctx.Done():
			return table.Shot{}, s.ctx.Err()
		}
		now := time.Now()
		step := float64(now.Sub(s.last)) / float64(time.Millisecond) * s.cfg.Speed
		s.last = now
		if !s.calibrated() {
			step = min(step, calStepMS)
		}
		s.clock += step
	}
	shown := int64(s.clock)
	switch {
	case s.fresh:
	case s.calibrated():
		s.failed = 0
	case shown >= 0:
		// The preamble is over and the loop still calibrates.
		s.failed++
		s.log.Warn("demo: the table did not calibrate; trying the next seed", slog.Int("match", s.match), slog.Uint64("seed", s.seed))
		if s.failed >= maxCalFailures {
			return table.Shot{}, fmt.Errorf("%w: %d in a row (the last seed %d)", ErrNotCalibrated, s.failed, s.seed)
		}
		if err := s.nextMatch(); err != nil {
			return table.Shot{}, err
		}
		return s.Next(dst)
	}
	// The scene needs events up to a lookahead past what it shows: a card
	// leaves the player's hand before it lands. The match is set up
	// before the preamble, so that spectators see the players while the
	// table is calibrated.
	look := s.sc.Lookahead()
	for s.applied < len(s.events) && (s.applied == 0 || s.events[s.applied].TimeMS <= shown+look) {
		if err := s.sc.Apply(s.events[s.applied]); err != nil {
			return table.Shot{}, fmt.Errorf("demo match %d: %w", s.match, err)
		}
		s.applied++
	}
	if s.applied == len(s.events) && shown > s.events[len(s.events)-1].TimeMS+5000 {
		s.log.Info("demo match over", slog.Int("match", s.match), slog.Uint64("seed", s.seed))
		if err := s.nextMatch(); err != nil {
			return table.Shot{}, err
		}
		return s.Next(dst)
	}
	truth, err := s.sc.Render(shown, dst)
	if err != nil {
		return table.Shot{}, err
	}
	s.truth = truth
	shot := table.Shot{TimeMS: shown, NewTable: s.fresh, Caption: Caption}
	s.fresh = false
	return shot, nil
}
