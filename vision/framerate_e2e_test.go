//go:build e2e

package vision

// The same round at several frame rates: the pipeline's waits and windows
// are times, so a camera at 15, 30 or 60 fps must make the same calls.
//
//	go test -tags e2e ./vision -run EndToEndFrameRates -v

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// frameRateRound is 4 players, seed 14, bots erring 3% of their plays: a
// 24 s round with three bad starts (C6) and a foul (C7), all called with
// their rule at 30 fps.
const (
	frameRatePlayers = 4
	frameRateSeed    = 14
	frameRateErrors  = 0.03
)

// TestEndToEndFrameRates renders one simulated round at 15, 30 and 60 fps
// (frame k at floor(k*1000/fps) ms, as `ligretto simulate --render` times
// a video), referees each in process from the same calibration, and wants
// the same calls at each: the simulator's scores, every illegal play
// called with its rule, and no legal play called.
func TestEndToEndFrameRates(t *testing.T) {
	sc, evs, res := simRound(t, frameRatePlayers, frameRateSeed, frameRateErrors)
	if len(res.Injected) == 0 {
		t.Fatalf("%d:%d at %v: the round has no illegal play to call", frameRatePlayers, frameRateSeed, frameRateErrors)
	}
	cal := calibrateScene(t, sc, frameRatePlayers)
	want := map[referee.Rule]int{}
	for _, in := range res.Injected {
		want[in.Rule]++
	}
	calls := map[float64][]sim.Call{}
	for _, fps := range []float64{15, 30, 60} {
		t.Run(fmt.Sprintf("%gfps", fps), func(t *testing.T) {
			pc := DefaultPipelineConfig()
			pc.Settings = *evs[0].Settings
			got := refereeSceneAt(t, sc, cal, pc, fps)
			m := got.ref.Match()
			if m == nil || len(m.Rounds) == 0 {
				t.Fatalf("%g fps: no round was scored", fps)
			}
			if w, h := res.Rounds[0].Players, m.Rounds[0].Players; !maps.Equal(w, h) {
				t.Errorf("%g fps: scores\n got %+v\nwant %+v", fps, h, w)
			}
			gotRules := map[referee.Rule]int{}
			for i, v := range got.verdicts {
				if v.Status == referee.StatusViolation {
					gotRules[v.Rule]++
					calls[fps] = append(calls[fps], sim.Call{TimeMS: got.obs[i].TimeMS, Rule: v.Rule})
				}
			}
			score := sim.ScoreCalls(res.Injected, calls[fps])
			if len(score.False) > 0 {
				t.Errorf("%g fps: calls matching no illegal play: %v", fps, score.False)
			}
			if !maps.Equal(gotRules, want) || score.Right != len(res.Injected) {
				t.Errorf("%g fps: violations %v, want %v; %d of %d illegal plays called with their rule, %d with another (injected %+v)",
					fps, gotRules, want, score.Right, len(res.Injected), score.Wrong, res.Injected)
			}
			t.Logf("%g fps: %d frames; calls %v", fps, got.timing.Frames, calls[fps])
			if t.Failed() {
				for i, o := range got.obs {
					c := ""
					if o.Card != nil {
						c = o.Card.String()
					}
					t.Logf("%6d %-12s pile %2d %-10s %s %d -> %s %s", o.TimeMS, o.Kind, o.Pile, c, o.Player, o.Count, got.verdicts[i].Status, got.verdicts[i].Rule)
				}
			}
		})
	}
	// The same calls: the same rules, each within a frame or two of the
	// others' (half a second: the slowest rate's frame is 67 ms).
	rules := func(cs []sim.Call) []referee.Rule {
		var r []referee.Rule
		for _, c := range cs {
			r = append(r, c.Rule)
		}
		return r
	}
	for _, fps := range []float64{15, 60} {
		a, b := calls[30], calls[fps]
		if !slices.Equal(rules(a), rules(b)) {
			t.Errorf("calls at %g fps %v, at 30 fps %v", fps, b, a)
			continue
		}
		for i := range a {
			if d := math.Abs(float64(a[i].TimeMS - b[i].TimeMS)); d > 500 {
				t.Errorf("call %d (%s) at %d ms at %g fps, %d ms at 30 fps", i, a[i].Rule, b[i].TimeMS, fps, a[i].TimeMS)
			}
		}
	}
}

// refereeSceneAt runs the pipeline, configured as pc, over the rendered
// round at fps, frame k at floor(k*1000/fps) ms, and applies what it
// observes to a referee (refereeScene at another rate).
func refereeSceneAt(t testing.TB, sc *scene.Scene, cal *calibration.File, pc PipelineConfig, fps float64) e2eResult {
	t.Helper()
	pred := testPredictor(t)
	p, err := NewPipeline(cal, pred, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ref := referee.New()
	var out e2eResult
	apply := func(obs []referee.Observation) {
		for _, o := range obs {
			v, err := ref.Apply(o)
			var x *referee.Violation
			if err != nil && !errors.As(err, &x) {
				t.Errorf("t=%d %+v: %v", o.TimeMS, o, err)
				continue
			}
			out.obs = append(out.obs, o)
			out.verdicts = append(out.verdicts, v)
		}
	}
	apply(p.Start(0))
	m := gocv.NewMat()
	defer m.Close()
	for k := 0; ; k++ {
		tm := int64(math.Floor(float64(k) * 1000 / fps))
		if tm > sc.End() {
			break
		}
		if _, err := sc.Render(tm, &m); err != nil {
			t.Fatal(err)
		}
		obs, err := p.Process(m, tm)
		if err != nil {
			t.Fatal(err)
		}
		apply(obs)
		if ref.State().Phase == referee.PhaseOver {
			break
		}
	}
	out.ref, out.timing = ref, p.Timing()
	return out
}
