package card

import "math"

// Signed distance functions for the back motifs (negative inside), after
// Inigo Quilez's 2D distance functions. Coordinates have y pointing down.

func length(x, y float64) float64 { return math.Sqrt(x*x + y*y) }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

func sdCircle(x, y, r float64) float64 { return length(x, y) - r }

func sdBox(x, y, hw, hh float64) float64 {
	qx, qy := math.Abs(x)-hw, math.Abs(y)-hh
	return length(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0)
}

func sdSegment(x, y, ax, ay, bx, by, r float64) float64 {
	px, py := x-ax, y-ay
	ex, ey := bx-ax, by-ay
	h := clampf((px*ex+py*ey)/(ex*ex+ey*ey), 0, 1)
	return length(px-ex*h, py-ey*h) - r
}

func sdEllipseApprox(x, y, rx, ry float64) float64 {
	return (length(x/rx, y/ry) - 1) * math.Min(rx, ry)
}

func sdTriangle(x, y, x0, y0, x1, y1, x2, y2 float64) float64 {
	e0x, e0y := x1-x0, y1-y0
	e1x, e1y := x2-x1, y2-y1
	e2x, e2y := x0-x2, y0-y2
	v0x, v0y := x-x0, y-y0
	v1x, v1y := x-x1, y-y1
	v2x, v2y := x-x2, y-y2
	pq := func(vx, vy, ex, ey float64) (float64, float64) {
		h := clampf((vx*ex+vy*ey)/(ex*ex+ey*ey), 0, 1)
		return vx - ex*h, vy - ey*h
	}
	p0x, p0y := pq(v0x, v0y, e0x, e0y)
	p1x, p1y := pq(v1x, v1y, e1x, e1y)
	p2x, p2y := pq(v2x, v2y, e2x, e2y)
	s := sign(e0x*e2y - e0y*e2x)
	dx := math.Min(math.Min(p0x*p0x+p0y*p0y, p1x*p1x+p1y*p1y), p2x*p2x+p2y*p2y)
	dy := math.Min(math.Min(s*(v0x*e0y-v0y*e0x), s*(v1x*e1y-v1y*e1x)), s*(v2x*e2y-v2y*e2x))
	return -math.Sqrt(dx) * sign(dy)
}

// sdStar5 is a five-pointed star pointing up, outer radius r, inner ratio rf.
func sdStar5(x, y, r, rf float64) float64 {
	y = -y // the formula has y up
	const k1x, k1y = 0.809016994375, -0.587785252292
	const k2x, k2y = -k1x, k1y
	x = math.Abs(x)
	d := math.Max(k1x*x+k1y*y, 0)
	x, y = x-2*d*k1x, y-2*d*k1y
	d = math.Max(k2x*x+k2y*y, 0)
	x, y = x-2*d*k2x, y-2*d*k2y
	x = math.Abs(x)
	y -= r
	bax, bay := rf*(-k1y), rf*k1x-1
	h := clampf((x*bax+y*bay)/(bax*bax+bay*bay), 0, r)
	return length(x-bax*h, y-bay*h) * sign(y*bax-x*bay)
}

// sdVesica is a pointed oval (a leaf) along y.
func sdVesica(x, y, r, d float64) float64 {
	x, y = math.Abs(x), math.Abs(y)
	b := math.Sqrt(r*r - d*d)
	if (y-b)*d > x*b {
		return length(x, y-b)
	}
	return length(x+d, y) - r
}

// sdRhombus has half-diagonals bx, by.
func sdRhombus(x, y, bx, by float64) float64 {
	x, y = math.Abs(x), math.Abs(y)
	ndot := (bx-2*x)*bx - (by-2*y)*by
	h := clampf(ndot/(bx*bx+by*by), -1, 1)
	d := length(x-0.5*bx*(1-h), y-0.5*by*(1+h))
	return d * sign(x*by+y*bx-bx*by)
}

// sdHexagon is a regular hexagon with flat top and bottom, apothem r.
func sdHexagon(x, y, r float64) float64 {
	const kx, ky, kz = -0.866025404, 0.5, 0.577350269
	x, y = math.Abs(x), math.Abs(y)
	d := 2 * math.Min(kx*x+ky*y, 0)
	x, y = x-d*kx, y-d*ky
	x -= clampf(x, -kz*r, kz*r)
	y -= r
	return length(x, y) * sign(y)
}

// sdHeart is a heart of height about 2 centred at the origin.
func sdHeart(x, y float64) float64 {
	x = math.Abs(x) / 1.1
	y = (-y + 1.0) / 1.1 // tip at the bottom, formula has y up from the tip
	if y+x > 1 {
		return (length(x-0.25, y-0.75) - math.Sqrt2/4) * 1.1
	}
	a := (x*x + (y-1)*(y-1))
	m := 0.5 * math.Max(x+y, 0)
	b := (x-m)*(x-m) + (y-m)*(y-m)
	return math.Sqrt(math.Min(a, b)) * sign(x-y) * 1.1
}

// smin is a smooth minimum (union with a fillet of size k).
func smin(a, b, k float64) float64 {
	h := clampf(0.5+0.5*(b-a)/k, 0, 1)
	return b + (a-b)*h - k*h*(1-h)
}
