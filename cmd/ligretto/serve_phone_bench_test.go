//go:build e2e

package main

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/stream/whepclient"
	"ligretto/stream/whipclient"
	"ligretto/table"
)

// BenchmarkPhoneGlassToGlass measures `serve --source phone` on loopback:
// the time from a picture leaving the Go phone (just before it is
// encoded and sent over WHIP) to the annotated frame showing it being
// decoded by a Go spectator over WHEP, and the CPU the serving process
// spends meanwhile (cpu-s/s: CPU seconds per second, getrusage).
//
// serve runs in this process; the phone and the spectator run in a child
// process (this test binary again, as TestPhoneBenchChild), so that
// their encoding and decoding are not counted as serve's CPU. The phone
// sends the rendered round (1280x720) at 10 fps, from its start again
// when it ends, with the frame number stamped as a block barcode into
// the top-right corner, outside the table (the annotation draws the
// scoreboard at the top left, outlines in the centre); the spectator reads
// it back from each decoded picture. Once the table is calibrated and
// stamps come back, PHONE_BENCH_FRAMES frames (default 300, about 30 s)
// are measured: p50, p95 and p99 latency in ms (target p95 <= 150 ms),
// the share of the phone's pictures that reached the spectator, the
// phone's encode time and the spectator's decode time (both inside the
// latency), and serve's CPU over the same window. Run it once (1x); ns/op
// is the whole window.
//
//	go test -tags e2e -run '^$' -bench PhoneGlassToGlass -benchtime 1x -timeout 20m ./cmd/ligretto
//
// PHONE_BENCH_PNG=FILE writes one decoded spectator frame, to check that
// the stamp sits where the annotation leaves it alone.
func BenchmarkPhoneGlassToGlass(b *testing.B) {
	video := filepath.Join(renderedRound(b), "round.mkv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const token = "phone-bench-operator-token"
	base, _, camToken, _, done, errs := phoneServe(b, ctx, cancel, token)

	frames := 300
	if n, err := strconv.Atoi(os.Getenv("PHONE_BENCH_FRAMES")); err == nil && n > 0 {
		frames = n
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPhoneBenchChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "PHONE_BENCH_BASE="+base, "PHONE_BENCH_CAMERA="+camToken, "PHONE_BENCH_VIDEO="+video,
		"PHONE_BENCH_FRAMES="+strconv.Itoa(frames))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	next := func() []string {
		for lines.Scan() {
			if rest, ok := strings.CutPrefix(lines.Text(), "phonebench: "); ok {
				return strings.Fields(rest)
			}
		}
		b.Fatalf("the child ended without a result\n%s", tail(errs.String(), 30))
		return nil
	}
	if f := next(); len(f) == 0 || f[0] != "measuring" {
		b.Fatalf("child: %q", f)
	}
	cpu0, t0 := serveCPU(), time.Now()
	b.ResetTimer()
	res := next()
	b.StopTimer()
	cpu := (serveCPU() - cpu0).Seconds() / time.Since(t0).Seconds()
	if len(res) != 9 || res[0] != "result" {
		b.Fatalf("child: %q", res)
	}
	vals := make([]float64, len(res)-1)
	for i, s := range res[1:] {
		if vals[i], err = strconv.ParseFloat(s, 64); err != nil {
			b.Fatalf("child: %q", res)
		}
	}
	st := apiState(b, base, token)
	b.ReportMetric(vals[0], "p50-ms")
	b.ReportMetric(vals[1], "p95-ms")
	b.ReportMetric(vals[2], "p99-ms")
	b.ReportMetric(vals[3], "max-ms")
	b.ReportMetric(100*vals[4], "%delivered")
	b.ReportMetric(vals[5], "encode-p50-ms")
	b.ReportMetric(vals[7], "decode-p50-ms")
	b.ReportMetric(cpu, "cpu-s/s")
	b.Logf("%d frames measured of %.0f sent; p50 %.1f ms, p95 %.1f ms, p99 %.1f ms; serve %.2f CPU s/s; phase %s, %d rounds scored",
		int(vals[6]), float64(int(vals[6]))/max(vals[4], 1e-9), vals[0], vals[1], vals[2], cpu, st.Phase, st.Match.Rounds)
	cancel()
	if code := <-done; code != 0 {
		b.Errorf("serve: exit %d\n%s", code, tail(errs.String(), 30))
	}
}

// serveCPU is this process's user and system CPU time so far.
func serveCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The stamp: two rows of stampBits blocks of stampPx pixels at the top
// right, outside the table, the frame number's bits over the same bits
// inverted (a misread is caught), on a black margin. (The top left is
// not free: the annotation draws the scoreboard there.)
const (
	stampBits = 12
	stampPx   = 10
	stampY    = 8
)

func stampX(w int) int { return w - 8 - stampBits*stampPx }

func stampFrame(img *image.RGBA, n uint64) {
	stampX := stampX(img.Rect.Dx())
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
	fill(stampX-4, stampY-4, stampX+stampBits*stampPx+4, stampY+2*stampPx+4, black)
	for i := range stampBits {
		c, inv := black, white
		if n>>(stampBits-1-i)&1 == 1 {
			c, inv = white, black
		}
		x := stampX + i*stampPx
		fill(x, stampY, x+stampPx, stampY+stampPx, c)
		fill(x, stampY+stampPx, x+stampPx, stampY+2*stampPx, inv)
	}
}

// readFrameStamp reads the frame number back from the middle of each
// block; ok is false where the two rows disagree.
func readFrameStamp(img *image.YCbCr) (n uint64, ok bool) {
	stampX := stampX(img.Rect.Dx())
	if stampX < 4 || img.Rect.Dy() < stampY+2*stampPx+4 {
		return 0, false
	}
	for i := range stampBits {
		x := stampX + i*stampPx + stampPx/2
		top := img.Y[img.YOffset(x, stampY+stampPx/2)]
		bottom := img.Y[img.YOffset(x, stampY+stampPx+stampPx/2)]
		if (top > 128) == (bottom > 128) {
			return 0, false
		}
		n <<= 1
		if top > 128 {
			n |= 1
		}
	}
	return n, true
}

// TestPhoneBenchChild is BenchmarkPhoneGlassToGlass's child process: the
// phone and the spectator. It prints "phonebench: measuring" when stamps
// come back and the measuring starts, then "phonebench: result P50 P95
// P99 MAX DELIVERED ENCODE-P50 N DECODE-P50".
func TestPhoneBenchChild(t *testing.T) {
	base := os.Getenv("PHONE_BENCH_BASE")
	if base == "" {
		t.Skip("the child process of BenchmarkPhoneGlassToGlass")
	}
	want, _ := strconv.Atoi(os.Getenv("PHONE_BENCH_FRAMES"))
	want = max(want, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var mu sync.Mutex
	sentAt := map[uint64]time.Time{}
	measuring := false
	var measured, sentMeasuring, decodedN, stampedN int
	var lat, encode, decode []float64
	finished := make(chan struct{})
	var once sync.Once
	savedPNG := os.Getenv("PHONE_BENCH_PNG") == ""
	spectator, err := whepclient.Dial(ctx, base+"/whep", whepclient.Options{LoopbackOnly: true, NoDataChannel: true, Decode: true,
		OnFrame: func(f whepclient.Frame) {
			if f.Image == nil {
				return
			}
			n, ok := readFrameStamp(f.Image)
			mu.Lock()
			defer mu.Unlock()
			decodedN++
			if ok {
				stampedN++
			}
			if !savedPNG && decodedN == 150 {
				savedPNG = true
				writeYCbCrPNG(t, os.Getenv("PHONE_BENCH_PNG"), f.Image)
			}
			if !ok {
				return
			}
			at, sent := sentAt[n]
			if !sent {
				return
			}
			delete(sentAt, n) // an annotated frame may be sent again: count its first showing only
			if !measuring {
				return
			}
			lat = append(lat, float64(f.Decoded.Sub(at).Microseconds())/1000)
			decode = append(decode, float64(f.Decoded.Sub(f.Received).Microseconds())/1000)
			measured++
			if measured >= want {
				once.Do(func() { close(finished) })
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer spectator.Close()
	pub, err := whipclient.Dial(ctx, base+"/whip", whipclient.Options{Token: os.Getenv("PHONE_BENCH_CAMERA"), FPS: 10, Bitrate: 4_000_000, LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	select {
	case <-pub.Connected():
	case <-time.After(20 * time.Second):
		t.Fatal("the phone did not connect")
	}

	// Warm-up: until the table is calibrated and the spectator reads
	// stamps back (the calibration preamble is at the video's start).
	var seq uint64
	warmupSeen := 0
	// Give up, rather than hang, if the stamps do not come back: a minute
	// for the warm-up, and three times the measuring's own length.
	deadline := time.Now().Add(time.Minute + 3*time.Duration(want)*100*time.Millisecond)
	gap := 100 * time.Millisecond
	nextAt := time.Now()
	for {
		pics := videoPicturesNoT(ctx, os.Getenv("PHONE_BENCH_VIDEO"))
		for img := range pics {
			seq++
			stampFrame(img, seq%(1<<stampBits))
			if d := time.Until(nextAt); d > 0 {
				time.Sleep(d)
			}
			nextAt = nextAt.Add(gap)
			mu.Lock()
			// Stamps wrap: forget what was sent long ago.
			for k, v := range sentAt {
				if time.Since(v) > 10*time.Second {
					delete(sentAt, k)
				}
			}
			if !measuring {
				// Warm-up: 10 s (the calibration preamble), then until
				// 20 pictures in a row find fewer than 10 stamps
				// outstanding (they come back).
				if sent := len(sentAt); sent < 10 && seq > 100 {
					warmupSeen++
				} else {
					warmupSeen = 0
				}
				if warmupSeen >= 20 {
					measuring = true
					fmt.Println("phonebench: measuring")
				}
			}
			if measuring {
				sentMeasuring++
			}
			if seq%100 == 0 {
				fmt.Fprintf(os.Stderr, "phone bench child: %d pictures sent, %d decoded by the spectator, %d with a stamp read back, %d stamps outstanding, measuring %v (%d)\n",
					seq, decodedN, stampedN, len(sentAt), measuring, measured)
			}
			sentAt[seq%(1<<stampBits)] = time.Now()
			mu.Unlock()
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("gave up: %d pictures sent, %d decoded by the spectator, %d with a stamp read back, measuring %v (%d of %d)",
					seq, decodedN, stampedN, measuring, measured, want)
			}
			t0 := time.Now()
			if err := pub.Send(img); err != nil {
				t.Fatal(err)
			}
			if measuring {
				mu.Lock()
				encode = append(encode, float64(time.Since(t0).Microseconds())/1000)
				mu.Unlock()
			}
			select {
			case <-finished:
				cancel()
				for range pics {
				}
				mu.Lock()
				defer mu.Unlock()
				slices.Sort(lat)
				slices.Sort(encode)
				slices.Sort(decode)
				q := func(xs []float64, p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
				fmt.Printf("phonebench: result %.2f %.2f %.2f %.2f %.4f %.2f %d %.2f\n", q(lat, 0.5), q(lat, 0.95), q(lat, 0.99), lat[len(lat)-1],
					float64(measured)/float64(max(sentMeasuring, 1)), q(encode, 0.5), measured, q(decode, 0.5))
				return
			default:
			}
		}
		if ctx.Err() != nil {
			t.Fatal(ctx.Err())
		}
	}
}

// videoPicturesNoT reads a video's frames as RGBA pictures into a
// channel that closes at the end of the video or when ctx ends (it needs
// no testing.T: the caller drains it).
func videoPicturesNoT(ctx context.Context, path string) <-chan *image.RGBA {
	out := make(chan *image.RGBA)
	go func() {
		defer close(out)
		vc, err := gocv.VideoCaptureFile(path)
		if err != nil {
			return
		}
		defer vc.Close()
		m := gocv.NewMat()
		defer m.Close()
		for vc.Read(&m) && !m.Empty() {
			img, err := table.RGBA(m)
			if err != nil {
				return
			}
			select {
			case out <- img:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

func writeYCbCrPNG(t *testing.T, path string, img *image.YCbCr) {
	f, err := os.Create(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Error(err)
	}
}
