// Package sim plays whole Ligretto rounds and matches with bot players on a
// discrete-event clock, by the full rules (referee.Round). Its timeline of
// physical actions and its result are the ground truth for every test and
// for the demo: the renderer turns the timeline into video, and the vision
// pipeline must recover the result from that video alone.
package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"ligretto/referee"
)

// Config says what to simulate.
type Config struct {
	Players   int                  // 2..12
	Seed      uint64               // everything follows from it
	Rounds    int                  // a fixed number of rounds; 0 with Match false means 1
	Match     bool                 // play to the target instead (C16)
	Target    int                  // 0 means 99
	Deadlock  referee.DeadlockRule // "" means leader (C17)
	Advanced  bool                 // C18
	ErrorRate float64              // chance that a bot's play is an illegal one, 0..1
	// MaxRestarts bounds fruitless restarts under the restart rule: after
	// that many in a row with no card played, the round ends in deadlock.
	// 0 means 3.
	MaxRestarts int
}

// Validate checks the config.
func (c Config) Validate() error {
	switch {
	case c.Players < 2 || c.Players > 12:
		return fmt.Errorf("%w: %d players: Ligretto takes 2 to 12 (C2)", referee.ErrInvalid, c.Players)
	case c.Rounds < 0:
		return fmt.Errorf("%w: rounds %d must not be negative", referee.ErrInvalid, c.Rounds)
	case c.Match && c.Rounds > 0:
		return fmt.Errorf("%w: choose a fixed number of rounds or a match to the target, not both", referee.ErrInvalid)
	case c.ErrorRate < 0 || c.ErrorRate > 1:
		return fmt.Errorf("%w: error rate %v must be within 0..1", referee.ErrInvalid, c.ErrorRate)
	case c.MaxRestarts < 0:
		return fmt.Errorf("%w: max restarts %d must not be negative", referee.ErrInvalid, c.MaxRestarts)
	}
	return c.settings().Validate()
}

func (c Config) settings() referee.Settings {
	s := referee.Settings{Target: c.Target, Deadlock: c.Deadlock, Advanced: c.Advanced, Rounds: c.Rounds}
	if !c.Match && c.Rounds == 0 {
		s.Rounds = 1
	}
	return s
}

// Injected is an illegal play a bot made on purpose.
type Injected struct {
	Round  int          `json:"round"`
	TimeMS int64        `json:"t_ms"`
	Player string       `json:"player"`
	Card   referee.Face `json:"card"`
	Pile   int          `json:"pile"`
	Rule   referee.Rule `json:"rule"`
}

// Result is result.json: the match result plus what only the simulator knows.
type Result struct {
	referee.MatchResult
	Seed     uint64     `json:"seed"`
	Restarts int        `json:"restarts"` // C17 restarts over the match
	Injected []Injected `json:"injected"` // illegal plays made on purpose
	Plays    int        `json:"plays"`    // cards played to the centre
	EndMS    int64      `json:"end_ms"`   // the clock when the match ended
}

// ErrRunaway means a round did not end within the event budget: a bug.
var ErrRunaway = errors.New("round did not end")

// maxEventsPerRound bounds a round; real rounds take a few hundred.
const maxEventsPerRound = 200_000

// Run plays the configured rounds or match, passing every timeline event to
// emit as it happens. An error from emit stops the run and is returned.
func Run(cfg Config, emit func(Event) error) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = 3
	}
	players := referee.DefaultPlayers(cfg.Players)
	m, err := referee.NewMatch(players, cfg.settings())
	if err != nil {
		return Result{}, err
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x11c7e770))
	s := &sim{cfg: cfg, rng: rng, emit: emit, names: m.Names()}
	s.bots = newBots(s.names, rng)
	if err := s.send(Event{Kind: EvMatch, Players: players, Settings: ptr(m.Settings())}); err != nil {
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
		s.clock += 8000 // counting and dealing the next round
	}
	out := Result{MatchResult: m.Result(), Seed: cfg.Seed, Restarts: s.restarts, Injected: s.injected, Plays: s.plays, EndMS: s.clock}
	if out.Injected == nil {
		out.Injected = []Injected{}
	}
	return out, s.send(Event{Kind: EvMatchEnd, Totals: out.Totals, Winner: out.Winner})
}

func ptr[T any](v T) *T { return &v }

// bot is one simulated player: how fast and how attentive.
type bot struct {
	name       string
	reactionMS float64 // mean time to see and make a play
	attention  float64 // chance of noticing a playable card at a glance
}

func newBots(names []string, rng *rand.Rand) []bot {
	bs := make([]bot, len(names))
	for i, n := range names {
		bs[i] = bot{name: n, reactionMS: 600 + 900*rng.Float64(), attention: 0.8 + 0.2*rng.Float64()}
	}
	return bs
}

type sim struct {
	cfg      Config
	rng      *rand.Rand
	emit     func(Event) error
	names    []string
	bots     []bot
	clock    int64
	restarts int
	plays    int
	injected []Injected
}

func (s *sim) send(e Event) error {
	e.TimeMS = s.clock
	if s.emit == nil {
		return nil
	}
	return s.emit(e)
}

// jitter scales a mean duration by a factor in [0.6, 1.6).
func (s *sim) jitter(mean float64) int64 { return int64(mean * (0.6 + s.rng.Float64())) }

// round plays one round to its stop or deadlock.
func (s *sim) round(n int) (referee.RoundResult, error) {
	r, err := referee.Deal(s.names, s.cfg.Advanced, s.rng)
	if err != nil {
		return referee.RoundResult{}, err
	}
	deal := make([]referee.Seat, len(s.names))
	for i, name := range s.names {
		deal[i], _ = r.Seat(name)
	}
	if err := s.send(Event{Kind: EvRound, Round: n, Seats: deal}); err != nil {
		return referee.RoundResult{}, err
	}
	start := s.clock + 1000 // "Ligretto!"
	next := make([]int64, len(s.bots))
	for i, b := range s.bots {
		next[i] = start + s.jitter(b.reactionMS)
	}
	t := &turns{sim: s, r: r, round: n, next: next, stopAt: -1, playedThisPass: map[string]bool{}, landed: map[int]int64{}}
	for events := 0; ; events++ {
		if events > maxEventsPerRound {
			return referee.RoundResult{}, fmt.Errorf("%w: round %d after %d events (seed %d)", ErrRunaway, n, events, s.cfg.Seed)
		}
		i := 0
		for j := range next {
			if next[j] < next[i] {
				i = j
			}
		}
		if t.stopAt >= 0 && t.stopAt <= next[i] {
			s.clock = t.stopAt
			if err := r.Stop(t.stopper); err != nil {
				return referee.RoundResult{}, fmt.Errorf("round %d: %w", n, err)
			}
			if err := s.send(Event{Kind: EvStop, Round: n, Player: t.stopper}); err != nil {
				return referee.RoundResult{}, err
			}
			break
		}
		s.clock = next[i]
		done, err := t.act(i)
		if err != nil {
			return referee.RoundResult{}, err
		}
		if done {
			break
		}
	}
	res := r.Result()
	return res, s.send(Event{Kind: EvRoundEnd, Round: n, Result: &res})
}
