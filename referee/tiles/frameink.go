package tiles

import "math"

// The frame styles' print (T1), in mm inside the piece's edge: the
// renderer draws it and the camera matches against it.
const (
	bandIn, bandOut = 2.6, 5.6 // plain and dashed: one line 3 mm wide
	dblIn1, dblOut1 = 2.2, 4.2 // double: two lines 2 mm wide, 2 mm apart
	dblIn2, dblOut2 = 6.2, 8.2
	// FrameDotMid is how far inside the edge a dotted frame's dots lie.
	FrameDotMid = 4.1
	dotR        = 2.1 // dotted: dots of dotR on the band's middle, dotPitch apart
	dotPitch    = 7.5
	dashPitch   = 13.0 // dashed: dashLen on, the rest off
	dashLen     = 8.0
)

// Inked reports whether frame style f puts ink at (x, y), depth e mm
// inside the edge of a card of half-size (hx, hy).
func (f Frame) Inked(x, y, e, hx, hy float64) bool {
	switch f {
	case Plain:
		return e >= bandIn && e <= bandOut
	case Double:
		return e >= dblIn1 && e <= dblOut1 || e >= dblIn2 && e <= dblOut2
	case Dashed:
		if e < bandIn || e > bandOut {
			return false
		}
		du, _ := alongBorder(x, y, hx-FrameDotMid, hy-FrameDotMid, dashPitch)
		return math.Abs(du) <= dashLen/2
	case Dotted:
		du, across := alongBorder(x, y, hx-FrameDotMid, hy-FrameDotMid, dotPitch)
		return math.Hypot(du, across) <= dotR
	}
	return false
}

// alongBorder places marks about pitch apart along each side of the
// rectangle of half-size (mx, my), a mark on every corner, and returns
// how far (x, y) lies along its nearest side from the nearest mark, and
// how far across from that side.
func alongBorder(x, y, mx, my, pitch float64) (du, across float64) {
	type side struct{ u, m, off float64 }
	sides := [4]side{
		{x, mx, math.Abs(y + my)}, {x, mx, math.Abs(y - my)},
		{y, my, math.Abs(x + mx)}, {y, my, math.Abs(x - mx)},
	}
	best := math.Inf(1)
	for _, sd := range sides {
		n := max(1, math.Round(2*sd.m/pitch))
		step := 2 * sd.m / n
		i := math.Max(0, math.Min(n, math.Round((sd.u+sd.m)/step)))
		d := sd.u - (-sd.m + i*step)
		if math.Abs(sd.u) > sd.m {
			d = math.Abs(sd.u) - sd.m
		}
		if h := math.Hypot(d, sd.off); h < best {
			best, du, across = h, d, sd.off
		}
	}
	return du, across
}
