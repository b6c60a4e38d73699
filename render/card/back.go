package card

import (
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"

	"ligretto/referee"
)

// Layout is how motifs are arranged on a back.
type Layout uint8

// Layouts.
const (
	Grid      Layout = iota // rows and columns
	Staggered               // every other row shifted by half a cell
	Scatter                 // one motif per cell, moved, scaled and turned at random
	Turned                  // a grid turned by the design's Angle
	TeteBeche               // a grid whose every other row is turned 180 degrees
	numLayouts
)

// Pattern is the background under the motifs.
type Pattern uint8

// Patterns.
const (
	Plain     Pattern = iota
	Gradient          // Base at the top to Accent at the bottom
	Stripes           // diagonal stripes of Accent
	Checks            // a checkerboard of Accent, one square a cell
	Radial            // Accent in the middle to Base at the edges
	Harlequin         // diamonds of Accent
	numPatterns
)

// BackDesign describes a card back: colours, a motif and how it is laid
// out. The ID names the design; two designs with the same ID must be equal.
type BackDesign struct {
	ID      string
	Base    color.RGBA // background
	Accent  color.RGBA // second background colour for the pattern
	Ink     color.RGBA // motif colour
	Alt     color.RGBA // motif colour in alternate cells, if Alternate
	Motif   Motif
	Layout  Layout
	Pattern Pattern
	Cell    float64 // cell size, in card widths
	Size    float64 // motif radius, as a fraction of half a cell (0..1]
	Angle   float64 // degrees: grid angle (Turned) and motif tilt
	Spin    float64 // degrees of random turn per motif (Scatter)
	// Alternate colours alternate cells with Alt; Outline draws motifs
	// with a dark edge.
	Alternate, Outline bool
	Border             float64    // width of a frame round the edge, card widths (0: none)
	Frame              color.RGBA // frame colour
	Emblem             bool       // a central oval with the word LIGRETTO
}

func c8(r, g, b float64) color.RGBA {
	return color.RGBA{uint8(r*255 + 0.5), uint8(g*255 + 0.5), uint8(b*255 + 0.5), 255}
}

var white = c8(0.97, 0.96, 0.93)

