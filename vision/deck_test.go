package vision

import (
	"errors"
	"fmt"
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/render/scene"
)

var deckOrder = []referee.Colour{referee.Red, referee.Green, referee.Blue, referee.Yellow}

func renderDeck(t *testing.T, covered ...referee.Face) (gocv.Mat, map[referee.Face]image.Point) {
	t.Helper()
	img, where, err := scene.RenderDeckLayout(scene.DeckLayout{Order: deckOrder, Covered: covered, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return img, where
}

// placedRight checks that each laid card is where its label says.
func placedRight(t *testing.T, cards []LaidCard, where map[referee.Face]image.Point) {
	t.Helper()
	for _, c := range cards {
		x, y := c.Quad.Centre()
		w := where[c.Face]
		if math.Hypot(x-float64(w.X), y-float64(w.Y)) > 25 {
			t.Errorf("%v found at (%.0f,%.0f), laid at %v", c.Face, x, y, w)
		}
	}
}

// A deck laid out in rows, seen at an angle under uneven light: the
// step finds all 40 cards and labels each by its place.
func TestReadDeckLayout_FindsTheFortyCardsInOrder(t *testing.T) {
	img, where := renderDeck(t)
	defer img.Close()
	cfg := model.DefaultConfig()
	got, err := ReadDeckLayout(img, deckOrder, [3]float64{1, 1, 1}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cards) != 40 || len(got.Missing) != 0 {
		t.Fatalf("found %d cards, missing %v", len(got.Cards), got.Missing)
	}
	placedRight(t, got.Cards, where)
	for i, c := range got.Cards {
		if want := (referee.Face{Colour: deckOrder[i/10], Number: i%10 + 1}); c.Face != want || len(c.Crop) != cfg.CropLen() {
			t.Fatalf("card %d is %v, want %v in layout order", i, c.Face, want)
		}
	}
}

// Cards under a hand are reported missing by name; the rest keep their
// places.
func TestReadDeckLayout_NamesTheCoveredCards(t *testing.T) {
	covered := []referee.Face{{Colour: referee.Green, Number: 1}, {Colour: referee.Blue, Number: 7}, {Colour: referee.Yellow, Number: 10}}
	img, where := renderDeck(t, covered...)
	defer img.Close()
	got, err := ReadDeckLayout(img, deckOrder, [3]float64{1, 1, 1}, model.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cards) != 37 || len(got.Missing) != 3 {
		t.Fatalf("found %d, missing %v; want 37 and %v", len(got.Cards), got.Missing, covered)
	}
	for i, f := range covered {
		if got.Missing[i] != f {
			t.Errorf("missing %v, want %v", got.Missing, covered)
			break
		}
	}
	placedRight(t, got.Cards, where)
}

// A picture with a row too few (the order names five colours) is refused
// with ErrDeckLayout.
func TestReadDeckLayout_RefusesALayoutOfOtherRows(t *testing.T) {
	img, _ := renderDeck(t)
	defer img.Close()
	_, err := ReadDeckLayout(img, append(deckOrder, referee.Red), [3]float64{1, 1, 1}, model.DefaultConfig())
	if !errors.Is(err, ErrDeckLayout) {
		t.Fatalf("got %v, want ErrDeckLayout", err)
	}
}

// A row where a card was found twice, or something lies half a step from
// a card, is refused: counting it as a neighbour would number every card
// after it wrong.
func TestRowOffsets_RefusesTwoFindsInOnePlace(t *testing.T) {
	at := func(x int) Quad { return rectQuad(image.Rect(x, 0, x+40, 60)) }
	off, err := rowOffsets([]Quad{at(0), at(100), at(300), at(400)})
	if err != nil || fmt.Sprint(off) != "[0 1 3 4]" {
		t.Fatalf("a row with a gap: %v %v", off, err)
	}
	for _, row := range [][]Quad{{at(0), at(100), at(130), at(200)}, {at(0), at(0), at(0)}} {
		if _, err := rowOffsets(row); !errors.Is(err, ErrDeckLayout) {
			t.Errorf("row %v: %v, want ErrDeckLayout", row, err)
		}
	}
}

func rectQuad(r image.Rectangle) Quad {
	return Quad{r.Min, {r.Max.X, r.Min.Y}, r.Max, {r.Min.X, r.Max.Y}}
}
