package tiles

import (
	"math"

	"ligretto/calibration"
	"ligretto/referee/tiles"
)

// A part found as a rotated rectangle in the top view is only about right:
// its outline is a pixel off here and there, and the lens bends the table
// a little. Each part's fields are fitted to where their colours change:
// along every edge between two fields (and the part's outer edges) short
// profiles across it, read from the camera frame, say where one colour
// gives way to the next; a least-squares fit of those positions gives the
// part's shift, scale and shear in each direction.

const (
	profReach = 6.0  // mm either side of an edge
	profStep  = 0.25 // mm
	gridLine  = 0.6  // the white line's half width between fields, and at the outer edge
)

// pixelClass classifies the camera frame at image point (x, y), its
// colours interpolated.
func pixelClass(pix []byte, w, h int, x, y float64) (int, bool) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= w || y0+1 >= h {
		return 0, false
	}
	fx, fy := x-float64(x0), y-float64(y0)
	var c [3]float64
	for k := range 3 {
		v := func(px, py int) float64 { return float64(pix[3*(py*w+px)+k]) }
		c[k] = (v(x0, y0)*(1-fx)+v(x0+1, y0)*fx)*(1-fy) + (v(x0, y0+1)*(1-fx)+v(x0+1, y0+1)*fx)*fy
	}
	return int(classLUT[lutIndex(uint8(c[0]+0.5), uint8(c[1]+0.5), uint8(c[2]+0.5))]), true
}

// edgeFit collects (nominal position along the axis, position across,
// measured offset) and fits offset = d + e*along + k*across.
type edgeFit struct {
	a [3][3]float64
	b [3]float64
	n int
}

func (f *edgeFit) add(along, across, off float64) {
	x := [3]float64{1, along, across}
	for i := range 3 {
		for j := range 3 {
			f.a[i][j] += x[i] * x[j]
		}
		f.b[i] += x[i] * off
	}
	f.n++
}

// solve returns (d, e, k), or false when too few edges were measured.
func (f *edgeFit) solve() ([3]float64, bool) {
	if f.n < 30 {
		return [3]float64{}, false
	}
	a, b := f.a, f.b
	for c := range 3 { // Gaussian elimination with partial pivoting
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		if math.Abs(a[c][c]) < 1e-9 {
			return [3]float64{}, false
		}
		for r := c + 1; r < 3; r++ {
			k := a[r][c] / a[c][c]
			for j := c; j < 3; j++ {
				a[r][j] -= k * a[c][j]
			}
			b[r] -= k * b[c]
		}
	}
	var x [3]float64
	for r := 2; r >= 0; r-- {
		s := b[r]
		for j := r + 1; j < 3; j++ {
			s -= a[r][j] * x[j]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}

// refineParts fits every part of b to the frame pix (w x h BGR) seen
// through inv (top view -> image), twice over.
func refineParts(b *Board, pix []byte, w, h int, inv calibration.Homography) {
	for i := range b.Parts {
		for range 2 {
			refinePart(b, i, pix, w, h, inv)
		}
	}
}

// edgeSide is a field's colour beside an edge, if there is a field.
type edgeSide struct {
	colour tiles.Colour
	ok     bool
}

// profile reads the colours across one edge of part p, at lx, ly = edge+s,
// across (axis 0) or across, edge+s (axis 1), and returns where the
// colours change, relative to the edge, or false for no clear change (off
// the frame, a stone, a hand).
func profile(p *Pose, pix []byte, w, h int, inv calibration.Homography, axis int, edge, across float64, lo, hi edgeSide) (float64, bool) {
	nLo, nHi, n := 0, 0, 0
	for s := -profReach; s <= profReach+1e-9; s += profStep {
		lx, ly := edge+s, across
		if axis == 1 {
			lx, ly = across, edge+s
		}
		tx, ty := p.at(lx, ly)
		ix, iy := imagePoint(inv, tx, ty)
		c, ok := pixelClass(pix, w, h, ix, iy)
		if !ok || c == pxDark {
			return 0, false
		}
		n++
		switch {
		case lo.ok && c >= pxRed && c <= pxYellow && classColour[c] == lo.colour:
			nLo++
		case hi.ok && c >= pxRed && c <= pxYellow && classColour[c] == hi.colour:
			nHi++
		}
	}
	switch {
	case lo.ok && hi.ok:
		if nLo+nHi < n*3/4 {
			return 0, false
		}
		return ((-profReach + float64(nLo)*profStep) + (profReach - float64(nHi)*profStep)) / 2, true
	case hi.ok: // the part's first edge: its rim before
		if nHi < n/4 || nHi > n*3/4+2 {
			return 0, false
		}
		return profReach - float64(nHi)*profStep - gridLine, true
	default: // the last edge
		if nLo < n/4 || nLo > n*3/4+2 {
			return 0, false
		}
		return -profReach + float64(nLo)*profStep + gridLine, true
	}
}

func refinePart(b *Board, i int, pix []byte, w, h int, inv calibration.Homography) {
	p := &b.Parts[i]
	px, py := (i%b.Cols)*tiles.PartSize, (i/b.Cols)*tiles.PartSize
	colour := func(cx, cy int) edgeSide {
		if cx < 0 || cy < 0 || cx >= tiles.PartSize || cy >= tiles.PartSize {
			return edgeSide{}
		}
		return edgeSide{b.colours[py+cy][px+cx], true}
	}
	half := 2 * FieldMM
	var fits [2]edgeFit // 0: edges across x (offsets in x), 1: across y
	for axis := range 2 {
		for k := range tiles.PartSize + 1 { // edge k: before field column (row) k
			edge := -half + float64(k)*FieldMM
			for r := range tiles.PartSize {
				lo, hi := colour(k-1, r), colour(k, r)
				if axis == 1 {
					lo, hi = colour(r, k-1), colour(r, k)
				}
				for _, t := range []float64{9, 16, 22.5, 29, 36} {
					across := -half + float64(r)*FieldMM + t
					if off, ok := profile(p, pix, w, h, inv, axis, edge, across, lo, hi); ok {
						fits[axis].add(edge, across, off)
					}
				}
			}
		}
	}
	dx, okx := fits[0].solve()
	dy, oky := fits[1].solve()
	if !okx || !oky {
		return
	}
	// x' = x + dx0 + dx1*x + dx2*y; y' = y + dy0 + dy1*y + dy2*x
	m := p.m
	a := [4]float64{1 + dx[1], dx[2], dy[2], 1 + dy[1]}
	p.X += m[0]*dx[0] + m[1]*dy[0]
	p.Y += m[2]*dx[0] + m[3]*dy[0]
	p.m = [4]float64{m[0]*a[0] + m[1]*a[2], m[0]*a[1] + m[1]*a[3], m[2]*a[0] + m[3]*a[2], m[2]*a[1] + m[3]*a[3]}
}
