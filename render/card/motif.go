package card

import (
	"fmt"
	"math"
)

// Motif is the small picture repeated over a card back.
type Motif uint8

// The twelve motifs of the real back designs, then extra ones that only
// random designs use, so that recognition is tested on shapes never seen.
const (
	Sphere Motif = iota
	Pyramid
	Cube
	Crystal
	Star
	Ring
	Wave
	Leaf
	Anchor
	Shell
	Fish
	Drop
	Diamond
	Heart
	Cross
	Moon
	Square
	Triangle
	Hexagon
	Flower
	Zigzag
	Dot
	numMotifs
)

var motifNames = [numMotifs]string{
	"sphere", "pyramid", "cube", "crystal", "star", "ring", "wave", "leaf",
	"anchor", "shell", "fish", "drop", "diamond", "heart", "cross", "moon",
	"square", "triangle", "hexagon", "flower", "zigzag", "dot",
}

func (m Motif) String() string {
	if m < numMotifs {
		return motifNames[m]
	}
	return fmt.Sprintf("motif(%d)", uint8(m))
}

// continuous motifs span their whole cell horizontally and join their
// neighbours into lines.
func (m Motif) continuous() bool { return m == Wave || m == Zigzag }

// motif evaluates motif m at (x,y) in motif units (the motif fits in the
// unit disc, y down). It returns the signed distance d (negative inside), a
// shading factor for the motif colour and a specular amount (0..1, mixed
// towards white).
func motif(m Motif, x, y float64) (d, shade, spec float64) {
	shade = 1
	switch m {
	case Sphere:
		d = sdCircle(x, y, 0.9)
		t := length(x+0.35, y+0.38) / 1.25
		shade = 1.2 - 0.65*t
		spec = clampf(1-length(x+0.32, y+0.36)/0.22, 0, 1) * 0.85
	case Pyramid:
		d, shade = pyramid(x, y)
	case Cube:
		d, shade = cube(x, y)
	case Crystal:
		d, shade, spec = crystal(x, y)
	case Star:
		d = sdStar5(x, y+0.05, 0.98, 0.45)
		shade = 1.1 - 0.25*length(x, y)
	case Ring:
		d = math.Abs(length(x, y)-0.66) - 0.24
		r := length(x, y) + 1e-9
		shade = 0.95 + 0.3*(-x-y)/r*(0.66-math.Abs(r-0.66))
	case Wave:
		d = (math.Abs(y-0.42*math.Sin(math.Pi*x)) - 0.26) * 0.8
		shade = 1.05 - 0.2*y
	case Leaf:
		d, shade = leaf(x, y)
	case Anchor:
		d = anchor(x, y)
	case Shell:
		d, shade = shell(x, y)
	case Fish:
		d, shade = fish(x, y)
	case Drop:
		d = smin(sdCircle(x, y-0.3, 0.6), sdTriangle(x, y, 0, -0.98, -0.45, 0.02, 0.45, 0.02), 0.25)
		shade = 1.1 - 0.3*y
		spec = clampf(1-length(x+0.22, y-0.18)/0.16, 0, 1) * 0.85
	case Diamond:
		d = sdRhombus(x, y, 0.68, 0.98)
	case Heart:
		d = sdHeart(x*1.1, y*1.1) / 1.1
		shade = 1.1 - 0.25*length(x+0.3, y+0.3)
	case Cross:
		d = math.Min(sdBox(x, y, 0.28, 0.9), sdBox(x, y, 0.9, 0.28))
	case Moon:
		d = math.Max(sdCircle(x, y, 0.88), -sdCircle(x-0.42, y-0.22, 0.72))
	case Square:
		d = sdBox(x, y, 0.68, 0.68) - 0.06
	case Triangle:
		d = sdTriangle(x, y, 0, -0.9, -0.85, 0.62, 0.85, 0.62)
	case Hexagon:
		d = sdHexagon(x, y, 0.8)
		shade = 1.05 - 0.15*y
	case Flower:
		r := length(x, y)
		a := math.Atan2(y, x)
		d = (r - (0.6 + 0.32*math.Cos(5*a))) * 0.7
		if r < 0.28 {
			shade = 0.55
		}
	case Zigzag:
		t := math.Abs(math.Mod(x+3, 2) - 1) // triangle wave, 0..1, period 2
		d = (math.Abs(y-0.8*(t-0.5)) - 0.24) * 0.75
	case Dot:
		d = sdCircle(x, y, 0.55)
	default:
		d = sdCircle(x, y, 0.7)
	}
	return
}

