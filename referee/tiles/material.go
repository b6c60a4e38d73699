package tiles

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"ligretto/referee"
)

// Frame is the style of a player's card frames: it says whose a card is.
type Frame string

// The four frame styles (T1: "einfach, doppelt, gestrichelt oder gepunktet").
const (
	Plain  Frame = "plain"
	Double Frame = "double"
	Dashed Frame = "dashed"
	Dotted Frame = "dotted"
)

// Frames lists the styles in seat order.
var Frames = [4]Frame{Plain, Double, Dashed, Dotted}

// Valid reports whether f is one of the four styles.
func (f Frame) Valid() bool { return slices.Contains(Frames[:], f) }

// Material per player and per table (T1).
const (
	CardsPerPlayer  = 15
	JokersPerPlayer = 2
	Stones          = 4
)

// Card is a player's card: two colours on two edge-adjacent halves. ID is
// 1..15 within the owner's deck.
type Card struct {
	ID      int       `json:"id"`
	Owner   string    `json:"owner"`
	Colours [2]Colour `json:"colours"`
}

func (c Card) String() string {
	return fmt.Sprintf("%s-%s #%d (%s)", c.Colours[0], c.Colours[1], c.ID, c.Owner)
}

// pairs are the six two-colour pairs of the four colours. Paired as
// (0,5), (1,4), (2,3) they are perfect matchings: RG+BY, RB+GY, RY+GB.
var pairs = [6][2]Colour{
	{referee.Red, referee.Green}, {referee.Red, referee.Blue}, {referee.Red, referee.Yellow},
	{referee.Green, referee.Blue}, {referee.Green, referee.Yellow}, {referee.Blue, referee.Yellow},
}

// Deck returns the 15 cards of the player in seat (0..3). The text gives
// only the count: 15 cards of two colours each cannot hold the 6 colour
// pairs equally, so every deck holds each pair twice, and the 3 left over
// are the first three pairs for seats 1 and 3 and the last three for
// seats 2 and 4: with 2 or 4 players the table as a whole is balanced.
func Deck(owner string, seat int) []Card {
	d := make([]Card, 0, CardsPerPlayer)
	for i := range 12 {
		d = append(d, Card{ID: i + 1, Owner: owner, Colours: pairs[i%6]})
	}
	for k := range 3 {
		d = append(d, Card{ID: 13 + k, Owner: owner, Colours: pairs[(seat%2*3+k)%6]})
	}
	return d
}

// Shuffle shuffles cards with rng.
func Shuffle(cards []Card, rng *rand.Rand) {
	rng.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
}
