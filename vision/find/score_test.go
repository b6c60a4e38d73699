package find

import (
	"image"
	"testing"
)

func rectQuad(r image.Rectangle) Quad {
	return Quad{r.Min, {r.Max.X, r.Min.Y}, r.Max, {r.Min.X, r.Max.Y}}
}

func TestScoreWholeCards_OneFindPerCard(t *testing.T) {
	cards := []image.Rectangle{image.Rect(0, 0, 100, 140), image.Rect(200, 0, 300, 140)}
	finds := []Quad{
		rectQuad(image.Rect(5, 5, 100, 140)),     // card 1
		rectQuad(image.Rect(0, 0, 95, 135)),      // card 1 again: a false find
		rectQuad(image.Rect(200, 0, 300, 40)),    // a sliver of card 2: too little overlap
		rectQuad(image.Rect(400, 400, 450, 470)), // nothing
	}
	s := ScoreWholeCards(finds, cards)
	if s != (Score{Labelled: 2, Found: 1, FalseFinds: 3}) {
		t.Fatalf("got %+v", s)
	}
}

func TestScoreMarkedCards(t *testing.T) {
	finds := []Quad{rectQuad(image.Rect(0, 0, 100, 140)), rectQuad(image.Rect(300, 300, 340, 360))}
	s := ScoreMarkedCards(finds, []image.Point{{20, 20}, {200, 200}})
	if s != (Score{Labelled: 2, Found: 1, FalseFinds: 1}) {
		t.Fatalf("got %+v", s)
	}
}
