package vision

import (
	"math"
	"time"
)

// The pipeline's waits and windows are times (PipelineConfig); it counts
// them in frames, at the rate of the frames it is given.

// tunedFPS is the frame rate the defaults were tuned at: the simulated
// rounds of every tuning were rendered at 30 fps. It is the rate assumed
// until two frames have been seen.
const tunedFPS = 30

// frames is d in frames at fps, rounded to the nearest frame and at
// least 1 unless d is 0 or less (a wait never shorter than a frame). The
// default config's times round to the frame counts they were tuned as at
// tunedFPS.
func frames(d time.Duration, fps float64) int {
	if d <= 0 {
		return 0
	}
	return max(1, int(math.Round(d.Seconds()*fps)))
}

// frameCounts are a config's times in frames.
type frameCounts struct {
	stable, sure, open, stop, bare, surprise int
}

func (c PipelineConfig) frameCounts(fps float64) frameCounts {
	return frameCounts{stable: frames(c.Stable, fps), sure: frames(c.SureStable, fps), open: frames(c.OpenStable, fps),
		stop: frames(c.StopWait, fps), bare: frames(c.BareWindow, fps), surprise: frames(c.SurpriseStable, fps)}
}

// rateWindowMS is how far back frames' times are looked at to measure
// their rate, and rateGapMS the gap between two frames that is a pause
// (a camera reopened), not a rate: the measure starts again after it.
const rateWindowMS, rateGapMS = 2000, 1000

// frameRate measures the rate of frames from their times (ms): a video
// file's frames are timed from its own rate, a camera's and a phone's as
// they come, and a live source that drops frames for a slow pipeline
// gives it fewer a second than it takes.
type frameRate struct {
	times []int64 // the frames' times in the last rateWindowMS
	fps   float64
}

// add notes a frame's time and returns the rate of the frames over the
// last rateWindowMS: tunedFPS until two frames have been seen.
func (r *frameRate) add(tMS int64) float64 {
	if n := len(r.times); n > 0 && (tMS < r.times[n-1] || tMS-r.times[n-1] > rateGapMS) {
		r.times = r.times[:0] // a clock started again, or a pause
	}
	r.times = append(r.times, tMS)
	i := 0
	for len(r.times)-i > 2 && tMS-r.times[i] > rateWindowMS {
		i++
	}
	if i > 0 {
		r.times = append(r.times[:0], r.times[i:]...)
	}
	if span := tMS - r.times[0]; len(r.times) >= 2 && span > 0 {
		r.fps = float64(len(r.times)-1) * 1000 / float64(span)
	}
	if r.fps == 0 {
		return tunedFPS
	}
	return r.fps
}
