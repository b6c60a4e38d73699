package find

import (
	"cmp"
	"image"
	"math"
	"slices"
)

// The search for where two touching cards meet (splitTwo) sizes the
// smallest rectangle round hundreds of point sets a frame. Through cgo
// that was the pipeline's largest cost; here it is done in Go on points
// sorted once, and OpenCV is asked only for the chosen halves' corners.

// sortedPoints returns pts sorted by X, then Y, as the monotone-chain
// hull wants them.
func sortedPoints(pts []image.Point) []image.Point {
	s := slices.Clone(pts)
	slices.SortFunc(s, func(a, b image.Point) int {
		if c := cmp.Compare(a.X, b.X); c != 0 {
			return c
		}
		return cmp.Compare(a.Y, b.Y)
	})
	return s
}

// hullOfSorted is the convex hull (counter-clockwise, no repeated point)
// of points sorted by sortedPoints, built in buf.
func hullOfSorted(s []image.Point, buf []image.Point) []image.Point {
	h := buf[:0]
	cross := func(o, a, b image.Point) int {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	for _, p := range s { // lower hull
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	lower := len(h) + 1
	for i := len(s) - 2; i >= 0; i-- { // upper hull
		p := s[i]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, p)
	}
	if len(h) > 1 {
		h = h[:len(h)-1] // the first point closes the chain
	}
	return h
}

// minRect is the width, height and centre of the smallest-area rectangle
// round the convex polygon hull, width and height rounded to whole pixels
// as gocv's MinAreaRect reports them. The smallest rectangle has a side
// along one of the hull's edges (Freeman and Shapira), so every edge is
// tried.
func minRect(hull []image.Point) (w, h, cx, cy float64) {
	n := len(hull)
	if n < 2 {
		return 0, 0, 0, 0
	}
	best := math.Inf(1)
	for i := range n {
		a, b := hull[i], hull[(i+1)%n]
		ex, ey := float64(b.X-a.X), float64(b.Y-a.Y)
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		ex, ey = ex/l, ey/l
		minU, maxU, minV, maxV := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range hull {
			px, py := float64(p.X-a.X), float64(p.Y-a.Y)
			u, v := px*ex+py*ey, py*ex-px*ey
			if u < minU {
				minU = u
			}
			if u > maxU {
				maxU = u
			}
			if v < minV {
				minV = v
			}
			if v > maxV {
				maxV = v
			}
		}
		if area := (maxU - minU) * (maxV - minV); area < best {
			best, w, h = area, maxU-minU, maxV-minV
			mu, mv := (minU+maxU)/2, (minV+maxV)/2
			cx, cy = float64(a.X)+mu*ex-mv*ey, float64(a.Y)+mu*ey+mv*ex
		}
	}
	return math.Round(w), math.Round(h), cx, cy
}
