package card

import (
	"image/color"
	"math"
	"math/rand/v2"

	"ligretto/referee"
)

// cardColours are the nominal print colours of the four faces.
var cardColours = map[referee.Colour]rgb{
	referee.Red:    {0.85, 0.11, 0.13},
	referee.Green:  {0.10, 0.60, 0.27},
	referee.Blue:   {0.08, 0.33, 0.74},
	referee.Yellow: {0.98, 0.80, 0.07},
}

// ballColours are the colours of the small balls printed on the faces.
var ballColours = []rgb{
	{0.90, 0.12, 0.12}, // red
	{0.99, 0.84, 0.10}, // yellow
	{0.12, 0.65, 0.25}, // green
	{0.10, 0.35, 0.85}, // blue
	{0.98, 0.50, 0.08}, // orange
	{0.55, 0.20, 0.70}, // purple
	{0.97, 0.55, 0.70}, // pink
	{0.45, 0.80, 0.95}, // light blue
	{0.97, 0.97, 0.95}, // white
}

// faceStyle is how one printing of a face looks.
type faceStyle struct {
	font      *numeralFont
	base      rgb // card colour
	numeral   rgb // numeral colour (white, more or less)
	shadow    rgb
	shadowA   float32 // shadow opacity
	shadowDX  float64 // total shadow offset, in numeral heights, in the numeral's frame
	shadowDY  float64
	outline   float64 // dark outline width in numeral heights (0: none)
	outlineC  rgb
	shear     float64 // synthetic slant (x shifts by -shear*y)
	height    float64 // numeral ink height, card units (card is 1 wide)
	maxWidth  float64 // widest the numeral may be, card units
	cx, cy    float64 // centre of the upright numeral, card units
	border    float64 // white border width, card units (0: none)
	borderRad float64
	balls     []ball

	// The real print's look (printedFaceStyle); zero elsewhere.
	extrude        bool    // the shadow is a solid extrusion, shaded from shadow to shadowFar
	shadowFar      rgb     // the extrusion's colour at its far end
	shiftX, shiftY float64 // the whole print's offset from the card's cut, card units
	wear           float32 // washed-out colours and speckled edges (0: none)
	gloss          float32 // a sleeve's broad highlight (0: none)
	glossX, glossY float64 // the highlight's centre, card units
	speckle        uint64  // seed of the wear's speckles
}

type ball struct {
	x, y, r float64
	col     rgb
	rim     float64 // white rim width as a fraction of r (0: a shaded ball without rim)
}

// canonicalFaceStyle is the clean, unjittered look of a face: what Face and
// the clean contact sheet show. Ball layouts are fixed per face.
func canonicalFaceStyle(f referee.Face, aspect float64) faceStyle {
	st := faceStyle{
		font:     goFonts[0],
		base:     cardColours[f.Colour],
		numeral:  rgb{1, 1, 1},
		shadow:   rgb{0.08, 0.08, 0.12},
		shadowA:  0.95,
		shadowDX: 0.07, shadowDY: 0.06,
		outline:  0.03,
		outlineC: rgb{0.06, 0.06, 0.1},
		height:   0.5,
		maxWidth: 0.6,
		cx:       0.4, cy: 0.36 * aspect / 1.5,
	}
	rng := rand.New(rand.NewPCG(uint64(f.Colour)*131+uint64(f.Number), 0x6c6967))
	st.balls = scatterBalls(rng, f.Colour, &st, aspect)
	return st
}

