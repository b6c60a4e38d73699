//go:build e2e

package tiles

import (
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
	"ligretto/table"
)

// TestLoop_T2b_CardBeforeItsStoneCameCalledWhenTheStoneStays: dev 965's
// second round, rendered as a camera sees it (15 frames/s, JPEG quality
// 90). P2 lays a card beside no stone (T2b, on purpose); 0.16 s later P1
// lays one that brings a stone beside it. The camera first sees P2's card
// 66 ms after P1's, so it is judged legal at that stone; but the stone
// stands where P1 put it, in plain sight, for 3 s, and never moves onto
// P2's card: P2's came first, and is called (T2b). Every call up to then
// is a wrong play the simulation made.
//
//	go test -tags e2e -run T2b_CardBeforeItsStoneCame -v ./table/tiles
func TestLoop_T2b_CardBeforeItsStoneCameCalledWhenTheStoneStays(t *testing.T) {
	cfg := tilesim.Config{Players: 4, Seed: 965, Rounds: 2, ErrorRate: 0.03}
	var events []tilesim.Event
	if _, err := tilesim.Run(cfg, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	card := []tiles.Field{{X: 9, Y: 8}, {X: 8, Y: 8}}
	k := slices.IndexFunc(events, func(e tilesim.Event) bool {
		return e.Round == 2 && e.Kind == tilesim.EvLay && e.Player == "P2" && slices.Equal(e.Fields, card)
	})
	r := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Round == 2 && e.Kind == tilesim.EvRound })
	if k < 0 || r < 0 || events[k].Violation == nil || events[k].Violation.Rule != tiles.T2b {
		t.Fatalf("seed 965 has no card beside no stone (T2b) by P2 on %v in round 2", card)
	}
	sceneCfg := scene.DefaultConfig()
	sceneCfg.Preamble = false
	sceneCfg.JPEGQuality = 90
	sc, err := rtiles.New(sceneCfg, events[0].Players, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	var vs []Verdict
	l, err := New(Config{Players: events[0].Players, Settings: tiles.Settings{Rounds: 1},
		OnVerdict: func(v Verdict) { vs = append(vs, v) }}, tiles.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mat := gocv.NewMat()
	defer mat.Close()
	until := events[k].TimeMS + 10000
	for fr := events[r].TimeMS * 15 / 1000; fr*1000/15 <= until; fr++ {
		tm := fr * 1000 / 15
		if _, err := sc.Render(tm, &mat); err != nil {
			t.Fatal(err)
		}
		if err := l.Step(&mat, table.Shot{TimeMS: tm}); err != nil {
			t.Fatal(err)
		}
	}
	called := false
	for _, v := range vs {
		if v.Err != nil || v.Verdict.Status != tiles.StatusViolation {
			continue
		}
		t.Logf("%d ms: %s %s: %s", v.Obs.TimeMS, v.Verdict.Player, v.Verdict.Rule, v.Verdict.Reason)
		made := slices.ContainsFunc(events[r:], func(e tilesim.Event) bool {
			return e.Violation != nil && e.Player == v.Verdict.Player && e.Violation.Rule == v.Verdict.Rule &&
				slices.ContainsFunc(e.Fields, func(f tiles.Field) bool { return slices.Contains(v.Obs.Fields, f) })
		})
		if !made {
			t.Errorf("%d ms: %s called %s, a wrong play the simulation did not make: %s", v.Obs.TimeMS, v.Verdict.Player, v.Verdict.Rule, v.Verdict.Reason)
		}
		called = called || v.Verdict.Player == "P2" && v.Verdict.Rule == tiles.T2b && slices.Contains(v.Obs.Fields, card[0]) && slices.Contains(v.Obs.Fields, card[1])
	}
	if !called {
		t.Errorf("P2's card on %v, laid before a stone came beside it, not called T2b", card)
	}
}
