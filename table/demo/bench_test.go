package demo

import (
	"image"
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
	"ligretto/table"
	"ligretto/vision"
)

// BenchmarkFrame measures one demo frame at the default size and players,
// after calibrating from the preamble: render, pipeline, annotation and
// the copy to RGBA, with the table's clock advancing 40 ms a frame (25 fps
// at real speed). The stream's encoder is not included.
func BenchmarkFrame(b *testing.B) {
	cfg := DefaultConfig()
	pred, err := model.DefaultPredictor() // as the demo reads
	if err != nil {
		b.Fatal(err)
	}
	std, err := standardBacks(pred)
	if err != nil {
		b.Fatal(err)
	}
	ref := referee.New()
	var evs []sim.Event
	if _, err := sim.Run(sim.Config{Players: cfg.Players, Seed: cfg.Seed, Match: true, ErrorRate: cfg.ErrorRate, Deadlock: cfg.Deadlock},
		func(e sim.Event) error { evs = append(evs, e); return nil }); err != nil {
		b.Fatal(err)
	}
	sc, err := scene.New(cfg.Scene, referee.DefaultPlayers(cfg.Players), cfg.Seed)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range evs {
		if err := sc.Apply(e); err != nil {
			b.Fatal(err)
		}
	}
	var img *image.RGBA
	loop, err := table.New(table.Config{Players: cfg.Players, Calibrator: []vision.CalibratorOption{vision.WithStandardBacks(std)},
		Pipeline: vision.DefaultPipelineConfig(), Annotate: true,
		OnFrame: func(f table.Frame) {
			if img, err = table.RGBA(f.Image); err != nil {
				b.Fatal(err)
			}
		}}, pred, ref)
	if err != nil {
		b.Fatal(err)
	}
	defer loop.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	for tm := sc.Start(); !loop.Status().Calibrated; tm += 40 {
		if tm > 0 {
			b.Fatal("the preamble did not calibrate")
		}
		if _, err := sc.Render(tm, &frame); err != nil {
			b.Fatal(err)
		}
		if err := loop.Step(&frame, table.Shot{TimeMS: tm, Caption: Caption}); err != nil {
			b.Fatal(err)
		}
	}
	var render time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tm := 2000 + int64(i%1000)*40 // the first 40 s of play, over and over
		t0 := time.Now()
		if _, err := sc.Render(tm, &frame); err != nil {
			b.Fatal(err)
		}
		render += time.Since(t0)
		if err := loop.Step(&frame, table.Shot{TimeMS: tm, Caption: Caption}); err != nil {
			b.Fatal(err)
		}
	}
	_ = img
	b.StopTimer()
	// CPU time, not wall time: on a shared machine it is the figure that
	// says whether 25 fps fit.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/frame")
	b.ReportMetric(float64(render.Microseconds())/float64(b.N), "render-wall-us/frame")
	if t := loop.Timing(); t.Frames > 0 {
		b.ReportMetric(float64((t.Rectify+t.Motion+t.Detect+t.Classify+t.Track).Microseconds())/float64(t.Frames), "pipeline-wall-us/frame")
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
