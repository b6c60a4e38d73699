package calibration

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const shaA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

func validDeck() *Deck {
	return &Deck{Version: DeckVersion, WeightsSHA256: shaA, Layer: "hidden", Scale: 40, Floor: 0.9,
		Cards: []DeckCard{
			{Colour: "green", Number: 6, Shots: 2, Prototype: []float32{0.6, 0.8, 0}},
			{Colour: "green", Number: 4, Shots: 1, Prototype: []float32{0, 0.6, 0.8}},
		},
		Colours: []DeckColour{{Colour: "green", Shots: 3, Prototype: []float32{0.3, 0.7, 0.4}}}}
}

func TestDeck_RoundTripsInTheCalibrationFile(t *testing.T) {
	f := validFile(3)
	f.Deck = validDeck()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if g.Deck == nil || len(g.Deck.Cards) != 2 || g.Deck.Cards[0].Prototype[1] != 0.8 || g.Deck.Colours[0].Shots != 3 || g.Deck.WeightsSHA256 != shaA {
		t.Fatalf("deck lost in the round trip: %+v", g.Deck)
	}
}

func TestDeck_FileWithoutDeckReadsAsBefore(t *testing.T) {
	var buf bytes.Buffer
	if err := validFile(3).Write(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"deck"`) {
		t.Fatal("a file without a deck writes a deck key")
	}
	g, err := Read(&buf)
	if err != nil || g.Deck != nil {
		t.Fatalf("got deck %v, err %v", g.Deck, err)
	}
}

func TestDeck_MalformedSectionsAreRefused(t *testing.T) {
	cases := map[string]func(d *Deck){
		"version":         func(d *Deck) { d.Version = 9 },
		"sha":             func(d *Deck) { d.WeightsSHA256 = "abc" },
		"no cards":        func(d *Deck) { d.Cards = nil },
		"colour":          func(d *Deck) { d.Cards[0].Colour = "purple" },
		"number":          func(d *Deck) { d.Cards[0].Number = 11 },
		"repeated card":   func(d *Deck) { d.Cards[1].Number = 6 },
		"length":          func(d *Deck) { d.Cards[1].Prototype = []float32{1} },
		"colour length":   func(d *Deck) { d.Colours[0].Prototype = []float32{1} },
		"no shots":        func(d *Deck) { d.Cards[0].Shots = 0 },
		"scale":           func(d *Deck) { d.Scale = 0 },
		"floor":           func(d *Deck) { d.Floor = 2 },
		"repeated colour": func(d *Deck) { d.Colours = append(d.Colours, d.Colours[0]) },
	}
	for name, spoil := range cases {
		f := validFile(3)
		f.Deck = validDeck()
		spoil(f.Deck)
		err := f.Validate()
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: got %v, want a malformed or version error", name, err)
		}
	}
}

func TestDeck_LearntForOtherWeightsIsRefused(t *testing.T) {
	d := validDeck()
	if err := d.ForWeights(shaA); err != nil {
		t.Fatalf("own weights: %v", err)
	}
	err := d.ForWeights(strings.Repeat("b", 64))
	if !errors.Is(err, ErrDeckWeights) || !strings.Contains(err.Error(), "ligretto deck") {
		t.Fatalf("other weights: got %v, want ErrDeckWeights with advice", err)
	}
}
