//go:build linux

package stream

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/stream/internal/childproc"
)

// BenchmarkGlassToGlass measures, on loopback, the time from a frame
// entering the server to a Go viewer having decoded it (read back from the
// frame number drawn into it), at 1280x720 and 25 fps. Target: 150 ms.
//
//	go test -run '^$' -bench GlassToGlass -benchtime 200x ./stream
func BenchmarkGlassToGlass(b *testing.B) {
	src := newTestSource(1280, 720, 25)
	ts := startServer(b, benchConfig(), src)
	v, err := dialViewer(ts.URL, plainViewer(), viewerOptions{decode: true})
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
// server's CPU is measured without the cost of drawing. With noise, each
// frame has its own sensor-like noise (as a camera's or the demo's frames
// do), so that the encoder spends its whole bitrate, as it does on the
// demo; without, the flat frames compress to a third of it.
type cyclingSource struct{ frames []*image.RGBA }

func newCyclingSource(n, w, h int, noise bool) *cyclingSource {
	s := &cyclingSource{}
	rng := uint32(1)
	for i := 0; i < n; i++ {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.RGBA{uint8(40 + x*120/w), uint8(90 + y*80/h), 60, 255}
				if noise {
					rng ^= rng << 13
					rng ^= rng >> 17
					rng ^= rng << 5
					d := uint8(rng % 16)
					c.R, c.G, c.B = c.R+d, c.G+d, c.B+d
				}
				img.SetRGBA(x, y, c)
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

// cpuTimes is this process's user and system CPU time so far (all its
// threads; not its children's).
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// benchEnvInt reads a positive integer from the environment, or def.
func benchEnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// startFleet starts the child process that runs BenchmarkServerCPU's
// viewers, so that their receiving, decrypting and depacketising is not
// counted as the server's CPU. It is this test binary again, running
// TestViewersChild.
func startFleet(tb testing.TB, url string) *childproc.Child {
	return childproc.Start(tb, []string{"-test.run=^TestViewersChild$", "-test.count=1"}, []string{"STREAM_CHILD_URL=" + url})
}

// serverWindow is one measuring window of BenchmarkServerCPU.
type serverWindow struct {
	viewers        int
	cpu, user, sys float64 // CPU seconds per second of the server process
	fps, kbps      float64 // encoded
	heapMB         float64 // the server's Go heap in use at the end of the window
	minFrames      int     // frames the least-served viewer assembled in the window
	framesEncoded  int
	keyframes      int
}

// BenchmarkServerCPU measures the server process's CPU (CPU seconds per
// second) while it streams 1280x720 at 25 fps (pre-drawn frames, so that
// drawing is not counted) to 1 viewer and to 100. The viewers are pion
// peers in a child process (this binary re-executed as TestViewersChild),
// so only the server's own CPU is counted: getrusage(RUSAGE_SELF) over a
// fixed window, taken only once every viewer is connected and has
// received a frame, after the keyframes that new viewers ask for; every
// viewer must have assembled nearly every frame of the window. The viewers
// offer what browsers offer (generic NACK, PLI, FIR), open the state
// DataChannel and send receiver reports. The encoder is warmed up first,
// and windows of 1 and 100 viewers alternate (STREAM_BENCH_ROUNDS pairs,
// default 2; each window STREAM_BENCH_WINDOW seconds, default 8) so that
// drift on a shared machine hits both alike. Target: at most 10% more with
// 100 viewers than with 1.
//
// The default frames are flat and compress to 0.4-0.7 Mbit/s; with
// STREAM_BENCH_NOISE=1 each frame has sensor-like noise, and the encoder
// spends its whole 1.2 Mbit/s as it does on the demo (about twice the
// packets per viewer). With STREAM_BENCH_PROFILE=FILE it writes a CPU
// profile of the first 100-viewer window.
//
// On loopback the sender's system time also holds the receiving side of
// each datagram (the kernel runs it in the sender's softirq), about half
// of the kernel's cost per packet here, which a network card does not
// charge to the server.
//
//	go test -run '^$' -bench ServerCPU -benchtime 1x ./stream
func BenchmarkServerCPU(b *testing.B) {
	window := time.Duration(benchEnvInt("STREAM_BENCH_WINDOW", 8)) * time.Second
	rounds := benchEnvInt("STREAM_BENCH_ROUNDS", 2)
	const many = 100
	for i := 0; i < b.N; i++ {
		cfg := benchConfig()
		s, err := New(cfg, newCyclingSource(25, 1280, 720, os.Getenv("STREAM_BENCH_NOISE") != ""), NewRefereeGame(referee.New(), nil))
		if err != nil {
			b.Fatal(err)
		}
		ts := startServerWith(b, s)
		fl := startFleet(b, ts.URL)
		profiled := false
		// set makes the fleet n viewers strong and waits until the server
		// counts them and every one of them has received a frame.
		set := func(n int) {
			if a := fl.Ask(b, "viewers "+strconv.Itoa(n)); len(a) != 2 || a[0] != "ready" {
				b.Fatalf("fleet: %q", a)
			}
			waitFor(b, 90*time.Second, fmt.Sprintf("%d viewers", n), func() bool { return s.Stats().Viewers == n && s.Stats().Sessions == n })
			time.Sleep(3 * time.Second) // the keyframes new viewers asked for
		}
		measure := func(n int) serverWindow {
			fl.Ask(b, "frames") // zero the child's counters
			u0, s0 := cpuTimes()
			t0, st0 := time.Now(), s.Stats()
			if p := os.Getenv("STREAM_BENCH_PROFILE"); p != "" && n > 1 && !profiled {
				profiled = true
				f, err := os.Create(p)
				if err != nil {
					b.Fatal(err)
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					b.Fatal(err)
				}
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
			time.Sleep(window)
			u1, s1 := cpuTimes()
			el := time.Since(t0).Seconds()
			st := s.Stats()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			a := fl.Ask(b, "frames")
			if st.Viewers != n {
				b.Fatalf("viewers dropped to %d", st.Viewers)
			}
			w := serverWindow{viewers: n,
				user: (u1 - u0).Seconds() / el, sys: (s1 - s0).Seconds() / el,
				framesEncoded: int(st.FramesEncoded - st0.FramesEncoded), keyframes: int(st.Keyframes - st0.Keyframes),
				heapMB: float64(ms.HeapInuse) / (1 << 20)}
			w.cpu = w.user + w.sys
			w.fps = float64(w.framesEncoded) / el
			w.kbps = float64(8*(st.EncodedBytes-st0.EncodedBytes)) / el / 1000
			if len(a) != 3 || a[0] != "frames" {
				b.Fatalf("fleet: %q", a)
			}
			w.minFrames, _ = strconv.Atoi(a[1])
			// Every viewer must have been served nearly every frame.
			if w.minFrames < w.framesEncoded*9/10 {
				b.Fatalf("%d viewers: one assembled only %d of %d frames", n, w.minFrames, w.framesEncoded)
			}
			b.Logf("%3d viewer(s): %.3f CPU s/s (user %.3f, system %.3f), %.1f fps encoded (%d keyframes) at %.0f kbit/s; every viewer got >= %d frames; heap %.0f MB",
				n, w.cpu, w.user, w.sys, w.fps, w.keyframes, w.kbps, w.minFrames, w.heapMB)
			return w
		}
		set(1)
		time.Sleep(4 * time.Second) // the encoder's rate control settles
		var one, lots []serverWindow
		for r := 0; r < rounds; r++ {
			set(1)
			one = append(one, measure(1))
			set(many)
			lots = append(lots, measure(many))
		}
		fl.Close()
		waitFor(b, 30*time.Second, "the viewers to leave", func() bool { return s.Stats().Sessions == 0 })
		mean := func(ws []serverWindow, f func(serverWindow) float64) float64 {
			t := 0.0
			for _, w := range ws {
				t += f(w)
			}
			return t / float64(len(ws))
		}
		cpu := func(w serverWindow) float64 { return w.cpu }
		c1, cN := mean(one, cpu), mean(lots, cpu)
		b.ReportMetric(c1, "cpu-s/s-1-viewer")
		b.ReportMetric(cN, "cpu-s/s-100-viewers")
		b.ReportMetric(100*(cN/c1-1), "%more-for-100")
		b.ReportMetric(1000*(cN-c1)/(many-1), "ms/s-per-viewer")
	}
}

// TestViewersChild is BenchmarkServerCPU's child process, a fleet of
// viewers. It reads commands from stdin and answers each with one line
// that starts with "fleet: ":
//
//	viewers N   connect or drop viewers until there are N, wait until every
//	            one has received a frame; answers "ready N"
//	frames      answers "frames MIN TOTAL": frames assembled since the last
//	            "frames", by the viewer that got the fewest, and by all
//
// At the end of stdin it leaves.
func TestViewersChild(t *testing.T) {
	url := os.Getenv("STREAM_CHILD_URL")
	if url == "" {
		t.Skip("the child process of BenchmarkServerCPU")
	}
	api := browserLikeViewer(nil)
	var vs []*testViewer
	defer func() {
		for _, v := range vs {
			v.close()
		}
	}()
	got := func(v *testViewer) int {
		return int(v.Stats().FramesReceived)
	}
	last := map[*testViewer]int{}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) == 2 && f[0] == "viewers":
			n, err := strconv.Atoi(f[1])
			if err != nil || n < 0 {
				t.Fatalf("bad command %q", in.Text())
			}
			for len(vs) > n {
				v := vs[len(vs)-1]
				vs = vs[:len(vs)-1]
				delete(last, v)
				v.close()
			}
			for len(vs) < n {
				v, err := dialViewer(url, api, viewerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, v)
				last[v] = 0
			}
			deadline := time.Now().Add(60 * time.Second)
			for _, v := range vs {
				for got(v) == 0 {
					if time.Now().After(deadline) {
						t.Fatal("a viewer received no frame within 60 s")
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			fmt.Printf("fleet: ready %d\n", len(vs))
		case len(f) == 1 && f[0] == "frames":
			low, total := -1, 0
			for _, v := range vs {
				n := got(v)
				d := n - last[v]
				last[v] = n
				total += d
				if low < 0 || d < low {
					low = d
				}
			}
			fmt.Printf("fleet: frames %d %d\n", max(low, 0), total)
		default:
			t.Fatalf("bad command %q", in.Text())
		}
	}
}
