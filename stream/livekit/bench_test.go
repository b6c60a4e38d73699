package livekit_test

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/stream/internal/childproc"
	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/livekit/lkviewer"
)

// TestMain runs the benchmark's fleet of viewers when this binary is
// started as its child process.
func TestMain(m *testing.M) {
	if os.Getenv("LIVEKIT_FLEET_URL") != "" {
		os.Exit(runFleet())
	}
	os.Exit(m.Run())
}

// movingBar is a 25 fps source of pre-drawn 1280x720 pictures, a white
// bar moving across grey, so that the encoder has work and drawing costs
// nothing.
func movingBar() stream.FrameSource {
	const w, h, n = 1280, 720, 50
	frames := make([]*image.RGBA, n)
	for i := range frames {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{90, 110, 90, 255}), image.Point{}, draw.Src)
		x := i * (w - w/6) / n
		draw.Draw(img, image.Rect(x, h/3, x+w/6, h/2), image.NewUniform(color.RGBA{250, 250, 250, 255}), image.Point{}, draw.Src)
		frames[i] = img
	}
	return stream.FrameSourceFunc(func(ctx context.Context) <-chan stream.Frame {
		out := make(chan stream.Frame, 1)
		go func() {
			defer close(out)
			tick := time.NewTicker(40 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case out <- stream.Frame{Image: frames[i%n], Time: time.Now()}:
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
	})
}

// BenchmarkLiveKitViewers measures the referee process's CPU (CPU seconds
// per second: the stream server encoding 1280x720 at 25 fps and the
// publisher) while 1 and then 200 LiveKit viewers watch the room, and
// livekit-server's own CPU beside it. The viewers are SDK bots in a child
// process (this test binary again), so that their work is not counted as
// the referee's; getrusage(RUSAGE_SELF) gives the referee's CPU and
// /proc/PID/stat the server's, over LIVEKIT_BENCH_WINDOW seconds
// (default 10) once every viewer has a frame. The fan-out is the SFU's,
// so the referee's CPU should not grow with the viewers.
//
//	go test -run '^$' -bench LiveKitViewers -benchtime 1x ./stream/livekit
func BenchmarkLiveKitViewers(b *testing.B) {
	window := time.Duration(envInt("LIVEKIT_BENCH_WINDOW", 10)) * time.Second
	many := envInt("LIVEKIT_BENCH_VIEWERS", 200)
	for i := 0; i < b.N; i++ {
		lk := lktest.Start(b)
		ctx, cancel := context.WithCancel(context.Background())
		srv, err := stream.New(stream.Config{UDPAddr: "127.0.0.1:0", Logger: quiet}, movingBar(), stream.NewRefereeGame(referee.New(), nil))
		if err != nil {
			b.Fatal(err)
		}
		cfg := livekit.Config{URL: lk.URL, APIKey: lktest.Key, APISecret: lktest.Secret, Room: "bench", Logger: quiet}
		pub, err := livekit.New(cfg, srv.RequestKeyframe)
		if err != nil {
			b.Fatal(err)
		}
		srv.AddRelay(pub)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _ = srv.Run(ctx) }()
		go func() { defer wg.Done(); _ = pub.Run(ctx) }()
		waitFor(b, "publisher live", 10*time.Second, pub.Live)
		fl := startFleet(b, cfg)

		measure := func(n int) (referee, server float64, minFrames int) {
			if a := fl.Ask(b, "viewers "+strconv.Itoa(n)); len(a) != 2 || a[0] != "ready" {
				b.Fatalf("fleet: %q", a)
			}
			time.Sleep(3 * time.Second) // the keyframes the new viewers asked for
			fl.Ask(b, "frames")
			r0, s0, t0 := selfCPU(), procCPU(b, lk.PID()), time.Now()
			time.Sleep(window)
			r1, s1 := selfCPU(), procCPU(b, lk.PID())
			el := time.Since(t0).Seconds()
			a := fl.Ask(b, "frames")
			minFrames, _ = strconv.Atoi(a[1])
			referee, server = (r1-r0).Seconds()/el, (s1-s0).Seconds()/el
			b.Logf("%3d viewer(s): referee %.3f CPU s/s, livekit-server %.3f CPU s/s; every viewer got >= %d frames in %.0f s",
				n, referee, server, minFrames, el)
			if minFrames < int(el*25*8/10) {
				b.Fatalf("%d viewers: one got only %d frames in %.0f s", n, minFrames, el)
			}
			return referee, server, minFrames
		}
		r1, s1, _ := measure(1)
		rN, sN, _ := measure(many)
		fl.Close()
		cancel()
		wg.Wait()
		b.ReportMetric(r1, "referee-cpu-s/s-1-viewer")
		b.ReportMetric(rN, "referee-cpu-s/s-"+strconv.Itoa(many)+"-viewers")
		b.ReportMetric(100*(rN/r1-1), "%referee-more")
		b.ReportMetric(1000*(sN-s1)/float64(many-1), "livekit-ms/s-per-viewer")
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// selfCPU is this process's user and system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is another process's user and system CPU time so far, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s).
func procCPU(tb testing.TB, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}

// startFleet starts the child process of viewers.
func startFleet(tb testing.TB, c livekit.Config) *childproc.Child {
	return childproc.Start(tb, []string{"-test.run=^$"}, []string{"LIVEKIT_FLEET_URL=" + c.URL, "LIVEKIT_FLEET_ROOM=" + c.Room,
		"LIVEKIT_API_KEY=" + c.APIKey, "LIVEKIT_API_SECRET=" + c.APISecret})
}

// runFleet is the child: it reads commands from stdin and answers each
// with a line that starts with "fleet: ".
//
//	viewers N   join or leave until N viewers watch, each with a frame: "ready N"
//	frames      "frames MIN TOTAL": frames since the last "frames", by the
//	            viewer that got the fewest, and by all
func runFleet() int {
	cfg := livekit.Config{URL: os.Getenv("LIVEKIT_FLEET_URL"), Room: os.Getenv("LIVEKIT_FLEET_ROOM")}.FromEnv()
	var vs []*lkviewer.Viewer
	defer func() {
		for _, v := range vs {
			v.Close()
		}
	}()
	last := map[*lkviewer.Viewer]uint64{}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) == 2 && f[0] == "viewers":
			n, _ := strconv.Atoi(f[1])
			for len(vs) > n {
				v := vs[len(vs)-1]
				vs = vs[:len(vs)-1]
				delete(last, v)
				v.Close()
			}
			joined, err := joinMany(cfg, n-len(vs))
			if err != nil {
				fmt.Fprintln(os.Stderr, "fleet:", err)
				return 1
			}
			vs = append(vs, joined...)
			deadline := time.Now().Add(60 * time.Second)
			for _, v := range vs {
				for v.Stats().Frames == 0 {
					if time.Now().After(deadline) {
						fmt.Fprintln(os.Stderr, "fleet: a viewer got no frame within 60 s")
						return 1
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			fmt.Printf("fleet: ready %d\n", len(vs))
		case len(f) == 1 && f[0] == "frames":
			low, total := -1, uint64(0)
			for _, v := range vs {
				n := v.Stats().Frames
				d := n - last[v]
				last[v] = n
				total += d
				if low < 0 || int(d) < low {
					low = int(d)
				}
			}
			fmt.Printf("fleet: frames %d %d\n", max(low, 0), total)
		default:
			fmt.Fprintf(os.Stderr, "fleet: bad command %q\n", in.Text())
			return 1
		}
	}
	return 0
}

// joinMany joins n viewers, ten at a time.
func joinMany(cfg livekit.Config, n int) ([]*lkviewer.Viewer, error) {
	out := make([]*lkviewer.Viewer, max(n, 0))
	errs := make(chan error, len(out))
	sem := make(chan struct{}, 10)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			j, err := livekit.ViewerToken(cfg)
			if err != nil {
				errs <- err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			v, err := lkviewer.Join(ctx, j.URL, j.Token, lkviewer.Options{})
			if err != nil {
				errs <- err
				return
			}
			out[i] = v
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return out, nil
}
