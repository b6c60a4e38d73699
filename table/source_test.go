package table

import (
	"context"
	"errors"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// writeClip writes n small MJPG frames, each a different grey, to path.
func writeClip(t *testing.T, path string, n int) {
	t.Helper()
	w, err := gocv.VideoWriterFile(path, "MJPG", 30, 160, 120, true)
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMatWithSize(120, 160, gocv.MatTypeCV8UC3)
	defer img.Close()
	for i := range n {
		img.SetTo(gocv.NewScalar(float64(20*i%250), 100, 50, 0))
		gocv.Rectangle(&img, image.Rect(10+i, 10, 60+i, 80), color.RGBA{255, 255, 255, 0}, -1)
		if err := w.Write(img); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
}

// A camera that drops is reopened: here the "camera" is a video device
// path OpenCV opens like any other (a file standing in for /dev/videoN,
// since this machine has no camera), unplugged by moving the file away and
// plugged back in while Read waits.
func TestCameraSource_DropsAndComesBack(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "video0.avi")
	writeClip(t, dev, 5)
	c, err := openCamera("test-camera", -1, dev)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.reopenFor = 3 * time.Second
	m := gocv.NewMat()
	defer m.Close()
	for i := range 5 {
		if _, err := c.Next(&m); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	// Unplugged: the stream ends and the device is gone for a moment.
	away := filepath.Join(dir, "away.avi")
	if err := os.Rename(dev, away); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(700 * time.Millisecond)
		if err := os.Rename(away, dev); err != nil {
			t.Error(err) // not Fatal: this is not the test's goroutine
		}
	}()
	start := time.Now()
	if _, err := c.Next(&m); err != nil {
		t.Fatalf("after the camera came back: %v", err)
	}
	if waited := time.Since(start); waited < 500*time.Millisecond {
		t.Errorf("Read returned after %v, before the camera was back", waited)
	}
	if m.Empty() || m.Cols() != 160 {
		t.Fatalf("frame after reopening: %dx%d", m.Cols(), m.Rows())
	}
	// Gone for good: a clear error once the wait is over.
	for i := range 4 {
		if _, err := c.Next(&m); err != nil {
			t.Fatalf("frame %d after reopening: %v", i, err)
		}
	}
	if err := os.Remove(dev); err != nil {
		t.Fatal(err)
	}
	c.reopenFor = 600 * time.Millisecond
	_, err = c.Next(&m)
	if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "did not come back") {
		t.Fatalf("camera gone: %v", err)
	}
}

// A video cut short mid-frame (a copy that broke off) gives the frames
// before the break, then ends; one that is no video at all is an error.
func TestVideoSource_TruncatedAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "clip.avi")
	writeClip(t, good, 30)
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.avi")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(cut, 30)
	if err != nil {
		t.Fatalf("a truncated video should still open: %v", err)
	}
	m := gocv.NewMat()
	defer m.Close()
	n := 0
	for {
		_, err := src.Next(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		n++
	}
	src.Close()
	if n < 10 || n >= 30 {
		t.Errorf("truncated video gave %d frames, want the ones before the break", n)
	}
	junk := filepath.Join(dir, "junk.mkv")
	if err := os.WriteFile(junk, []byte("this is not a video, it only says it is"), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, err := Open(junk, 30); err == nil {
		_, err = src.Next(&m)
		src.Close()
		if !errors.Is(err, ErrSource) {
			t.Fatalf("junk video: read gave %v, want ErrSource", err)
		}
	} else if !errors.Is(err, ErrSource) || !strings.Contains(err.Error(), "junk.mkv") {
		t.Fatalf("junk video: %v", err)
	}
}

// TestReopen_CameraAwayForLongComesBack: a camera that stays away longer
// than it is waited for breaks; Reopen opens it again once it is back,
// and the times it gives run on across the gap (never back, the time it
// was away included), so that nothing the referee saw is counted twice.
func TestReopen_CameraAwayForLongComesBack(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "video0.avi")
	writeClip(t, dev, 5)
	open := func() (Source, error) {
		c, err := openCamera("test-camera", -1, dev)
		if err != nil {
			return nil, err
		}
		c.reopenFor = 200 * time.Millisecond
		return c, nil
	}
	first, err := open()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := Reopen(ctx, first, open, nil).(*reopening)
	r.wait = 100 * time.Millisecond
	defer r.Close()
	m := gocv.NewMat()
	defer m.Close()
	var last int64 = -1
	next := func() {
		t.Helper()
		s, err := r.Next(&m)
		if err != nil {
			t.Fatal(err)
		}
		if s.TimeMS <= last {
			t.Fatalf("time %d after %d", s.TimeMS, last)
		}
		last = s.TimeMS
	}
	for range 5 {
		next()
	}
	away := filepath.Join(dir, "away.avi")
	if err := os.Rename(dev, away); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(time.Second)
		if err := os.Rename(away, dev); err != nil {
			t.Error(err) // not Fatal: this is not the test's goroutine
		}
	}()
	before := last
	next()
	if last-before < 900 {
		t.Errorf("the first frame after a 1 s gap is %d ms after the last before it", last-before)
	}
	next()
	if r.Reconnects() < 1 {
		t.Errorf("reconnects %d", r.Reconnects())
	}
	cancel()
	os.Remove(dev)
	for range 10 {
		if _, err := r.Next(&m); err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("after its context ended: %v", err)
			}
			return
		}
	}
	t.Fatal("Reopen gave frames after its context ended and the camera was gone")
}

// TestPrefetch_SameFramesAsReadingDirectly: a video read one frame ahead
// gives the same frames, in the same order, with the same times, then the
// same end; closed halfway it stops and frees its frames.
func TestPrefetch_SameFramesAsReadingDirectly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clip.avi")
	writeClip(t, path, 12)
	direct, err := Open(path, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	ahead, err := Open(path, 30)
	if err != nil {
		t.Fatal(err)
	}
	pre := Prefetch(ahead)
	a, b := gocv.NewMat(), gocv.NewMat()
	defer a.Close()
	defer b.Close()
	n := 0
	for ; ; n++ {
		s1, err1 := direct.Next(&a)
		s2, err2 := pre.Next(&b)
		if err1 != err2 || s1 != s2 {
			t.Fatalf("frame %d: %v %v against %v %v", n, s1, err1, s2, err2)
		}
		if err1 != nil {
			break
		}
		diff := gocv.NewMat()
		gocv.AbsDiff(a, b, &diff)
		gray := gocv.NewMat()
		gocv.CvtColor(diff, &gray, gocv.ColorBGRToGray)
		nz := gocv.CountNonZero(gray)
		diff.Close()
		gray.Close()
		if nz != 0 {
			t.Fatalf("frame %d differs in %d pixels", n, nz)
		}
	}
	if n != 12 {
		t.Fatalf("%d frames, want 12", n)
	}
	if _, err := pre.Next(&b); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
	pre.Close()

	again, err := Open(path, 30)
	if err != nil {
		t.Fatal(err)
	}
	pre = Prefetch(again)
	if _, err := pre.Next(&b); err != nil {
		t.Fatal(err)
	}
	if err := pre.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pre.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}