// pyramid: two visible faces split by the edge from the apex to
// (0.25, 0.72).
func pyramid(x, y float64) (d, shade float64) {
	d = sdTriangle(x, y, 0, -0.88, -0.92, 0.72, 0.92, 0.72)
	if (x-0)*(0.72+0.88)-(y+0.88)*(0.25-0) < 0 {
		return d, 1.2
	}
	return d, 0.72
}

// cube: a pointy-topped hexagon, its top face lit, its left face half.
func cube(x, y float64) (d, shade float64) {
	d = sdHexagon(y, x, 0.8) // pointy top
	switch {
	case y < -math.Abs(x)*0.577:
		shade = 1.28
	case x < 0:
		shade = 0.95
	default:
		shade = 0.66
	}
	return d, shade
}

// crystal: a rhombus cut into a table and four facets, with a glint.
func crystal(x, y float64) (d, shade, spec float64) {
	d = sdRhombus(x, y, 0.55, 0.98)
	q := math.Abs(x)/0.55 + math.Abs(y)/0.98
	switch {
	case q < 0.38:
		shade = 1.2
	case x < 0 && y < 0:
		shade = 1.35
	case x >= 0 && y < 0:
		shade = 1.0
	case x < 0:
		shade = 0.85
	default:
		shade = 0.62
	}
	spec = clampf(1-length(x+0.18, y+0.45)/0.14, 0, 1) * 0.8
	return d, shade, spec
}

// leaf: a vesica on a stem, its midrib dark, its left half lit.
func leaf(x, y float64) (d, shade float64) {
	d = smin(sdVesica(x, y+0.08, 1.0, 0.58), sdSegment(x, y, 0, 0.6, 0.08, 0.98, 0.05), 0.05)
	switch {
	case math.Abs(x) < 0.035 && y < 0.7:
		shade = 0.6
	case x < 0:
		shade = 1.1
	default:
		shade = 0.88
	}
	return d, shade
}

// anchor: ring, shank, stock, arms and flukes, flat.
func anchor(x, y float64) (d float64) {
	d = math.Abs(length(x, y+0.74)-0.15) - 0.07
	d = math.Min(d, sdSegment(x, y, 0, -0.56, 0, 0.78, 0.085))
	d = math.Min(d, sdSegment(x, y, -0.4, -0.38, 0.4, -0.38, 0.075))
	arc := math.Max(math.Abs(length(x, y-0.08)-0.7)-0.085, 0.3-y)
	d = math.Min(d, arc)
	d = math.Min(d, sdTriangle(x, y, -0.8, 0.18, -0.5, 0.38, -0.78, 0.48))
	d = math.Min(d, sdTriangle(x, y, 0.8, 0.18, 0.5, 0.38, 0.78, 0.48))
	return d
}

// shell: a scalloped fan on a hinge, shaded along its ribs.
func shell(x, y float64) (d, shade float64) {
	py := y - 0.62
	r := length(x, py)
	a := math.Atan2(x, -py)
	R := 1.45 * (1 + 0.035*math.Cos(a*16))
	d = math.Max(r-R, (math.Abs(a)-0.95)*r)
	d = math.Min(d, sdBox(x, y-0.7, 0.3, 0.13))
	rib := math.Cos(a * 8)
	shade = 0.82 + 0.3*rib*rib - 0.15*(1-r/1.45)
	return d, shade
}

// fish: a body and a tail, with an eye and a gill line.
func fish(x, y float64) (d, shade float64) {
	d = sdEllipseApprox(x+0.15, y, 0.66, 0.42)
	d = smin(d, sdTriangle(x, y, 0.35, 0, 0.96, -0.48, 0.96, 0.48), 0.08)
	shade = 1.08 - 0.35*y
	if length(x+0.52, y+0.08) < 0.09 {
		shade = 0.12
	}
	if math.Abs(x+0.2) < 0.035 && math.Abs(y) < 0.3 {
		shade = 0.75
	}
	return d, shade
}
