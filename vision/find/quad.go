package find

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Quad is a card's outline in image pixels, corners as OrderCorners puts them.
type Quad [4]image.Point

// Centre is the mean of the corners.
func (q Quad) Centre() (float64, float64) {
	var x, y float64
	for _, p := range q {
		x += float64(p.X)
		y += float64(p.Y)
	}
	return x / 4, y / 4
}

// Contains reports whether (x, y) lies inside the quad.
func (q Quad) Contains(x, y float64) bool {
	in := false
	for i, j := 0, 3; i < 4; j, i = i, i+1 {
		a, b := q[i], q[j]
		if (float64(a.Y) > y) != (float64(b.Y) > y) &&
			x < float64(b.X-a.X)*(y-float64(a.Y))/float64(b.Y-a.Y)+float64(a.X) {
			in = !in
		}
	}
	return in
}

// Bounds is the smallest rectangle holding the quad.
func (q Quad) Bounds() image.Rectangle {
	r := image.Rectangle{Min: q[0], Max: q[0]}
	for _, p := range q[1:] {
		r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, p.X), max(r.Max.Y, p.Y)
	}
	return r
}

// OrderCorners orders a card's corners clockwise (on screen) so that the
// side from corner 0 to corner 1 is a short side, nearer the top of the
// image: a warp to an upright w x h crop then puts the long axis vertical.
func OrderCorners(q Quad) Quad {
	// Clockwise around the centre (image y grows downwards).
	cx, cy := q.Centre()
	pts := q
	sort.Slice(pts[:], func(i, j int) bool {
		ai := math.Atan2(float64(pts[i].Y)-cy, float64(pts[i].X)-cx)
		aj := math.Atan2(float64(pts[j].Y)-cy, float64(pts[j].X)-cx)
		return ai < aj
	})
	// Start at the top-most of the two corners that begin a short side.
	d := func(a, b image.Point) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) }
	start := 0
	if d(pts[0], pts[1]) > d(pts[1], pts[2]) {
		start = 1
	}
	if pts[(start+2)%4].Y+pts[(start+3)%4].Y < pts[start].Y+pts[(start+1)%4].Y {
		start += 2
	}
	var out Quad
	for i := range 4 {
		out[i] = pts[(start+i)%4]
	}
	return out
}

// WarpCard warps the card inside q to a w x h upright crop (BGR).
func WarpCard(img gocv.Mat, q Quad, w, h int) gocv.Mat {
	src := gocv.NewPointVectorFromPoints(q[:])
	defer src.Close()
	dst := gocv.NewPointVectorFromPoints([]image.Point{{0, 0}, {w - 1, 0}, {w - 1, h - 1}, {0, h - 1}})
	defer dst.Close()
	m := gocv.GetPerspectiveTransform(src, dst)
	defer m.Close()
	out := gocv.NewMat()
	gocv.WarpPerspective(img, &out, m, image.Pt(w, h))
	return out
}
