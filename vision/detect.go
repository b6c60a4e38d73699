// Package vision turns camera frames into referee observations: it finds
// cards, warps each to the classifier's crop, and tracks piles over frames.
// It owns OpenCV (through gocv); every Mat it makes it closes.
package vision

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

// DetectParams bound what counts as a card.
type DetectParams struct {
	MinArea, MaxArea float64 // in pixels of the image searched
	MinAspect        float64 // long side / short side
	MaxAspect        float64
}

// DefaultDetectParams suits cards that fill between 0.1% and 60% of a frame.
func DefaultDetectParams(w, h int) DetectParams {
	a := float64(w * h)
	return DetectParams{MinArea: a * 0.001, MaxArea: a * 0.6, MinAspect: 1.15, MaxAspect: 2.0}
}

// FindCards finds card-shaped quadrilaterals in a BGR image: closed edges
// around regions that contrast with what lies around them, simplified to
// four corners, with a card's aspect ratio. Nested finds are kept only
// when the inner one is clearly a different card (a pile's top card lies
// inside the pile's outline and is the one returned).
func FindCards(img gocv.Mat, p DetectParams) []Quad {
	// Edges in brightness miss yellow on white; edges in saturation catch them.
	grey := gocv.NewMat()
	defer grey.Close()
	gocv.CvtColor(img, &grey, gocv.ColorBGRToGray)
	gocv.GaussianBlur(grey, &grey, image.Pt(5, 5), 0, 0, gocv.BorderDefault)
	hsv := gocv.NewMat()
	defer hsv.Close()
	gocv.CvtColor(img, &hsv, gocv.ColorBGRToHSV)
	sat := gocv.NewMat()
	defer sat.Close()
	gocv.ExtractChannel(hsv, &sat, 1)
	gocv.GaussianBlur(sat, &sat, image.Pt(5, 5), 0, 0, gocv.BorderDefault)
	edges := gocv.NewMat()
	defer edges.Close()
	gocv.Canny(grey, &edges, 30, 90)
	satEdges := gocv.NewMat()
	defer satEdges.Close()
	gocv.Canny(sat, &satEdges, 30, 90)
	gocv.BitwiseOr(edges, satEdges, &edges)
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer kernel.Close()
	gocv.Dilate(edges, &edges, kernel)

	type found struct {
		q    Quad
		area float64
	}
	var cands []found
	consider := func(c gocv.PointVector) {
		hull := gocv.NewMat()
		defer hull.Close()
		gocv.ConvexHull(c, &hull, true, true)
		hpts := gocv.NewPointVectorFromMat(hull)
		defer hpts.Close()
		area := gocv.ContourArea(hpts)
		if area < p.MinArea || area > p.MaxArea {
			return
		}
		rect := gocv.MinAreaRect(hpts)
		w, h := float64(rect.Width), float64(rect.Height)
		if w == 0 || h == 0 {
			return
		}
		long, short := math.Max(w, h), math.Min(w, h)
		if r := long / short; r < p.MinAspect || r > p.MaxAspect {
			return
		}
		if area < 0.85*w*h { // a card's outline fills its bounding rectangle
			return
		}
		var q Quad
		copy(q[:], rect.Points)
		cands = append(cands, found{OrderCorners(q), w * h})
	}
	// Every closed outline (a pile's top card lies inside the pile), and the
	// outer hull of each connected group of edges (a card whose border is
	// broken by its own print).
	for _, mode := range []gocv.RetrievalMode{gocv.RetrievalList, gocv.RetrievalExternal} {
		contours := gocv.FindContours(edges, mode, gocv.ChainApproxSimple)
		for i := 0; i < contours.Size(); i++ {
			consider(contours.At(i))
		}
		contours.Close()
	}
	// Largest first; drop a find whose centre lies in a card already kept:
	// it is part of that card's print (its inner frame, its numeral). A
	// pile's top card that sits askew is kept, because then the pile's
	// outline is no rectangle and was never a candidate.
	sort.Slice(cands, func(i, j int) bool { return cands[i].area > cands[j].area })
	var out []Quad
	for _, c := range cands {
		x, y := c.q.Centre()
		inside := false
		for _, k := range out {
			if k.Contains(x, y) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, c.q)
		}
	}
	return out
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
