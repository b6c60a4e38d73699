package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"ligretto/referee/tiles"
	"ligretto/referee/tiles/sim"
)

// checker follows a simulated match event by event: it replays the
// timeline into the full model, checks the board at every moment, and
// feeds what a camera would see into the observed model.
type checker struct {
	cfg      sim.Config
	replay   sim.Replayer
	observed *tiles.Referee
	verdicts []tiles.Verdict
	injected []tiles.Rule // from the timeline, in order
	rounds   int
	events   int
}

func newChecker(cfg sim.Config) *checker { return &checker{cfg: cfg, observed: tiles.New()} }

func (c *checker) event(e sim.Event) error {
	c.events++
	if err := c.replay.Apply(e); err != nil {
		return err
	}
	if r := c.replay.Round(); r != nil {
		if err := r.Audit(); err != nil {
			return fmt.Errorf("at %d ms (%s): %w", e.TimeMS, e.Kind, err)
		}
		if c.cfg.ErrorRate == 0 {
			if err := r.Table().CheckBoard(); err != nil {
				return fmt.Errorf("at %d ms (%s): %w", e.TimeMS, e.Kind, err)
			}
		}
	}
	if e.Violation != nil {
		c.injected = append(c.injected, e.Violation.Rule)
	}
	if e.Kind == sim.EvRoundEnd {
		c.rounds++
	}
	for _, o := range e.Observations() {
		v, err := c.observed.Apply(o)
		if err != nil {
			return fmt.Errorf("observed model refused %+v: %w", o, err)
		}
		c.verdicts = append(c.verdicts, v)
	}
	return nil
}

// compare checks that the observed model reached the simulator's result.
func (c *checker) compare(res sim.Result) error {
	got := c.observed.Match()
	if got == nil {
		return errors.New("the observed model has no match")
	}
	if !reflect.DeepEqual(got.Totals, res.Totals) || !reflect.DeepEqual(got.Winner, res.Winner) || got.Over != res.Over {
		return fmt.Errorf("observed totals %v winner %v, simulated %v winner %v", got.Totals, got.Winner, res.Totals, res.Winner)
	}
	for i, r := range res.Rounds {
		if o := got.Rounds[i]; !reflect.DeepEqual(o, r) {
			return fmt.Errorf("round %d: observed %+v, simulated %+v", i+1, o, r)
		}
	}
	return nil
}

// violations lists the rules the observed model called, in order.
func (c *checker) violations() []tiles.Rule {
	var out []tiles.Rule
	for _, v := range c.verdicts {
		if v.Status == tiles.StatusViolation {
			out = append(out, v.Rule)
		}
	}
	return out
}

// TestTilesSim_Properties plays 10,000 seeded rounds over 2, 3 and 4
// players, default and random boards, marked and random starts, and
// checks at every event: every card accounted for and the board legal
// (T1-T4); and that the observed model, fed only what a camera sees,
// calls no play wrong and scores every round as the simulator did (T5, T6).
func TestTilesSim_Properties(t *testing.T) {
	target := 10000
	if testing.Short() {
		target = 1000
	}
	total, seed := 0, uint64(1)
	stats := map[string]int{}
	for total < target {
		for _, n := range []int{2, 3, 4} {
			for _, board := range []sim.BoardKind{sim.BoardDefault, sim.BoardRandom} {
				cfg := sim.Config{Players: n, Seed: seed, Rounds: 5, Board: board, MarkedStarts: seed%4 == 0}
				seed++
				c := newChecker(cfg)
				res, err := sim.Run(cfg, c.event)
				if err != nil {
					t.Fatalf("%+v: %v", cfg, err)
				}
				if err := c.compare(res); err != nil {
					t.Fatalf("%+v: %v", cfg, err)
				}
				if v := c.violations(); len(v) > 0 {
					t.Fatalf("%+v: legal plays judged wrong: %v", cfg, v)
				}
				total += c.rounds
				stats["jokers"] += res.Jokers
				stats["lays"] += res.Lays
				for _, r := range res.Rounds {
					if r.Deadlock {
						stats["deadlocks"]++
					}
					for _, p := range r.Players {
						if p.TakenBack > 0 {
							stats["take-backs"]++
						}
					}
				}
				for _, v := range c.verdicts {
					if v.Rule == tiles.T3b && v.Status == tiles.StatusOK {
						stats["relocations"]++
					}
				}
			}
		}
	}
	t.Logf("%d rounds checked; %v", total, stats)
	for _, k := range []string{"jokers", "deadlocks", "take-backs", "relocations"} {
		if stats[k] == 0 {
			t.Errorf("no %s in %d rounds: that path went untested", k, total)
		}
	}
}

