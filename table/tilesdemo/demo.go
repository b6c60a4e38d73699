// Package tilesdemo is the tile game's demo table: simulated tile matches
// (referee/tiles/sim, bots erring now and then) rendered live by
// render/tiles as a camera above the table sees them, one match after
// another, each frame through JPEG as a camera or a video delivers it. It
// is a table.Source for `ligretto serve --game tiles --source demo`;
// table.Paced plays it at the table's own speed.
package tilesdemo

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
	"ligretto/table"
)

// Caption is written on the demo's frames, so that nobody takes it for a
// real table.
const Caption = "DEMO: simulated tile table"

// Config says what the demo plays.
type Config struct {
	Players int     // 2..4, the simulator's P1.. with their frames
	Seed    uint64  // the first match's; each next match takes the next seed
	Rounds  int     // rounds a match (T6b); 0 means 6
	Errors  float64 // chance that a bot's turn is a wrong play on purpose
	// FPS is the frames rendered per second of table time: fewer than a
	// camera's, so that rendering, reading and encoding keep up.
	FPS   float64
	Scene scene.Config
	Log   *slog.Logger // nil: none
}

// DefaultConfig is 2 players from seed 3, bots erring 3%, 15 frames a
// second.
func DefaultConfig() Config {
	return Config{Players: 2, Seed: 3, Errors: 0.03, FPS: 15, Scene: scene.DefaultConfig()}
}

// ErrConfig means the demo's configuration is unusable.
var ErrConfig = errors.New("tilesdemo: bad configuration")

// Source renders the matches frame by frame. It is not safe for
// concurrent use.
type Source struct {
	cfg   Config
	log   *slog.Logger
	match int
	seed  uint64
	sc    *rtiles.Scene
	clip  scene.Clip
	k     int   // the next frame of the clip
	base  int64 // the source's time at the clip's first frame
	fresh bool  // the next frame shows a new table
}

// New checks cfg and sets up the first match.
func New(cfg Config) (*Source, error) {
	sim := tilesim.Config{Players: cfg.Players, Seed: cfg.Seed, Rounds: cfg.Rounds, ErrorRate: cfg.Errors}
	if err := sim.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if !(cfg.FPS > 0 && cfg.FPS <= 60) {
		return nil, fmt.Errorf("%w: %v frames a second (want more than 0, at most 60)", ErrConfig, cfg.FPS)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Source{cfg: cfg, log: cfg.Log}
	return s, s.nextMatch()
}

// Match returns the match being shown (1, 2, ..) and its seed.
func (s *Source) Match() (int, uint64) { return s.match, s.seed }

// nextMatch simulates the next match and sets its scene up.
func (s *Source) nextMatch() error {
	s.base += int64(float64(s.k) * 1000 / s.cfg.FPS)
	s.match++
	s.seed = s.cfg.Seed + uint64(s.match-1)
	var events []tilesim.Event
	if _, err := tilesim.Run(tilesim.Config{Players: s.cfg.Players, Seed: s.seed, Rounds: s.cfg.Rounds, ErrorRate: s.cfg.Errors},
		func(e tilesim.Event) error { events = append(events, e); return nil }); err != nil {
		return fmt.Errorf("tile demo match %d: %w", s.match, err)
	}
	sc, err := rtiles.New(s.cfg.Scene, tiles.DefaultPlayers(s.cfg.Players), s.seed)
	if err != nil {
		return fmt.Errorf("tile demo match %d: %w", s.match, err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			return fmt.Errorf("tile demo match %d: %w", s.match, err)
		}
	}
	clip, err := sc.Clip(s.cfg.FPS)
	if err != nil {
		return fmt.Errorf("tile demo match %d: %w", s.match, err)
	}
	s.sc, s.clip, s.k, s.fresh = sc, clip, 0, true
	s.log.Info("tile demo match begins", slog.Int("match", s.match), slog.Uint64("seed", s.seed), slog.Int("frames", clip.Frames))
	return nil
}

// Next renders the next frame; after a match's last frame the next
// match begins, and its first frame says NewTable.
func (s *Source) Next(dst *gocv.Mat) (table.Shot, error) {
	if s.k >= s.clip.Frames {
		if err := s.nextMatch(); err != nil {
			return table.Shot{}, err
		}
	}
	if _, err := s.sc.Render(s.clip.Time(s.k), dst); err != nil {
		return table.Shot{}, fmt.Errorf("tile demo match %d, frame %d: %w", s.match, s.k, err)
	}
	if err := throughJPEG(dst); err != nil {
		return table.Shot{}, fmt.Errorf("tile demo match %d, frame %d: %w", s.match, s.k, err)
	}
	shot := table.Shot{TimeMS: s.base + int64(float64(s.k)*1000/s.cfg.FPS), NewTable: s.fresh, Caption: Caption}
	s.k++
	s.fresh = false
	return shot, nil
}

// throughJPEG compresses img as JPEG and decodes it back in place: the
// camera reads pictures as a camera or a Motion JPEG video gives them,
// not the renderer's exact pixels.
func throughJPEG(img *gocv.Mat) error {
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, *img)
	if err != nil {
		return fmt.Errorf("JPEG: %w", err)
	}
	defer buf.Close()
	back, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
	if err != nil {
		return fmt.Errorf("JPEG: %w", err)
	}
	defer back.Close()
	if back.Empty() {
		return errors.New("JPEG: nothing decoded")
	}
	back.CopyTo(img)
	return nil
}

// Close implements table.Source.
func (s *Source) Close() error { return nil }
