//go:build e2e

package vision

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"

	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// TestDiagCount scores the count after the stop against the scene's truth,
// on the count frame alone (cheap: no round is tracked).
//
//	DIAG_ROUNDS="2:5 4:3" go test -tags e2e ./vision -run DiagCount -v
//
// E2E_ERRORS sets the bots' rate of illegal plays, as in EndToEndSweep
// (the rounds, and so the count frames, differ with it).
func TestDiagCount(t *testing.T) {
	rounds := roundsFromEnv("DIAG_ROUNDS", [][2]int{{2, 5}, {4, 3}, {2, 1}})
	errRate, _ := strconv.ParseFloat(os.Getenv("E2E_ERRORS"), 64)
	for _, rs := range rounds {
		players, seed := rs[0], uint64(rs[1])
		sc, evs, res := simRound(t, players, seed, errRate)
		cal := calibrateScene(t, sc, players)
		var stop int64 = -1
		for _, e := range evs {
			if e.Kind == sim.EvStop || e.Kind == sim.EvDeadlock {
				stop = e.TimeMS
				break
			}
		}
		pred := testPredictor(t)
		p, err := NewPipeline(cal, pred, DefaultPipelineConfig())
		if err != nil {
			t.Fatal(err)
		}
		m := gocv.NewMat()
		tr, err := sc.Render(stop+sc.Config().CountDelay+400, &m)
		if err != nil {
			t.Fatal(err)
		}
		wantC, wantS := countTruth(tr)
		centre, stack := map[string]int{}, map[string]int{}
		if os.Getenv("DIAG_DUMP") != "" {
			debugCount = fmt.Sprintf("/tmp/e2e/count_%d_%d", players, seed)
		}
		p.countGroups(m, centre, stack)
		debugCount = ""
		ok := 0
		for _, n := range p.names {
			sc := res.Rounds[0].Players[n]
			good := centre[n] == wantC[n] && stack[n] == wantS[n]
			if good {
				ok++
			}
			t.Logf("%dp seed %d %s: centre %d want %d (sim %d), stack %d want %d (sim %d) %v", players, seed, n, centre[n], wantC[n], sc.Centre, stack[n], wantS[n], sc.StackLeft, good)
		}
		t.Logf("%dp seed %d: %d/%d players counted right", players, seed, ok, len(p.names))
		if ok != len(p.names) {
			t.Errorf("%dp seed %d: %d of %d players counted wrong", players, seed, len(p.names)-ok, len(p.names))
		}
		m.Close()
		p.Close()
	}
}

// roundsFromEnv reads "players:seed ..." from the environment variable
// name, or gives def when it is unset.
func roundsFromEnv(name string, def [][2]int) [][2]int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var rounds [][2]int
	for _, f := range splitFields(s) {
		var a, b int
		if _, err := fmt.Sscanf(f, "%d:%d", &a, &b); err == nil {
			rounds = append(rounds, [2]int{a, b})
		}
	}
	return rounds
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, r := range s {
		if r == ' ' || r == ',' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(r)
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// TestDiagTrack runs whole rounds and scores detection against the truth
// frame by frame: every pile top in plain view should be found.
//
//	DIAG_ROUNDS="2:5" [E2E_ERRORS=0.03] go test -tags e2e ./vision -run DiagTrack -v
func TestDiagTrack(t *testing.T) {
	rounds := roundsFromEnv("DIAG_ROUNDS", [][2]int{{2, 5}})
	errRate, _ := strconv.ParseFloat(os.Getenv("E2E_ERRORS"), 64)
	for _, rs := range rounds {
		players, seed := rs[0], uint64(rs[1])
		sc, evs, res := simRound(t, players, seed, errRate)
		cal := calibrateScene(t, sc, players)
		visible, missed, wrong := 0, 0, 0
		missLog := map[int]int{}
		got := refereeScene(t, sc, cal, *evs[0].Settings, func(k int, frame gocv.Mat, tr []scene.CardTruth, p *Pipeline) {
			if p.phase != referee.PhasePlaying {
				return
			}
			quads := p.findCards()
			for _, c := range tr {
				if c.Role != scene.RolePile || c.Occluded > 0.02 || c.Hand {
					continue
				}
				var x, y float64
				for _, pt := range c.Quad {
					w := p.view.toWork.Apply(calibrationPoint(pt.X, pt.Y))
					x += (w.X - float64(p.view.centre.Min.X)) / 4
					y += (w.Y - float64(p.view.centre.Min.Y)) / 4
				}
				visible++
				hit := false
				for _, q := range quads {
					qx, qy := q.Centre()
					if (qx-x)*(qx-x)+(qy-y)*(qy-y) < 8*8 {
						hit = true
					}
				}
				if !hit {
					missed++
					missLog[c.Pile]++
					if missLog[c.Pile] == 1 || missLog[c.Pile]%100 == 0 {
						t.Logf("frame %d t=%d: pile %d (%s) at %.0f,%.0f not found (%d quads)", k, k*1000/testFPS, c.Pile, c.Card.Face, x, y, len(quads))
						if os.Getenv("DIAG_DUMP") != "" {
							gocv.IMWrite(fmt.Sprintf("/tmp/e2e/miss_%d_%d.png", c.Pile, k), p.rect)
						}
					}
				}
				// The reading committed for the nearest tracked pile.
				for _, pl := range p.piles {
					if (pl.x-x)*(pl.x-x)+(pl.y-y)*(pl.y-y) < 8*8 && pl.id > 0 && pl.committed != c.Card.Face && pl.candidateFrames == 0 {
						wrong++
					}
				}
			}
		})
		if missed > 0 || wrong > 0 || len(got.violations) > 0 {
			t.Errorf("%dp seed %d: detection or reading disagrees with the truth", players, seed)
		}
		t.Logf("%dp seed %d: %d visible pile-top sightings, %d missed by detection, %d with another committed face; misses by pile %v; violations %d; sim piles %d",
			players, seed, visible, missed, wrong, missLog, len(got.violations), len(res.Rounds[0].Piles))
	}
}

func calibrationPoint(x, y float64) calibration.Point { return calibration.Point{X: x, Y: y} }
