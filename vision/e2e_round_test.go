//go:build e2e

package vision

// The end-to-end rounds: a simulated round rendered frame by frame, run
// through calibration and the pipeline, scored against the simulator. They
// take 25-60 s a round on 2 cores, so they run only with -tags e2e (scripts/test
// runs the two fixed rounds, without -race):
//
//	go test -tags e2e ./vision -run EndToEnd -v
//	E2E_ROUNDS="8:1 12:1" E2E_ERRORS=0.1 go test -tags e2e ./vision -run EndToEndSweep -v
//
// The figures of record come from the same rounds run through the command
// line (`ligretto simulate --render`, then `ligretto referee`): see
// cmd/ligretto/e2e_test.go.

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// roundCheck is how one refereed round compares with the simulator.
type roundCheck struct {
	scoresOK, topsOK bool
	falseViolations  int // calls paired with no injected play (sim.ScoreCalls)
	injected, caught int // caught: called with their rule
	wrongRule        int // called with another rule
}

func checkRound(t *testing.T, players int, seed uint64, errRate float64) roundCheck {
	return checkRoundIn(t, nil, players, seed, errRate)
}

// checkRoundIn is checkRound with the camera's config changed by adjust
// (see simRoundIn).
func checkRoundIn(t *testing.T, adjust func(*scene.Config, []sim.Event), players int, seed uint64, errRate float64) roundCheck {
	sc, evs, res := simRoundIn(t, adjust, players, seed, errRate)
	cal := calibrateScene(t, sc, players)
	truth := truthPiles{}
	debugStart = func(pile int, first referee.Face, bareAge, sinceBorn, readAfter, lowestSeen int) {
		t.Logf("new pile %d first read %v: spot bare %d frames before its find, found %d frames ago, read %d frames after found (window %d), lowest number glimpsed %d", pile, first, bareAge, sinceBorn, readAfter, bareAge+readAfter, lowestSeen)
		truth.logPilesShowing(t, first)
	}
	defer func() { debugStart = nil }()
	var fouls *foulTracer
	if os.Getenv("E2E_TRACE_FOULS") != "" {
		fouls = &foulTracer{injected: res.Injected, traces: make([]foulTrace, len(res.Injected)), seed: seed, dump: os.Getenv("DIAG_DUMP") != ""}
	}
	got := refereeScene(t, sc, cal, *evs[0].Settings, func(k int, _ gocv.Mat, tr []scene.CardTruth, p *Pipeline) {
		truth.observe(tr)
		fouls.observe(k, tr, p)
	})
	if testing.Verbose() {
		t.Logf("%d:%d: injected %+v", players, seed, res.Injected)
	}
	fouls.log(t)
	var rc roundCheck
	// Scores (C14): the camera's count after the stop against the simulator's.
	m := got.ref.Match()
	if m == nil || len(m.Rounds) == 0 {
		t.Errorf("%d:%d: no round was scored", players, seed)
	} else if want, have := res.Rounds[0].Players, m.Rounds[0].Players; !maps.Equal(want, have) {
		t.Errorf("%d:%d: scores\n got %+v\nwant %+v", players, seed, have, want)
	} else if want, have := res.Rounds[0].Deadlock, m.Rounds[0].Deadlock; want != have {
		t.Errorf("%d:%d: the round ended in a deadlock (C17): got %v, want %v", players, seed, have, want)
	} else {
		rc.scoresOK = true
	}
	// The piles the camera saw against the simulator's final piles.
	var gotTops, wantTops []string
	if m != nil && len(m.Rounds) > 0 {
		for _, pv := range m.Rounds[0].Piles {
			gotTops = append(gotTops, referee.Face{Colour: pv.Colour, Number: pv.Top}.String())
		}
	}
	for _, pv := range res.Rounds[0].Piles {
		wantTops = append(wantTops, referee.Face{Colour: pv.Colour, Number: pv.Top}.String())
	}
	slices.Sort(gotTops)
	slices.Sort(wantTops)
	if rc.topsOK = slices.Equal(gotTops, wantTops); !rc.topsOK {
		t.Errorf("%d:%d: final pile tops:\n got %v\nwant %v", players, seed, gotTops, wantTops)
	}
	// Violations: each call paired with the injected play before it.
	wantRules := map[referee.Rule]int{}
	for _, in := range res.Injected {
		wantRules[in.Rule]++
	}
	gotRules := map[referee.Rule]int{}
	var calls []sim.Call
	for i, v := range got.verdicts {
		if v.Status == referee.StatusViolation {
			gotRules[v.Rule]++
			calls = append(calls, sim.Call{TimeMS: got.obs[i].TimeMS, Rule: v.Rule})
		}
	}
	score := sim.ScoreCalls(res.Injected, calls)
	rc.injected, rc.caught, rc.wrongRule, rc.falseViolations = len(res.Injected), score.Right, score.Wrong, len(score.False)
	if len(score.False) > 0 {
		t.Errorf("%d:%d: calls matching no injected illegal play: %v", players, seed, score.False)
	}
	if fmt.Sprint(wantRules) != fmt.Sprint(gotRules) {
		t.Errorf("%d:%d: violations: got %v, want %v (injected %+v)", players, seed, gotRules, wantRules, res.Injected)
	}
	if t.Failed() || testing.Verbose() && os.Getenv("E2E_QUIET") == "" {
		for i, o := range got.obs {
			c := ""
			if o.Card != nil {
				c = o.Card.String()
			}
			t.Logf("%6d %-12s pile %2d %-10s %s %d -> %s %s", o.TimeMS, o.Kind, o.Pile, c, o.Player, o.Count, got.verdicts[i].Status, got.verdicts[i].Rule)
		}
	}
	t.Logf("%d:%d: %d frames, %d crops classified; per frame: rectify %v, detect %v, motion+crop %v, classify %v, track %v",
		players, seed, got.timing.Frames, got.timing.Crops, per(got.timing.Rectify, got.timing.Frames), per(got.timing.Detect, got.timing.Frames),
		per(got.timing.Motion, got.timing.Frames), per(got.timing.Classify, got.timing.Frames), per(got.timing.Track, got.timing.Frames))
	return rc
}

