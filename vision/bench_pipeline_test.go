package vision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"gocv.io/x/gocv"
	"golang.org/x/sys/unix"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
	"ligretto/vision/cvthreads"
)

// benchPipeline calibrates a simulated round and returns a started
// pipeline over it.
func benchPipeline(b testing.TB, players int, seed uint64) (*scene.Scene, *Pipeline) {
	sc, evs, _ := simRound(b, players, seed, 0)
	cal := calibrateScene(b, sc, players)
	pred := testPredictor(b)
	pc := DefaultPipelineConfig()
	pc.Settings = *evs[0].Settings
	p, err := NewPipeline(cal, pred, pc)
	if err != nil {
		b.Fatal(err)
	}
	p.Start(0)
	return sc, p
}

// BenchmarkPipelineFrame measures Process at 1280x720 on a table with at
// least 12 piles in view (8 players, late in a round), alternating two
// frames 33 ms apart so that motion and change detection work as in a
// video. Run it on one core per OpenCV for the "2 cores" figure:
//
//	OPENCV_FOR_THREADS_NUM=1 go test ./vision -run '^$' -bench PipelineFrame -benchtime 300x
func BenchmarkPipelineFrame(b *testing.B) {
	sc, p := benchPipeline(b, 8, 1)
	defer p.Close()
	// The first moment with 12 piles in plain view.
	var frames [2]gocv.Mat
	for i := range frames {
		frames[i] = gocv.NewMat()
		defer frames[i].Close()
	}
	at := int64(-1)
	for t := int64(0); t < sc.End() && at < 0; t += 500 {
		tr, err := sc.Render(t, &frames[0])
		if err != nil {
			b.Fatal(err)
		}
		piles := 0
		for _, c := range tr {
			if c.Role == scene.RolePile && c.Occluded == 0 {
				piles++
			}
		}
		if piles >= 12 {
			at = t
		}
	}
	if at < 0 {
		b.Fatal("the round never shows 12 piles")
	}
	for i := range frames {
		if _, err := sc.Render(at+int64(i)*33, &frames[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := p.Process(frames[i%2], at+int64(i)*33); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU time as well as wall time: on a shared machine the wall-clock
	// fps understates what the pipeline needs.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/frame")
	t := p.Timing()
	n := float64(t.Frames)
	b.ReportMetric(float64(t.Rectify.Microseconds())/n, "rectify-us/frame")
	b.ReportMetric(float64(t.Detect.Microseconds())/n, "detect-us/frame")
	b.ReportMetric(float64(t.Motion.Microseconds())/n, "motion+crop-us/frame")
	b.ReportMetric(float64(t.Classify.Microseconds())/n, "classify-us/frame")
	b.ReportMetric(float64(t.Track.Microseconds())/n, "track-us/frame")
	b.ReportMetric(n/b.Elapsed().Seconds(), "fps")
}

// BenchmarkReadSeats measures one read of the seats (find the cards in
// every seat zone, read their sides), which watchSeats does every 8th
// still frame while fewer than 2 piles are open: 12 players at the
// start of a round, every row out. "all" reads every card (until the
// rows were seen), "first" stops at the first face (after).
//
//	go test ./vision -run '^$' -bench ReadSeats -benchtime 100x
func BenchmarkReadSeats(b *testing.B) {
	for _, c := range []struct {
		name   string
		enough int
	}{{"all", 0}, {"first", 1}} {
		b.Run(c.name, func(b *testing.B) { benchReadSeats(b, c.enough) })
	}
}

func benchReadSeats(b *testing.B, enough int) {
	sc, p := benchPipeline(b, 12, 1)
	defer p.Close()
	frame := gocv.NewMat()
	defer frame.Close()
	if _, err := sc.Render(300, &frame); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Process(frame, 300); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	faces := 0
	for i := 0; i < b.N; i++ {
		s, err := p.readSeats(frame, enough)
		if err != nil {
			b.Fatal(err)
		}
		faces = 0
		for _, f := range s.faces {
			faces += f
		}
	}
	b.StopTimer()
	if faces < 1 || enough == 0 && faces < 12 {
		b.Fatalf("the seats of 12 players at the start show %d faces", faces)
	}
	b.ReportMetric(float64(faces), "faces")
}

// BenchmarkSettleToObservation measures, over a whole rendered round at
// 30 fps, how many frames pass from a card settling on a pile (the first
// frame it lies still with no hand over it) to the pipeline's observation
// of it. It reports the median, the 95th percentile and the worst, and
// the same counting only the frames in which the card lay in plain view
// (in-view-*): a hand that lifts for a frame and covers the card again
// delays every camera, and that delay is not the pipeline's. One round is
// enough: run it with -benchtime 1x.
//
//	go test ./vision -run '^$' -bench SettleToObservation -benchtime 1x
func BenchmarkSettleToObservation(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sc, p := benchPipeline(b, 4, 3)
		// settled: the frame each face on each (simulator) pile was first
		// seen at rest in plain view.
		type key struct {
			pile int
			face referee.Face
		}
		settled := map[key]int{}
		clear := map[key]int{} // frames in plain view since settled, that one included
		byFace := map[referee.Face][]key{}
		var delays, inView []int
		m := gocv.NewMat()
		for k := 0; ; k++ {
			tm := int64(k) * 1000 / testFPS
			if tm > sc.End() {
				break
			}
			tr, err := sc.Render(tm, &m)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range tr {
				if c.Role != scene.RolePile || c.Occluded > 0 || c.Hand {
					continue
				}
				kk := key{c.Pile, c.Card.Face}
				clear[kk]++
				if _, ok := settled[kk]; !ok {
					settled[kk] = k
					byFace[c.Card.Face] = append(byFace[c.Card.Face], kk)
				}
			}
			obs, err := p.Process(m, tm)
			if err != nil {
				b.Fatal(err)
			}
			for _, o := range obs {
				if (o.Kind != referee.ObsPileShows && o.Kind != referee.ObsPileNew) || o.Card == nil {
					continue
				}
				// The latest settling of that face: a pile it was seen on.
				best, bestKey := -1, key{}
				for _, kk := range byFace[*o.Card] {
					if settled[kk] > best {
						best, bestKey = settled[kk], kk
					}
				}
				if best >= 0 {
					delays = append(delays, k-best)
					inView = append(inView, clear[bestKey]-1)
				}
			}
			if p.phase == referee.PhaseCounting {
				break
			}
		}
		m.Close()
		p.Close()
		if len(delays) == 0 {
			b.Fatal("no pile observation matched a settled card")
		}
		for _, d := range []struct {
			name string
			v    []int
		}{{"", delays}, {"in-view-", inView}} {
			slices.Sort(d.v)
			b.ReportMetric(float64(d.v[len(d.v)/2]), d.name+"frames-p50")
			b.ReportMetric(float64(d.v[len(d.v)*95/100]), d.name+"frames-p95")
			b.ReportMetric(float64(d.v[len(d.v)-1]), d.name+"frames-max")
		}
		b.ReportMetric(float64(len(delays)), "observations")
	}
}

// BenchmarkPipelineRound runs a whole rendered round (8 players, seed 12,
// 3% illegal plays, 1280x720 at 30 fps) through Process, the count after
// the stop included, and reports the time of one frame: p50, p95, p99
// and the worst, and the frames per second that Process alone allows; and
// the same percentiles of this thread's CPU time (cpu-*).
// Rendering is not timed. "1thread" holds OpenCV to one thread
// (cv::setNumThreads), "default" leaves it its own. ROUND_OBS=FILE writes
// the observations, to compare two builds.
//
//	go test ./vision -run '^$' -bench PipelineRound -benchtime 1x
func BenchmarkPipelineRound(b *testing.B) {
	for _, c := range []struct {
		name    string
		threads int
	}{{"1thread", 1}, {"default", -1}} {
		b.Run(c.name, func(b *testing.B) {
			def := cvthreads.Get()
			defer cvthreads.Set(def)
			cvthreads.Set(c.threads)
			for i := 0; i < b.N; i++ {
				benchRound(b, 8, 12, 0.03)
			}
		})
	}
}

func benchRound(b *testing.B, players int, seed uint64, errRate float64) {
	b.StopTimer()
	sc, evs, _ := simRound(b, players, seed, errRate)
	cal := calibrateScene(b, sc, players)
	pred := testPredictor(b)
	pc := DefaultPipelineConfig()
	pc.Settings = *evs[0].Settings
	p, err := NewPipeline(cal, pred, pc)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ref := referee.New()
	var all []referee.Observation
	apply := func(obs []referee.Observation) {
		for _, o := range obs {
			// A violation is an answer, not a failure here; a refusal is.
			if _, err := ref.Apply(o); err != nil {
				var x *referee.Violation
				if !errors.As(err, &x) {
					b.Fatalf("the referee refused %+v: %v", o, err)
				}
			}
			all = append(all, o)
		}
	}
	apply(p.Start(0))
	m := gocv.NewMat()
	defer m.Close()
	// Wall time, and the CPU time of this thread (with OpenCV on one
	// thread, all of Process's work: on a shared machine it is the figure
	// that holds from run to run).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var times, cpus []time.Duration
	var total time.Duration
	countFrames := 0 // frames the count after the stop took
	// ROUND_SLOW=1 logs the slowest frames, stage by stage.
	type slowFrame struct {
		k, crops int
		cpu      time.Duration
		phase    referee.Phase
		stages   [5]time.Duration
	}
	slow := os.Getenv("ROUND_SLOW") != ""
	var frames []slowFrame
	var last Timing
	for k := 0; ; k++ {
		tm := int64(k) * 1000 / testFPS
		if tm > sc.End() {
			break
		}
		if _, err := sc.Render(tm, &m); err != nil {
			b.Fatal(err)
		}
		counting := p.counting != nil
		b.StartTimer()
		c0, t0 := threadCPU(), time.Now()
		obs, err := p.Process(m, tm)
		d, c := time.Since(t0), threadCPU()-c0
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		times, cpus = append(times, d), append(cpus, c)
		if counting || p.counting != nil {
			countFrames++
		}
		if slow {
			t := p.Timing()
			frames = append(frames, slowFrame{k: k, cpu: c, phase: p.phase, crops: t.Crops - last.Crops,
				stages: [5]time.Duration{t.Rectify - last.Rectify, t.Detect - last.Detect, t.Motion - last.Motion, t.Classify - last.Classify, t.Track - last.Track}})
			last = t
		}
		total += d
		apply(obs)
		if ref.State().Phase == referee.PhaseOver {
			break
		}
	}
	if ref.State().Phase != referee.PhaseOver {
		b.Fatal("the round was never scored")
	}
	if slow {
		slices.SortFunc(frames, func(a, b slowFrame) int { return int(b.cpu - a.cpu) })
		for _, f := range frames[:min(len(frames), 25)] {
			fmt.Fprintf(os.Stderr, "frame %d (%s): cpu %v; rectify, detect, motion+crop, classify, track %v; %d crops\n", f.k, f.phase, f.cpu, f.stages, f.crops)
		}
	}
	if f := os.Getenv("ROUND_OBS"); f != "" {
		var buf bytes.Buffer
		for _, o := range all {
			j, _ := json.Marshal(o)
			buf.Write(append(j, '\n'))
		}
		if err := os.WriteFile(f, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []struct {
		name string
		v    []time.Duration
	}{{"", times}, {"cpu-", cpus}} {
		slices.Sort(d.v)
		at := func(q float64) float64 {
			return float64(d.v[min(int(q*float64(len(d.v))), len(d.v)-1)].Microseconds()) / 1000
		}
		b.ReportMetric(at(0.5), d.name+"p50-ms")
		b.ReportMetric(at(0.95), d.name+"p95-ms")
		b.ReportMetric(at(0.99), d.name+"p99-ms")
		b.ReportMetric(float64(d.v[len(d.v)-1].Microseconds())/1000, d.name+"max-ms")
	}
	b.ReportMetric(float64(len(times))/total.Seconds(), "fps")
	b.ReportMetric(float64(len(times)), "frames")
	b.ReportMetric(float64(countFrames), "count-frames")
	b.StartTimer()
}

// BenchmarkCountSteps measures the count after the stop on one thread (8
// players, seed 12, 3% illegal plays), in CPU time of that thread: each
// stage, and the longest step, which is what one frame of the live view
// waits for at most (worst-group: finding a group's rows, worst-in-group:
// counting one row, cutting the backs to read, or reading one).
//
//	go test ./vision -run '^$' -bench CountSteps -benchtime 5x
func BenchmarkCountSteps(b *testing.B) {
	def := cvthreads.Get()
	defer cvthreads.Set(def)
	cvthreads.Set(1)
	sc, evs, _ := simRound(b, 8, 12, 0.03)
	cal := calibrateScene(b, sc, 8)
	var stop int64 = -1
	for _, e := range evs {
		if e.Kind == sim.EvStop || e.Kind == sim.EvDeadlock {
			stop = e.TimeMS
			break
		}
	}
	if stop < 0 {
		b.Fatal("the round has no stop")
	}
	pred := testPredictor(b)
	p, err := NewPipeline(cal, pred, DefaultPipelineConfig())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	m := gocv.NewMat()
	defer m.Close()
	if _, err := sc.Render(stop+sc.Config().CountDelay+400, &m); err != nil {
		b.Fatal(err)
	}
	// Thread CPU time, not wall time: on a shared machine the wall time
	// of a step says more about the neighbours than about the step.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	stages := map[int]time.Duration{}
	var worst, worstRead, worstGroup time.Duration
	kinds := map[string]time.Duration{}
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := p.newCountJob(m, 0)
		for done := false; !done; steps++ {
			st, reading := j.stage, j.group != nil
			kind := "group"
			if g := j.group; g != nil {
				switch {
				case g.several && g.row < len(g.rows):
					kind = "row"
				case g.vote == nil:
					kind = "cut"
				default:
					kind = "read"
				}
			}
			t0 := threadCPU()
			done = j.step(p)
			d := threadCPU() - t0
			stages[st] += d
			worst = max(worst, d)
			if st == countGroupsStage {
				kinds[kind] = max(kinds[kind], d)
				if reading {
					worstRead = max(worstRead, d)
				} else {
					worstGroup = max(worstGroup, d)
				}
			}
		}
		j.Close()
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-step-ms")
	for k, d := range kinds {
		b.ReportMetric(float64(d.Microseconds())/1000, "worst-"+k+"-ms")
	}
	b.ReportMetric(float64(worstGroup.Microseconds())/1000, "worst-group-ms")
	b.ReportMetric(float64(worstRead.Microseconds())/1000, "worst-in-group-ms")
	b.ReportMetric(float64(steps)/n, "steps")
	for st, name := range []string{"warp", "light", "mask", "outline", "groups"} {
		b.ReportMetric(float64(stages[st].Microseconds())/1000/n, name+"-ms")
	}
}

// threadCPU is the CPU time the calling OS thread has used.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
