package tiles

import (
	"slices"

	"ligretto/referee/tiles"
)

// fieldStats counts the pixel classes on a field: its inner square, and
// for each side (0 up, 1 right, 2 down, 3 left) the band where a card's
// frame lies.
type fieldStats struct {
	inner [nClasses]int
	n     int
	side  [4]int // dark pixels in each side band
	sideN [4]int
}

// side bands: depth from the field's edge, and how far along.
const (
	innerMM   = 13.0
	bandFrom  = 2.0
	bandTo    = 8.5
	bandAlong = 13.0
	inkV      = 115 // a frame line, even a thin one blurred, is darker than this
)

func sampleField(t *topView, b *Board, f tiles.Field) fieldStats {
	var s fieldStats
	for v := -innerMM; v <= innerMM; v += 2 {
		for u := -innerMM; u <= innerMM; u += 2 {
			x, y := b.At(f, u, v)
			if _, hsv, ok := t.px(x, y); ok {
				s.inner[classify(hsv)]++
				s.n++
			}
		}
	}
	half := FieldMM / 2
	for d := bandFrom; d <= bandTo; d++ {
		for a := -bandAlong; a <= bandAlong; a += 1.5 {
			pts := [4][2]float64{{a, -half + d}, {half - d, a}, {a, half - d}, {-half + d, a}}
			for k, p := range pts {
				x, y := b.At(f, p[0], p[1])
				if _, hsv, ok := t.px(x, y); ok {
					if hsv[2] < inkV {
						s.side[k]++
					}
					s.sideN[k]++
				}
			}
		}
	}
	return s
}

// colour returns the main colour among the inner pixels and its share.
func (s fieldStats) colour() (tiles.Colour, float64) {
	best, bn := pxRed, -1
	for c := pxRed; c <= pxYellow; c++ {
		if s.inner[c] > bn {
			best, bn = c, s.inner[c]
		}
	}
	coloured := s.inner[pxRed] + s.inner[pxGreen] + s.inner[pxBlue] + s.inner[pxYellow]
	if 10*coloured < 3*s.n {
		return classColour[pxRed], 0
	}
	return classColour[best], float64(bn) / float64(coloured)
}

// kind of a field's look.
type kind int

const (
	lookHidden kind = iota // a hand, an arm, or anything not known
	lookFree
	lookCard
	lookJoker
)

// look is what a field shows.
type look struct {
	kind   kind
	colour tiles.Colour // a free field's or a card half's colour
	open   int          // a card half: the side without a frame (its other half), or -1
	stone  bool
}

// lookOf classifies a field from its pixel counts.
func lookOf(s fieldStats) look {
	if s.n == 0 {
		return look{}
	}
	n := float64(s.n)
	dark := float64(s.inner[pxDark]) / n
	other := float64(s.inner[pxOther]) / n
	white := float64(s.inner[pxWhite]) / n
	stone := dark > 0.3
	inked, open := inkedSides(s, stone)
	coloured := 0
	best, bn := pxRed, 0
	classes := 0
	for c := pxRed; c <= pxYellow; c++ {
		coloured += s.inner[c]
		if s.inner[c] > bn {
			best, bn = c, s.inner[c]
		}
		if float64(s.inner[c])/n > 0.08 {
			classes++
		}
	}
	if other > 0.12 {
		return look{}
	}
	switch {
	case len(inked) == 4 && classes >= 3 && white > 0.03 && !stone:
		return look{kind: lookJoker, open: -1}
	case len(inked) == 4 && stone:
		return look{kind: lookJoker, open: -1, stone: true}
	}
	if coloured == 0 || float64(bn)/float64(coloured) < 0.85 {
		return look{}
	}
	c := classColour[best]
	switch len(inked) {
	case 0:
		if stone || white < 0.1 {
			return look{kind: lookFree, colour: c, open: -1, stone: stone}
		}
	case 3:
		return look{kind: lookCard, colour: c, open: open, stone: stone}
	}
	if stone {
		return look{kind: lookFree, colour: c, open: -1, stone: true}
	}
	return look{}
}

// inkedSides returns the sides showing a frame band and the one side
// without (-1 if none).
func inkedSides(s fieldStats, stone bool) ([]int, int) {
	var inked []int
	open := -1
	var ratio [4]float64
	for k := range 4 {
		if s.sideN[k] > 0 {
			ratio[k] = float64(s.side[k]) / float64(s.sideN[k])
		}
		if ratio[k] > 0.12 {
			inked = append(inked, k)
		} else {
			open = k
		}
	}
	if len(inked) == 4 && stone {
		// A stone's disc may reach a card half's open side: take the
		// clearly least inked side as open.
		lo, second := 0, -1
		for k := 1; k < 4; k++ {
			if ratio[k] < ratio[lo] {
				lo = k
			}
		}
		for k := range 4 {
			if k != lo && (second < 0 || ratio[k] < ratio[second]) {
				second = k
			}
		}
		if ratio[lo] < 0.5*ratio[second] {
			inked, open = slices.DeleteFunc(inked, func(k int) bool { return k == lo }), lo
		}
	}
	return inked, open
}