// designs are the twelve back designs of three boxes, in referee.BackDesigns
// order.
var designs = [12]BackDesign{
	{ID: "spheres", Base: c8(0.10, 0.18, 0.52), Accent: c8(0.14, 0.26, 0.64), Ink: c8(0.93, 0.30, 0.14),
		Motif: Sphere, Layout: Staggered, Pattern: Radial, Cell: 0.22, Size: 0.8, Border: 0.05, Frame: white, Emblem: true},
	{ID: "pyramids", Base: c8(0.95, 0.74, 0.32), Accent: c8(0.86, 0.58, 0.20), Ink: c8(0.56, 0.27, 0.10),
		Motif: Pyramid, Layout: Grid, Pattern: Gradient, Cell: 0.2, Size: 0.85, Border: 0.04, Frame: c8(0.45, 0.2, 0.08), Emblem: true},
	{ID: "cubes", Base: c8(0.10, 0.42, 0.22), Accent: c8(0.07, 0.33, 0.17), Ink: c8(0.70, 0.93, 0.74),
		Motif: Cube, Layout: Staggered, Pattern: Plain, Cell: 0.19, Size: 0.92, Border: 0.05, Frame: white, Emblem: true},
	{ID: "crystals", Base: c8(0.34, 0.11, 0.50), Accent: c8(0.50, 0.22, 0.68), Ink: c8(0.38, 0.86, 0.96),
		Motif: Crystal, Layout: Scatter, Pattern: Radial, Cell: 0.2, Size: 0.9, Spin: 40, Border: 0.05, Frame: c8(0.85, 0.8, 0.95), Emblem: true},
	{ID: "stars", Base: c8(0.04, 0.07, 0.24), Accent: c8(0.10, 0.16, 0.42), Ink: c8(1.0, 0.86, 0.16),
		Motif: Star, Layout: Scatter, Pattern: Radial, Cell: 0.17, Size: 0.8, Spin: 70, Border: 0.04, Frame: c8(1.0, 0.86, 0.16), Emblem: true},
	{ID: "rings", Base: c8(0.74, 0.09, 0.12), Accent: c8(0.86, 0.22, 0.22), Ink: c8(0.98, 0.95, 0.90),
		Motif: Ring, Layout: Grid, Pattern: Checks, Cell: 0.2, Size: 0.72, Border: 0.05, Frame: white, Emblem: true},
	{ID: "waves", Base: c8(0.04, 0.44, 0.50), Accent: c8(0.10, 0.56, 0.60), Ink: c8(0.62, 0.90, 0.96),
		Motif: Wave, Layout: Grid, Pattern: Plain, Cell: 0.16, Size: 0.55, Border: 0.05, Frame: c8(0.62, 0.90, 0.96), Emblem: true},
	{ID: "leaves", Base: c8(0.66, 0.85, 0.36), Accent: c8(0.56, 0.78, 0.30), Ink: c8(0.10, 0.40, 0.15),
		Motif: Leaf, Layout: Scatter, Pattern: Stripes, Cell: 0.2, Size: 0.92, Spin: 120, Border: 0.04, Frame: c8(0.1, 0.4, 0.15), Emblem: true},
	{ID: "anchors", Base: c8(0.95, 0.92, 0.82), Accent: c8(0.80, 0.86, 0.96), Ink: c8(0.10, 0.16, 0.42),
		Motif: Anchor, Layout: TeteBeche, Pattern: Stripes, Cell: 0.22, Size: 0.82, Border: 0.05, Frame: c8(0.10, 0.16, 0.42), Emblem: true},
	{ID: "shells", Base: c8(0.95, 0.58, 0.50), Accent: c8(0.99, 0.74, 0.64), Ink: c8(0.99, 0.93, 0.82),
		Motif: Shell, Layout: Staggered, Pattern: Harlequin, Cell: 0.21, Size: 0.78, Outline: true, Border: 0.04, Frame: c8(0.6, 0.25, 0.2), Emblem: true},
	{ID: "fish", Base: c8(0.45, 0.72, 0.93), Accent: c8(0.30, 0.58, 0.86), Ink: c8(0.98, 0.50, 0.10), Alt: c8(0.99, 0.88, 0.20),
		Motif: Fish, Layout: TeteBeche, Pattern: Gradient, Cell: 0.2, Size: 0.85, Alternate: true, Border: 0.04, Frame: white, Emblem: true},
	{ID: "drops", Base: c8(0.15, 0.16, 0.18), Accent: c8(0.24, 0.25, 0.29), Ink: c8(0.45, 0.70, 0.98),
		Motif: Drop, Layout: Turned, Pattern: Plain, Cell: 0.18, Size: 0.75, Angle: 45, Border: 0.05, Frame: c8(0.45, 0.70, 0.98), Emblem: true},
}

func init() {
	for i, d := range designs {
		if d.ID != referee.BackDesigns[i] {
			panic("synth: back designs out of step with referee.BackDesigns")
		}
	}
}

// Designs returns the twelve back designs, in referee.BackDesigns order.
func Designs() []BackDesign { return append([]BackDesign(nil), designs[:]...) }

// DesignIndex returns the index of a design ID in Designs, or -1.
func DesignIndex(id string) int {
	for i, d := range designs {
		if d.ID == id {
			return i
		}
	}
	return -1
}

const randomPrefix = "random-"

