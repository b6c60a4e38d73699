package vision

import (
	"testing"

	"gocv.io/x/gocv"
)

// BenchmarkPipelineFrame measures Process at 1280x720 on a table with a
// dozen piles (4 players late in a round), alternating two frames 33 ms
// apart so that motion and change detection work as in a video.
func BenchmarkPipelineFrame(b *testing.B) {
	sc, evs, _ := simRound(b, 4, 3, 0)
	cal := calibrateScene(b, sc, 4)
	pred, cfg := testPredictor(b)
	pc := DefaultPipelineConfig()
	pc.Settings = *evs[0].Settings
	p, err := NewPipeline(cal, pred, cfg, pc)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	p.Start(0)
	var frames [2]gocv.Mat
	for i := range frames {
		frames[i] = gocv.NewMat()
		defer frames[i].Close()
		if _, err := sc.Render(38400+int64(i)*33, &frames[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Process(frames[i%2], int64(i)*33); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	t := p.Timing()
	n := float64(t.Frames)
	b.ReportMetric(float64(t.Rectify.Microseconds())/n, "rectify-us/frame")
	b.ReportMetric(float64(t.Detect.Microseconds())/n, "detect-us/frame")
	b.ReportMetric(float64(t.Motion.Microseconds())/n, "motion+crop-us/frame")
	b.ReportMetric(float64(t.Classify.Microseconds())/n, "classify-us/frame")
	b.ReportMetric(n/b.Elapsed().Seconds(), "fps")
}
