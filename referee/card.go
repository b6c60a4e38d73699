package referee

import (
	"fmt"
	"strings"
)

// Colour is a card's face colour.
type Colour uint8

// The four face colours (C1). The zero value is not a colour, so that a
// forgotten field is caught by Valid.
const (
	Red Colour = iota + 1
	Green
	Blue
	Yellow
)

// Colours lists the face colours in a fixed order.
var Colours = [4]Colour{Red, Green, Blue, Yellow}

var colourNames = map[Colour]string{Red: "red", Green: "green", Blue: "blue", Yellow: "yellow"}

// Valid reports whether c is one of the four colours.
func (c Colour) Valid() bool { _, ok := colourNames[c]; return ok }

func (c Colour) String() string {
	if n, ok := colourNames[c]; ok {
		return n
	}
	return fmt.Sprintf("colour(%d)", uint8(c))
}

// ParseColour reads a colour name, case-insensitively.
func ParseColour(s string) (Colour, error) {
	for c, n := range colourNames {
		if strings.EqualFold(s, n) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("%w: colour %q (want red, green, blue or yellow)", ErrInvalid, s)
}

// MarshalText writes the colour's name.
func (c Colour) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("%w: colour %d", ErrInvalid, uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a colour's name.
func (c *Colour) UnmarshalText(b []byte) error {
	v, err := ParseColour(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Face is what the front of a card shows: a colour and a number 1..10.
type Face struct {
	Colour Colour `json:"colour"`
	Number int    `json:"number"`
}

// Valid reports whether f is one of the 40 faces of a deck (C1).
func (f Face) Valid() bool { return f.Colour.Valid() && f.Number >= 1 && f.Number <= 10 }

func (f Face) String() string { return fmt.Sprintf("%s %d", f.Colour, f.Number) }

// ParseFace reads "red 5" or "red5".
func ParseFace(s string) (Face, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	i := strings.IndexAny(s, "0123456789")
	if i <= 0 {
		return Face{}, fmt.Errorf("%w: card %q (want e.g. \"red 5\")", ErrInvalid, s)
	}
	c, err := ParseColour(strings.TrimSpace(s[:i]))
	if err != nil {
		return Face{}, err
	}
	var n int
	if _, err := fmt.Sscanf(s[i:], "%d", &n); err != nil {
		return Face{}, fmt.Errorf("%w: card %q: %v", ErrInvalid, s, err)
	}
	f := Face{c, n}
	if !f.Valid() {
		return Face{}, fmt.Errorf("%w: card %q: number must be 1..10", ErrInvalid, s)
	}
	return f, nil
}

// Card is a physical card: a face and the back that says whose deck it is from.
type Card struct {
	Face
	Owner string `json:"owner"` // the player whose back the card bears
}

func (c Card) String() string { return fmt.Sprintf("%s (%s)", c.Face, c.Owner) }

// Deck returns a player's 40 cards (C1), in a fixed order.
func Deck(owner string) []Card {
	d := make([]Card, 0, 40)
	for _, c := range Colours {
		for n := 1; n <= 10; n++ {
			d = append(d, Card{Face{c, n}, owner})
		}
	}
	return d
}

// BackDesigns names the twelve back designs of three boxes (C1): the first
// box's four as in the rulebook, then two more boxes' (another colour each).
var BackDesigns = [12]string{
	"spheres", "pyramids", "cubes", "crystals",
	"stars", "rings", "waves", "leaves",
	"anchors", "shells", "fish", "drops",
}