// randomFaceStyle draws a printing style: font, slant, numeral size and
// place, shadow, ball layout and a drift of the card colour.
func randomFaceStyle(rng *rand.Rand, f referee.Face, aspect float64, fonts []*numeralFont, p *Params) faceStyle {
	st := canonicalFaceStyle(f, aspect)
	st.font = fonts[rng.IntN(len(fonts))]
	if !st.font.italic && rng.Float64() < 0.3 {
		st.shear = 0.08 + 0.17*rng.Float64()
	}
	h, s, v := toHSV(st.base)
	st.base = hsv(h+p.HueJitter*0.5*(2*rng.Float64()-1), s*(1-0.15*rng.Float64()), v*(1-0.12*rng.Float64()))
	st.numeral = hsv(40+20*rng.Float64(), 0.08*rng.Float64(), 0.9+0.1*rng.Float64())
	switch rng.IntN(4) {
	case 0, 1: // black-ish
		st.shadow = hsv(360*rng.Float64(), 0.3*rng.Float64(), 0.05+0.12*rng.Float64())
	case 2: // dark blue
		st.shadow = hsv(220+20*rng.Float64(), 0.6+0.3*rng.Float64(), 0.15+0.2*rng.Float64())
	default: // a dark shade of the card colour
		st.shadow = hsv(h, 0.7+0.3*rng.Float64(), 0.2+0.2*rng.Float64())
	}
	st.shadowA = 0.75 + 0.25*float32(rng.Float64())
	ang := math.Pi/4 + (rng.Float64()-0.5)*math.Pi/2
	dist := 0.04 + 0.08*rng.Float64()
	st.shadowDX, st.shadowDY = dist*math.Cos(ang), dist*math.Sin(ang)
	if rng.Float64() < 0.7 {
		st.outline = 0.015 + 0.035*rng.Float64()
		st.outlineC = st.shadow.scale(0.8)
	} else {
		st.outline = 0
	}
	st.height = 0.42 + 0.15*rng.Float64()
	st.maxWidth = 0.56 + 0.1*rng.Float64()
	// The numeral and its underline stay in their half of the card, and
	// the numeral (and its turned copy) inside the card's width.
	lo, hi := st.height/2+0.05, aspect/2-0.02-0.7*st.height
	st.cy = lo + (hi-lo)*rng.Float64()
	if hi < lo {
		st.cy = (lo + hi) / 2
	}
	w := st.maxWidth
	if m := st.font.mask(f.Number); m != nil {
		w = math.Min(w, m.iw/m.ih*st.height)
	}
	w += math.Abs(st.shear) * st.height
	lo, hi = 0.05+w/2, 0.95-w/2
	st.cx = clampf(0.3+0.2*rng.Float64(), lo, math.Max(lo, hi))
	if rng.Float64() < 0.2 {
		st.border = 0.02 + 0.04*rng.Float64()
		st.borderRad = 0.03 + 0.05*rng.Float64()
	}
	st.balls = scatterBalls(rng, f.Colour, &st, aspect)
	return st
}

// scatterBalls places 5..14 small balls over the face, mostly away from the
// numerals.
func scatterBalls(rng *rand.Rand, c referee.Colour, st *faceStyle, aspect float64) []ball {
	n := 5 + rng.IntN(10)
	own := cardColours[c]
	var bs []ball
	for tries := 0; len(bs) < n && tries < 200; tries++ {
		r := 0.03 + 0.045*rng.Float64()
		x := r + 0.04 + (1-2*r-0.08)*rng.Float64()
		y := r + 0.04 + (aspect-2*r-0.08)*rng.Float64()
		if nearNumeral(st, x, y, aspect) && rng.Float64() < 0.85 {
			continue
		}
		overlap := false
		for _, b := range bs {
			if length(b.x-x, b.y-y) < b.r+r+0.01 {
				overlap = true
				break
			}
		}
		if overlap {
			continue
		}
		var col rgb
		for {
			col = ballColours[rng.IntN(len(ballColours))]
			if dist3(col, own) > 0.25 {
				break
			}
		}
		bs = append(bs, ball{x: x, y: y, r: r, col: col})
	}
	return bs
}

func dist3(a, b rgb) float32 {
	dr, dg, db := a.r-b.r, a.g-b.g, a.b-b.b
	return float32(math.Sqrt(float64(dr*dr + dg*dg + db*db)))
}

func nearNumeral(st *faceStyle, x, y, aspect float64) bool {
	hw := st.maxWidth/2 + 0.04
	hh := st.height*0.5 + 0.1
	in := func(cx, cy float64) bool { return math.Abs(x-cx) < hw && math.Abs(y-cy) < hh }
	return in(st.cx, st.cy+0.05) || in(1-st.cx, aspect-st.cy-0.05)
}

