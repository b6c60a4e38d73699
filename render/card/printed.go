package card

import (
	"math"
	"math/rand/v2"

	"ligretto/referee"
)

// contrastColour is the colour of the numeral's extrusion and outline on
// each card colour, as the real cards print it.
var contrastColour = map[referee.Colour]referee.Colour{
	referee.Green:  referee.Red,
	referee.Blue:   referee.Yellow,
	referee.Yellow: referee.Green,
	referee.Red:    referee.Blue,
}

// rareBallColours are ball colours the real print shows seldom, if at all.
var rareBallColours = []rgb{
	{0.98, 0.50, 0.08}, // orange
	{0.55, 0.20, 0.70}, // purple
}

// canonicalPrintedStyle is the clean look of the real Ligretto print: a
// white heavy italic numeral with a solid extrusion and a thin outline in
// the contrasting card colour, centred across the card near each short
// edge, and rimmed balls in the other card colours over the middle. Ball
// layouts are fixed per face.
func canonicalPrintedStyle(f referee.Face, aspect float64) faceStyle {
	con := cardColours[contrastColour[f.Colour]]
	st := faceStyle{
		font:      printedFonts[0],
		base:      cardColours[f.Colour],
		numeral:   rgb{1, 1, 1},
		shadow:    con,
		shadowFar: con.scale(0.7),
		shadowA:   1,
		extrude:   true,
		shadowDX:  0.07, shadowDY: 0.07,
		outline:  0.025,
		outlineC: con,
		shear:    0.06,
		height:   0.46,
		maxWidth: 0.7,
		cx:       0.5,
	}
	st.cy = 0.08*aspect/1.5 + st.height/2
	rng := rand.New(rand.NewPCG(uint64(f.Colour)*131+uint64(f.Number), 0x7072696e74))
	st.balls = printedBalls(rng, f, &st, aspect)
	return st
}

// printedFaceStyle draws a printing of the real print: the card colour's
// drift, the numeral's font, slant, size and place near the short edge,
// the extrusion's direction, depth and shade, the outline, the ball layout,
// the print's offset from the card's cut, and now and then wear or a
// glossy sleeve.
func printedFaceStyle(rng *rand.Rand, f referee.Face, aspect float64, p *Params) faceStyle {
	st := canonicalPrintedStyle(f, aspect)
	st.font = printedFonts[0]
	st.shear = 0.12 * rng.Float64()
	if rng.Float64() < 0.25 { // an upright bold slanted by shear alone
		st.font = printedFonts[1]
		st.shear = 0.15 + 0.15*rng.Float64()
	}
	h, s, v := toHSV(st.base)
	st.base = hsv(h+p.HueJitter*0.5*(2*rng.Float64()-1), s*(1-p.SatJitter*rng.Float64()), v*(1-p.ValJitter*rng.Float64()))
	st.numeral = hsv(40+20*rng.Float64(), 0.06*rng.Float64(), 0.92+0.08*rng.Float64())

	ch, cs, cv := toHSV(cardColours[contrastColour[f.Colour]])
	st.shadow = hsv(ch+12*(rng.Float64()-0.5), cs*(0.85+0.2*rng.Float64()), cv*(0.8+0.25*rng.Float64()))
	st.shadowFar = st.shadow.scale(float32(0.55 + 0.3*rng.Float64()))
	st.outlineC = st.shadow
	st.outline = 0.015 + 0.02*rng.Float64()
	ang := math.Pi/4 + 0.25*rng.NormFloat64() // mostly down and to the right
	if rng.Float64() < 0.15 {
		ang = math.Pi * rng.Float64() // anywhere from right through down to left
	}
	depth := 0.06 + 0.07*rng.Float64()
	st.shadowDX, st.shadowDY = depth*math.Cos(ang), depth*math.Sin(ang)

	st.height = 0.38 + 0.12*rng.Float64()
	st.maxWidth = 0.62 + 0.1*rng.Float64()
	st.cy = (0.04+0.06*rng.Float64())*aspect/1.5 + st.height/2
	hw := numeralWidth(f, &st) / 2
	st.cx = clampf(0.5+0.08*(rng.Float64()-0.5), 0.04+hw, math.Max(0.04+hw, 0.96-hw))
	st.shiftX = 0.04 * (rng.Float64() - 0.5)
	st.shiftY = 0.04 * (rng.Float64() - 0.5)
	st.balls = printedBalls(rng, f, &st, aspect)

	if rng.Float64() < 0.12 {
		st.wear = float32(0.3 + 0.7*rng.Float64())
		st.speckle = rng.Uint64()
	}
	if rng.Float64() < 0.1 {
		st.gloss = float32(0.15 + 0.25*rng.Float64())
		st.glossX, st.glossY = rng.Float64(), aspect*rng.Float64()
	}
	return st
}

// numeralWidth is the width of a numeral's ink in card units, slant
// included (without its extrusion).
func numeralWidth(f referee.Face, st *faceStyle) float64 {
	w := st.maxWidth
	if m := st.font.mask(f.Number); m != nil {
		w = math.Min(w, m.iw/m.ih*st.height)
	}
	return w + math.Abs(st.shear)*st.height
}