// RandomDesign makes a new back design from a seed: random colours, motif
// (including motifs no real design uses), layout, pattern and frame. Its
// ID is "random-" and the seed in hex, which DesignByID reads back.
func RandomDesign(seed uint64) BackDesign {
	rng := rand.New(rand.NewPCG(seed, 0x6261636b))
	d := BackDesign{ID: fmt.Sprintf("%s%016x", randomPrefix, seed)}
	bh, bs, bv := 360*rng.Float64(), 0.15+0.85*rng.Float64(), 0.15+0.8*rng.Float64()
	d.Base = hsv(bh, bs, bv).rgba()
	switch rng.IntN(3) {
	case 0:
		d.Accent = hsv(bh, bs*(0.7+0.3*rng.Float64()), bv+(rng.Float64()-0.5)*0.35).rgba()
	case 1:
		d.Accent = hsv(bh+(rng.Float64()-0.5)*90, bs, bv).rgba()
	default:
		d.Accent = hsv(360*rng.Float64(), rng.Float64(), rng.Float64()).rgba()
	}
	iv := 0.7 + 0.3*rng.Float64()
	if bv > 0.6 {
		iv = 0.1 + 0.4*rng.Float64()
	}
	ih := 360 * rng.Float64()
	d.Ink = hsv(ih, rng.Float64(), iv).rgba()
	d.Alt = hsv(ih+60+240*rng.Float64(), 0.4+0.6*rng.Float64(), iv).rgba()
	d.Motif = Motif(rng.IntN(int(numMotifs)))
	d.Layout = Layout(rng.IntN(int(numLayouts)))
	d.Pattern = Pattern(rng.IntN(int(numPatterns)))
	d.Cell = 0.12 + 0.2*rng.Float64()
	d.Size = 0.5 + 0.45*rng.Float64()
	if d.Layout == Turned || rng.Float64() < 0.25 {
		d.Angle = 360 * rng.Float64()
	}
	if d.Motif.continuous() && d.Layout != Turned {
		d.Angle = 0
	}
	d.Spin = 180 * rng.Float64()
	d.Alternate = rng.Float64() < 0.3
	d.Outline = rng.Float64() < 0.3
	if rng.Float64() < 0.6 {
		d.Border = 0.02 + 0.05*rng.Float64()
		d.Frame = hsv(360*rng.Float64(), rng.Float64(), rng.Float64()).rgba()
		if rng.Float64() < 0.5 {
			d.Frame = d.Ink
		}
	}
	d.Emblem = rng.Float64() < 0.5
	return d
}

// DesignByID finds one of the twelve designs by name, or rebuilds a random
// design from its "random-<hex seed>" ID.
func DesignByID(id string) (BackDesign, error) {
	if i := DesignIndex(id); i >= 0 {
		return designs[i], nil
	}
	if h, ok := strings.CutPrefix(id, randomPrefix); ok {
		if s, err := strconv.ParseUint(h, 16, 64); err == nil {
			return RandomDesign(s), nil
		}
	}
	return BackDesign{}, fmt.Errorf("%w: back design %q", ErrUnknownDesign, id)
}

// backDraw holds a design converted for drawing.
type backDraw struct {
	*BackDesign
	base, accent, ink, alt, frame rgb
	ca, sa                        float64 // cos, sin of the layout angle
	seed                          uint64  // from the ID, for Scatter
	tilt                          float64 // motif tilt, radians
	ct, st                        float64 // its cos and sin
}

