package sim_test

import (
	"testing"

	"ligretto/referee/tiles"
	"ligretto/referee/tiles/sim"
)

// BenchmarkTilesSimulateRound reports simulated rounds per second.
func BenchmarkTilesSimulateRound(b *testing.B) {
	for _, n := range []int{2, 4} {
		b.Run(map[int]string{2: "players=2", 4: "players=4"}[n], func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := sim.Run(sim.Config{Players: n, Seed: uint64(i), Rounds: 1}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rounds/s")
		})
	}
}

// BenchmarkTilesObservedApply reports observations per second through the
// observed model.
func BenchmarkTilesObservedApply(b *testing.B) {
	var obs []tiles.Observation
	if _, err := sim.Run(sim.Config{Players: 4, Seed: 1, Rounds: 6}, func(e sim.Event) error {
		obs = append(obs, e.Observations()...)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	applied := 0
	for b.Loop() {
		r := tiles.New()
		for _, o := range obs {
			if _, err := r.Apply(o); err != nil {
				b.Fatal(err)
			}
		}
		applied += len(obs)
	}
	b.ReportMetric(float64(applied)/b.Elapsed().Seconds(), "obs/s")
}
