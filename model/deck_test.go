package model

import (
	"errors"
	"testing"

	"ligretto/referee"
	cards "ligretto/render/card"
)

// swapped is a network that confuses two numbers of one colour: it reads
// every such face it reads as a or b as the other, as sure as it was.
type swapped struct {
	Predictor
	colour, a, b int
}

func (s swapped) Classify(crops []Crop) ([]Prediction, error) {
	preds, err := s.Predictor.Classify(crops)
	for i := range preds {
		p := &preds[i]
		if p.Colour != s.colour {
			continue
		}
		for _, probs := range []*[NumNumbers]float32{&p.NumberProbs, &p.Raw.Number} {
			probs[s.a-1], probs[s.b-1] = probs[s.b-1], probs[s.a-1]
		}
		p.Number = argmax(p.Raw.Number[:]) + 1
		p.NumberProb = p.NumberProbs[p.Number-1]
	}
	return preds, err
}

// printedRenderer renders varied crops of faces in the real print.
func printedRenderer(tb testing.TB, cfg Config, seed uint64) func(referee.Face) Crop {
	sp := cards.DefaultParams()
	sp.W, sp.H, sp.Printed, sp.PrintedCanonical = cfg.Width, cfg.Height, 1, true
	r, err := cards.New(sp, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return func(f referee.Face) Crop {
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

// A network that reads every green 6 as a green 4 (and back), sure, is
// mended by two shots of each card of the deck: the prototypes outvote
// it, and none of what it still misreads comes out sure.
func TestDeckReader_MendsADeliberatelyConfusedCard(t *testing.T) {
	fast, _ := committedWithRenderer(t, 1)
	cfg := fast.Config()
	green := 1
	confused := swapped{Predictor: fast, colour: green, a: 4, b: 6}
	shoot := printedRenderer(t, cfg, 5)
	var shots []DeckShot
	for c := range NumColours {
		for n := 1; n <= NumNumbers; n++ {
			for range 2 {
				shots = append(shots, DeckShot{Crop: shoot(referee.Face{Colour: referee.Colours[c], Number: n}), Colour: c, Number: n})
			}
		}
	}
	deck, err := LearnDeck(fast, shots, DefaultDeckLayer, true)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := NewDeckReader(confused, fast, deck)
	if err != nil {
		t.Fatal(err)
	}
	play := printedRenderer(t, cfg, 6)
	var crops []Crop
	var want []int
	for k := range 40 {
		n := []int{4, 6}[k%2]
		crops = append(crops, play(referee.Face{Colour: referee.Green, Number: n}))
		want = append(want, n)
	}
	before, err := confused.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	after, err := reader.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	rightBefore, rightAfter, sureWrong := 0, 0, 0
	for i := range crops {
		if before[i].Colour == green && before[i].Number == want[i] {
			rightBefore++
		}
		ok := after[i].Colour == green && after[i].Number == want[i]
		if ok {
			rightAfter++
		} else if after[i].FaceConfidence() >= SureAt {
			sureWrong++
		}
	}
	t.Logf("green 4s and 6s read right: confused network %d of %d, with the deck %d; sure misreads %d", rightBefore, len(crops), rightAfter, sureWrong)
	if rightBefore > len(crops)/4 {
		t.Fatalf("the confused network reads %d of %d right: the test confuses nothing", rightBefore, len(crops))
	}
	if rightAfter < len(crops)*9/10 {
		t.Errorf("with the deck %d of %d right, want at least 90%%", rightAfter, len(crops))
	}
	if sureWrong > 0 {
		t.Errorf("%d misreads at least %.2f sure with the deck", sureWrong, SureAt)
	}
}

// A deck's prototypes are refused by a network whose layer has another
// length, and only the cards shot get prototypes.
func TestLearnDeck_PrototypesOnlyForCardsShotAndOfTheLayersLength(t *testing.T) {
	fast, render := committedWithRenderer(t, 2)
	shots := []DeckShot{
		{Crop: render(referee.Face{Colour: referee.Red, Number: 3}), Colour: 0, Number: 3},
		{Crop: render(referee.Face{Colour: referee.Red, Number: 3}), Colour: 0, Number: 3},
		{Crop: render(referee.Face{Colour: referee.Blue, Number: 9}), Colour: 2, Number: 9},
	}
	d, err := LearnDeck(fast, shots, FeatureHidden, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Cards) != 2 || d.Cards[0].Shots != 2 || len(d.Colours) != 2 || len(d.Cards[0].Mean) != fast.FeatureLen(FeatureHidden) {
		t.Fatalf("prototypes %+v", d.Cards)
	}
	d.Layer = FeatureConv
	if err := d.Check(fast); !errors.Is(err, ErrDeck) {
		t.Fatalf("hidden-layer prototypes checked as conv: %v", err)
	}
	if _, err := LearnDeck(fast, []DeckShot{{Crop: shots[0].Crop, Colour: 0, Number: 0}}, FeatureHidden, true); !errors.Is(err, ErrDeck) {
		t.Fatalf("a shot of number 0: %v", err)
	}
}

// Features read both ways up are the normalised mean of the crop's and
// the turned crop's, so a crop and its turned copy have the same.
func TestFeatures_BothWaysUpReadsTheTurnedCropAlike(t *testing.T) {
	fast, render := committedWithRenderer(t, 3)
	cfg := fast.Config()
	c := render(referee.Face{Colour: referee.Yellow, Number: 7})
	turned := withTurned([]Crop{c}, cfg.Width, cfg.Height)[1]
	for _, l := range []FeatureLayer{FeatureHidden, FeatureConv, FeaturePooled} {
		f, err := fast.Features([]Crop{c, turned}, l, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(f[0]) != fast.FeatureLen(l) {
			t.Fatalf("%s: %d values, want %d", l, len(f[0]), fast.FeatureLen(l))
		}
		if l != FeatureConv && Cosine(f[0], f[1]) < 0.9999 {
			t.Errorf("%s: a crop and its turned copy read both ways: cosine %v", l, Cosine(f[0], f[1]))
		}
	}
}

// A weights file's SHA-256 is what Weights.SHA256 gives for the weights
// decoded from it.
func TestWeights_SHA256IsTheFilesHash(t *testing.T) {
	w, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.SHA256()
	if err != nil {
		t.Fatal(err)
	}
	first, _ := EmbeddedWeightsFiles()
	if want := WeightsSHA256(first); got != want {
		t.Fatalf("SHA256 %s, the file's %s", got, want)
	}
}
