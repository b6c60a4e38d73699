package model

import (
	"testing"

	"ligretto/referee"
	cards "ligretto/render/card"
)

// Classify reads a face less than RereadBelow sure again from twelve views
// moved a pixel or two and takes the mean of the thirteen readings' colour and number
// probabilities; a sure face or a back keeps its two-way reading exactly.
// Half of the crops here are two faces of different colours blended, which
// the network cannot be sure of.
func TestClassify_RereadsUnsureFacesOnly(t *testing.T) {
	fast, render := committedWithRenderer(t, 99)
	cfg := fast.Config()
	var crops []Crop
	for k := range 40 {
		a := render(referee.Face{Colour: referee.Colours[k%4], Number: 1 + k%10})
		crops = append(crops, a)
		b := render(referee.Face{Colour: referee.Colours[(k+1)%4], Number: 1 + (k+3)%10})
		blend := make(Crop, len(a))
		for i := range a {
			blend[i] = (a[i] + b[i]) / 2
		}
		crops = append(crops, blend)
	}
	got, err := fast.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := fast.forward(withTurned(crops, cfg.Width, cfg.Height))
	if err != nil {
		t.Fatal(err)
	}
	once := twoWayPredictions(raw, len(crops), cfg.EmbedDim, fast.temps)
	sure, unsure := 0, 0
	for i, p := range once {
		g := got[i]
		if p.Side != SideFace || p.RawFaceConfidence() >= RereadBelow {
			sure++
			if g.ColourProbs != p.ColourProbs || g.NumberProbs != p.NumberProbs || g.Colour != p.Colour || g.Number != p.Number {
				t.Errorf("crop %d, read %.3f sure: changed from %v to %v", i, p.FaceConfidence(), p.Face(), g.Face())
			}
			continue
		}
		unsure++
		var views []Crop
		for _, d := range rereadShifts {
			views = append(views, shifted(crops[i], cfg.Width, cfg.Height, d[0], d[1]))
		}
		rv, err := fast.forward(withTurned(views, cfg.Width, cfg.Height))
		if err != nil {
			t.Fatal(err)
		}
		want, wantRaw := p.ColourProbs, p.Raw.Colour
		for _, q := range twoWayPredictions(rv, len(views), cfg.EmbedDim, fast.temps) {
			for c := range want {
				want[c] += q.ColourProbs[c]
				wantRaw[c] += q.Raw.Colour[c]
			}
		}
		for c := range want {
			want[c] /= float32(len(views) + 1)
			wantRaw[c] /= float32(len(views) + 1)
		}
		if d := maxAbsDiff(want[:], g.ColourProbs[:]); d > 1e-6 || maxAbsDiff(wantRaw[:], g.Raw.Colour[:]) > 1e-6 || g.Colour != argmax(wantRaw[:]) {
			t.Errorf("crop %d, read %.3f sure: colour probabilities %v, want the mean of thirteen readings %v", i, p.FaceConfidence(), g.ColourProbs, want)
		}
		if g.Side != p.Side || g.SideProbs != p.SideProbs || maxAbsDiff(g.Embedding, p.Embedding) != 0 {
			t.Errorf("crop %d: side or embedding changed by the second reading", i)
		}
	}
	if sure == 0 || unsure == 0 {
		t.Fatalf("%d sure and %d unsure readings: the test needs both", sure, unsure)
	}
	t.Logf("%d crops read sure, %d read again", sure, unsure)
}

// BenchmarkClassifyFastRendered is the fast path's time per crop on
// rendered faces (the committed weights, batches of 32), where only the
// unsure ones are read again: what the live pipeline pays. (The other
// benchmarks use random weights, whose every face is unsure.)
func BenchmarkClassifyFastRendered(b *testing.B) {
	fast, render := committedWithRenderer(b, 424242)
	cfg := fast.Config()
	crops := renderedFaces(render, 640)
	raw, err := fast.forward(withTurned(crops, cfg.Width, cfg.Height))
	if err != nil {
		b.Fatal(err)
	}
	reread := 0
	for _, p := range twoWayPredictions(raw, len(crops), cfg.EmbedDim, fast.temps) {
		if p.Side == SideFace && p.RawFaceConfidence() < RereadBelow {
			reread++
		}
	}
	benchBatches(b, fast, crops)
	b.ReportMetric(float64(reread)/float64(len(crops)), "reread/crop")
}

// renderedFaces renders n faces, every colour and number in turn.
func renderedFaces(render func(referee.Face) Crop, n int) []Crop {
	crops := make([]Crop, n)
	for k := range crops {
		crops[k] = render(referee.Face{Colour: referee.Colours[k%4], Number: 1 + k/4%10})
	}
	return crops
}

// benchBatches classifies the crops in batches of 32 and reports the time a crop.
func benchBatches(b *testing.B, p Predictor, crops []Crop) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for s := 0; s+32 <= len(crops); s += 32 {
			if _, err := p.Classify(crops[s : s+32]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(crops)), "ms/crop")
}

// committedWithRenderer returns the fast path with the committed weights
// and a function that renders a face crop of its size (from seed).
func committedWithRenderer(tb testing.TB, seed uint64) (*Fast, func(referee.Face) Crop) {
	tb.Helper()
	w, err := Default()
	if err != nil {
		tb.Fatal(err)
	}
	fast, err := NewFast(w)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := fast.Config()
	sp := cards.DefaultParams()
	sp.W, sp.H = cfg.Width, cfg.Height
	r, err := cards.New(sp, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return fast, func(f referee.Face) Crop {
		img, err := r.SampleOf(cards.Label{Side: cards.FaceSide, Face: f})
		if err != nil {
			tb.Fatal(err)
		}
		c, err := CropFromImage(img, cfg.Width, cfg.Height)
		if err != nil {
			tb.Fatal(err)
		}
		return c
	}
}

// BenchmarkClassifyBacksRendered is ClassifyBacks' time per card on
// rendered backs of the 12 designs (the committed weights, batches of
// 32): what enrolment, the count and identify pay for each back they
// compare. (BenchmarkClassifyBacksFast, with random weights, also reads
// every view again as an unsure face: the worst case.)
func BenchmarkClassifyBacksRendered(b *testing.B) {
	fast, _ := committedWithRenderer(b, 424242)
	cfg := fast.Config()
	sp := cards.DefaultParams()
	sp.W, sp.H = cfg.DetailSize()
	r, err := cards.New(sp, 424242)
	if err != nil {
		b.Fatal(err)
	}
	const n = 64
	views := make([]BackViews, n)
	for k := range views {
		img, err := r.SampleOf(cards.Label{Side: cards.BackSide, Back: referee.BackDesigns[k%len(referee.BackDesigns)]})
		if err != nil {
			b.Fatal(err)
		}
		if views[k], err = BackViewsFromImage(img, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for s := 0; s < n; s += 32 {
			if _, err := ClassifyBacks(fast, views[s:s+32]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*n), "ms/back")
}
