package calibration

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrCorners means the table corners do not make a usable table plane.
var ErrCorners = errors.New("table corners unusable (check that all four markers are visible, or give --corners x,y,x,y,x,y,x,y clockwise from top-left)")

// Homography is a row-major 3x3 projective map.
type Homography [9]float64

// Apply maps p through h.
func (h Homography) Apply(p Point) Point {
	w := h[6]*p.X + h[7]*p.Y + h[8]
	return Point{(h[0]*p.X + h[1]*p.Y + h[2]) / w, (h[3]*p.X + h[4]*p.Y + h[5]) / w}
}

// Mul returns h * g (apply g first, then h).
func (h Homography) Mul(g Homography) Homography {
	var out Homography
	for r := range 3 {
		for c := range 3 {
			for k := range 3 {
				out[3*r+c] += h[3*r+k] * g[3*k+c]
			}
		}
	}
	return out
}

// Inverse returns the inverse map.
func (h Homography) Inverse() Homography {
	a, b, c, d, e, f, g, hh, i := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8]
	det := a*(e*i-f*hh) - b*(d*i-f*g) + c*(d*hh-e*g)
	inv := Homography{e*i - f*hh, c*hh - b*i, b*f - c*e, f*g - d*i, a*i - c*g, c*d - a*f, d*hh - e*g, b*g - a*hh, a*e - b*d}
	for k := range inv {
		inv[k] /= det
	}
	return inv
}

// Scale returns the map followed by a uniform scale s.
func (h Homography) Scale(s float64) Homography {
	return Homography{s, 0, 0, 0, s, 0, 0, 0, 1}.Mul(h)
}

// Translate returns the map followed by a shift of (dx, dy).
func (h Homography) Translate(dx, dy float64) Homography {
	return Homography{1, 0, dx, 0, 1, dy, 0, 0, 1}.Mul(h)
}

