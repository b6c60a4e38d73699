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
	"image"
	"image/color"
	"maps"
	"os"
	"slices"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/vision/scene"
)

// roundCheck is how one refereed round compares with the simulator.
type roundCheck struct {
	scoresOK, topsOK bool
	falseViolations  int // calls paired with no injected play (sim.ScoreCalls)
	injected, caught int // caught: called with their rule
	wrongRule        int // called with another rule
}

func checkRound(t *testing.T, players int, seed uint64, errRate float64) roundCheck {
	sc, evs, res := simRound(t, players, seed, errRate)
	cal := calibrateScene(t, sc, players)
	// What the camera could have seen of each true pile: frames by the
	// depth of its top card, and of those the frames with nothing over it.
	type truthPile struct {
		first         referee.Face
		frames, clear [10]int
	}
	truth := map[int]*truthPile{}
	var lastTruth []scene.CardTruth
	debugStart = func(pile int, first referee.Face, bareAge, sinceBorn, readAfter int, sawOne bool) {
		t.Logf("new pile %d first read %v: spot bare %d frames before its find, found %d frames ago, read %d frames after found (window %d), a 1 glimpsed %v", pile, first, bareAge, sinceBorn, readAfter, bareAge+readAfter, sawOne)
		for _, c := range lastTruth {
			if tp := truth[c.Pile]; c.Role == scene.RolePile && c.Card.Face == first && tp != nil {
				t.Logf("    true pile %d: first card %v; frames by top depth %v, clear of hands %v", c.Pile, tp.first, tp.frames[:c.Depth+1], tp.clear[:c.Depth+1])
			}
		}
	}
	defer func() { debugStart = nil }()
	// With E2E_TRACE_FOULS set, what became of each injected foul while it
	// was its pile's top: frames in view and clear of hands, frames found
	// by the finder, and the readings of the tracked pile there.
	type foulTrace struct {
		top, clear, found int
		readings          map[string]int
	}
	traces := make([]foulTrace, len(res.Injected))
	trace := os.Getenv("E2E_TRACE_FOULS") != ""
	got := refereeScene(t, sc, cal, *evs[0].Settings, func(k int, _ gocv.Mat, tr []scene.CardTruth, p *Pipeline) {
		lastTruth = tr
		if trace && p.phase == referee.PhasePlaying {
			var quads []Quad
			for i, in := range res.Injected {
				for _, c := range tr {
					if c.Role != scene.RolePile || c.Pile != in.Pile || c.Card.Face != in.Card || int64(k)*1000/testFPS < in.TimeMS {
						continue
					}
					if quads == nil {
						quads = p.findCards()
					}
					ft := &traces[i]
					if ft.readings == nil {
						ft.readings = map[string]int{}
					}
					ft.top++
					if c.Occluded == 0 && !c.Hand {
						ft.clear++
					}
					var x, y float64
					for _, pt := range c.Quad {
						w := p.view.toWork.Apply(calibrationPoint(pt.X, pt.Y))
						x += (w.X - float64(p.view.centre.Min.X)) / 4
						y += (w.Y - float64(p.view.centre.Min.Y)) / 4
					}
					hit := false
					for _, q := range quads {
						if qx, qy := q.Centre(); (qx-x)*(qx-x)+(qy-y)*(qy-y) < 8*8 {
							ft.found++
							hit = true
							break
						}
					}
					if !hit && c.Occluded == 0 && !c.Hand && ft.clear%30 == 5 && os.Getenv("DIAG_DUMP") != "" {
						gocv.IMWrite(fmt.Sprintf("/tmp/e2e/foulraw_%d_%d_%d.png", seed, in.Pile, k), p.rect)
						if bg := p.bg.Region(p.view.centre); !bg.Empty() {
							gocv.IMWrite(fmt.Sprintf("/tmp/e2e/bg_%d.png", seed), bg)
							bg.Close()
						}
						img := p.rect.Clone()
						for _, q := range quads {
							pv := gocv.NewPointsVectorFromPoints([][]image.Point{q[:]})
							gocv.Polylines(&img, pv, true, color.RGBA{255, 0, 255, 0}, 1)
							pv.Close()
						}
						gocv.Circle(&img, image.Pt(int(x), int(y)), 4, color.RGBA{0, 255, 255, 0}, 2)
						gocv.IMWrite(fmt.Sprintf("/tmp/e2e/foul_%d_%d_%d.png", seed, in.Pile, k), img)
						img.Close()
					}
					for _, pl := range p.piles {
						if (pl.x-x)*(pl.x-x)+(pl.y-y)*(pl.y-y) < 8*8 && pl.seen == p.frame {
							key := fmt.Sprintf("#%d top %v", pl.id, pl.committed)
							if pl.hasRead {
								key += fmt.Sprintf(" reads %v", pl.reading.Face())
							}
							if !p.cardSized(pl.quad) {
								key += " (not card-sized)"
							}
							ft.readings[key]++
						}
					}
				}
			}
		}
		for _, c := range tr {
			if c.Role != scene.RolePile || c.Depth >= 10 {
				continue
			}
			tp := truth[c.Pile]
			if tp == nil {
				tp = &truthPile{}
				truth[c.Pile] = tp
			}
			if c.Depth == 0 {
				tp.first = c.Card.Face
			}
			tp.frames[c.Depth]++
			if c.Occluded == 0 && !c.Hand {
				tp.clear[c.Depth]++
			}
		}
	})
	if testing.Verbose() {
		t.Logf("%d:%d: injected %+v", players, seed, res.Injected)
	}
	for i, ft := range traces {
		if trace {
			in := res.Injected[i]
			t.Logf("foul %v on pile %d at %d ms (%s): its pile's top for %d frames, %d clear of hands, found in %d; tracked: %v", in.Card, in.Pile, in.TimeMS, in.Rule, ft.top, ft.clear, ft.found, ft.readings)
		}
	}
	var rc roundCheck
	// Scores (C14): the camera's count after the stop against the simulator's.
	m := got.ref.Match()
	if m == nil || len(m.Rounds) == 0 {
		t.Errorf("%d:%d: no round was scored", players, seed)
	} else if want, have := res.Rounds[0].Players, m.Rounds[0].Players; !maps.Equal(want, have) {
		t.Errorf("%d:%d: scores\n got %+v\nwant %+v", players, seed, have, want)
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
