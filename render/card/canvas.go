package card

import (
	"image"
	"math"
)

// canvas is a float32 RGBA image with premultiplied alpha, four floats a
// pixel. Cards are drawn on it in card units (the card is 1 wide), so the
// same drawing code serves a 64x96 training texture and a 180x270 clean card.
type canvas struct {
	w, h int
	pix  []float32
	k    float64 // pixels per card unit

	layer []float32 // scratch for drawNumerals
}

func (c *canvas) reset(w, h int) {
	c.w, c.h = w, h
	n := 4 * w * h
	if cap(c.pix) < n {
		c.pix = make([]float32, n)
	}
	c.pix = c.pix[:n]
	clear(c.pix)
	c.k = float64(w)
}

// blend composites colour col with coverage a (0..1) over pixel i (index of
// the pixel, not of the float), keeping the pixel's own alpha: this paints
// onto the card without painting outside it.
func (c *canvas) paint(i int, col rgb, a float32) {
	if a <= 0 {
		return
	}
	p := c.pix[4*i : 4*i+4 : 4*i+4]
	al := p[3]
	if a > 1 {
		a = 1
	}
	p[0] += (col.r*al - p[0]) * a
	p[1] += (col.g*al - p[1]) * a
	p[2] += (col.b*al - p[2]) * a
}

// rgba converts the canvas to an image.RGBA (premultiplied, as image.RGBA is).
func (c *canvas) rgba() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
	for i := 0; i < c.w*c.h; i++ {
		for j := 0; j < 4; j++ {
			img.Pix[4*i+j] = uint8(clamp01(c.pix[4*i+j])*255 + 0.5)
		}
	}
	return img
}

// sample returns the bilinearly interpolated premultiplied pixel at (x,y)
// in pixel coordinates (pixel centres at +0.5); outside is transparent.
func (c *canvas) sample(x, y float32) (r, g, b, a float32) {
	x -= 0.5
	y -= 0.5
	if x <= -1 || y <= -1 || x >= float32(c.w) || y >= float32(c.h) {
		return
	}
	x0, y0 := int(x+1)-1, int(y+1)-1 // floor, for x, y > -1
	tx, ty := x-float32(x0), y-float32(y0)
	if x0 >= 0 && y0 >= 0 && x0+1 < c.w && y0+1 < c.h {
		i := 4 * (y0*c.w + x0)
		s := 4 * c.w
		p := c.pix[i : i+s+8 : i+s+8]
		w00 := (1 - tx) * (1 - ty)
		w10 := tx * (1 - ty)
		w01 := (1 - tx) * ty
		w11 := tx * ty
		r = p[0]*w00 + p[4]*w10 + p[s]*w01 + p[s+4]*w11
		g = p[1]*w00 + p[5]*w10 + p[s+1]*w01 + p[s+5]*w11
		b = p[2]*w00 + p[6]*w10 + p[s+2]*w01 + p[s+6]*w11
		a = p[3]*w00 + p[7]*w10 + p[s+3]*w01 + p[s+7]*w11
		return
	}
	w00 := (1 - tx) * (1 - ty)
	w10 := tx * (1 - ty)
	w01 := (1 - tx) * ty
	w11 := tx * ty
	add := func(xi, yi int, w float32) {
		if xi < 0 || yi < 0 || xi >= c.w || yi >= c.h || w == 0 {
			return
		}
		p := c.pix[4*(yi*c.w+xi):]
		r += p[0] * w
		g += p[1] * w
		b += p[2] * w
		a += p[3] * w
	}
	add(x0, y0, w00)
	add(x0+1, y0, w10)
	add(x0, y0+1, w01)
	add(x0+1, y0+1, w11)
	return
}

// cutCorners makes the canvas a card with rounded corners of radius rad
// (card units): outside the card it becomes transparent.
func (c *canvas) cutCorners(rad float64) {
	W := float64(c.w) / c.k
	H := float64(c.h) / c.k
	px := 1 / c.k
	for y := 0; y < c.h; y++ {
		cy := (float64(y) + 0.5) / c.k
		for x := 0; x < c.w; x++ {
			cx := (float64(x) + 0.5) / c.k
			d := sdRoundRect(cx-W/2, cy-H/2, W/2, H/2, rad)
			a := float32(clampf(0.5-d/px, 0, 1))
			p := c.pix[4*(y*c.w+x):]
			p[0], p[1], p[2], p[3] = p[0]*a, p[1]*a, p[2]*a, p[3]*a
		}
	}
}

// sdRoundRect is the signed distance to a rectangle of half-size (hw,hh)
// centred at the origin with corner radius r.
func sdRoundRect(x, y, hw, hh, r float64) float64 {
	qx := math.Abs(x) - hw + r
	qy := math.Abs(y) - hh + r
	if qx <= 0 || qy <= 0 {
		// Beside a straight edge (or inside): no corner arc involved.
		return math.Max(qx, qy) - r
	}
	return math.Sqrt(qx*qx+qy*qy) - r
}