// drawBack paints design d over the canvas. The canvas' top-left pixel
// corner is at card coordinates (-margin, -margin); the card is 1 wide and
// aspect tall, so a margin lets a sample cut the card a little off centre.
func drawBack(c *canvas, d *BackDesign, aspect, margin float64) {
	b := backDraw{BackDesign: d, base: rgbOf(d.Base), accent: rgbOf(d.Accent), ink: rgbOf(d.Ink),
		alt: rgbOf(d.Alt), frame: rgbOf(d.Frame)}
	h := fnv.New64a()
	h.Write([]byte(d.ID))
	b.seed = h.Sum64()
	ang := 0.0
	if d.Layout == Turned {
		ang = d.Angle * math.Pi / 180
	} else {
		b.tilt = d.Angle * math.Pi / 180
	}
	b.ca, b.sa = math.Cos(ang), math.Sin(ang)
	b.st, b.ct = math.Sincos(b.tilt)
	px := 1 / c.k
	cell := math.Max(d.Cell, 0.04)
	size := clampf(d.Size, 0.1, 1)
	for y := 0; y < c.h; y++ {
		cy := (float64(y)+0.5)/c.k - margin - aspect/2
		for x := 0; x < c.w; x++ {
			cx := (float64(x)+0.5)/c.k - margin - 0.5
			col := b.background(cx, cy, aspect, cell, px)
			col = b.motifAt(col, cx, cy, cell, size, px)
			if d.Border > 0 && (math.Abs(cx) > 0.5-d.Border-0.03 || math.Abs(cy) > aspect/2-d.Border-0.03) {
				e := -sdRoundRect(cx, cy, 0.5, aspect/2, 0.06) // depth inside the card
				t := clampf((d.Border-e)/px+0.5, 0, 1)
				col = col.mix(b.frame, float32(t))
				// a thin line of ink inside the frame
				l := clampf(0.5-(math.Abs(e-d.Border-0.012)-0.004)/px, 0, 1)
				col = col.mix(b.frame.scale(0.55), float32(l*0.8))
			}
			p := c.pix[4*(y*c.w+x):]
			p[0], p[1], p[2], p[3] = col.r, col.g, col.b, 1
		}
	}
	if d.Emblem {
		drawEmblem(c, &b, aspect, margin)
	}
}

func (b *backDraw) background(x, y, aspect, cell, px float64) rgb {
	var t float64
	switch b.Pattern {
	case Gradient:
		t = clampf(y/aspect+0.5, 0, 1)
	case Stripes:
		p := (x + y) / (cell * 0.75)
		f := p - math.Floor(p)
		t = clampf(0.5-(math.Abs(f-0.5)-0.25)/(px/(cell*0.75)*1.4), 0, 1)
	case Checks:
		u, v := math.Floor(x/cell), math.Floor(y/cell)
		if int(u+v)&1 == 0 {
			t = 1
		}
	case Radial:
		t = clampf(1-length(x, y/aspect*1.2)/0.75, 0, 1)
	case Harlequin:
		u, v := x/cell+0.5, y/(cell*1.4)+0.5
		fu, fv := u-math.Floor(u)-0.5, v-math.Floor(v)-0.5
		t = clampf((0.5-(math.Abs(fu)+math.Abs(fv)))/(px/cell*2)+0.5, 0, 1)
	}
	return b.base.mix(b.accent, float32(t))
}

func hash64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func hashUnit(h uint64, k uint64) float64 {
	return float64(hash64(h^k*0x632be59bd9b4e019)>>11) / (1 << 53)
}

func (b *backDraw) motifAt(col rgb, x, y, cell, size, px float64) rgb {
	u := b.ca*x + b.sa*y
	v := -b.sa*x + b.ca*y
	j := math.Floor(v / cell)
	if b.Layout == Staggered && int(j)&1 != 0 {
		u += cell / 2
	}
	i := math.Floor(u / cell)
	lx := (u - (i+0.5)*cell) / (cell / 2)
	ly := (v - (j+0.5)*cell) / (cell / 2)
	s := size
	rot := b.tilt
	if b.Layout == Scatter {
		h := hash64(uint64(int64(i))*0x9e37 ^ uint64(int64(j))*0x85ebca6b ^ b.seed)
		if hashUnit(h, 1) < 0.12 {
			return col
		}
		s = size * (0.65 + 0.35*hashUnit(h, 2))
		room := 1 - s
		lx -= room * (2*hashUnit(h, 3) - 1)
		ly -= room * (2*hashUnit(h, 4) - 1)
		rot += (2*hashUnit(h, 5) - 1) * b.Spin * math.Pi / 180
	}
	if b.Layout == TeteBeche && int(j)&1 != 0 {
		rot += math.Pi
	}
	var mx, my float64
	if b.Motif.continuous() {
		mx, my = lx, ly/s
		if b.Layout == TeteBeche && int(j)&1 != 0 {
			mx, my = -mx, -my
		}
	} else {
		var cr, sr float64
		switch {
		case b.Layout == Scatter:
			sr, cr = math.Sincos(rot)
		case rot == b.tilt:
			cr, sr = b.ct, b.st
		default: // tilt + 180 degrees
			cr, sr = -b.ct, -b.st
		}
		mx = (cr*lx + sr*ly) / s
		my = (-sr*lx + cr*ly) / s
	}
	d, shade, spec := motif(b.Motif, mx, my)
	scale := s * cell / 2 // card units per motif unit
	dc := d * scale
	cov := clampf(0.5-dc/px, 0, 1)
	if cov <= 0 {
		return col
	}
	ink := b.ink
	if b.Alternate && int(i+j)&1 != 0 {
		ink = b.alt
	}
	mc := ink.scale(float32(shade))
	if spec > 0 {
		mc = mc.mix(rgb{1, 1, 1}, float32(spec))
	}
	if b.Outline {
		ow := math.Max(0.1*scale, px*0.7)
		in := clampf(0.5-(dc+ow)/px, 0, 1)
		mc = ink.scale(0.35).mix(mc, float32(in))
	}
	return col.mix(mc.clamp(), float32(cov))
}

