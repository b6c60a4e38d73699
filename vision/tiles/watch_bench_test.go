package tiles

import (
	"testing"

	"gocv.io/x/gocv"
)

// BenchmarkWatcherFeed feeds 1280x720 frames of a 4-player round (the
// first 12 s of it at 15 frames/s: the board, hands reaching over it,
// cards and stones landing) to a watcher that has found the board, and
// reports the frames it takes a second. The frames are rendered once and
// kept as JPEG; decoding them is not timed.
//
//	go test -run '^$' -bench WatcherFeed ./vision/tiles
func BenchmarkWatcherFeed(b *testing.B) {
	events, sc := stagedRound(b, 0)
	const fps, seconds = 15, 12
	var jpegs [][]byte
	var times []int64
	mat := gocv.NewMat()
	defer mat.Close()
	for k := range fps * seconds {
		t := int64(k) * 1000 / fps
		if _, err := sc.Render(t, &mat); err != nil {
			b.Fatal(err)
		}
		buf, err := gocv.IMEncode(gocv.JPEGFileExt, mat)
		if err != nil {
			b.Fatal(err)
		}
		jpegs = append(jpegs, append([]byte(nil), buf.GetBytes()...))
		buf.Close()
		times = append(times, t)
	}
	var w *Watcher
	img := gocv.NewMat()
	defer func() { img.Close() }()
	decode := func(k int) {
		m, err := gocv.IMDecode(jpegs[k], gocv.IMReadColor)
		if err != nil {
			b.Fatal(err)
		}
		img.Close()
		img = m
	}
	k := 0
	fed := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if w == nil || k == len(jpegs) {
			if w != nil {
				w.Close()
			}
			w = NewWatcher(Config{Players: events[0].Players})
			decode(0)
			if _, err := w.Feed(img, times[0]); err != nil || w.Board() == nil {
				b.Fatalf("the board was not found on the first frame: %v", err)
			}
			k = 1
		}
		decode(k)
		b.StartTimer()
		if _, err := w.Feed(img, times[k]); err != nil {
			b.Fatal(err)
		}
		k++
		fed++
	}
	b.StopTimer()
	w.Close()
	b.ReportMetric(float64(fed)/b.Elapsed().Seconds(), "frames/s")
}
