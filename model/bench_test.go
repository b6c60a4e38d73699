package model

import (
	"fmt"
	"testing"
)

// The live pipeline classifies crops in batches; these report the time per
// crop for batches of 32 with the default network. Their random weights
// are sure of nothing, so every face is read again (rereadUnsure): the
// worst case, ten readings a crop. BenchmarkClassifyFastRendered is the
// usual case.

func benchClassify(b *testing.B, p Predictor, cfg Config) {
	crops := randomCrops(cfg, 32, 4)
	if _, err := p.Classify(crops); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Classify(crops); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(crops)), "ms/crop")
}

func BenchmarkClassifyFast(b *testing.B) {
	cfg := DefaultConfig()
	f, err := NewFast(randomWeights(b, cfg, 1))
	if err != nil {
		b.Fatal(err)
	}
	benchClassify(b, f, cfg)
}

// BenchmarkClassifyFastArch compares some network sizes on the fast path.
func BenchmarkClassifyFastArch(b *testing.B) {
	for _, ch := range [][]int{{8, 16, 32}, {12, 24, 48}, {16, 32, 64}, {16, 32, 32}} {
		b.Run(fmt.Sprint(ch), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Channels = ch
			f, err := NewFast(randomWeights(b, cfg, 1))
			if err != nil {
				b.Fatal(err)
			}
			benchClassify(b, f, cfg)
		})
	}
}

// BenchmarkClassifyBacksFast is the cost of reading a back for enrolment
// and the count: both views, each with its mirror image, each moved four
// ways (twenty crops, each read both ways up), in batches of 32 backs.
func BenchmarkClassifyBacksFast(b *testing.B) {
	cfg := DefaultConfig()
	f, err := NewFast(randomWeights(b, cfg, 1))
	if err != nil {
		b.Fatal(err)
	}
	whole, detail := randomCrops(cfg, 32, 4), randomCrops(cfg, 32, 5)
	views := make([]BackViews, len(whole))
	for i := range views {
		views[i] = BackViews{Whole: whole[i], Detail: detail[i]}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ClassifyBacks(f, views); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(views)), "ms/back")
}