// printedBalls places four to eight balls, a tenth to a fifth of the card
// wide, in the other card colours over the middle of the face, clear of
// the numerals and their extrusions. The print's shift moves them too.
// Where large numerals leave little room, later tries draw smaller balls.
func printedBalls(rng *rand.Rand, f referee.Face, st *faceStyle, aspect float64) []ball {
	n := 4 + rng.IntN(5)
	boxes := numeralBoxes(f, st, aspect)
	reach := math.Hypot(st.shadowDX, st.shadowDY) * st.height
	const tries = 400
	var bs []ball
	for try := 0; len(bs) < n && try < tries; try++ {
		r := 0.05 + 0.05*rng.Float64()*(1-float64(try)/tries)
		x := r + 0.05 + (1-2*r-0.1)*rng.Float64()
		y := aspect*0.25 + aspect*0.5*rng.Float64()
		if inBox(boxes[0], x+st.shiftX, y+st.shiftY, r+reach+0.01) || inBox(boxes[1], x+st.shiftX, y+st.shiftY, r+reach+0.01) {
			continue
		}
		overlap := false
		for _, b := range bs {
			if length(b.x-x-st.shiftX, b.y-y-st.shiftY) < b.r+r+0.015 {
				overlap = true
				break
			}
		}
		if overlap {
			continue
		}
		bs = append(bs, ball{x: x + st.shiftX, y: y + st.shiftY, r: r, col: printedBallColour(rng, f.Colour), rim: 0.1 + 0.05*rng.Float64()})
	}
	return bs
}

// inBox says whether (x,y) lies within m of box (u0, v0, u1, v1).
func inBox(b [4]float64, x, y, m float64) bool {
	return x > b[0]-m && x < b[2]+m && y > b[1]-m && y < b[3]+m
}

// printedBallColour is one of the other three card colours, or seldom
// orange or purple.
func printedBallColour(rng *rand.Rand, own referee.Colour) rgb {
	if rng.Float64() < 0.08 {
		return rareBallColours[rng.IntN(len(rareBallColours))]
	}
	k := rng.IntN(len(referee.Colours) - 1)
	for i, c := range referee.Colours {
		if c == own {
			continue
		}
		if k == 0 {
			return ballColours[ballIndex(referee.Colours[i])]
		}
		k--
	}
	return ballColours[0]
}

// ballIndex is the index in ballColours of a card colour's ball.
func ballIndex(c referee.Colour) int {
	switch c {
	case referee.Red:
		return 0
	case referee.Yellow:
		return 1
	case referee.Green:
		return 2
	}
	return 3
}

// drawRimmedBall paints a solid disc with a white rim and a small white
// highlight, as the real print's balls are.
func drawRimmedBall(c *canvas, b ball) {
	px := 1 / c.k
	x0 := max(0, int((b.x-b.r)*c.k-1))
	x1 := min(c.w, int((b.x+b.r)*c.k+2))
	y0 := max(0, int((b.y-b.r)*c.k-1))
	y1 := min(c.h, int((b.y+b.r)*c.k+2))
	inner := b.r * (1 - b.rim)
	hx, hy, hr := b.x-0.38*b.r, b.y-0.38*b.r, 0.2*b.r
	white := rgb{1, 1, 1}
	for y := y0; y < y1; y++ {
		cy := (float64(y) + 0.5) / c.k
		for x := x0; x < x1; x++ {
			cx := (float64(x) + 0.5) / c.k
			d := length(cx-b.x, cy-b.y)
			a := float32(clampf(0.5-(d-b.r)/px, 0, 1))
			if a <= 0 {
				continue
			}
			col := white.mix(b.col, float32(clampf(0.5-(d-inner)/px, 0, 1)))
			if t := clampf(0.5-(length(cx-hx, cy-hy)-hr)/px, 0, 1); t > 0 {
				col = col.mix(white, float32(0.9*t))
			}
			c.paint(y*c.w+x, col, a)
		}
	}
}

// wearFace washes a worn card's colours out a little and speckles its
// edges white where the print has rubbed off.
func wearFace(c *canvas, st *faceStyle) {
	aspect := float64(c.h) / c.k
	paper := rgb{0.95, 0.94, 0.9}
	wash := 0.12 * st.wear
	const band = 0.08 // how far in from the edge the speckles reach, card units
	for y := 0; y < c.h; y++ {
		cy := (float64(y)+0.5)/c.k - aspect/2
		for x := 0; x < c.w; x++ {
			i := y*c.w + x
			p := c.pix[4*i : 4*i+4 : 4*i+4]
			col := rgb{p[0], p[1], p[2]}
			if p[3] > 0 {
				col = col.scale(1 / p[3])
			}
			col = col.mix(paper, wash)
			cx := (float64(x)+0.5)/c.k - 0.5
			in := -sdRoundRect(cx, cy, 0.5, aspect/2, cardCorner)
			if in < band && hashUnit(st.speckle, uint64(i)) < 0.25*float64(st.wear)*(1-in/band) {
				col = col.mix(paper, 0.75)
			}
			p[0], p[1], p[2] = col.r*p[3], col.g*p[3], col.b*p[3]
		}
	}
}

// glossFace lays a sleeve's broad soft highlight over the face and takes a
// little of its saturation.
func glossFace(c *canvas, st *faceStyle) {
	const rad = 0.45 // the highlight's radius, card units
	for y := 0; y < c.h; y++ {
		dy := (float64(y)+0.5)/c.k - st.glossY
		for x := 0; x < c.w; x++ {
			dx := (float64(x)+0.5)/c.k - st.glossX
			t := st.gloss * float32(math.Exp(-(dx*dx+dy*dy)/(rad*rad)))
			p := c.pix[4*(y*c.w+x):]
			l := 0.299*p[0] + 0.587*p[1] + 0.114*p[2]
			for j := 0; j < 3; j++ {
				v := p[j] + (l-p[j])*0.25*st.gloss // less saturated under the sleeve
				p[j] = v + (p[3]-v)*t
			}
		}
	}
}
