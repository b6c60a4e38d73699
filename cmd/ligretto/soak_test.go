//go:build soak

package main

// The soak report: `serve --source phone` in this process, a Go phone
// publishing the rendered round over WHIP at 10 fps in a loop (when the
// video ends it starts again in the same session: the table shows a new
// round being dealt, and the match goes on), and 10 Go spectators over
// WHEP (one of them decoding), for SOAK_MINUTES (default 30). Every 10 s
// it samples the process's resident memory, Go heap, goroutines, live
// Mats and the rounds scored; at the end it writes docs/live/soak.png and
// docs/live/soak.md (or into SOAK_OUT) and fails if memory, goroutines or
// Mats grew on a trend after the warm-up. Mats are counted only with the
// matprofile tag (gocv.MatProfile); without it they read -1 and are not
// judged.
//
//	SOAK_MINUTES=30 go test -tags 'soak matprofile' -run Soak -timeout 60m -v ./cmd/ligretto
//
// Everything runs in one process (the server, the publisher's encoder,
// the spectators), so the figures are the whole rig's; the publisher and
// the spectators hold steady state of their own and add no trend.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/model/plot"
	"ligretto/stream/whepclient"
	"ligretto/stream/whipclient"
	"ligretto/table"
)

// soakSample is one sample of the soak.
type soakSample struct {
	At         time.Duration
	RSSMB      float64
	HeapMB     float64
	Goroutines int
	Mats       int    // -1 without the matprofile tag
	Rounds     int    // rounds scored since the start, over every match
	InMatch    int    // rounds played in the current match (/api/state)
	Matches    int    // matches begun (a match ends at its target score)
	PubFrames  uint64 // pictures the publisher sent
	Loops      int    // times the video was started
	MinFrames  uint64 // frames received by the spectator that got the fewest
	Decoded    uint64 // pictures the decoding spectator decoded
}

// soakLimits: how much the mean of the last third may exceed the middle
// third's before it counts as a leak (the first third is warm-up).
const (
	soakGoroutineGrowth = 0.10
	soakRSSGrowth       = 0.25
)