// drawFace paints a face over the whole canvas (the card's rounded corners
// are cut later).
func drawFace(c *canvas, f referee.Face, st *faceStyle) {
	aspect := float64(c.h) / c.k
	fill := st.base
	if st.border > 0 {
		fill = st.numeral
	}
	for i := 0; i < c.w*c.h; i++ {
		c.pix[4*i], c.pix[4*i+1], c.pix[4*i+2], c.pix[4*i+3] = fill.r, fill.g, fill.b, 1
	}
	if st.border > 0 {
		px := 1 / c.k
		hw, hh := 0.5-st.border, aspect/2-st.border
		for y := 0; y < c.h; y++ {
			cy := (float64(y)+0.5)/c.k - aspect/2
			for x := 0; x < c.w; x++ {
				cx := (float64(x)+0.5)/c.k - 0.5
				d := sdRoundRect(cx, cy, hw, hh, st.borderRad)
				c.paint(y*c.w+x, st.base, float32(clampf(0.5-d/px, 0, 1)))
			}
		}
	}
	for _, b := range st.balls {
		if b.rim > 0 {
			drawRimmedBall(c, b)
		} else {
			drawBall(c, b)
		}
	}
	m := st.font.mask(f.Number)
	if m == nil {
		m = goFonts[0].mask(f.Number)
	}
	drawNumerals(c, m, st, st.cx+st.shiftX, st.cy+st.shiftY)
	if st.wear > 0 {
		wearFace(c, st)
	}
	if st.gloss > 0 {
		glossFace(c, st)
	}
}

func drawBall(c *canvas, b ball) {
	px := 1 / c.k
	x0 := max(0, int((b.x-b.r)*c.k-1))
	x1 := min(c.w, int((b.x+b.r)*c.k+2))
	y0 := max(0, int((b.y-b.r)*c.k-1))
	y1 := min(c.h, int((b.y+b.r)*c.k+2))
	hx, hy := b.x-0.35*b.r, b.y-0.4*b.r
	for y := y0; y < y1; y++ {
		cy := (float64(y) + 0.5) / c.k
		for x := x0; x < x1; x++ {
			cx := (float64(x) + 0.5) / c.k
			d := length(cx-b.x, cy-b.y) - b.r
			a := float32(clampf(0.5-d/px, 0, 1))
			if a <= 0 {
				continue
			}
			t := length(cx-hx, cy-hy) / (1.6 * b.r)
			col := b.col.scale(float32(1.15 - 0.55*t))
			if t < 0.18 {
				col = col.mix(rgb{1, 1, 1}, float32(0.8*(1-t/0.18)))
			}
			c.paint(y*c.w+x, col, a)
		}
	}
}