// FourPoint solves the homography that maps src[i] to dst[i].
func FourPoint(src, dst [4]Point) (Homography, error) {
	// 8 unknowns (h8 = 1), Gaussian elimination with partial pivoting.
	var A [8][9]float64
	for i := range 4 {
		x, y, u, v := src[i].X, src[i].Y, dst[i].X, dst[i].Y
		A[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		A[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		if math.Abs(A[p][c]) < 1e-12 {
			return Homography{}, fmt.Errorf("%w: three of them lie on a line", ErrCorners)
		}
		A[c], A[p] = A[p], A[c]
		for r := range 8 {
			if r == c {
				continue
			}
			k := A[r][c] / A[c][c]
			for j := c; j < 9; j++ {
				A[r][j] -= k * A[c][j]
			}
		}
	}
	var h Homography
	for i := range 8 {
		h[i] = A[i][8] / A[i][i]
	}
	h[8] = 1
	return h, nil
}

// convex reports whether the quad is convex and clockwise on screen.
func convex(q [4]Point) bool {
	sign := 0.0
	for i := range 4 {
		a, b, c := q[i], q[(i+1)%4], q[(i+2)%4]
		cr := (b.X-a.X)*(c.Y-b.Y) - (b.Y-a.Y)*(c.X-b.X)
		if math.Abs(cr) < 1e-9 || (sign != 0 && (cr > 0) != (sign > 0)) {
			return false
		}
		sign = cr
	}
	return true
}

// Geometry constants, in millimetres of table.
const (
	// DefaultMarkerMM is the side of the black square of a printed marker
	// (the sheet `ligretto markers` prints).
	DefaultMarkerMM = 80
	// MarginMM is how far the table image reaches beyond the markers'
	// outer corners (players' cards lie near the table edge).
	MarginMM = 60
	// CardWMM, CardHMM: a Ligretto card.
	CardWMM, CardHMM = 58, 87
)

// Plane is the table plane: where the table corners are in the camera
// image and how big the table is.
type Plane struct {
	Corners  [4]Point // image pixels, clockwise from top-left (the markers' outer corners)
	WMM, HMM float64  // the rectangle spanned by the corners, in mm
}

// PlaneFromCorners makes a plane from four image corners (clockwise from
// the table's top-left) and the size in mm of the rectangle they span.
func PlaneFromCorners(c [4]Point, wmm, hmm float64) (Plane, error) {
	if !convex(c) {
		return Plane{}, fmt.Errorf("%w: the corners %v do not form a convex quadrilateral, clockwise from top-left", ErrCorners, c)
	}
	if !(wmm > 100 && hmm > 100 && wmm < 10000 && hmm < 10000) {
		return Plane{}, fmt.Errorf("%w: table %.0fx%.0f mm", ErrCorners, wmm, hmm)
	}
	return Plane{Corners: c, WMM: wmm, HMM: hmm}, nil
}

// GuessSize estimates the table size in mm from the image corners alone
// (for corners given by hand): the aspect of the mean side lengths, and
// widthMM across.
func GuessSize(c [4]Point, widthMM float64) (float64, float64) {
	d := func(a, b Point) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }
	w := (d(c[0], c[1]) + d(c[3], c[2])) / 2
	h := (d(c[0], c[3]) + d(c[1], c[2])) / 2
	if w <= 0 {
		return widthMM, widthMM
	}
	return widthMM, widthMM * h / w
}

// TableHomography maps image pixels to a table image of pxPerMM pixels per
// millimetre whose origin lies MarginMM outside the corner at top-left;
// it returns the map and the table image size.
func (p Plane) TableHomography(pxPerMM float64) (Homography, int, int, error) {
	dst := [4]Point{{MarginMM, MarginMM}, {MarginMM + p.WMM, MarginMM}, {MarginMM + p.WMM, MarginMM + p.HMM}, {MarginMM, MarginMM + p.HMM}}
	h, err := FourPoint(p.Corners, dst)
	if err != nil {
		return Homography{}, 0, 0, err
	}
	w := int(math.Round((p.WMM + 2*MarginMM) * pxPerMM))
	hh := int(math.Round((p.HMM + 2*MarginMM) * pxPerMM))
	return h.Scale(pxPerMM), w, hh, nil
}

// Zones derives the centre area and each seat's zone (table mm, in the
// table image's frame) from where the players showed their backs: a
// seat's side of the table is the edge nearest its back; the centre keeps
// clear of every seat by depth; each seat's zone is the part of the rim
// nearer to it than to any other seat.
func Zones(wmm, hmm float64, seats []Point) (Polygon, []Polygon, error) {
	if len(seats) < 2 || len(seats) > 12 {
		return nil, nil, fmt.Errorf("%w: %d seats, want 2 to 12", ErrZone, len(seats))
	}
	W, H := wmm+2*MarginMM, hmm+2*MarginMM
	// Distances inwards from the image edge to the centre, per side:
	// bottom, left, top, right.
	inset := [4]float64{MarginMM + 20, MarginMM + 20, MarginMM + 20, MarginMM + 20}
	side := make([]int, len(seats))
	for i, s := range seats {
		d := [4]float64{H - s.Y, s.X, s.Y, W - s.X}
		k := 0
		for j := 1; j < 4; j++ {
			if d[j] < d[k] {
				k = j
			}
		}
		side[i] = k
		inset[k] = math.Max(inset[k], d[k]+CardHMM/2+85)
	}
	x0, y0, x1, y1 := inset[1], inset[2], W-inset[3], H-inset[0]
	if x1-x0 < 2*CardWMM || y1-y0 < 2*CardHMM {
		return nil, nil, fmt.Errorf("%w: the seats leave no centre area (%.0fx%.0f mm)", ErrZone, x1-x0, y1-y0)
	}
	centre := Polygon{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
	var zones []Polygon
	for i, s := range seats {
		z := []Point{{0, 0}, {W, 0}, {W, H}, {0, H}}
		for j, o := range seats {
			if j == i {
				continue
			}
			// Keep the half-plane nearer to s than to o.
			m := Point{(s.X + o.X) / 2, (s.Y + o.Y) / 2}
			n := Point{o.X - s.X, o.Y - s.Y}
			z = clip(z, func(p Point) float64 { return -((p.X-m.X)*n.X + (p.Y-m.Y)*n.Y) })
		}
		// And the rim on the seat's side of the centre.
		switch side[i] {
		case 0:
			z = clip(z, func(p Point) float64 { return p.Y - y1 })
		case 1:
			z = clip(z, func(p Point) float64 { return x0 - p.X })
		case 2:
			z = clip(z, func(p Point) float64 { return y0 - p.Y })
		case 3:
			z = clip(z, func(p Point) float64 { return p.X - x1 })
		}
		if len(z) < 3 {
			return nil, nil, fmt.Errorf("%w: seat %d has no zone", ErrZone, i+1)
		}
		zones = append(zones, Polygon(z))
	}
	return centre, zones, nil
}

// clip keeps the part of a convex polygon where f >= 0 (Sutherland-Hodgman).
func clip(poly []Point, f func(Point) float64) []Point {
	var out []Point
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		fa, fb := f(a), f(b)
		if fa >= 0 {
			out = append(out, a)
		}
		if (fa >= 0) != (fb >= 0) {
			t := fa / (fa - fb)
			out = append(out, Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t})
		}
	}
	return out
}

// SeatOrder sorts seat positions clockwise on screen round the table
// centre, starting at the bottom edge's right end (the order of Layout),
// and returns the permutation.
func SeatOrder(w, h float64, seats []Point) []int {
	idx := make([]int, len(seats))
	for i := range idx {
		idx[i] = i
	}
	ang := func(p Point) float64 {
		a := math.Atan2(p.Y-h/2, p.X-w/2) - math.Pi/2 // 0 at the bottom
		for a < 0 {
			a += 2 * math.Pi
		}
		return a
	}
	sort.SliceStable(idx, func(i, j int) bool { return ang(seats[idx[i]]) < ang(seats[idx[j]]) })
	return idx
}
