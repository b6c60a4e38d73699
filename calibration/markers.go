package calibration

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/vision/aruco"
)

// FindPlane finds the four table-corner markers (DICT_4X4_50 ids 0..3:
// top-left, top-right, bottom-right, bottom-left) in a BGR frame and
// returns the table plane spanned by their outer corners. markerMM is the
// side of a marker's black square (DefaultMarkerMM for the printed sheet);
// it gives the table's size in millimetres.
func FindPlane(img gocv.Mat, markerMM float64) (Plane, error) {
	pl, _, err := FindPlaneMarkers(img, markerMM)
	return pl, err
}

// FindPlaneMarkers is FindPlane that also says which of the four markers
// it saw, so that a person setting up the camera knows which one to fix.
func FindPlaneMarkers(img gocv.Mat, markerMM float64) (Plane, [4]bool, error) {
	var seen [4]bool
	dets, err := aruco.Detect(img)
	if err != nil {
		return Plane{}, seen, fmt.Errorf("%w: %v", ErrCorners, err)
	}
	var got [4]*aruco.Detection
	for i := range dets {
		if d := &dets[i]; d.ID >= 0 && d.ID < 4 && got[d.ID] == nil {
			got[d.ID] = d
			seen[d.ID] = true
		}
	}
	pl, err := planeOf(got, markerMM)
	return pl, seen, err
}

func planeOf(got [4]*aruco.Detection, markerMM float64) (Plane, error) {
	var missing []int
	for i, d := range got {
		if d == nil {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return Plane{}, fmt.Errorf("%w: marker(s) %v not found", ErrCorners, missing)
	}
	// Each marker's outer corner: the one farthest from the markers' centroid.
	var mid Point
	for _, d := range got {
		for _, c := range d.Corners {
			mid.X += float64(c[0]) / 16
			mid.Y += float64(c[1]) / 16
		}
	}
	var corners [4]Point
	for i, d := range got {
		best := -1.0
		for _, c := range d.Corners {
			p := Point{float64(c[0]), float64(c[1])}
			if dd := math.Hypot(p.X-mid.X, p.Y-mid.Y); dd > best {
				best, corners[i] = dd, p
			}
		}
	}
	if !convex(corners) {
		return Plane{}, fmt.Errorf("%w: the markers are not in the order 0,1,2,3 clockwise from top-left", ErrCorners)
	}
	// The table's size: markers are squares of markerMM, so their sides
	// in the unit square spanned by the corners give the scale.
	unit, err := FourPoint(corners, [4]Point{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		return Plane{}, err
	}
	var su, sv float64
	for _, d := range got {
		var q [4]Point
		for k, c := range d.Corners {
			q[k] = unit.Apply(Point{float64(c[0]), float64(c[1])})
		}
		for k := range 4 {
			a, b := q[k], q[(k+1)%4]
			su += math.Abs(a.X-b.X) / 8
			sv += math.Abs(a.Y-b.Y) / 8
		}
	}
	if su <= 0 || sv <= 0 {
		return Plane{}, fmt.Errorf("%w: degenerate markers", ErrCorners)
	}
	return PlaneFromCorners(corners, markerMM/su, markerMM/sv)
}

// WhiteBalance measures per-channel gains (R, G, B) that make the
// brightest part of the table (the markers' paper, white cards) neutral:
// the white-patch assumption over the table quad.
func WhiteBalance(img gocv.Mat, corners [4]Point) ([3]float64, error) {
	if img.Empty() || img.Channels() != 3 {
		return [3]float64{}, fmt.Errorf("white balance: want a BGR image")
	}
	b, err := img.DataPtrUint8()
	if err != nil {
		return [3]float64{}, err
	}
	w, h := img.Cols(), img.Rows()
	var quad [4]Point = corners
	in := func(x, y float64) bool { return Polygon(quad[:]).Contains(Point{x, y}) }
	type px struct{ b, g, r uint8 }
	var pts []px
	for y := 0; y < h; y += 4 {
		for x := 0; x < w; x += 4 {
			if !in(float64(x), float64(y)) {
				continue
			}
			i := 3 * (y*w + x)
			pts = append(pts, px{b[i], b[i+1], b[i+2]})
		}
	}
	if len(pts) < 100 {
		return [3]float64{}, fmt.Errorf("white balance: the table covers too little of the image")
	}
	sort.Slice(pts, func(i, j int) bool {
		return int(pts[i].b)+int(pts[i].g)+int(pts[i].r) > int(pts[j].b)+int(pts[j].g)+int(pts[j].r)
	})
	top := pts[:max(20, len(pts)/50)]
	var sb, sg, sr float64
	for _, p := range top {
		sb += float64(p.b)
		sg += float64(p.g)
		sr += float64(p.r)
	}
	grey := (sb + sg + sr) / 3
	g := [3]float64{grey / math.Max(sr, 1), grey / math.Max(sg, 1), grey / math.Max(sb, 1)}
	for i := range g {
		g[i] = math.Min(math.Max(g[i], 0.2), 5)
	}
	return g, nil
}

// MarkerSheet draws the four corner markers for printing on an A4 page at
// dpi: each black square markerMM wide with a white margin and its id and
// corner written under it. The markers go at the table's corners: 0
// top-left, 1 top-right, 2 bottom-right, 3 bottom-left, as seen by the camera.
func MarkerSheet(markerMM float64, dpi int) (gocv.Mat, error) {
	px := func(mm float64) int { return int(math.Round(mm * float64(dpi) / 25.4)) }
	pw, ph := px(210), px(297)
	sheet := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 255, 255, 0), ph, pw, gocv.MatTypeCV8UC1)
	side := px(markerMM)
	names := []string{"0: top-left", "1: top-right", "2: bottom-right", "3: bottom-left"}
	for i := range 4 {
		cx := pw/4 + (i%2)*pw/2
		cy := ph/4 + (i/2)*ph/2
		m, err := aruco.Marker(i, side)
		if err != nil {
			sheet.Close()
			return gocv.Mat{}, err
		}
		x0, y0 := cx-side/2, cy-side/2
		if x0 < 0 || y0 < 0 || x0+side > pw || y0+side > ph {
			sheet.Close()
			return gocv.Mat{}, fmt.Errorf("markers of %.0f mm do not fit four to an A4 page", markerMM)
		}
		for y := range side {
			for x := range side {
				sheet.SetUCharAt(y0+y, x0+x, m[y*side+x])
			}
		}
		gocv.PutText(&sheet, names[i], image.Pt(x0, y0+side+px(8)), gocv.FontHersheySimplex, float64(dpi)/150, color.RGBA{0, 0, 0, 0}, max(1, dpi/100))
		// Cutting guide: the white margin of the sheet round the marker.
		r := image.Rect(x0-px(20), y0-px(20), x0+side+px(20), y0+side+px(20))
		gocv.Rectangle(&sheet, r, color.RGBA{180, 180, 180, 0}, 1)
	}
	gocv.PutText(&sheet, fmt.Sprintf("ligretto table markers, DICT_4X4_50, black square %.0f mm: print at 100%%", markerMM),
		image.Pt(px(10), px(10)), gocv.FontHersheySimplex, float64(dpi)/250, color.RGBA{0, 0, 0, 0}, max(1, dpi/150))
	return sheet, nil
}
