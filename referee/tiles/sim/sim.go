// Package sim plays whole rounds and matches of the tile game (rulebook
// 002) with bot players on a discrete-event clock, by the full model
// (tiles.Round). Its timeline of physical actions and its result are the
// ground truth for tests: the observed model, fed what a camera would see
// of the timeline, must reach the same points.
package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"ligretto/referee/tiles"
)

// BoardKind chooses the board of each round.
type BoardKind string

// The boards the simulator lays out.
const (
	BoardDefault BoardKind = "default" // the default parts (tiles.DefaultParts)
	BoardRandom  BoardKind = "random"  // seeded random parts, new each round
)

// Config says what to simulate.
type Config struct {
	Players   int       // 2..4
	Seed      uint64    // everything follows from it
	Rounds    int       // rounds in the match; 0 means 6 (T6b)
	ErrorRate float64   // chance that a bot's turn is a wrong play on purpose, 0..1
	Board     BoardKind // "" means default
	// MarkedStarts puts the stones on the suggested starting places every
	// round instead of seeded random fields.
	MarkedStarts bool
	Strict       bool // a swapped card is a fault (T2e)
}

// Validate checks the config.
func (c Config) Validate() error {
	if _, _, err := tiles.PartsFor(c.Players); err != nil {
		return err
	}
	switch {
	case c.Rounds < 0:
		return fmt.Errorf("%w: rounds %d must not be negative", tiles.ErrInvalid, c.Rounds)
	case c.ErrorRate < 0 || c.ErrorRate > 1:
		return fmt.Errorf("%w: error rate %v must be within 0..1", tiles.ErrInvalid, c.ErrorRate)
	case c.Board != "" && c.Board != BoardDefault && c.Board != BoardRandom:
		return fmt.Errorf("%w: board %q (want default or random)", tiles.ErrInvalid, c.Board)
	}
	return nil
}

// Injected is a wrong play a bot made on purpose.
type Injected struct {
	Round  int           `json:"round"`
	TimeMS int64         `json:"t_ms"`
	Player string        `json:"player"`
	Rule   tiles.Rule    `json:"rule"`
	Fields []tiles.Field `json:"fields"`
}

// Result is result.json: the match result plus what only the simulator knows.
type Result struct {
	tiles.MatchResult
	Seed     uint64     `json:"seed"`
	Injected []Injected `json:"injected"` // wrong plays made on purpose
	Lays     int        `json:"lays"`     // cards laid
	Jokers   int        `json:"jokers"`   // jokers laid
	EndMS    int64      `json:"end_ms"`   // the clock when the match ended
}

// ErrRunaway means a round did not end within the event budget: a bug.
var ErrRunaway = errors.New("round did not end")

// maxEventsPerRound bounds a round; real rounds take a few hundred.
const maxEventsPerRound = 100_000

// Run plays the match, passing every timeline event to emit as it
// happens. An error from emit stops the run and is returned.
func Run(cfg Config, emit func(Event) error) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	players := tiles.DefaultPlayers(cfg.Players)
	m, err := tiles.NewMatch(players, tiles.Settings{Rounds: cfg.Rounds, StrictOrientation: cfg.Strict})
	if err != nil {
		return Result{}, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7115))
	s := &sim{cfg: cfg, rng: rng, emit: emit, m: m, bots: newBots(m.Names(), rng)}
	settings := m.Settings()
	if err := s.send(Event{Kind: EvMatch, Players: players, Settings: &settings}); err != nil {
		return Result{}, err
	}
	for !m.Over() {
		res, err := s.round(len(m.Rounds()) + 1)
		if err != nil {
			return Result{}, err
		}
		if err := m.Record(res); err != nil {
			return Result{}, err
		}
		s.clock += 15000 // checking, scoring, gathering and shuffling
	}
	out := Result{MatchResult: m.Result(), Seed: cfg.Seed, Injected: s.injected, Lays: s.lays, Jokers: s.jokers, EndMS: s.clock}
	if out.Injected == nil {
		out.Injected = []Injected{}
	}
	return out, s.send(Event{Kind: EvMatchEnd, Totals: out.Totals, Winner: out.Winner})
}

