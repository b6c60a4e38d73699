package sim_test

import (
	"testing"

	"ligretto/referee"
	"ligretto/referee/sim"
)

// BenchmarkSimulateRound reports simulated rounds per second for 4 and 12 players.
func BenchmarkSimulateRound(b *testing.B) {
	for _, n := range []int{4, 12} {
		b.Run(map[int]string{4: "players=4", 12: "players=12"}[n], func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := sim.Run(sim.Config{Players: n, Seed: uint64(i), Deadlock: referee.DeadlockRestart}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
		})
	}
}

// BenchmarkObservedApply reports observations applied per second by the
// observed model, over the visible effects of simulated rounds.
func BenchmarkObservedApply(b *testing.B) {
	var obs []referee.Observation
	_, err := sim.Run(sim.Config{Players: 8, Seed: 1, Rounds: 20}, func(e sim.Event) error {
		obs = append(obs, e.Observations()...)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	applied := 0
	for b.Loop() {
		r := referee.New()
		for _, o := range obs {
			if _, err := r.Apply(o); err != nil {
				b.Fatal(err)
			}
		}
		applied += len(obs)
	}
	b.ReportMetric(float64(applied)/b.Elapsed().Seconds(), "obs/s")
}
