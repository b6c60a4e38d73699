package find

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// Piles that touch and overlap on a pale table, yellow among them (its
// edge against the table is faint in brightness): every card that shows
// most of itself must be found, the covered one where its whole card lies.
func TestCardsOnTable_OverlappingPiles(t *testing.T) {
	p := cardOptions()
	beige := gocv.NewScalar(190, 205, 212, 0) // BGR
	yellow, red, green, blue := color.RGBA{30, 200, 225, 0}, color.RGBA{40, 40, 200, 0}, color.RGBA{40, 150, 40, 0}, color.RGBA{190, 80, 30, 0}
	type card struct {
		x, y, a float64
		c       color.RGBA
	}
	cases := []struct {
		name  string
		cards []card // drawn in order: later ones lie on top
	}{
		{"two lying across, the second over the first", []card{{70, 80, math.Pi / 2, yellow}, {70 + p.CardH - 8, 82, math.Pi/2 + 0.08, red}}},
		{"three across in a row, touching and overlapping", []card{{60, 80, math.Pi/2 - 0.1, yellow}, {60 + p.CardH - 5, 78, math.Pi / 2, green}, {60 + 2*p.CardH - 6, 83, math.Pi/2 + 0.12, blue}}},
		{"upright, side by side, touching", []card{{60, 70, 0.05, yellow}, {60 + p.CardW, 71, -0.04, green}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bg := gocv.NewMatWithSizeFromScalar(beige, 170, 300, gocv.MatTypeCV8UC3)
			defer bg.Close()
			img := bg.Clone()
			defer img.Close()
			var want []Quad
			for _, k := range c.cards {
				want = append(want, drawCard(&img, k.x, k.y, k.a, k.c))
			}
			gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0, 0, gocv.BorderDefault)
			got := Cards(img, against(p, &bg, nil, true))
			expectCards(t, got, want)
		})
	}
}

// Without a usable background it finds what the edges alone find.
func TestCardsOnTable_NoBackground(t *testing.T) {
	p := cardOptions()
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 50, 120, 0), 170, 200, gocv.MatTypeCV8UC3)
	defer img.Close()
	drawCard(&img, 80, 80, 0.1, color.RGBA{40, 150, 40, 0})
	empty := gocv.NewMat()
	defer empty.Close()
	a, b := Cards(img, p), Cards(img, against(p, &empty, nil, true))
	if len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Errorf("edges alone %v, against no background %v", a, b)
	}
}

// The foreground is the largest difference over the channels (yellow on
// beige differs mostly in blue), with a card's white numeral filled in.
func TestTableForeground(t *testing.T) {
	bg := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(190, 205, 212, 0), 120, 120, gocv.MatTypeCV8UC3)
	defer bg.Close()
	img := bg.Clone()
	defer img.Close()
	drawCard(&img, 60, 60, 0, color.RGBA{30, 200, 225, 0})
	fg := tableForeground(img, bg, nil)
	defer fg.Close()
	if v := fg.GetUCharAt(60, 60); v != 255 {
		t.Errorf("card centre: %d, want 255", v)
	}
	if v := fg.GetUCharAt(60-21+8, 60); v != 255 { // in the white numeral near one end
		t.Errorf("numeral: %d, want 255", v)
	}
	if v := fg.GetUCharAt(5, 5); v != 0 {
		t.Errorf("table: %d, want 0", v)
	}
}
