package model

import (
	"errors"
	"fmt"
	"math"
)

// ErrDeck: deck prototypes that cannot be used: no shots, a shot of no
// card, features of another length or layer than the network gives.
var ErrDeck = errors.New("deck prototypes unusable")

// DeckShot is one labelled picture of a card of the user's deck: a crop
// cut as the pipeline cuts one, and the card it shows.
type DeckShot struct {
	Crop   Crop
	Colour int // 0..3, ColourNames order
	Number int // 1..10
}

// CardPrototype is one card's prototype: the normalised mean of the
// features of its shots.
type CardPrototype struct {
	Colour, Number int
	Shots          int
	Mean           []float32
}

// ColourPrototype is one colour's prototype: the normalised mean of the
// features of every shot of that colour.
type ColourPrototype struct {
	Colour int
	Shots  int
	Mean   []float32
}

// DeckPrototypes is what a few shots of each card of one deck teach the
// reader (DeckReader): a prototype of each card shot and of each colour,
// in the feature space of one network's layer. Only the cards shot have
// prototypes.
type DeckPrototypes struct {
	Layer FeatureLayer
	// Scale turns cosine similarities into the logits of a softmax over
	// the prototypes (1 / its temperature).
	Scale float64
	// Floor is the share of the network's probability spread evenly over
	// its classes before the product with the prototypes: how far the
	// prototypes can overrule a network sure of another card.
	Floor   float64
	Cards   []CardPrototype
	Colours []ColourPrototype
}

// The combination's settings, chosen on the real photos' held-out half
// and rendered decks (docs/real-photos.md, "Learning the user's deck").
const (
	DefaultDeckLayer = FeatureHidden
	DefaultDeckScale = 40.0
	DefaultDeckFloor = 0.9
)

// LearnDeck makes a deck's prototypes from labelled shots, each read
// both ways up (a whole card) or, with bothWays false, as it is (a corner
// index), at layer l of f.
func LearnDeck(f *Fast, shots []DeckShot, l FeatureLayer, bothWays bool) (DeckPrototypes, error) {
	d := DeckPrototypes{Layer: l, Scale: DefaultDeckScale, Floor: DefaultDeckFloor}
	if len(shots) == 0 {
		return d, fmt.Errorf("%w: no shots", ErrDeck)
	}
	crops := make([]Crop, len(shots))
	for i, s := range shots {
		if s.Colour < 0 || s.Colour >= NumColours || s.Number < 1 || s.Number > NumNumbers {
			return d, fmt.Errorf("%w: shot %d is of colour %d number %d", ErrDeck, i, s.Colour, s.Number)
		}
		crops[i] = s.Crop
	}
	feats, err := f.Features(crops, l, bothWays)
	if err != nil {
		return d, fmt.Errorf("deck features: %w", err)
	}
	var byCard [NumColours][NumNumbers][][]float32
	var byColour [NumColours][][]float32
	for i, s := range shots {
		byCard[s.Colour][s.Number-1] = append(byCard[s.Colour][s.Number-1], feats[i])
		byColour[s.Colour] = append(byColour[s.Colour], feats[i])
	}
	for c := range NumColours {
		for n := range NumNumbers {
			if fs := byCard[c][n]; len(fs) > 0 {
				d.Cards = append(d.Cards, CardPrototype{Colour: c, Number: n + 1, Shots: len(fs), Mean: MeanEmbedding(fs...)})
			}
		}
		if fs := byColour[c]; len(fs) > 0 {
			d.Colours = append(d.Colours, ColourPrototype{Colour: c, Shots: len(fs), Mean: MeanEmbedding(fs...)})
		}
	}
	return d, nil
}

// Check reports whether the prototypes fit network f: a known layer of
// f's feature length, cards and colours in range and not repeated.
func (d DeckPrototypes) Check(f *Fast) error {
	if !d.Layer.Valid() {
		return fmt.Errorf("%w: feature layer %q", ErrDeck, d.Layer)
	}
	if !(d.Scale > 0 && d.Scale < 1000) || !(d.Floor >= 0 && d.Floor <= 1) {
		return fmt.Errorf("%w: scale %v, floor %v", ErrDeck, d.Scale, d.Floor)
	}
	if len(d.Cards) == 0 {
		return fmt.Errorf("%w: no card prototypes", ErrDeck)
	}
	want := f.FeatureLen(d.Layer)
	var seen [NumColours][NumNumbers]bool
	for _, p := range d.Cards {
		if p.Colour < 0 || p.Colour >= NumColours || p.Number < 1 || p.Number > NumNumbers || seen[p.Colour][p.Number-1] {
			return fmt.Errorf("%w: card prototype of colour %d number %d (out of range or repeated)", ErrDeck, p.Colour, p.Number)
		}
		seen[p.Colour][p.Number-1] = true
		if len(p.Mean) != want || !finite(p.Mean) {
			return fmt.Errorf("%w: card prototype of %d values, the network's %s layer has %d", ErrDeck, len(p.Mean), d.Layer, want)
		}
	}
	var seenColour [NumColours]bool
	for _, p := range d.Colours {
		if p.Colour < 0 || p.Colour >= NumColours || seenColour[p.Colour] {
			return fmt.Errorf("%w: colour prototype %d (out of range or repeated)", ErrDeck, p.Colour)
		}
		seenColour[p.Colour] = true
		if len(p.Mean) != want || !finite(p.Mean) {
			return fmt.Errorf("%w: colour prototype of %d values, the network's %s layer has %d", ErrDeck, len(p.Mean), d.Layer, want)
		}
	}
	return nil
}

