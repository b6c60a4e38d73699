package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"ligretto/referee"
	"ligretto/referee/sim"
)

// checker follows a simulated match event by event: it replays the
// timeline into the full model, checks the invariants at every moment, and
// feeds what a camera would see into the observed model.
type checker struct {
	t        *testing.T
	cfg      sim.Config
	replay   sim.Replayer
	observed *referee.Referee
	verdicts []referee.Verdict
	rounds   int
}

func newChecker(t *testing.T, cfg sim.Config) *checker {
	return &checker{t: t, cfg: cfg, observed: referee.New()}
}

func (c *checker) event(e sim.Event) error {
	if err := c.replay.Apply(e); err != nil {
		return err
	}
	if r := c.replay.Round(); r != nil && e.Kind != sim.EvRound {
		if err := invariants(r, e, c.cfg.ErrorRate == 0); err != nil {
			return err
		}
	}
	if e.Kind == sim.EvRoundEnd {
		c.rounds++
		// C14, C15 on the simulator's own result.
		for name, p := range e.Result.Players {
			if p.Score != p.Centre-2*p.StackLeft {
				return fmt.Errorf("C14: %s scored %d from %+v", name, p.Score, p)
			}
		}
		if v := e.Result.CheckConsistency(); v != nil {
			return fmt.Errorf("C15 on the full model: %v", v)
		}
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

// invariants: every pile is legal (C6-C8, C15) when nobody blunders, and
// every player's 40 cards are somewhere, each exactly once (C1, C4, C11).
func invariants(r *referee.Round, e sim.Event, legal bool) error {
	if err := r.Audit(); err != nil {
		return err
	}
	if legal && e.Kind == sim.EvPlay {
		for _, p := range r.Piles() {
			if !p.Legal() {
				return fmt.Errorf("pile %d is illegal: %v", p.ID, p.Cards)
			}
		}
	}
	return nil
}

// TestSim_Properties plays 10,000 seeded rounds over 2, 3, 4, 8 and 12
// players, both deadlock rules (C17), advanced on and off (C18), and checks
// at every moment: piles legal, cards accounted for (C1, C11); every round
// scored by C14 and consistent by C15; and the observed model, fed only
// what a camera sees, agrees with the full model on every score and total.
func TestSim_Properties(t *testing.T) {
	const roundsPerConfig = 5
	target := 10000
	if testing.Short() {
		target = 1000
	}
	playerCounts := []int{2, 3, 4, 8, 12}
	rules := []referee.DeadlockRule{referee.DeadlockLeader, referee.DeadlockRestart}
	total, seed := 0, uint64(1)
	stats := map[string]int{}
	for total < target {
		for _, n := range playerCounts {
			for _, rule := range rules {
				for _, adv := range []bool{false, true} {
					cfg := sim.Config{Players: n, Seed: seed, Rounds: roundsPerConfig, Deadlock: rule, Advanced: adv}
					seed++
					c := newChecker(t, cfg)
					res, err := sim.Run(cfg, c.event)
					if err != nil {
						t.Fatalf("%+v: %v", cfg, err)
					}
					total += c.rounds
					c.compare(res)
					for _, v := range c.verdicts {
						if v.Status == referee.StatusViolation || v.Status == referee.StatusWarning {
							t.Fatalf("%+v: a legal play was judged %s: %s", cfg, v.Status, v.Reason)
						}
						stats[string(v.Status)]++
					}
					for _, r := range res.Rounds {
						if r.Deadlock {
							stats["deadlock rounds"]++
						}
					}
					stats["restarts"] += res.Restarts
				}
			}
		}
	}
	t.Logf("%d rounds checked; %v", total, stats)
	if stats["deadlock rounds"] == 0 || stats["restarts"] == 0 {
		t.Errorf("no deadlock was exercised (%v): the C17 paths went untested", stats)
	}
}

// compare checks that the observed model reached the simulator's result.
func (c *checker) compare(res sim.Result) {
	c.t.Helper()
	got := c.observed.Match()
	if got == nil {
		c.t.Fatalf("%+v: the observed model has no match", c.cfg)
	}
	if !reflect.DeepEqual(got.Totals, res.Totals) || !reflect.DeepEqual(got.Winner, res.Winner) || got.Over != res.Over {
		c.t.Fatalf("%+v: observed totals %v winner %v, simulated %v winner %v", c.cfg, got.Totals, got.Winner, res.Totals, res.Winner)
	}
	for i, r := range res.Rounds {
		o := got.Rounds[i]
		if !reflect.DeepEqual(o.Players, r.Players) || !reflect.DeepEqual(o.StoppedBy, r.StoppedBy) || o.Deadlock != r.Deadlock {
			c.t.Fatalf("%+v round %d: observed %+v, simulated %+v", c.cfg, i+1, o, r)
		}
		if len(o.Piles) != len(r.Piles) {
			c.t.Fatalf("round %d: observed %d piles, simulated %d", i+1, len(o.Piles), len(r.Piles))
		}
		for j := range r.Piles {
			if o.Piles[j] != r.Piles[j] {
				c.t.Fatalf("round %d pile %d: observed %+v, simulated %+v", i+1, j, o.Piles[j], r.Piles[j])
			}
		}
	}
}

// TestSim_InjectedErrorsAreCaught: with bots that blunder on purpose, the
// observed model reports every injected illegal play with the rule the
// full model named (C6, C7, C8), and nothing else as a violation.
func TestSim_InjectedErrorsAreCaught(t *testing.T) {
	injected, caught := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		cfg := sim.Config{Players: []int{2, 4, 8, 12}[seed%4], Seed: seed, Rounds: 3, ErrorRate: 0.05}
		c := newChecker(t, cfg)
		var want []referee.Rule
		res, err := sim.Run(cfg, func(e sim.Event) error {
			if e.Kind == sim.EvPlay && e.Violation != nil {
				want = append(want, e.Violation.Rule)
			}
			return c.event(e)
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []referee.Rule
		for _, v := range c.verdicts {
			if v.Status == referee.StatusViolation {
				got = append(got, v.Rule)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: violations reported %v, injected %v", seed, got, want)
		}
		if len(res.Injected) != len(want) {
			t.Fatalf("seed %d: result lists %d injected, timeline %d", seed, len(res.Injected), len(want))
		}
		injected += len(want)
		caught += len(got)
		c.compare(res)
	}
	if injected < 50 {
		t.Fatalf("only %d illegal plays injected: the test proves little", injected)
	}
	t.Logf("%d illegal plays injected, %d reported with the right rule", injected, caught)
}

func TestSim_ConfigErrors(t *testing.T) {
	for _, cfg := range []sim.Config{{Players: 1}, {Players: 13}, {Players: 4, ErrorRate: 2}, {Players: 4, Rounds: 2, Match: true}, {Players: 4, Deadlock: "sulk"}} {
		if _, err := sim.Run(cfg, nil); !errors.Is(err, referee.ErrInvalid) {
			t.Errorf("%+v: got %v, want ErrInvalid", cfg, err)
		}
	}
}

func TestSim_DeterministicBySeed(t *testing.T) {
	run := func(seed uint64) []sim.Event {
		var evs []sim.Event
		if _, err := sim.Run(sim.Config{Players: 4, Seed: seed, Rounds: 2}, func(e sim.Event) error { evs = append(evs, e); return nil }); err != nil {
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

// TestSim_PlaysWaitToSeeTheTop: no card, legal or an injected foul (C7,
// C8), lands on a pile less than 600 ms after its last card: a player
// must see a top before playing on it, and a foul raced onto a card that
// landed a moment ago is one neither the player nor a camera could see.
func TestSim_PlaysWaitToSeeTheTop(t *testing.T) {
	const seeMS = 600
	fouls := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := sim.Config{Players: []int{2, 4, 8, 12}[seed%4], Seed: seed, ErrorRate: 0.05}
		landed := map[int]int64{}
		_, err := sim.Run(cfg, func(e sim.Event) error {
			if e.Kind == sim.EvRound {
				clear(landed)
			}
			if e.Kind != sim.EvPlay {
				return nil
			}
			if at, ok := landed[e.Pile]; ok && !e.NewPile && e.TimeMS-at < seeMS {
				t.Errorf("seed %d: %v on pile %d %d ms after its last card (violation %v)", seed, e.Card.Face, e.Pile, e.TimeMS-at, e.Violation)
			}
			if e.Violation != nil && !e.NewPile {
				fouls++
			}
			landed[e.Pile] = e.TimeMS
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if fouls < 30 {
		t.Fatalf("only %d fouls on existing piles: the test proves little", fouls)
	}
}
