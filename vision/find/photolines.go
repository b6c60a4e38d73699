package find

import (
	"image"
	"math"

	"gocv.io/x/gocv"
)

// Cards whose outline is no closed rectangle (cards touching in a row, a
// card on a book, a knife across a card) still show straight sides that
// meet at right angles. Each corner where two straight edge segments meet
// is a card's corner; the card's far sides are where other segments cross
// its arms. Every such rectangle is a hypothesis that the border test
// keeps or drops.

// segment is a straight edge segment from a to b.
type segment struct {
	ax, ay, bx, by float64
	ux, uy, l      float64 // unit direction, length
}

// Straight segments: the shortest kept, as a share of the photo's short
// side, and the largest gap bridged along one, in pixels.
const (
	photoSegMin = 0.1
	photoSegGap = 4
)

// Corners: how far from square two segments may meet (radians), and how
// far (pixels) the corner may lie from each segment's end.
const (
	photoCornerTurn = 0.2
	photoCornerGap  = 10
)

// straightSegments are the straight segments of an edge map.
func straightSegments(edges gocv.Mat) []segment {
	lines := gocv.NewMat()
	defer lines.Close()
	short := float32(min(edges.Cols(), edges.Rows()))
	gocv.HoughLinesPWithParams(edges, &lines, 1, math.Pi/180, 30, photoSegMin*short, photoSegGap)
	segs := make([]segment, 0, lines.Rows())
	for i := 0; i < lines.Rows(); i++ {
		v := lines.GetVeciAt(i, 0)
		s := segment{ax: float64(v[0]), ay: float64(v[1]), bx: float64(v[2]), by: float64(v[3])}
		s.l = math.Hypot(s.bx-s.ax, s.by-s.ay)
		if s.l < 1 {
			continue
		}
		s.ux, s.uy = (s.bx-s.ax)/s.l, (s.by-s.ay)/s.l
		segs = append(segs, s)
	}
	return segs
}

// corner is where two sides of a card meet: the point and the unit
// directions of its two arms, and how far each arm runs along a segment.
type corner struct {
	x, y         float64
	u1x, u1y, a1 float64
	u2x, u2y, a2 float64
	s1, s2       int // the segments of the arms
}

// squareTo reports whether two directions are about perpendicular.
func squareTo(s, t segment) bool {
	return math.Abs(s.ux*t.ux+s.uy*t.uy) < math.Sin(photoCornerTurn)
}

// parallelTo reports whether two directions are about parallel.
func parallelTo(ux, uy float64, t segment) bool {
	return math.Abs(ux*t.uy-uy*t.ux) < math.Sin(photoCornerTurn)
}

// armFrom is the direction from (x, y) along s and how far s runs from
// there, or ok false when (x, y) is not near one of s's ends.
func armFrom(x, y float64, s segment) (ux, uy, l float64, ok bool) {
	da, db := math.Hypot(s.ax-x, s.ay-y), math.Hypot(s.bx-x, s.by-y)
	switch {
	case da <= photoCornerGap && da < db:
		return s.ux, s.uy, db, true
	case db <= photoCornerGap:
		return -s.ux, -s.uy, da, true
	}
	return 0, 0, 0, false
}

// cornersOf are the corners where two segments end at about a right angle.
func cornersOf(segs []segment) []corner {
	var out []corner
	for i := range segs {
		for j := i + 1; j < len(segs); j++ {
			s, t := segs[i], segs[j]
			if !squareTo(s, t) {
				continue
			}
			x, y, ok := crossing(s, t)
			if !ok {
				continue
			}
			u1x, u1y, a1, ok1 := armFrom(x, y, s)
			u2x, u2y, a2, ok2 := armFrom(x, y, t)
			if ok1 && ok2 {
				out = append(out, corner{x, y, u1x, u1y, a1, u2x, u2y, a2, i, j})
			}
		}
	}
	return out
}

// crossing is where the lines through s and t cross.
func crossing(s, t segment) (float64, float64, bool) {
	d := s.ux*t.uy - s.uy*t.ux
	if math.Abs(d) < 1e-6 {
		return 0, 0, false
	}
	k := ((t.ax-s.ax)*t.uy - (t.ay-s.ay)*t.ux) / d
	return s.ax + k*s.ux, s.ay + k*s.uy, true
}

// sideStops are the lengths along the arm (ux, uy) from corner c at which
// a card's far side may lie: the end of the arm's own segment, and each
// segment across the arm (parallel to the other arm, vx, vy) that lies
// beside the card's near part.
func sideStops(c corner, ux, uy, own, vx, vy float64, segs []segment, minLen float64) []float64 {
	stops := []float64{own}
	for _, t := range segs {
		if !parallelTo(vx, vy, t) {
			continue
		}
		mx, my := (t.ax+t.bx)/2, (t.ay+t.by)/2
		along := (mx-c.x)*ux + (my-c.y)*uy
		if along < minLen || along < own-photoCornerGap {
			continue
		}
		// The crossing segment must start near the arm and run along
		// the other side's direction.
		pa, pb := (t.ax-c.x)*vx+(t.ay-c.y)*vy, (t.bx-c.x)*vx+(t.by-c.y)*vy
		if min(pa, pb) > photoCornerGap || max(pa, pb) < photoCornerGap {
			continue
		}
		stops = append(stops, along)
	}
	return stops
}

// cornerCards are the card-shaped rectangles with a corner at c whose far
// sides lie at stops along its arms.
func cornerCards(c corner, segs []segment, p Options) []candidate {
	minLen := math.Sqrt(p.MinArea / p.MaxAspect)
	s1 := sideStops(c, c.u1x, c.u1y, c.a1, c.u2x, c.u2y, segs, minLen)
	s2 := sideStops(c, c.u2x, c.u2y, c.a2, c.u1x, c.u1y, segs, minLen)
	var out []candidate
	for _, l1 := range s1 {
		for _, l2 := range s2 {
			long, short := math.Max(l1, l2), math.Min(l1, l2)
			if short < 1 || long/short < p.MinAspect || long/short > p.MaxAspect {
				continue
			}
			if a := l1 * l2; a < p.MinArea || a > p.MaxArea {
				continue
			}
			pt := func(a, b float64) image.Point {
				return image.Pt(int(math.Round(c.x+a*c.u1x+b*c.u2x)), int(math.Round(c.y+a*c.u1y+b*c.u2y)))
			}
			q := OrderCorners(Quad{pt(0, 0), pt(l1, 0), pt(l1, l2), pt(0, l2)})
			out = append(out, candidate{q, l1 * l2})
		}
	}
	return out
}

// lineCandidates are the card-shaped rectangles built on the corners of
// the straight segments of an edge map.
func lineCandidates(edges gocv.Mat, p Options) []candidate {
	segs := straightSegments(edges)
	var out []candidate
	for _, c := range cornersOf(segs) {
		out = append(out, cornerCards(c, segs, p)...)
	}
	return out
}
