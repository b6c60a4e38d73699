package calibration

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
)

// DeckVersion is the deck section's format, versioned apart from the file:
// a file without a deck section is read as before.
const DeckVersion = 1

// ErrDeckWeights: a deck section learnt with other weights than the
// reader's. Its prototypes are points in that network's feature space and
// mean nothing in another's, so it is refused, not ignored: a referee
// that silently lost the deck it was shown would read worse than the
// user was told.
var ErrDeckWeights = errors.New("the deck in the calibration file was learnt for other classifier weights (run `ligretto deck` again with these weights)")

// DeckColours names the colours a deck section may hold, in the
// classifier's order.
var DeckColours = [4]string{"red", "green", "blue", "yellow"}

// Deck is what the classifier learnt from a few shots of each card of the
// user's deck (ligretto deck): a prototype of each card shot and of each
// colour, in the feature space of one weights file's network, and how the
// prototypes' vote is combined with the network's.
type Deck struct {
	Version int `json:"version"`
	// WeightsSHA256 is the SHA-256 (hex) of the weights file the
	// prototypes were made with.
	WeightsSHA256 string `json:"weights_sha256"`
	// Layer is the network's layer the features come from.
	Layer string `json:"layer"`
	// Scale turns cosine similarities into logits; Floor is the share of
	// the network's probability spread evenly before the product.
	Scale   float64      `json:"scale"`
	Floor   float64      `json:"floor"`
	Cards   []DeckCard   `json:"cards"`
	Colours []DeckColour `json:"colours,omitempty"`
}

// DeckCard is one card's prototype: the normalised mean feature of its
// shots.
type DeckCard struct {
	Colour    string    `json:"colour"`
	Number    int       `json:"number"`
	Shots     int       `json:"shots"`
	Prototype []float32 `json:"prototype"`
}

// DeckColour is one colour's prototype, from every shot of that colour.
type DeckColour struct {
	Colour    string    `json:"colour"`
	Shots     int       `json:"shots"`
	Prototype []float32 `json:"prototype"`
}

// ColourIndex is the index of a colour name in DeckColours, or -1.
func ColourIndex(name string) int {
	for i, c := range DeckColours {
		if c == name {
			return i
		}
	}
	return -1
}

// Validate checks the section's form; whether it fits the weights at hand
// is ForWeights'.
func (d *Deck) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: deck: "+format, append([]any{ErrMalformed}, args...)...)
	}
	if d.Version != DeckVersion {
		return fmt.Errorf("%w: deck section version %d, this program reads %d (run `ligretto deck` again)", ErrVersion, d.Version, DeckVersion)
	}
	if h, err := hex.DecodeString(d.WeightsSHA256); err != nil || len(h) != 32 || d.WeightsSHA256 != strings.ToLower(d.WeightsSHA256) {
		return bad("weights_sha256 %q is not 64 lower-case hex digits", d.WeightsSHA256)
	}
	if d.Layer == "" {
		return bad("no layer")
	}
	if !(d.Scale > 0 && d.Scale < 1000) || !(d.Floor >= 0 && d.Floor <= 1) {
		return bad("scale %v (want 0 to 1000), floor %v (want 0 to 1)", d.Scale, d.Floor)
	}
	if len(d.Cards) == 0 {
		return bad("no cards")
	}
	dim := len(d.Cards[0].Prototype)
	seen := map[[2]int]bool{}
	for _, c := range d.Cards {
		ci := ColourIndex(c.Colour)
		if ci < 0 || c.Number < 1 || c.Number > 10 || seen[[2]int{ci, c.Number}] {
			return bad("card %s %d: unknown or repeated", c.Colour, c.Number)
		}
		seen[[2]int{ci, c.Number}] = true
		if err := checkPrototype(c.Prototype, dim, c.Shots); err != nil {
			return bad("card %s %d: %v", c.Colour, c.Number, err)
		}
	}
	seenColour := map[int]bool{}
	for _, c := range d.Colours {
		ci := ColourIndex(c.Colour)
		if ci < 0 || seenColour[ci] {
			return bad("colour %q: unknown or repeated", c.Colour)
		}
		seenColour[ci] = true
		if err := checkPrototype(c.Prototype, dim, c.Shots); err != nil {
			return bad("colour %s: %v", c.Colour, err)
		}
	}
	return nil
}

func checkPrototype(p []float32, dim, shots int) error {
	if len(p) == 0 || len(p) != dim {
		return fmt.Errorf("prototype of %d values, the first card's has %d", len(p), dim)
	}
	if shots < 1 {
		return fmt.Errorf("%d shots", shots)
	}
	for _, v := range p {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("prototype value %v", v)
		}
	}
	return nil
}

// ForWeights reports whether the deck was learnt with the weights file of
// SHA-256 sum (hex); if not, an error wrapping ErrDeckWeights.
func (d *Deck) ForWeights(sum string) error {
	if d.WeightsSHA256 != sum {
		return fmt.Errorf("%w: learnt for %.12s…, the weights are %.12s…", ErrDeckWeights, d.WeightsSHA256, sum)
	}
	return nil
}
