package vision

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/render/scene"
)

const testFPS = 30

// calibrateScene runs the calibrator over the scene's preamble.
func calibrateScene(t testing.TB, sc *scene.Scene, players int) *calibration.File {
	t.Helper()
	return calibratePreamble(t, sc, players)
}

type e2eResult struct {
	ref        *referee.Referee
	verdicts   []referee.Verdict
	obs        []referee.Observation
	violations []referee.Verdict
	timing     Timing
}

// refereeScene runs the pipeline over the rendered round and applies what it
// observes to a referee.
func refereeScene(t testing.TB, sc *scene.Scene, cal *calibration.File, settings referee.Settings, each func(k int, frame gocv.Mat, tr []scene.CardTruth, p *Pipeline)) e2eResult {
	t.Helper()
	pred := testPredictor(t)
	pc := DefaultPipelineConfig()
	pc.Settings = settings
	pc.FitPiles = os.Getenv("VISION_FIT_PILES") != ""
	if s := os.Getenv("VISION_STRICT_STARTS"); s != "" {
		pc.StrictStarts = s == "1"
	}
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
			if v.Status == referee.StatusViolation {
				out.violations = append(out.violations, v)
			}
		}
	}
	apply(p.Start(0))
	m := gocv.NewMat()
	defer m.Close()
	end := sc.End()
	for k := 0; ; k++ {
		tm := int64(k) * 1000 / testFPS
		if tm > end {
			break
		}
		tr, err := sc.Render(tm, &m)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := p.Process(m, tm)
		if err != nil {
			t.Fatal(err)
		}
		apply(obs)
		if each != nil {
			each(k, m, tr, p)
		}
		if ref.State().Phase == referee.PhaseOver {
			break
		}
	}
	out.ref, out.timing = ref, p.Timing()
	return out
}

func per(d interface{ Microseconds() int64 }, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%dus", d.Microseconds()/int64(n))
}

// End to end: a simulated round rendered as camera frames, calibrated from
// its preamble, refereed from the frames alone, scores as the simulator's (C14).