// bot is one simulated player: how fast and how attentive.
type bot struct {
	name      string
	judgeMS   float64 // mean time to turn a card up and judge it
	layMS     float64 // mean time to lay it and move the stone
	attention float64 // chance of seeing a place where the card fits
}

func newBots(names []string, rng *rand.Rand) []bot {
	bs := make([]bot, len(names))
	for i, n := range names {
		bs[i] = bot{name: n, judgeMS: 1500 + 1500*rng.Float64(), layMS: 1200 + 800*rng.Float64(), attention: 0.85 + 0.15*rng.Float64()}
	}
	return bs
}

type sim struct {
	cfg      Config
	rng      *rand.Rand
	emit     func(Event) error
	m        *tiles.Match
	bots     []bot
	clock    int64
	injected []Injected
	lays     int
	jokers   int
}

func (s *sim) send(e Event) error {
	if e.TimeMS == 0 {
		e.TimeMS = s.clock
	}
	if s.emit == nil {
		return nil
	}
	return s.emit(e)
}

// jitter scales a mean duration by a factor in [0.6, 1.6).
func (s *sim) jitter(mean float64) int64 { return int64(mean * (0.6 + s.rng.Float64())) }

// setup lays out the round's board and stones.
func (s *sim) setup() (tiles.Layout, [tiles.Stones]tiles.Field, error) {
	var l tiles.Layout
	var err error
	if s.cfg.Board == BoardRandom {
		l, err = tiles.GenerateLayout(s.cfg.Players, s.rng)
	} else {
		l, err = tiles.DefaultLayout(s.cfg.Players)
	}
	if err != nil {
		return l, [tiles.Stones]tiles.Field{}, err
	}
	b, err := tiles.NewBoard(l)
	if err != nil {
		return l, [tiles.Stones]tiles.Field{}, err
	}
	if s.cfg.MarkedStarts {
		return l, b.MarkedStarts(), nil
	}
	return l, b.RandomStarts(s.rng), nil
}

// round plays one round to its stop or deadlock.
func (s *sim) round(n int) (tiles.RoundResult, error) {
	l, starts, err := s.setup()
	if err != nil {
		return tiles.RoundResult{}, err
	}
	r, err := tiles.Deal(s.m, l, starts, s.rng)
	if err != nil {
		return tiles.RoundResult{}, err
	}
	seats := make([]tiles.Seat, 0, len(s.bots))
	for _, b := range s.bots {
		seat, _ := r.Seat(b.name)
		seats = append(seats, seat)
	}
	if err := s.send(Event{Kind: EvRound, Round: n, Layout: &l, Stones: starts[:], Seats: seats}); err != nil {
		return tiles.RoundResult{}, err
	}
	start := s.clock + 1500 // "Ligretto Start"
	t := &turns{sim: s, r: r, round: n, next: make([]int64, len(s.bots)), misses: make([]int, len(s.bots))}
	for i, b := range s.bots {
		t.next[i] = start + s.jitter(b.judgeMS)
	}
	for events := 0; !r.Ended(); events++ {
		if events > maxEventsPerRound {
			return tiles.RoundResult{}, fmt.Errorf("%w: round %d after %d events (seed %d)", ErrRunaway, n, events, s.cfg.Seed)
		}
		i := 0
		for j := range t.next {
			if t.next[j] < t.next[i] {
				i = j
			}
		}
		s.clock = t.next[i]
		if err := t.act(i); err != nil {
			return tiles.RoundResult{}, fmt.Errorf("round %d at %d ms: %w", n, s.clock, err)
		}
	}
	res, err := r.Result(s.m)
	if err != nil {
		return tiles.RoundResult{}, err
	}
	return res, s.send(Event{Kind: EvRoundEnd, Round: n, Result: &res})
}
