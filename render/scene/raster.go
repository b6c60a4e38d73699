package scene

import (
	"image"
	"math"
)

// canvas is a BGR raster of the table plane: pixel (i, j) has its centre
// at table point (ox + i/s, oy + j/s).
type canvas struct {
	w, h   int
	pix    []byte
	ox, oy float64
	s      float64 // pixels per millimetre
}

func (c *canvas) px(p Pt) Pt { return Pt{(p.X - c.ox) * c.s, (p.Y - c.oy) * c.s} }

// sprite is a premultiplied BGRA image of a card (or a card's shadow),
// with a transparent pad round it so that bilinear taps never fall off.
type sprite struct {
	w, h   int
	pix    []uint8
	pad    float64 // pixels of pad on each side
	mmW    float64 // the card width and height the unpadded sprite spans
	mmH    float64
	kx, ky float64 // sprite pixels per millimetre
}

const spritePad = 2

// newSprite copies a premultiplied RGBA card image into a padded BGRA sprite.
func newSprite(img *image.RGBA, mmW, mmH float64) *sprite {
	b := img.Bounds()
	w, h := b.Dx()+2*spritePad, b.Dy()+2*spritePad
	sp := &sprite{w: w, h: h, pix: make([]uint8, 4*w*h), pad: spritePad, mmW: mmW, mmH: mmH,
		kx: float64(b.Dx()) / mmW, ky: float64(b.Dy()) / mmH}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			s := img.Pix[img.PixOffset(b.Min.X+x, b.Min.Y+y):]
			d := sp.pix[4*((y+spritePad)*w+x+spritePad):]
			d[0], d[1], d[2], d[3] = s[2], s[1], s[0], s[3]
		}
	}
	return sp
}

// newShadowSprite makes the soft shadow of a card: a rounded rectangle of
// mmW x mmH blurred over soft millimetres, at k pixels per millimetre.
func newShadowSprite(mmW, mmH, soft, k float64) *sprite {
	padMM := 2 * soft
	cw, ch := int(math.Ceil(mmW*k)), int(math.Ceil(mmH*k))
	padPx := int(math.Ceil(padMM*k)) + 1
	w, h := cw+2*padPx, ch+2*padPx
	sp := &sprite{w: w, h: h, pix: make([]uint8, 4*w*h), pad: float64(padPx), mmW: mmW, mmH: mmH,
		kx: float64(cw) / mmW, ky: float64(ch) / mmH}
	for y := range h {
		for x := range w {
			lx := (float64(x-padPx)+0.5)/sp.kx - mmW/2
			ly := (float64(y-padPx)+0.5)/sp.ky - mmH/2
			d := sdRoundRect(lx, ly, mmW/2, mmH/2, 0.06*mmW)
			a := 0.5 - d/(2*soft)
			a = math.Max(0, math.Min(1, a))
			a = a * a * (3 - 2*a)
			sp.pix[4*(y*w+x)+3] = uint8(a*255 + 0.5)
		}
	}
	return sp
}

// sdRoundRect is the signed distance to a rectangle of half-size (hw, hh)
// centred at the origin with corner radius r.
func sdRoundRect(x, y, hw, hh, r float64) float64 {
	qx := math.Abs(x) - hw + r
	qy := math.Abs(y) - hh + r
	if qx <= 0 || qy <= 0 {
		return math.Max(qx, qy) - r
	}
	return math.Sqrt(qx*qx+qy*qy) - r
}

// span is the range of canvas columns [x0, x1) a convex polygon covers on
// row y (pixel centres), widened by one pixel for antialiased edges.
func span(poly []Pt, y float64) (x0, x1 float64, ok bool) {
	x0, x1 = math.Inf(1), math.Inf(-1)
	n := len(poly)
	for i := range n {
		a, b := poly[i], poly[(i+1)%n]
		if (a.Y <= y && b.Y >= y) || (b.Y <= y && a.Y >= y) {
			var x float64
			if a.Y == b.Y {
				x0, x1 = math.Min(x0, math.Min(a.X, b.X)), math.Max(x1, math.Max(a.X, b.X))
				continue
			}
			x = a.X + (y-a.Y)*(b.X-a.X)/(b.Y-a.Y)
			x0, x1 = math.Min(x0, x), math.Max(x1, x)
		}
	}
	return x0 - 1.5, x1 + 1.5, x0 <= x1
}

// affine is the map from canvas pixels to sprite pixels for a sprite laid
// at pose p (the sprite spans mmW x mmH centred on p.c).
type affine struct{ a, b, c, d, e, f float64 }

func spriteMap(cv *canvas, sp *sprite, p pose) affine {
	// canvas pixel (X, Y) -> table (ox + X/s, oy + Y/s) -> card local
	// (rotate by -a about p.c) -> sprite pixel (local + size/2) * k + pad - 0.5.
	ca, sa := math.Cos(p.a), math.Sin(p.a)
	is := 1 / cv.s
	// local x = ca*(tx - cx) + sa*(ty - cy); local y = -sa*(tx - cx) + ca*(ty - cy)
	tx0, ty0 := cv.ox-p.c.X, cv.oy-p.c.Y
	ox := sp.mmW/2*sp.kx + sp.pad - 0.5
	oy := sp.mmH/2*sp.ky + sp.pad - 0.5
	return affine{
		a: ca * is * sp.kx, b: sa * is * sp.kx, c: (ca*tx0+sa*ty0)*sp.kx + ox,
		d: -sa * is * sp.ky, e: ca * is * sp.ky, f: (-sa*tx0+ca*ty0)*sp.ky + oy,
	}
}