// adapt combines a reading's colour and number probabilities with the
// prototypes' vote on the crop's features: the joint probability of each
// card is the network's (colour times number, Floor of it spread evenly)
// times the softmax of the card prototypes' scaled cosines times that of
// the colour prototypes'; a card or colour with no prototype gets the
// least similarity of those that have one (looks like none of them). The
// colour and number probabilities become the joint's marginals.
func (d *DeckPrototypes) adapt(colour *[NumColours]float32, number *[NumNumbers]float32, feat []float32) {
	var cardLogit [NumColours][NumNumbers]float64
	var colourLogit [NumColours]float64
	least := math.Inf(1)
	for c := range cardLogit {
		for n := range cardLogit[c] {
			cardLogit[c][n] = math.NaN()
		}
	}
	for _, p := range d.Cards {
		v := d.Scale * float64(Cosine(feat, p.Mean))
		cardLogit[p.Colour][p.Number-1] = v
		least = min(least, v)
	}
	leastColour := math.Inf(1)
	for c := range colourLogit {
		colourLogit[c] = math.NaN()
	}
	for _, p := range d.Colours {
		v := d.Scale * float64(Cosine(feat, p.Mean))
		colourLogit[p.Colour] = v
		leastColour = min(leastColour, v)
	}
	if len(d.Colours) == 0 {
		leastColour = 0
	}
	var joint [NumColours][NumNumbers]float64
	best := math.Inf(-1)
	for c := range joint {
		lc := colourLogit[c]
		if math.IsNaN(lc) {
			lc = leastColour
		}
		pc := (1-d.Floor)*float64(colour[c]) + d.Floor/NumColours
		for n := range joint[c] {
			ln := cardLogit[c][n]
			if math.IsNaN(ln) {
				ln = least
			}
			pn := (1-d.Floor)*float64(number[n]) + d.Floor/NumNumbers
			joint[c][n] = math.Log(pc) + math.Log(pn) + ln + lc
			best = max(best, joint[c][n])
		}
	}
	var sum float64
	for c := range joint {
		for n := range joint[c] {
			joint[c][n] = math.Exp(joint[c][n] - best)
			sum += joint[c][n]
		}
	}
	*colour, *number = [NumColours]float32{}, [NumNumbers]float32{}
	for c := range joint {
		for n := range joint[c] {
			q := float32(joint[c][n] / sum)
			colour[c] += q
			number[n] += q
		}
	}
}

// DeckReader reads cards as Inner does, then adapts each reading's colour
// and number to one deck's prototypes (DeckPrototypes.adapt), both its
// calibrated and its raw probabilities. Fast gives the features; it must
// be the network the prototypes were made with (Inner's first network).
type DeckReader struct {
	Inner Predictor
	Fast  *Fast
	Deck  DeckPrototypes
}

var _ Predictor = (*DeckReader)(nil)

// NewDeckReader checks that the prototypes fit f.
func NewDeckReader(inner Predictor, f *Fast, d DeckPrototypes) (*DeckReader, error) {
	if err := d.Check(f); err != nil {
		return nil, err
	}
	return &DeckReader{Inner: inner, Fast: f, Deck: d}, nil
}

// Classify reads each crop both ways up and adapts the readings.
func (r *DeckReader) Classify(crops []Crop) ([]Prediction, error) {
	preds, err := r.Inner.Classify(crops)
	if err != nil {
		return nil, err
	}
	return preds, r.adaptAll(crops, preds, true)
}

// ClassifyAsIs reads each crop once as it is and adapts the readings.
func (r *DeckReader) ClassifyAsIs(crops []Crop) ([]Prediction, error) {
	preds, err := r.Inner.ClassifyAsIs(crops)
	if err != nil {
		return nil, err
	}
	return preds, r.adaptAll(crops, preds, false)
}

// Config is Inner's.
func (r *DeckReader) Config() Config { return r.Inner.Config() }

// Close closes Inner.
func (r *DeckReader) Close() error { return r.Inner.Close() }

func (r *DeckReader) adaptAll(crops []Crop, preds []Prediction, bothWays bool) error {
	if len(crops) == 0 {
		return nil
	}
	feats, err := r.Fast.Features(crops, r.Deck.Layer, bothWays)
	if err != nil {
		return fmt.Errorf("deck features: %w", err)
	}
	for i := range preds {
		p := &preds[i]
		r.Deck.adapt(&p.ColourProbs, &p.NumberProbs, feats[i])
		r.Deck.adapt(&p.Raw.Colour, &p.Raw.Number, feats[i])
		p.Colour = argmax(p.Raw.Colour[:])
		p.ColourProb = p.ColourProbs[p.Colour]
		p.Number = argmax(p.Raw.Number[:]) + 1
		p.NumberProb = p.NumberProbs[p.Number-1]
	}
	return nil
}
