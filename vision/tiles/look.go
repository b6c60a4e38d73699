package tiles

import (
	"ligretto/referee/tiles"
)

// kind of a field's look.
type kind uint8

const (
	lookHidden kind = iota // a hand, an arm, or anything not known
	lookFree
	lookCard
	lookJoker
	lookStone // a stone; colour is the one colour round it, joker whether a joker's quarters show
)

// look is what a field shows.
type look struct {
	kind   kind
	colour tiles.Colour // a free field's or a card half's colour; round a stone, the one colour or 0
	open   int8         // a card half: the side without a frame (its other half), or -1
	joker  bool         // round a stone: a joker's quarters
}

func (l look) stone() bool { return l.kind == lookStone }

// lookOf classifies a field from its pixel counts.
func lookOf(s fieldStats) look {
	if s.n == 0 {
		return look{open: -1}
	}
	n := float64(s.n)
	dark := float64(s.inner[pxDark]) / n
	other := float64(s.inner[pxOther]) / n
	white := float64(s.inner[pxWhite]) / n
	if dark > 0.3 {
		return stoneLook(s)
	}
	inked, open := inkedSides(s)
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
	// a joker's star blurs into its quarters: more pixels of no class
	if inked == 4 && classes >= 3 && white > 0.03 && other < 0.25 {
		return look{kind: lookJoker, open: -1}
	}
	if s.unknownInside() {
		return look{open: -1}
	}
	if coloured == 0 || float64(bn)/float64(coloured) < 0.85 || float64(coloured)/n < 0.6 {
		return look{open: -1}
	}
	c := classColour[best]
	switch {
	case inked == 0 && white < 0.1:
		return look{kind: lookFree, colour: c, open: -1}
	case inked == 3:
		return look{kind: lookCard, colour: c, open: int8(open)}
	}
	return look{open: -1}
}

// stoneLook reads the ring round a stone: the one colour there (a free
// field or a card half under the stone), a joker's quarters, or nothing
// sure; a ring not mostly coloured is a hand or an arm, not a stone.
func stoneLook(s fieldStats) look {
	for q := range 4 { // a stone's disc covers the middle all round
		if 10*s.darkQ[q] < 3*s.nQ[q] {
			return look{open: -1}
		}
	}
	var dom [4]int
	known, shaded := 0, 0
	for q := range 4 {
		dom[q] = -1
		if s.ringN[q] == 0 {
			continue
		}
		if 2*s.ring[q][pxDark] >= s.ringN[q] {
			// the stone's shadow, or the stone off its field's middle
			shaded++
			continue
		}
		coloured, best, bn := 0, pxRed, 0
		for c := pxRed; c <= pxYellow; c++ {
			coloured += s.ring[q][c]
			if s.ring[q][c] > bn {
				best, bn = c, s.ring[q][c]
			}
		}
		switch {
		case 20*s.ring[q][pxOther] > 7*s.ringN[q]:
			return look{open: -1} // skin, a sleeve: not a stone
		case 10*s.ring[q][pxOther] > 2*s.ringN[q]:
			continue // a shadow's rim on a light colour, or a fingertip
		}
		if 10*coloured < 3*s.ringN[q] || 10*bn < 7*coloured {
			continue
		}
		dom[q] = best
		known++
	}
	if known < 3 && (known < 2 || known+shaded < 4) {
		return look{open: -1}
	}
	l := look{kind: lookStone, open: -1}
	distinct := map[int]bool{}
	for _, d := range dom {
		if d >= 0 {
			distinct[d] = true
		}
	}
	switch {
	case known < 3 && len(distinct) != 1: // a joker's quarters need three in sight
		return look{open: -1}
	case len(distinct) == 1:
		for d := range distinct {
			l.colour = classColour[d]
		}
	case len(distinct) >= 3 && known == len(distinct):
		l.joker = true
	}
	return l
}

// ringColour is the one colour of the whole ring round a stone, or 0: for
// a card half over a gap, off the stone's field centre.
func ringColour(s fieldStats) tiles.Colour {
	var counts [nClasses]int
	n := 0
	for q := range 4 {
		for c := range nClasses {
			counts[c] += s.ring[q][c]
		}
		n += s.ringN[q]
	}
	coloured, best, bn := 0, pxRed, 0
	for c := pxRed; c <= pxYellow; c++ {
		coloured += counts[c]
		if counts[c] > bn {
			best, bn = c, counts[c]
		}
	}
	if n == 0 || 10*counts[pxOther] > 2*n || 4*coloured < n || 100*bn < 90*coloured {
		return 0
	}
	return classColour[best]
}

// inkedSides returns how many sides show a frame band and the one side
// without (-1 if none or several). A dashed or dotted line along a card
// laid a little off to one side runs near the field's edge and leaves
// few dark pixels in its band: with two sides inked and the open side
// clean, such a faint side beside the open one counts too.
func inkedSides(s fieldStats) (int, int) {
	inked, open, faint, clean := 0, -1, -1, -1
	for k := range 4 {
		switch {
		case s.sideN[k] == 0:
			open = k
		case 100*s.side[k] > inkPct*s.sideN[k]:
			inked++
		case 100*s.side[k] > faintPct*s.sideN[k]:
			faint, open = k, k
		case 100*s.side[k] <= cleanPct*s.sideN[k]:
			clean, open = k, k
		default:
			open = k
		}
	}
	if inked == 2 && faint >= 0 && clean >= 0 && (faint-clean)%2 != 0 {
		return 3, clean
	}
	if inked != 3 {
		open = -1
	}
	return inked, open
}

// Per cent of a side band's pixels that are dark: a frame line, a faint
// one (dashes or dots near the edge), no line at all.
const (
	inkPct   = 12
	faintPct = 7
	cleanPct = 2
)