// outline returns the canvas polygon a sprite covers (its pad included).
func outline(cv *canvas, sp *sprite, p pose) [4]Pt {
	hw := sp.mmW/2 + sp.pad/sp.kx
	hh := sp.mmH/2 + sp.pad/sp.ky
	q := p.quad(2*hw, 2*hh)
	return [4]Pt{cv.px(q[0]), cv.px(q[1]), cv.px(q[2]), cv.px(q[3])}
}

// draw composites sprite sp at pose p over the canvas.
func (cv *canvas) draw(sp *sprite, p pose) {
	poly := outline(cv, sp, p)
	m := spriteMap(cv, sp, p)
	y0 := max(0, int(math.Floor(min(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	y1 := min(cv.h-1, int(math.Ceil(max(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	sw, sh := sp.w, sp.h
	src := sp.pix
	for y := y0; y <= y1; y++ {
		fx0, fx1, ok := span(poly[:], float64(y))
		if !ok {
			continue
		}
		x0, x1 := max(0, int(math.Floor(fx0))), min(cv.w-1, int(math.Ceil(fx1)))
		if x0 > x1 {
			continue
		}
		sx := int32((m.a*float64(x0) + m.b*float64(y) + m.c) * 65536)
		sy := int32((m.d*float64(x0) + m.e*float64(y) + m.f) * 65536)
		dx, dy := int32(m.a*65536), int32(m.d*65536)
		row := cv.pix[3*(y*cv.w):]
		for x := x0; x <= x1; x, sx, sy = x+1, sx+dx, sy+dy {
			ix, iy := int(sx>>16), int(sy>>16)
			if uint(ix) >= uint(sw-1) || uint(iy) >= uint(sh-1) {
				continue
			}
			fx, fy := uint32(sx>>8)&255, uint32(sy>>8)&255
			i := 4 * (iy*sw + ix)
			p := src[i : i+8 : i+8]
			q := src[i+4*sw : i+4*sw+8 : i+4*sw+8]
			w00, w10, w01, w11 := (256-fx)*(256-fy), fx*(256-fy), (256-fx)*fy, fx*fy
			a := (uint32(p[3])*w00 + uint32(p[7])*w10 + uint32(q[3])*w01 + uint32(q[7])*w11) >> 16
			if a == 0 {
				continue
			}
			b := (uint32(p[0])*w00 + uint32(p[4])*w10 + uint32(q[0])*w01 + uint32(q[4])*w11) >> 16
			g := (uint32(p[1])*w00 + uint32(p[5])*w10 + uint32(q[1])*w01 + uint32(q[5])*w11) >> 16
			r := (uint32(p[2])*w00 + uint32(p[6])*w10 + uint32(q[2])*w01 + uint32(q[6])*w11) >> 16
			d := row[3*x : 3*x+3 : 3*x+3]
			k := 256 - a - (a >> 7)
			d[0] = uint8(b + (uint32(d[0])*k)>>8)
			d[1] = uint8(g + (uint32(d[1])*k)>>8)
			d[2] = uint8(r + (uint32(d[2])*k)>>8)
		}
	}
}

// shade darkens the canvas by the alpha of sprite sp at pose p, times
// strength (0..1).
func (cv *canvas) shade(sp *sprite, p pose, strength float64) {
	poly := outline(cv, sp, p)
	m := spriteMap(cv, sp, p)
	st := uint32(strength * 256)
	y0 := max(0, int(math.Floor(min(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	y1 := min(cv.h-1, int(math.Ceil(max(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	sw, sh := sp.w, sp.h
	src := sp.pix
	for y := y0; y <= y1; y++ {
		fx0, fx1, ok := span(poly[:], float64(y))
		if !ok {
			continue
		}
		x0, x1 := max(0, int(math.Floor(fx0))), min(cv.w-1, int(math.Ceil(fx1)))
		sx := int32((m.a*float64(x0) + m.b*float64(y) + m.c) * 65536)
		sy := int32((m.d*float64(x0) + m.e*float64(y) + m.f) * 65536)
		dx, dy := int32(m.a*65536), int32(m.d*65536)
		row := cv.pix[3*(y*cv.w):]
		for x := x0; x <= x1; x, sx, sy = x+1, sx+dx, sy+dy {
			ix, iy := int(sx>>16), int(sy>>16)
			if uint(ix) >= uint(sw-1) || uint(iy) >= uint(sh-1) {
				continue
			}
			fx, fy := uint32(sx>>8)&255, uint32(sy>>8)&255
			i := 4 * (iy*sw + ix)
			a := (uint32(src[i+3])*(256-fx)*(256-fy) + uint32(src[i+7])*fx*(256-fy) +
				uint32(src[i+4*sw+3])*(256-fx)*fy + uint32(src[i+4*sw+7])*fx*fy) >> 16
			if a == 0 {
				continue
			}
			k := 256 - (a*st)>>8
			d := row[3*x : 3*x+3 : 3*x+3]
			d[0] = uint8((uint32(d[0]) * k) >> 8)
			d[1] = uint8((uint32(d[1]) * k) >> 8)
			d[2] = uint8((uint32(d[2]) * k) >> 8)
		}
	}
}
