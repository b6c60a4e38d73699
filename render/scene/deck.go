package scene

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/render/card"
)

// DeckLayout is a picture of one deck laid out for ligretto deck: a row
// of each colour of Order, 1 to 10 from the left, seen by a camera at an
// angle under uneven light. Covered cards lie under a hand.
type DeckLayout struct {
	Order   []referee.Colour
	Covered []referee.Face
	W, H    int     // the picture's size (default 1280x800)
	Tilt    float64 // how much narrower the far edge looks, a share of the width (default 0.08)
	Light   float64 // light falls from 1 to 1-Light across the picture (default 0.3)
	Seed    uint64
}

// deckCard sizes on the top-down table, in pixels.
const deckCardW, deckCardH, deckGapX, deckGapY, deckMargin = 120, 180, 28, 40, 70

// RenderDeckLayout draws the layout as a BGR picture, and says where each
// card's centre is in it.
func RenderDeckLayout(d DeckLayout) (gocv.Mat, map[referee.Face]image.Point, error) {
	if d.W == 0 {
		d.W, d.H = 1280, 800
	}
	if d.Tilt == 0 {
		d.Tilt = 0.08
	}
	if d.Light == 0 {
		d.Light = 0.3
	}
	rng := rand.New(rand.NewPCG(d.Seed, 0xdec))
	p := card.DefaultParams()
	p.PrintedCanonical = true
	cards, err := card.New(p, d.Seed)
	if err != nil {
		return gocv.Mat{}, nil, err
	}
	tw := 2*deckMargin + 10*deckCardW + 9*deckGapX
	th := 2*deckMargin + len(d.Order)*deckCardH + (len(d.Order)-1)*deckGapY
	top := image.NewRGBA(image.Rect(0, 0, tw, th))
	for y := range th {
		for x := range tw {
			v := 110 + rng.IntN(14)
			top.SetRGBA(x, y, color.RGBA{uint8(v + 30), uint8(v + 5), uint8(v - 30), 255}) // wood-brown cloth
		}
	}
	covered := map[referee.Face]bool{}
	for _, f := range d.Covered {
		covered[f] = true
	}
	centres := map[referee.Face][2]float64{}
	for r, colour := range d.Order {
		for n := 1; n <= 10; n++ {
			f := referee.Face{Colour: colour, Number: n}
			img, err := cards.Card(card.Label{Side: card.FaceSide, Face: f}, deckCardW, deckCardH, false)
			if err != nil {
				return gocv.Mat{}, nil, fmt.Errorf("render %v: %w", f, err)
			}
			x0 := deckMargin + (n-1)*(deckCardW+deckGapX) + rng.IntN(9) - 4
			y0 := deckMargin + r*(deckCardH+deckGapY) + rng.IntN(9) - 4
			pasteCard(top, img, x0, y0)
			centres[f] = [2]float64{float64(x0) + deckCardW/2, float64(y0) + deckCardH/2}
			if covered[f] {
				coverByHand(top, float64(x0)+deckCardW/2, float64(y0)+deckCardH/2)
			}
		}
	}
	src, err := gocv.ImageToMatRGB(top)
	if err != nil {
		return gocv.Mat{}, nil, err
	}
	defer src.Close()
	W, H := float64(d.W), float64(d.H)
	from := []image.Point{{0, 0}, {tw, 0}, {tw, th}, {0, th}}
	to := []image.Point{
		{int(W * (0.02 + d.Tilt)), int(H * 0.06)}, {int(W * (0.98 - d.Tilt)), int(H * 0.04)},
		{int(W * 0.99), int(H * 0.97)}, {int(W * 0.01), int(H * 0.95)},
	}
	fv, tv := gocv.NewPointVectorFromPoints(from), gocv.NewPointVectorFromPoints(to)
	defer fv.Close()
	defer tv.Close()
	m := gocv.GetPerspectiveTransform(fv, tv)
	defer m.Close()
	out := gocv.NewMat()
	gocv.WarpPerspectiveWithParams(src, &out, m, image.Pt(d.W, d.H), gocv.InterpolationLinear, gocv.BorderReplicate, color.RGBA{})
	lightAcross(out, d.Light)
	where := map[referee.Face]image.Point{}
	for f, c := range centres {
		where[f] = projectPoint(m, c[0], c[1])
	}
	return out, where, nil
}

// pasteCard draws img onto dst at (x0, y0), over by its alpha.
func pasteCard(dst, img *image.RGBA, x0, y0 int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.A == 0 {
				continue
			}
			d := dst.RGBAAt(x0+x-b.Min.X, y0+y-b.Min.Y)
			a := uint32(c.A)
			mix := func(s, t uint8) uint8 { return uint8(uint32(s) + uint32(t)*(255-a)/255) } // premultiplied
			dst.SetRGBA(x0+x-b.Min.X, y0+y-b.Min.Y, color.RGBA{mix(c.R, d.R), mix(c.G, d.G), mix(c.B, d.B), 255})
		}
	}
}

// coverByHand covers most of a card (centre cx, cy) with a skin-coloured oval
// reaching in from below.
func coverByHand(dst *image.RGBA, cx, cy float64) {
	rx, ry := deckCardW*0.75, deckCardH*0.7
	for y := int(cy - ry); y < int(cy+ry); y++ {
		for x := int(cx - rx); x < int(cx+rx); x++ {
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy-deckCardH*0.15)/ry
			if dx*dx+dy*dy <= 1 && image.Pt(x, y).In(dst.Bounds()) {
				dst.SetRGBA(x, y, color.RGBA{224, 172, 140, 255})
			}
		}
	}
}

// lightAcross darkens the picture from 1 at the left to 1-k at the right.
func lightAcross(m gocv.Mat, k float64) {
	b, err := m.DataPtrUint8()
	if err != nil {
		return
	}
	w, h := m.Cols(), m.Rows()
	for y := range h {
		for x := range w {
			g := 1 - k*float64(x)/float64(w) - 0.1*k*float64(y)/float64(h)
			for c := range 3 {
				i := (y*w+x)*3 + c
				b[i] = uint8(math.Min(255, float64(b[i])*g))
			}
		}
	}
}

// projectPoint maps (x, y) by the 3x3 perspective transform m.
func projectPoint(m gocv.Mat, x, y float64) image.Point {
	h := func(r, c int) float64 { return m.GetDoubleAt(r, c) }
	den := h(2, 0)*x + h(2, 1)*y + h(2, 2)
	return image.Pt(int((h(0, 0)*x+h(0, 1)*y+h(0, 2))/den+0.5), int((h(1, 0)*x+h(1, 1)*y+h(1, 2))/den+0.5))
}
