package vision

import (
	"errors"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// doubtful reads as its predictor does, but every face under
// model.SureAt (calibrated): the raw confidences the pipeline's other
// gates compare stay, so legal plays are committed as before.
type doubtful struct{ model.Predictor }

func (d doubtful) Classify(crops []model.Crop) ([]model.Prediction, error) {
	preds, err := d.Predictor.Classify(crops)
	for i := range preds {
		if p := &preds[i]; p.Side == model.SideFace {
			p.SideProbs[model.SideFace] *= 0.5
			p.SideProb = p.SideProbs[p.Side]
		}
	}
	return preds, err
}

// A play is a foul only by what the camera reads sure (C6 a pile not
// started by a 1, C7 a card not the next of its pile, C8 a card on a
// 10). A 2-player round (seed 34, one play in ten illegal) in which the
// pipeline calls a C6 read sure is run again with every face read
// unsure: no foul is called, the legal plays are still committed, and the
// piles whose tops read unsure say so (UnsurePiles, Annotations).
func TestPipeline_C6_C7_C8_NoFoulOnUnsureReading(t *testing.T) {
	const players, seed = 2, 34
	var evs []sim.Event
	if _, err := sim.Run(sim.Config{Players: players, Seed: seed, ErrorRate: 0.1}, func(e sim.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.New(scene.DefaultConfig(), evs[0].Players, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	cal := calibrateScene(t, sc, players)
	pred := testPredictor(t)
	type outcome struct {
		foulAt        int64 // ms of the first violation, -1 for none
		foul          referee.Verdict
		opened        int // piles the referee was told of
		unsureFrames  int // frames in which some pile's top read unsure
		unsureAnnotes int // of them, frames whose annotations said so
	}
	run := func(pr model.Predictor, until int64) outcome {
		pc := DefaultPipelineConfig()
		pc.Settings = *evs[0].Settings
		pc.StopWait = time.Hour
		p, err := NewPipeline(cal, pr, pc)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ref := referee.New()
		out := outcome{foulAt: -1}
		apply := func(obs []referee.Observation, tm int64) {
			for _, o := range obs {
				v, err := ref.Apply(o)
				var x *referee.Violation
				if err != nil && !errors.As(err, &x) {
					t.Fatalf("the referee refused %+v: %v", o, err)
				}
				if o.Kind == referee.ObsPileNew {
					out.opened++
				}
				if v.Status == referee.StatusViolation && out.foulAt < 0 {
					out.foulAt, out.foul = tm, v
				}
			}
		}
		apply(p.Start(0), 0)
		frame := gocv.NewMat()
		defer frame.Close()
		for k := 0; ; k++ {
			tm := int64(k) * 1000 / testFPS
			if tm > until || until < 0 && out.foulAt >= 0 {
				return out
			}
			if _, err := sc.Render(tm, &frame); err != nil {
				t.Fatal(err)
			}
			obs, err := p.Process(frame, tm)
			if err != nil {
				t.Fatal(err)
			}
			apply(obs, tm)
			if len(p.UnsurePiles()) > 0 {
				out.unsureFrames++
				for _, a := range p.Annotations(ref.State()) {
					if a.Unsure {
						out.unsureAnnotes++
						break
					}
				}
			}
		}
	}
	sure := run(pred, 20000)
	if sure.foulAt < 0 {
		t.Fatal("read as it is, the round has no foul in 20 s: the test proves nothing")
	}
	t.Logf("read as it is: %s at %d ms (%s), %d pile(s) opened", sure.foul.Rule, sure.foulAt, sure.foul.Reason, sure.opened)
	unsure := run(doubtful{pred}, sure.foulAt+3000)
	if unsure.foulAt >= 0 {
		t.Errorf("every face read unsure: %s called at %d ms (%s)", unsure.foul.Rule, unsure.foulAt, unsure.foul.Reason)
	}
	if unsure.opened == 0 {
		t.Error("every face read unsure: no pile opened; legal plays must still be committed")
	}
	if unsure.unsureFrames == 0 || unsure.unsureAnnotes != unsure.unsureFrames {
		t.Errorf("%d frames with a pile read unsure, %d of them annotated so; want some, all annotated", unsure.unsureFrames, unsure.unsureAnnotes)
	}
}
