package scene

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"gocv.io/x/gocv"
)

// BenchmarkRenderFrame renders consecutive 30 fps frames of a round in
// progress, as the video writer does (so the board is redrawn only when
// something lands or leaves a seat). Run it with -cpu 1 and
// OPENCV_FOR_THREADS_NUM=1 to measure one core.
func BenchmarkRenderFrame(b *testing.B) {
	for _, n := range []int{4, 12} {
		b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) {
			evs := timeline(b, n, 3, 1)
			s := newScene(b, DefaultConfig(), n, 3, evs)
			mat := gocv.NewMat()
			defer mat.Close()
			var end int64
			for _, e := range evs {
				end = max(end, e.TimeMS)
			}
			k := 0
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				t := int64(k) * 1000 / 30 % end
				if _, err := s.Render(t, &mat); err != nil {
					b.Fatal(err)
				}
				k++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fps")
			// CPU time is what one core spends per frame, whatever else
			// runs on the machine.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/frame")
		})
	}
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
