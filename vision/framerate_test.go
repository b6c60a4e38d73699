package vision

import (
	"math"
	"testing"
	"time"
)

// The default times are the frame counts they were tuned as at 30 fps,
// from the second frame of a video timed as `ligretto simulate --render`
// times it (frame k at floor(k*1000/fps) ms), and scale with the rate
// (measured within a second).
func TestFrameCounts_DefaultsAtTheTunedRate(t *testing.T) {
	cfg := DefaultPipelineConfig()
	want := map[float64]frameCounts{
		30: {stable: 3, sure: 1, open: 5, stop: 8, bare: 22, surprise: 4},
		15: {stable: 2, sure: 1, open: 3, stop: 4, bare: 11, surprise: 2},
		60: {stable: 6, sure: 2, open: 10, stop: 16, bare: 44, surprise: 8},
		25: {stable: 3, sure: 1, open: 4, stop: 7, bare: 18, surprise: 3},
	}
	for fps, w := range want {
		if got := cfg.frameCounts(fps); got != w {
			t.Errorf("%g fps: %+v, want %+v", fps, got, w)
		}
		var r frameRate
		for k := range 300 {
			tm := int64(math.Floor(float64(k) * 1000 / fps))
			if got := cfg.frameCounts(r.add(tm)); got != w && (k > 0 && fps == tunedFPS || k > int(fps)) {
				t.Fatalf("%g fps, frame %d at %d ms (measured %.2f fps): %+v, want %+v", fps, k, tm, r.fps, got, w)
			}
		}
	}
	if got := cfg.frameCounts(tunedFPS); got != want[30] {
		t.Errorf("before any frame: %+v, want %+v", got, want[30])
	}
}

func TestFrames(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		fps  float64
		want int
	}{{0, 30, 0}, {-time.Second, 30, 0}, {time.Millisecond, 30, 1}, {time.Second, 30, 30}, {50 * time.Millisecond, 30, 2}, {time.Hour, 60, 216000}} {
		if got := frames(c.d, c.fps); got != c.want {
			t.Errorf("frames(%v, %g) = %d, want %d", c.d, c.fps, got, c.want)
		}
	}
}

// A pause or a clock started again does not become a rate.
func TestFrameRate_Pause(t *testing.T) {
	var r frameRate
	tm := int64(0)
	for range 100 {
		r.add(tm)
		tm += 40
	}
	tm += 5000 // the camera was away
	for range 3 {
		if got := r.add(tm); math.Abs(got-25) > 0.5 {
			t.Fatalf("after a pause: %.2f fps, want 25", got)
		}
		tm += 40
	}
	if got := r.add(0); math.Abs(got-25) > 0.5 {
		t.Fatalf("clock back at 0: %.2f fps, want 25", got)
	}
}