func TestSoak(t *testing.T) {
	minutes := 30.0
	if s := os.Getenv("SOAK_MINUTES"); s != "" {
		m, err := strconv.ParseFloat(s, 64)
		if err != nil || m <= 0 {
			t.Fatalf("SOAK_MINUTES=%q", s)
		}
		minutes = m
	}
	outDir := os.Getenv("SOAK_OUT")
	if outDir == "" {
		outDir = filepath.Join("..", "..", "docs", "live")
	}
	const every = 10 * time.Second
	const spectators = 10
	length := time.Duration(minutes * float64(time.Minute))

	video := filepath.Join(renderedRound(t), "round.mkv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const token = "soak-operator-token"
	base, _, camToken, _, done, errs := phoneServe(t, ctx, cancel, token)

	// The phone: one session, the round over and over at 10 fps.
	pub, err := whipclient.Dial(ctx, base+"/whip", whipclient.Options{Token: camToken, FPS: 10, Bitrate: 4_000_000, LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-pub.Connected():
	case <-time.After(20 * time.Second):
		t.Fatal("the publisher did not connect")
	}
	var loops atomic.Int64
	pubCtx, stopPub := context.WithCancel(ctx)
	pubErr := make(chan error, 1)
	go func() { pubErr <- publishLoop(pubCtx, pub, video, 10, &loops) }()
	defer func() {
		stopPub()
		if err := <-pubErr; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the publisher: %v", err)
		}
		_ = pub.Close()
	}()

	// The spectators; the first one decodes.
	viewers := make([]*whepclient.Viewer, 0, spectators)
	defer func() {
		for _, v := range viewers {
			_ = v.Close()
		}
	}()
	for i := range spectators {
		v, err := whepclient.Dial(ctx, base+"/whep", whepclient.Options{LoopbackOnly: true, Decode: i == 0})
		if err != nil {
			t.Fatalf("spectator %d: %v", i, err)
		}
		viewers = append(viewers, v)
	}
	for i, v := range viewers {
		select {
		case <-v.Connected():
		case <-time.After(20 * time.Second):
			t.Fatalf("spectator %d did not connect", i)
		}
	}
	t.Logf("soak for %v: 1 publisher at 10 fps, %d spectators, sampling every %v (Mats counted: %v)", length, spectators, every, matsCounted)

	var samples []soakSample
	start := time.Now()
	lastFrames := make([]uint64, spectators)
	stalled := make([]int, spectators)
	var problems []string
	roundsBefore, matches, inMatch := 0, 1, 0
	sample := func() soakSample {
		// rounds_played starts again at 0 when a match ends and the next
		// begins: count across matches.
		if r := apiState(t, base, token).Match.Rounds; r < inMatch {
			roundsBefore += inMatch
			matches++
			inMatch = r
		} else {
			inMatch = r
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		s := soakSample{At: time.Since(start), RSSMB: residentMB(t), HeapMB: float64(ms.HeapInuse) / (1 << 20),
			Goroutines: runtime.NumGoroutine(), Mats: matCount(), Rounds: roundsBefore + inMatch, InMatch: inMatch, Matches: matches,
			PubFrames: pub.Stats().Frames, Loops: int(loops.Load())}
		s.MinFrames = math.MaxUint64
		for i, v := range viewers {
			st := v.Stats()
			s.MinFrames = min(s.MinFrames, st.FramesReceived)
			if i == 0 {
				s.Decoded = st.FramesDecoded
			}
			if len(samples) > 0 && st.FramesReceived == lastFrames[i] {
				stalled[i]++
			} else {
				stalled[i] = 0
			}
			if stalled[i] == 3 {
				problems = append(problems, fmt.Sprintf("spectator %d received nothing for 30 s at %v", i, s.At.Round(time.Second)))
			}
			lastFrames[i] = st.FramesReceived
			select {
			case <-v.Done():
				if stalled[i] == 0 {
					problems = append(problems, fmt.Sprintf("spectator %d's connection ended at %v", i, s.At.Round(time.Second)))
				}
			default:
			}
		}
		return s
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		s := sample()
		samples = append(samples, s)
		if len(samples)%6 == 1 {
			t.Logf("%5.1f min: RSS %.0f MB, heap %.0f MB, %d goroutines, %d Mats, %d rounds scored (match %d, round %d), video started %d times, %d sent, spectators >= %d frames, %d decoded",
				s.At.Minutes(), s.RSSMB, s.HeapMB, s.Goroutines, s.Mats, s.Rounds, s.Matches, s.InMatch, s.Loops, s.PubFrames, s.MinFrames, s.Decoded)
		}
		if s.At >= length {
			break
		}
		select {
		case <-tick.C:
		case err := <-pubErr:
			t.Fatalf("the publisher stopped at %v: %v\n%s", time.Since(start).Round(time.Second), err, tail(errs.String(), 40))
		case code := <-done:
			t.Fatalf("serve ended at %v: exit %d\n%s", time.Since(start).Round(time.Second), code, tail(errs.String(), 40))
		}
	}

	verdict := soakVerdict(samples)
	if err := writeSoakReport(outDir, samples, verdict, minutes); err != nil {
		t.Errorf("the report: %v", err)
	}
	last := samples[len(samples)-1]
	t.Logf("end: RSS %.0f MB (start %.0f), %d goroutines (start %d), %d Mats (start %d), %d rounds scored in %d matches, video played %d times",
		last.RSSMB, samples[0].RSSMB, last.Goroutines, samples[0].Goroutines, last.Mats, samples[0].Mats, last.Rounds, last.Matches, last.Loops)
	if last.Rounds == 0 {
		problems = append(problems, "no round was scored")
	}
	for _, l := range verdict.lines {
		t.Log(l)
	}
	if last.PubFrames == samples[0].PubFrames || last.MinFrames == samples[0].MinFrames || last.Decoded == samples[0].Decoded {
		problems = append(problems, "the video did not flow to every spectator over the soak")
	}
	problems = append(problems, verdict.failures...)
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Logf("serve's log (tail):\n%s", tail(errs.String(), 40))
	}
}

// publishLoop sends the video's pictures at fps through pub, from the
// start again each time it ends, until ctx ends.
func publishLoop(ctx context.Context, pub *whipclient.Publisher, video string, fps int, loops *atomic.Int64) error {
	gap := time.Second / time.Duration(fps)
	next := time.Now()
	m := gocv.NewMat()
	defer m.Close()
	for {
		vc, err := gocv.VideoCaptureFile(video)
		if err != nil {
			return err
		}
		loops.Add(1)
		n := 0
		for ; vc.Read(&m) && !m.Empty(); n++ {
			img, err := table.RGBA(m)
			if err != nil {
				vc.Close()
				return err
			}
			if wait := time.Until(next); wait > 0 {
				select {
				case <-ctx.Done():
					vc.Close()
					return ctx.Err()
				case <-time.After(wait):
				}
			}
			next = next.Add(gap)
			if time.Until(next) < -time.Second {
				next = time.Now() // fell far behind (a slow machine): do not burst
			}
			if err := pub.Send(img); err != nil {
				vc.Close()
				return err
			}
		}
		vc.Close()
		if n == 0 {
			return fmt.Errorf("%s has no frames", video)
		}
	}
}

// residentMB is this process's resident set (VmRSS) in MB.
func residentMB(t *testing.T) float64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				t.Fatalf("VmRSS %q", rest)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// soakJudgement is the trend check's result.
type soakJudgement struct {
	lines    []string // what was compared, for the log and the report
	failures []string
}

// soakVerdict compares the last third of the samples with the middle
// third (the first is warm-up): goroutines and RSS by their means (at
// most soakGoroutineGrowth and soakRSSGrowth more), Mats by their floor,
// the fewest alive at any sample, which frames in flight do not raise: a
// leak raises it, so it must not grow at all.
func soakVerdict(ss []soakSample) soakJudgement {
	var j soakJudgement
	n := len(ss)
	if n < 6 {
		j.failures = append(j.failures, fmt.Sprintf("only %d samples: too short to judge a trend", n))
		return j
	}
	mid, last := ss[n/3:2*n/3], ss[2*n/3:]
	mean := func(part []soakSample, f func(soakSample) float64) float64 {
		t := 0.0
		for _, s := range part {
			t += f(s)
		}
		return t / float64(len(part))
	}
	floor := func(part []soakSample, f func(soakSample) float64) float64 {
		m := math.Inf(1)
		for _, s := range part {
			m = min(m, f(s))
		}
		return m
	}
	check := func(what string, f func(soakSample) float64, agg func([]soakSample, func(soakSample) float64) float64, aggName string, growth float64) {
		a, b := agg(mid, f), agg(last, f)
		rel := 0.0
		if a > 0 {
			rel = b/a - 1
		}
		line := fmt.Sprintf("%s: %s of the middle third %.1f, of the last third %.1f (%+.1f%%, limit %+.0f%%)", what, aggName, a, b, 100*rel, 100*growth)
		j.lines = append(j.lines, line)
		if b > a*(1+growth) {
			j.failures = append(j.failures, "grew on a trend: "+line)
		}
	}
	check("goroutines", func(s soakSample) float64 { return float64(s.Goroutines) }, mean, "mean", soakGoroutineGrowth)
	check("RSS MB", func(s soakSample) float64 { return s.RSSMB }, mean, "mean", soakRSSGrowth)
	check("heap MB (not judged)", func(s soakSample) float64 { return s.HeapMB }, mean, "mean", math.Inf(1))
	if ss[0].Mats >= 0 {
		check("Mats", func(s soakSample) float64 { return float64(s.Mats) }, floor, "fewest", 0)
	} else {
		j.lines = append(j.lines, "Mats: not counted (build with -tags matprofile)")
	}
	return j
}

// writeSoakReport writes soak.png and soak.md into dir.
func writeSoakReport(dir string, ss []soakSample, v soakJudgement, minutes float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	series := func(name string, f func(soakSample) float64) []plot.Series {
		s := plot.Series{Name: name, Colour: plot.Palette[0]}
		for _, x := range ss {
			s.X = append(s.X, x.At.Minutes())
			s.Y = append(s.Y, f(x))
		}
		// An invisible point at zero, so that each axis starts at 0 and
		// a small wobble does not look like a climb.
		zero := plot.Series{Name: "", X: []float64{0}, Y: []float64{0}, Colour: color.RGBA{255, 255, 255, 255}}
		return []plot.Series{s, zero}
	}
	panels := []image.Image{
		plot.Lines("resident memory (VmRSS), MB", "minutes", series("RSS MB", func(s soakSample) float64 { return s.RSSMB }), false, 640, 260),
		plot.Lines("Go heap in use, MB", "minutes", series("heap MB", func(s soakSample) float64 { return s.HeapMB }), false, 640, 260),
		plot.Lines("goroutines", "minutes", series("goroutines", func(s soakSample) float64 { return float64(s.Goroutines) }), false, 640, 260),
	}
	if ss[0].Mats >= 0 {
		panels = append(panels, plot.Lines("gocv Mats alive (matprofile)", "minutes", series("Mats", func(s soakSample) float64 { return float64(s.Mats) }), false, 640, 260))
	} else {
		panels = append(panels, plot.Lines("rounds scored (Mats not counted: no matprofile tag)", "minutes", series("rounds", func(s soakSample) float64 { return float64(s.Rounds) }), false, 640, 260))
	}
	sheet := plot.Sheet(fmt.Sprintf("ligretto serve --source phone, soak of %.0f min: 1 phone at 10 fps, 10 spectators, sampled every 10 s", minutes),
		panels, nil, 2, 1)
	f, err := os.Create(filepath.Join(dir, "soak.png"))
	if err != nil {
		return err
	}
	if err := png.Encode(f, sheet); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	var b strings.Builder
	last := ss[len(ss)-1]
	fmt.Fprintf(&b, "# Soak of `serve --source phone`\n\n")
	fmt.Fprintf(&b, "Made on %s by\n\n    SOAK_MINUTES=%g go test -tags 'soak matprofile' -run Soak -timeout 60m -v ./cmd/ligretto\n\n", time.Now().Format("2006-01-02"), minutes)
	fmt.Fprintf(&b, "(`cmd/ligretto/soak_test.go`). One process holds `serve --source phone`, a Go phone publishing the rendered round (2 players, 600 frames at 1280x720) over WHIP at 10 fps, ")
	fmt.Fprintf(&b, "the round again from its start each time it ends, in the same session, and 10 Go spectators over WHEP (`stream/whepclient`; one decodes). ")
	fmt.Fprintf(&b, "Every 10 s: resident memory (`VmRSS`), Go heap in use, goroutines, live gocv Mats (`gocv.MatProfile.Count()`, only with the `matprofile` tag) and rounds scored (`/api/state`'s `rounds_played`, which starts again when a match ends at its target score and the next begins: the rounds column counts across matches). ")
	fmt.Fprintf(&b, "The machine has 2 cores shared with other work; that slows the pipeline, which a memory soak does not mind.\n\n![soak](soak.png)\n\n")
	fmt.Fprintf(&b, "## Verdict: %s\n\nThe first third is warm-up; the last third is compared with the middle third.\n\n", map[bool]string{true: "no leak found", false: "FAILED"}[len(v.failures) == 0])
	for _, l := range v.lines {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	for _, l := range v.failures {
		fmt.Fprintf(&b, "- **%s**\n", l)
	}
	fmt.Fprintf(&b, "\nStart to end: RSS %.0f -> %.0f MB, goroutines %d -> %d, Mats %d -> %d; %d rounds scored in %d matches; the video was started %d times; the phone sent %d pictures; every spectator received at least %d frames; the decoding one decoded %d.\n\n",
		ss[0].RSSMB, last.RSSMB, ss[0].Goroutines, last.Goroutines, ss[0].Mats, last.Mats, last.Rounds, last.Matches, last.Loops, last.PubFrames, last.MinFrames, last.Decoded)
	fmt.Fprintf(&b, "## Samples every 5 minutes\n\n| min | RSS MB | heap MB | goroutines | Mats | rounds scored | match | video starts | pictures sent | frames (least-served spectator) | decoded |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range fiveMinuteSamples(ss) {
		fmt.Fprintf(&b, "| %.1f | %.0f | %.0f | %d | %d | %d | %d | %d | %d | %d | %d |\n",
			s.At.Minutes(), s.RSSMB, s.HeapMB, s.Goroutines, s.Mats, s.Rounds, s.Matches, s.Loops, s.PubFrames, s.MinFrames, s.Decoded)
	}
	return os.WriteFile(filepath.Join(dir, "soak.md"), []byte(b.String()), 0o644)
}

// fiveMinuteSamples picks the first sample at or after each 5 minutes, and
// the last one.
func fiveMinuteSamples(ss []soakSample) []soakSample {
	var out []soakSample
	next := time.Duration(0)
	for _, s := range ss {
		if s.At >= next {
			out = append(out, s)
			for next <= s.At {
				next += 5 * time.Minute
			}
		}
	}
	if l := ss[len(ss)-1]; len(out) == 0 || out[len(out)-1].At != l.At {
		out = append(out, l)
	}
	return slices.Clip(out)
}
