package scene

import (
	"fmt"
	"math"

	"gocv.io/x/gocv"
)

// Clip is the frame timing of a whole match rendered at a fixed rate. The
// calibration preamble takes the first PreambleFrames frames; after it,
// frame PreambleFrames+j shows timeline time j*1000/FPS ms (floored), so
// the video is aligned with timeline.jsonl up to that constant offset.
type Clip struct {
	FPS            float64 `json:"fps"`
	PreambleFrames int     `json:"preamble_frames"`
	Frames         int     `json:"frames"`
	StartMS        int64   `json:"start_ms"` // the time of frame 0
	EndMS          int64   `json:"end_ms"`   // the time of the last frame
}

// Time is the timeline time frame k shows.
func (c Clip) Time(k int) int64 {
	return int64(math.Floor(float64(k-c.PreambleFrames) * 1000 / c.FPS))
}

// Clip times a video of the match applied so far at fps, from the start
// of the preamble to the match_end event (or the last event applied).
func (s *Scene) Clip(fps float64) (Clip, error) {
	end := s.endMS
	if end < 0 {
		end = s.lastT
	}
	return NewClip(fps, s.preamble, end)
}

// NewClip times a video at fps of a preamble of preambleMS before time 0
// and the timeline from 0 to endMS: the frame timing of Scene.Clip, for
// other renderers of timelines (render/tiles).
func NewClip(fps float64, preambleMS, endMS int64) (Clip, error) {
	if fps <= 0 || fps > 240 || math.IsNaN(fps) {
		return Clip{}, fmt.Errorf("%w: fps %v", ErrConfig, fps)
	}
	c := Clip{FPS: fps, PreambleFrames: int(math.Ceil(float64(preambleMS) * fps / 1000))}
	c.Frames = c.PreambleFrames + int(math.Floor(float64(endMS)*fps/1000)) + 1
	c.StartMS, c.EndMS = c.Time(0), c.Time(c.Frames-1)
	return c, nil
}

// Frame returns the first frame that shows timeline time tMS or later
// (Frames if none does).
func (c Clip) Frame(tMS int64) int {
	k := c.PreambleFrames + int(math.Ceil(float64(tMS)*c.FPS/1000))
	for k > 0 && c.Time(k-1) >= tMS {
		k--
	}
	for k < c.Frames && c.Time(k) < tMS {
		k++
	}
	return min(max(k, 0), c.Frames)
}

// Frame is one rendered frame.
type Frame struct {
	Index  int
	TimeMS int64
	Image  gocv.Mat // BGR; owned by RenderClip, valid during the callback only
	Truth  []CardTruth
}

// RenderClip renders every frame of clip in order and passes each to fn;
// an error from fn stops it.
func (s *Scene) RenderClip(clip Clip, fn func(Frame) error) error {
	mat := gocv.NewMatWithSize(s.cfg.Height, s.cfg.Width, gocv.MatTypeCV8UC3)
	defer mat.Close()
	for k := range clip.Frames {
		t := clip.Time(k)
		truth, err := s.Render(t, &mat)
		if err != nil {
			return err
		}
		if err := fn(Frame{Index: k, TimeMS: t, Image: mat, Truth: truth}); err != nil {
			return err
		}
	}
	return nil
}
