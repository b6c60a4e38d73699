package model

import (
	"errors"
	"math"
	"testing"

	"ligretto/referee"
)

// A SecondOpinion keeps First's reading of every back and sure face to the
// bit, and gives a face First is unsure of the mean of both networks'
// colour and number probabilities; side and embedding stay First's.
func TestSecondOpinion_OnlyUnsureFacesAsked(t *testing.T) {
	first, render := committedWithRenderer(t, 7)
	cfg := first.Config()
	second, err := NewFast(randomWeights(t, cfg, 3))
	if err != nil {
		t.Fatal(err)
	}
	both, err := NewSecondOpinion(first, second)
	if err != nil {
		t.Fatal(err)
	}
	crops := sureAndBlendedFaces(render, 40, 1, 3)
	for _, way := range []struct {
		name          string
		got, one, two func([]Crop) ([]Prediction, error)
	}{
		{"Classify", both.Classify, first.Classify, second.Classify},
		{"ClassifyAsIs", both.ClassifyAsIs, first.ClassifyAsIs, second.ClassifyAsIs},
	} {
		got, err := way.got(crops)
		if err != nil {
			t.Fatal(err)
		}
		one, _ := way.one(crops)
		two, _ := way.two(crops)
		sure, unsure := 0, 0
		for i, p := range one {
			g := got[i]
			if g.Side != p.Side || g.SideProbs != p.SideProbs || maxAbsDiff(g.Embedding, p.Embedding) != 0 {
				t.Errorf("%s crop %d: side or embedding not First's", way.name, i)
			}
			if p.Side != SideFace || p.RawFaceConfidence() >= RereadBelow {
				sure++
				if g.ColourProbs != p.ColourProbs || g.NumberProbs != p.NumberProbs {
					t.Errorf("%s crop %d, %.3f sure: changed from %v to %v", way.name, i, p.FaceConfidence(), p.Face(), g.Face())
				}
				continue
			}
			unsure++
			var want, wantRaw [NumNumbers]float32
			for k := range want {
				want[k] = (p.NumberProbs[k] + two[i].NumberProbs[k]) / 2
				wantRaw[k] = (p.Raw.Number[k] + two[i].Raw.Number[k]) / 2
			}
			if d := maxAbsDiff(want[:], g.NumberProbs[:]); d > 1e-6 || g.Number != argmax(wantRaw[:])+1 {
				t.Errorf("%s crop %d: number probabilities %v, want the mean of both networks' %v", way.name, i, g.NumberProbs, want)
			}
		}
		if sure == 0 || unsure == 0 {
			t.Fatalf("%s: %d sure and %d unsure faces: the test needs both", way.name, sure, unsure)
		}
	}
}

// configOnly is a Predictor that only knows its Config.
type configOnly struct{ cfg Config }

func (c configOnly) Classify([]Crop) ([]Prediction, error)     { return nil, ErrClosed }
func (c configOnly) ClassifyAsIs([]Crop) ([]Prediction, error) { return nil, ErrClosed }
func (c configOnly) Config() Config                            { return c.cfg }
func (c configOnly) Close() error                              { return nil }

func TestSecondOpinion_RefusesAnotherCropSize(t *testing.T) {
	cfg := DefaultConfig()
	other := cfg
	other.Width, other.Height = 16, 24
	if _, err := NewSecondOpinion(configOnly{cfg}, configOnly{other}); !errors.Is(err, ErrShapeMismatch) {
		t.Fatalf("err = %v, want ErrShapeMismatch", err)
	}
}

// BenchmarkSecondOpinionRendered is BenchmarkClassifyFastRendered with the
// committed pair (DefaultPredictor): the second network asked about the
// unsure faces.
func BenchmarkSecondOpinionRendered(b *testing.B) {
	_, render := committedWithRenderer(b, 424242)
	pair, err := DefaultPredictor()
	if err != nil {
		b.Fatal(err)
	}
	defer pair.Close()
	benchBatches(b, pair, renderedFaces(render, 640))
}

// With further networks added, a face First is unsure of takes the mean of
// every network's probabilities; sure faces keep First's.
func TestSecondOpinion_MoreNetworksMeaned(t *testing.T) {
	first, render := committedWithRenderer(t, 11)
	cfg := first.Config()
	var nets []*Fast
	for seed := range uint64(2) {
		n, err := NewFast(randomWeights(t, cfg, 3+seed))
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, n)
	}
	all, err := NewSecondOpinion(first, nets[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Add(nets[1]); err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.Width, other.Height = 16, 24
	if err := all.Add(configOnly{other}); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("another crop size added: err = %v, want ErrShapeMismatch", err)
	}
	crops := sureAndBlendedFaces(render, 20, 2, 5)
	got, err := all.ClassifyAsIs(crops)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := first.ClassifyAsIs(crops)
	two, _ := nets[0].ClassifyAsIs(crops)
	three, _ := nets[1].ClassifyAsIs(crops)
	unsure := 0
	for i, p := range one {
		if p.Side != SideFace || p.RawFaceConfidence() >= RereadBelow {
			if got[i].ColourProbs != p.ColourProbs {
				t.Errorf("crop %d, sure: colour changed", i)
			}
			continue
		}
		unsure++
		for k := range p.ColourProbs {
			want := (p.ColourProbs[k] + two[i].ColourProbs[k] + three[i].ColourProbs[k]) / 3
			if d := math.Abs(float64(want - got[i].ColourProbs[k])); d > 1e-6 {
				t.Errorf("crop %d: colour %d probability %g, want the mean of three networks' %g", i, k, got[i].ColourProbs[k], want)
			}
		}
	}
	if unsure == 0 {
		t.Fatal("no unsure face: the test needs some")
	}
	if err := all.Close(); err != nil {
		t.Error(err)
	}
}

// sureAndBlendedFaces renders n faces, each followed by its blend with
// another face (colour and number moved on by dc and dn): two faces at
// once, which First cannot be sure of.
func sureAndBlendedFaces(render func(referee.Face) Crop, n, dc, dn int) []Crop {
	var crops []Crop
	for k := range n {
		a := render(referee.Face{Colour: referee.Colours[k%4], Number: 1 + k%10})
		b := render(referee.Face{Colour: referee.Colours[(k+dc)%4], Number: 1 + (k+dn)%10})
		blend := make(Crop, len(a))
		for i := range a {
			blend[i] = (a[i] + b[i]) / 2
		}
		crops = append(crops, a, blend)
	}
	return crops
}