func TestEndToEnd2Players(t *testing.T) { checkRound(t, 2, 5, 0) }
func TestEndToEnd4Players(t *testing.T) { checkRound(t, 4, 3, 0) }

// TestEndToEnd2Players_C17_DeadlockBeforeAnyPile: nobody can lay a 1, the
// round ends at 1.5 s with no pile opened and is scored from the count
// (the seats' stacks spread face down) as a deadlock.
func TestEndToEnd2Players_C17_DeadlockBeforeAnyPile(t *testing.T) {
	if rc := checkRound(t, 2, 32, 0.03); !rc.scoresOK {
		t.Error("the deadlock round was not scored right")
	}
}

// TestEndToEnd4Players_ShadeAcrossTheTable: someone stands in the lamp's
// light for the middle third of the round, and one side of the table,
// some piles with it, is half as bright for it (coming and going over
// 0.6 s). No pile may vanish or appear for it: the scores and the pile
// tops are the simulator's, and no play is called that was not illegal.
func TestEndToEnd4Players_ShadeAcrossTheTable(t *testing.T) {
	shade := func(c *scene.Config, evs []sim.Event) {
		end := evs[len(evs)-1].TimeMS
		c.ShadeDepth, c.ShadeFromMS, c.ShadeToMS, c.ShadeRampMS = 0.5, end/3, 2*end/3, 600
	}
	rc := checkRoundIn(t, shade, 4, 3, 0.03)
	if !rc.scoresOK || !rc.topsOK || rc.falseViolations > 0 {
		t.Errorf("under a passing shade: scores right %v, pile tops right %v, false calls %d", rc.scoresOK, rc.topsOK, rc.falseViolations)
	}
}

// TestEndToEndSweep runs the rounds in E2E_ROUNDS (players:seed ...), with
// E2E_ERRORS the simulator's rate of illegal plays, and sums up.
func TestEndToEndSweep(t *testing.T) {
	rounds := roundsFromEnv("E2E_ROUNDS", [][2]int{{2, 1}, {4, 1}, {8, 1}, {12, 1}})
	errRate, _ := strconv.ParseFloat(os.Getenv("E2E_ERRORS"), 64)
	var scores, tops, falseV, inj, caught, wrong int
	for _, r := range rounds {
		t.Run(fmt.Sprintf("%d:%d", r[0], r[1]), func(t *testing.T) {
			rc := checkRound(t, r[0], uint64(r[1]), errRate)
			if rc.scoresOK {
				scores++
			}
			if rc.topsOK {
				tops++
			}
			falseV += rc.falseViolations
			inj += rc.injected
			caught += rc.caught
			wrong += rc.wrongRule
		})
	}
	t.Logf("%d rounds: scores right %d, pile tops right %d, false violations %d, injected %d, called with their rule %d, with another %d",
		len(rounds), scores, tops, falseV, inj, caught, wrong)
}
