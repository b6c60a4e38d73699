package calibration

import (
	"fmt"
	"math"
)

// PlaneFromMarkers is the table plane spanned by the four corner markers'
// outer corners, each marker given by its four corners in the image (nil
// for a marker not seen). markerMM, the side of a marker's black square,
// gives the table's size in millimetres.
func PlaneFromMarkers(got [4]*[4]Point, markerMM float64) (Plane, error) {
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
		for _, c := range d {
			mid.X += c.X / 16
			mid.Y += c.Y / 16
		}
	}
	var corners [4]Point
	for i, d := range got {
		best := -1.0
		for _, p := range d {
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
		for k, c := range d {
			q[k] = unit.Apply(c)
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
