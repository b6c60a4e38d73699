package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/vision/aruco"
)

// FindPlane finds the four table-corner markers (DICT_4X4_50 ids 0..3:
// top-left, top-right, bottom-right, bottom-left) in a BGR frame and
// returns the table plane spanned by their outer corners. markerMM is the
// side of a marker's black square (DefaultMarkerMM for the printed sheet);
// it gives the table's size in millimetres.
func FindPlane(img gocv.Mat, markerMM float64) (calibration.Plane, error) {
	pl, _, err := FindPlaneMarkers(img, markerMM)
	return pl, err
}

// FindPlaneMarkers is FindPlane that also says which of the four markers
// it saw, so that a person setting up the camera knows which one to fix.
func FindPlaneMarkers(img gocv.Mat, markerMM float64) (calibration.Plane, [4]bool, error) {
	var seen [4]bool
	dets, err := aruco.Detect(img)
	if err != nil {
		return calibration.Plane{}, seen, fmt.Errorf("%w: %v", calibration.ErrCorners, err)
	}
	var got [4]*[4]calibration.Point
	for i := range dets {
		if d := &dets[i]; d.ID >= 0 && d.ID < 4 && got[d.ID] == nil {
			var q [4]calibration.Point
			for k, c := range d.Corners {
				q[k] = calibration.Point{X: float64(c[0]), Y: float64(c[1])}
			}
			got[d.ID] = &q
			seen[d.ID] = true
		}
	}
	pl, err := calibration.PlaneFromMarkers(got, markerMM)
	return pl, seen, err
}

// WhiteBalance measures per-channel gains (R, G, B) that make the
// brightest part of the table (the markers' paper, white cards) neutral:
// the white-patch assumption over the table quad.
func WhiteBalance(img gocv.Mat, corners [4]calibration.Point) ([3]float64, error) {
	if img.Empty() || img.Channels() != 3 {
		return [3]float64{}, fmt.Errorf("white balance: want a BGR image")
	}
	b, err := img.DataPtrUint8()
	if err != nil {
		return [3]float64{}, err
	}
	w, h := img.Cols(), img.Rows()
	quad := corners
	in := func(x, y float64) bool { return calibration.Polygon(quad[:]).Contains(calibration.Point{X: x, Y: y}) }
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