// TestTilesSim_InjectedWrongPlaysAreCalled: over 10,000 rounds with bots
// that lay wrongly on purpose, the observed model calls every injected
// wrong play with the rule the simulator marked, and nothing else; every
// card stays accounted for, and the points still agree.
func TestTilesSim_InjectedWrongPlaysAreCalled(t *testing.T) {
	target := 10000
	if testing.Short() {
		target = 1000
	}
	perRule := map[tiles.Rule]int{}
	rounds := 0
	for seed := uint64(1); rounds < target; seed++ {
		cfg := sim.Config{Players: 2 + int(seed%3), Seed: seed, Rounds: 3, ErrorRate: 0.03, Board: sim.BoardRandom}
		c := newChecker(cfg)
		res, err := sim.Run(cfg, c.event)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		if got := c.violations(); !reflect.DeepEqual(got, c.injected) {
			t.Fatalf("seed %d: called %v, injected %v", seed, got, c.injected)
		}
		if len(res.Injected) != len(c.injected) {
			t.Fatalf("seed %d: result lists %d injected, timeline %d", seed, len(res.Injected), len(c.injected))
		}
		if err := c.compare(res); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, r := range c.injected {
			perRule[r]++
		}
		rounds += c.rounds
	}
	t.Logf("%d rounds; wrong plays injected and called: %v", rounds, perRule)
	for _, r := range []tiles.Rule{tiles.T2a, tiles.T2b, tiles.T2c, tiles.T2d, tiles.T3a} {
		if perRule[r] < 20 {
			t.Errorf("only %d wrong plays of %s: the test proves little", perRule[r], r)
		}
	}
}

// TestTilesSim_T5b_WrongPlayersScoreNothing: every player the simulator
// made lay wrongly scores 0 and puts nothing aside that round.
func TestTilesSim_T5b_WrongPlayersScoreNothing(t *testing.T) {
	checked := 0
	for seed := uint64(1); seed <= 40; seed++ {
		res, err := sim.Run(sim.Config{Players: 4, Seed: seed, Rounds: 2, ErrorRate: 0.05}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range res.Injected {
			p := res.Rounds[in.Round-1].Players[in.Player]
			if p.Points != 0 || p.Aside != 0 || !p.Fault {
				t.Fatalf("seed %d: %s laid wrongly in round %d but scored %+v", seed, in.Player, in.Round, p)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d wrong plays", checked)
	}
}

func TestTilesSim_ConfigErrors(t *testing.T) {
	for _, cfg := range []sim.Config{{Players: 1}, {Players: 5}, {Players: 3, ErrorRate: 2}, {Players: 3, Rounds: -1}, {Players: 3, Board: "hex"}} {
		if _, err := sim.Run(cfg, nil); !errors.Is(err, tiles.ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", cfg, err)
		}
	}
}

func TestTilesSim_DeterministicBySeed(t *testing.T) {
	run := func(seed uint64) []sim.Event {
		var evs []sim.Event
		if _, err := sim.Run(sim.Config{Players: 3, Seed: seed, Rounds: 2, ErrorRate: 0.02, Board: sim.BoardRandom}, func(e sim.Event) error {
			evs = append(evs, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return evs
	}
	a, b, c := run(7), run(7), run(8)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two timelines")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("two seeds gave one timeline")
	}
}

// TestTilesSim_HumanSpeed: time runs forward, and each bot takes at least
// half a second between two of its own actions; a round of 15 cards each
// takes minutes, not milliseconds.
func TestTilesSim_HumanSpeed(t *testing.T) {
	last := map[string]int64{}
	var prev int64
	var roundStart, longest int64
	_, err := sim.Run(sim.Config{Players: 4, Seed: 3, Rounds: 3}, func(e sim.Event) error {
		if e.TimeMS < prev {
			t.Fatalf("time ran back from %d to %d ms", prev, e.TimeMS)
		}
		prev = e.TimeMS
		switch e.Kind {
		case sim.EvRound:
			clear(last)
			roundStart = e.TimeMS
		case sim.EvRoundEnd:
			longest = max(longest, e.TimeMS-roundStart)
		case sim.EvDiscard, sim.EvLay, sim.EvJoker:
			if at, ok := last[e.Player]; ok && e.TimeMS-at < 500 {
				t.Fatalf("%s acted %d ms after its last action", e.Player, e.TimeMS-at)
			}
			last[e.Player] = e.TimeMS
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if longest < 45_000 {
		t.Fatalf("the longest round took %d ms: not human speed", longest)
	}
}
