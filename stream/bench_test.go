//go:build linux

package stream

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"ligretto/referee"
)

// BenchmarkGlassToGlass measures, on loopback, the time from a frame
// entering the server to a Go viewer having decoded it (read back from the
// frame number drawn into it), at 1280x720 and 25 fps. Target: 150 ms.
//
//	go test -run '^$' -bench GlassToGlass -benchtime 200x ./stream
func BenchmarkGlassToGlass(b *testing.B) {
	src := newTestSource(1280, 720, 25)
	ts := startServer(b, benchConfig(), src)
	v, err := dialViewer(ts.URL, viewerAPI(), viewerOptions{decode: true})
	if err != nil {
		b.Fatal(err)
	}
	defer v.close()
	stamped := func(d decoded) bool { return d.stamped }
	for i := 0; i < 10; i++ { // warm up
		v.waitFrame(b, 10*time.Second, stamped)
	}
	lat := make([]float64, 0, b.N)
	b.ResetTimer()
	for len(lat) < b.N {
		f := v.waitFrame(b, 10*time.Second, stamped)
		if sent, ok := src.sentAt(f.seq); ok {
			lat = append(lat, float64(f.at.Sub(sent).Microseconds())/1000)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	mean := 0.0
	for _, l := range lat {
		mean += l
	}
	mean /= float64(len(lat))
	b.ReportMetric(mean, "mean-ms")
	b.ReportMetric(lat[len(lat)/2], "p50-ms")
	b.ReportMetric(lat[len(lat)*95/100], "p95-ms")
	b.ReportMetric(lat[len(lat)-1], "max-ms")
}

func benchConfig() Config {
	cfg := testConfig()
	cfg.KeyframeEvery = 0 // the default, as served
	cfg.MaxViewers = 120
	return cfg
}

// cyclingSource sends pre-drawn 1280x720 frames at 25 fps, so that the
// server's CPU is measured without the cost of drawing.
type cyclingSource struct{ frames []*image.RGBA }

func newCyclingSource(n, w, h int) *cyclingSource {
	s := &cyclingSource{}
	for i := 0; i < n; i++ {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img.SetRGBA(x, y, color.RGBA{uint8(40 + x*120/w), uint8(90 + y*80/h), 60, 255})
			}
		}
		bx := i * (w - w/6) / n
		for y := h / 2; y < h/2+h/6; y++ {
			for x := bx; x < bx+w/6; x++ {
				img.SetRGBA(x, y, color.RGBA{250, 250, 250, 255})
			}
		}
		stamp(img, uint64(i))
		s.frames = append(s.frames, img)
	}
	return s
}

func (s *cyclingSource) Frames(ctx context.Context) <-chan Frame {
	out := make(chan Frame, 1)
	go func() {
		defer close(out)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case out <- Frame{Image: s.frames[i%len(s.frames)], Seq: uint64(i), Time: time.Now()}:
			case <-ctx.Done():
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

func cpuTime() time.Duration {
	u, s := cpuTimes()
	return u + s
}

// cpuTimes is the process's user and system CPU time so far.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// BenchmarkServerCPU measures the server process's CPU (CPU seconds per
// second) while it streams 1280x720 at 25 fps to 1 viewer and to 100. The
// viewers run in a child process, so that their cost is not counted.
// Target: at most 10% more with 100 viewers than with 1. With
// STREAM_BENCH_PROFILE=FILE it writes a CPU profile of the 100-viewer window.
//
//	go test -run '^$' -bench ServerCPU -benchtime 1x ./stream
func BenchmarkServerCPU(b *testing.B) {
	const window = 8 * time.Second
	for i := 0; i < b.N; i++ {
		s, err := New(benchConfig(), newCyclingSource(25, 1280, 720), NewRefereeGame(referee.New(), nil))
		if err != nil {
			b.Fatal(err)
		}
		ts := startServerWith(b, s)
		measure := func(n int) float64 {
			cmd := exec.Command(os.Args[0], "-test.run=^TestViewersChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "STREAM_CHILD_URL="+ts.URL, "STREAM_CHILD_VIEWERS="+strconv.Itoa(n))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer func() {
				stdin.Close()
				_ = cmd.Wait()
				waitFor(b, 30*time.Second, "the viewers to leave", func() bool { return s.Stats().Sessions == 0 })
			}()
			waitFor(b, 90*time.Second, fmt.Sprintf("%d viewers", n), func() bool { return s.Stats().Viewers == n })
			time.Sleep(2 * time.Second) // the keyframes for new viewers
			u0, s0 := cpuTimes()
			t0, st0 := time.Now(), s.Stats()
			if p := os.Getenv("STREAM_BENCH_PROFILE"); p != "" && n > 1 {
				f, _ := os.Create(p)
				pprof.StartCPUProfile(f)
				defer pprof.StopCPUProfile()
			}
			time.Sleep(window)
			u1, s1 := cpuTimes()
			el := float64(time.Since(t0))
			cpu := float64(u1-u0+s1-s0) / el
			if s.Stats().Viewers != n {
				b.Fatalf("viewers dropped to %d", s.Stats().Viewers)
			}
			st, dt := s.Stats(), time.Since(t0).Seconds()
			b.Logf("%3d viewer(s): %.3f CPU s/s (user %.3f, system %.3f), %.1f fps encoded at %.0f kbit/s", n, cpu, float64(u1-u0)/el, float64(s1-s0)/el,
				float64(st.FramesEncoded-st0.FramesEncoded)/dt, float64(8*(st.EncodedBytes-st0.EncodedBytes))/dt/1000)
			return cpu
		}
		one := measure(1)
		hundred := measure(100)
		b.ReportMetric(one, "cpu-s/s-1-viewer")
		b.ReportMetric(hundred, "cpu-s/s-100-viewers")
		b.ReportMetric(100*(hundred/one-1), "%more-for-100")
	}
}

// TestViewersChild is BenchmarkServerCPU's child process: it connects the
// viewers, reads their RTP until its stdin closes, then leaves.
func TestViewersChild(t *testing.T) {
	url := os.Getenv("STREAM_CHILD_URL")
	if url == "" {
		t.Skip("the child process of BenchmarkServerCPU")
	}
	n, _ := strconv.Atoi(os.Getenv("STREAM_CHILD_VIEWERS"))
	api := viewerAPI()
	var vs []*testViewer
	for i := 0; i < n; i++ {
		v, err := dialViewer(url, api, viewerOptions{noDC: true})
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	for _, v := range vs {
		v.close()
	}
}