// drawNumerals draws the numeral mask m centred at (ncx,ncy) card units
// with its shadow and outline, and the same turned 180 degrees about the
// card's centre. The numeral is rendered once as a layer; the turned copy
// is that layer read backwards, which is exact because the canvas is
// symmetric about its centre.
func drawNumerals(c *canvas, m *glyphMask, st *faceStyle, ncx, ncy float64) {
	g := m.ih / st.height // mask pixels per card unit, vertically
	sq := 1.0             // horizontal squeeze for wide numerals (10)
	if w := m.iw / g; w > st.maxWidth {
		sq = st.maxWidth / w
	}
	gx := g / sq // mask pixels per card unit, horizontally
	lvl := m.levelFor(math.Max(g, gx) / c.k)
	fatLvl := lvl
	if st.outline > 0 {
		fatLvl = max(lvl, min(len(m.levels)-1, int(math.Round(math.Log2(st.outline*m.ih*2)))))
	}
	// Shadow offsets in mask pixels (sampled backwards), in as many steps
	// as the offset has destination pixels.
	sdx, sdy := st.shadowDX*m.ih, st.shadowDY*m.ih
	steps := int(math.Ceil(math.Hypot(sdx/gx, sdy/g) * c.k))
	steps = min(max(steps, 1), 16)
	// Bounding box in card units: the mask's ink (with underline), grown by
	// the shadow and outline, through the slant.
	gl, gt, gr, gb := m.ink[0], m.ink[1], m.ink[2], m.ink[3]
	grow := st.outline * m.ih * 1.5
	gl, gt = gl-grow+math.Min(sdx, 0), gt-grow+math.Min(sdy, 0)
	gr, gb = gr+grow+math.Max(sdx, 0), gb+grow+math.Max(sdy, 0)
	bx0, by0, bx1, by1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range [4][2]float64{{gl, gt}, {gr, gt}, {gl, gb}, {gr, gb}} {
		dy := (q[1] - m.cy) / g
		dx := (q[0]-m.cx)/gx - st.shear*dy
		bx0, bx1 = math.Min(bx0, dx), math.Max(bx1, dx)
		by0, by1 = math.Min(by0, dy), math.Max(by1, dy)
	}
	x0 := max(0, int((ncx+bx0)*c.k-1))
	x1 := min(c.w, int((ncx+bx1)*c.k)+2)
	y0 := max(0, int((ncy+by0)*c.k-1))
	y1 := min(c.h, int((ncy+by1)*c.k)+2)
	if x1 <= x0 || y1 <= y0 {
		return
	}
	lw := x1 - x0
	n := 4 * lw * (y1 - y0)
	if cap(c.layer) < n {
		c.layer = make([]float32, n)
	}
	layer := c.layer[:n]
	clear(layer)
	// A coarse level whose texels span the shadow, outline and a pixel: where
	// it is zero around the middle of the shadow, nothing is drawn.
	reach := math.Hypot(sdx, sdy)/2 + st.outline*m.ih*2 + 2*math.Max(g, gx)/c.k
	coarse := min(len(m.levels)-1, max(lvl, int(math.Ceil(math.Log2(2*reach)))))
	over := func(p []float32, col rgb, a float32) {
		if a <= 0 {
			return
		}
		a = min(a, 1)
		p[0] += (col.r - p[0]) * a
		p[1] += (col.g - p[1]) * a
		p[2] += (col.b - p[2]) * a
		p[3] += (1 - p[3]) * a
	}
	shA := st.shadowA
	for y := y0; y < y1; y++ {
		dy := (float64(y)+0.5)/c.k - ncy
		my := m.cy + dy*g
		for x := x0; x < x1; x++ {
			dx := (float64(x)+0.5)/c.k - ncx
			mx := m.cx + (dx+st.shear*dy)*gx
			if m.at(coarse, mx-sdx/2, my-sdy/2) == 0 {
				continue
			}
			// Premultiplied colour over black in p[0..2], coverage in p[3].
			p := layer[4*((y-y0)*lw+(x-x0)):]
			v := m.at(lvl, mx, my)
			if v < 0.998 { // the shadow and outline show round the numeral
				var sh float32
				near := 1.0 // how far back the extrusion's nearest layer here lies
				for s := 1; s <= steps; s++ {
					f := float64(s) / float64(steps)
					v := m.at(lvl, mx-f*sdx, my-f*sdy)
					if st.extrude && v > 0.5 && near == 1 {
						near = f
					}
					sh = max(sh, v)
				}
				shc := st.shadow
				if st.extrude {
					shc = st.shadow.mix(st.shadowFar, float32(near))
				}
				over(p, shc, sh*shA)
				if st.outline > 0 {
					if o := m.at(fatLvl, mx, my); o > 0 {
						over(p, st.outlineC, smoothstep(0.04, 0.2, o))
					}
				}
			}
			over(p, st.numeral, v)
		}
	}
	// Composite the layer upright and turned. A print shifted off the
	// card's centre moves the turned copy by twice the shift from the
	// mirror place, to the nearest pixel.
	ox := int(math.Round(2 * st.shiftX * c.k))
	oy := int(math.Round(2 * st.shiftY * c.k))
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			p := layer[4*((y-y0)*lw+(x-x0)):]
			a := p[3]
			if a <= 0 {
				continue
			}
			// p holds colour mixed as if over black weighted by a: the
			// layer's own colour is p/a.
			col := rgb{p[0] / a, p[1] / a, p[2] / a}
			c.paint(y*c.w+x, col, a)
			tx, ty := c.w-1-x+ox, c.h-1-y+oy
			if tx >= 0 && ty >= 0 && tx < c.w && ty < c.h {
				c.paint(ty*c.w+tx, col, a)
			}
		}
	}
}

// PrintColour is the nominal print colour of a face of colour c (the
// four Ligretto colours), as the faces are drawn; other pieces printed in
// the same colours (render/tiles) use it too. It is black for no colour.
func PrintColour(c referee.Colour) color.RGBA {
	v, ok := cardColours[c]
	if !ok {
		return color.RGBA{A: 255}
	}
	return v.rgba()
}