var (
	wordOnce sync.Once
	wordMask *glyphMask
)

// ligrettoWord is the mask of the word on the back's emblem.
func ligrettoWord() *glyphMask {
	wordOnce.Do(func() {
		f, err := opentype.Parse(goFonts[1].data)
		if err != nil {
			return
		}
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 64, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return
		}
		defer face.Close()
		wordMask = renderString(face, "LIGRETTO", 0, false)
	})
	return wordMask
}

func drawEmblem(c *canvas, b *backDraw, aspect, margin float64) {
	const rx, ry, rim = 0.36, 0.16, 0.025
	px := 1 / c.k
	fill := b.ink
	text := b.base
	if dist3(fill, text) < 0.3 {
		text = rgb{1, 1, 1}
		if fill.r+fill.g+fill.b > 2 {
			text = rgb{0.1, 0.1, 0.1}
		}
	}
	m := ligrettoWord()
	var g float64
	lvl := 0
	if m != nil {
		g = m.iw / (2 * rx * 0.78) // mask pixels per card unit
		lvl = m.levelFor(g / c.k)
	}
	x0 := max(0, int((margin+0.5-rx-0.02)*c.k))
	x1 := min(c.w, int((margin+0.5+rx+0.02)*c.k)+1)
	y0 := max(0, int((margin+aspect/2-ry-0.02)*c.k))
	y1 := min(c.h, int((margin+aspect/2+ry+0.02)*c.k)+1)
	for y := y0; y < y1; y++ {
		cy := (float64(y)+0.5)/c.k - margin - aspect/2
		for x := x0; x < x1; x++ {
			cx := (float64(x)+0.5)/c.k - margin - 0.5
			d := sdEllipseApprox(cx, cy, rx, ry)
			i := y*c.w + x
			c.paint(i, b.frame, float32(clampf(0.5-d/px, 0, 1)))
			c.paint(i, fill, float32(clampf(0.5-(d+rim)/px, 0, 1)))
			if m != nil {
				if v := m.at(lvl, m.cx+cx*g, m.cy+cy*g); v > 0 {
					c.paint(i, text, v)
				}
			}
		}
	}
}

// StandardBackSamples renders n crops of w x h pixels of each of the
// twelve back designs of the three boxes (referee.BackDesigns), at the
// augmentation of a camera crop, for naming backs without a calibration.
func StandardBackSamples(w, h, n int) (map[string][]*image.RGBA, error) {
	p := DefaultParams().Scaled(0.5)
	p.W, p.H = w, h
	r, err := New(p, 77)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]*image.RGBA, len(referee.BackDesigns))
	for _, name := range referee.BackDesigns {
		for range n {
			img, err := r.SampleOf(Label{Side: BackSide, Back: name})
			if err != nil {
				return nil, err
			}
			out[name] = append(out[name], img)
		}
	}
	return out, nil
}
