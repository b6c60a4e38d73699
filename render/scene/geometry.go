package scene

import (
	"math"
	"math/rand/v2"
)

// Pt is a point: in table millimetres (origin at the table centre, x to
// the right and y towards the camera, as the image shows them) or in image
// pixels (OpenCV's convention: pixel (i, j) has its centre at (i, j)).
type Pt struct{ X, Y float64 }

func (p Pt) add(q Pt) Pt             { return Pt{p.X + q.X, p.Y + q.Y} }
func (p Pt) sub(q Pt) Pt             { return Pt{p.X - q.X, p.Y - q.Y} }
func (p Pt) mul(k float64) Pt        { return Pt{p.X * k, p.Y * k} }
func (p Pt) dot(q Pt) float64        { return p.X*q.X + p.Y*q.Y }
func (p Pt) len() float64            { return math.Hypot(p.X, p.Y) }
func (p Pt) perp() Pt                { return Pt{-p.Y, p.X} }
func (p Pt) lerp(q Pt, t float64) Pt { return Pt{p.X + (q.X-p.X)*t, p.Y + (q.Y-p.Y)*t} }
func (p Pt) unit() Pt {
	l := p.len()
	if l == 0 {
		return Pt{1, 0}
	}
	return Pt{p.X / l, p.Y / l}
}

// Quad is a card or marker outline: its corners in order round it. For a
// card they are the corners of the card as drawn upright (top-left,
// top-right, bottom-right, bottom-left), wherever the card points.
type Quad [4]Pt

// Centre returns the mean of the corners.
func (q Quad) Centre() Pt {
	return Pt{(q[0].X + q[1].X + q[2].X + q[3].X) / 4, (q[0].Y + q[1].Y + q[2].Y + q[3].Y) / 4}
}

// At returns the point at (u, v) in the quad's own bilinear coordinates,
// (0,0) at corner 0 and (1,1) at corner 2.
func (q Quad) At(u, v float64) Pt {
	a := q[0].lerp(q[1], u)
	b := q[3].lerp(q[2], u)
	return a.lerp(b, v)
}

// Contains reports whether p is inside the (convex) quad.
func (q Quad) Contains(p Pt) bool {
	sign := 0.0
	for i := range 4 {
		a, b := q[i], q[(i+1)%4]
		c := (b.X-a.X)*(p.Y-a.Y) - (b.Y-a.Y)*(p.X-a.X)
		if c == 0 {
			continue
		}
		if sign == 0 {
			sign = c
		} else if (c > 0) != (sign > 0) {
			return false
		}
	}
	return true
}

// Card size in millimetres (the synthetic cards' 2:3 aspect).
const (
	CardW = 58.0
	CardH = 87.0
)

// pose places a card: its centre and its angle. The card's long axis is
// its local y, which points along (cos, sin)(a + pi/2).
type pose struct {
	c Pt
	a float64
}

func (p pose) local(x, y float64) Pt {
	ca, sa := math.Cos(p.a), math.Sin(p.a)
	return Pt{p.c.X + ca*x - sa*y, p.c.Y + sa*x + ca*y}
}

func (p pose) quad(w, h float64) Quad {
	return Quad{p.local(-w/2, -h/2), p.local(w/2, -h/2), p.local(w/2, h/2), p.local(-w/2, h/2)}
}

func (p pose) card() Quad { return p.quad(CardW, CardH) }

// camera is a pinhole camera above the table with radial distortion.
type camera struct {
	w, h    int
	f       float64
	cx, cy  float64
	x, y, z [3]float64 // camera axes in table coordinates (image right, image down, forward)
	pos     [3]float64
	k1      float64 // barrel distortion in half-diagonal units
	norm    float64
	hom     [9]float64 // table mm to undistorted pixels
	inv     [9]float64
}

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot3(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func scale3(a [3]float64, k float64) [3]float64 {
	return [3]float64{a[0] * k, a[1] * k, a[2] * k}
}
func norm3(a [3]float64) [3]float64 { return scale3(a, 1/math.Sqrt(dot3(a, a))) }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// newCamera frames the rectangle of half-size (hw, hh) mm round the table
// centre so that it fills the frame.
func newCamera(cfg Config, hw, hh float64, rng *rand.Rand) *camera {
	j := cfg.Jitter
	u := func(a float64) float64 { return a * j * (2*rng.Float64() - 1) }
	tilt := (cfg.TiltDeg + u(4)) * math.Pi / 180
	tilt = math.Max(tilt, 0)
	yaw := u(4) * math.Pi / 180
	roll := u(1.5) * math.Pi / 180
	dist := 1.25 * math.Max(2*hw, 2*hh) * (1 + u(0.15))
	c := &camera{w: cfg.Width, h: cfg.Height, f: 1, cx: float64(cfg.Width-1) / 2, cy: float64(cfg.Height-1) / 2,
		k1: cfg.Distortion, norm: math.Hypot(float64(cfg.Width), float64(cfg.Height)) / 2}
	target := [3]float64{u(0.02) * hw, u(0.02) * hh, 0}
	frame := []Pt{{-hw, -hh}, {hw, -hh}, {hw, hh}, {-hw, hh}, {0, -hh}, {0, hh}, {-hw, 0}, {hw, 0}}
	place := func() {
		c.pos = [3]float64{target[0] + dist*math.Sin(tilt)*math.Sin(yaw), target[1] + dist*math.Sin(tilt)*math.Cos(yaw), dist * math.Cos(tilt)}
		c.z = norm3(sub3(target, c.pos))
		hint := [3]float64{math.Cos(yaw), -math.Sin(yaw), 0}
		c.x = norm3(sub3(hint, scale3(c.z, dot3(hint, c.z))))
		c.y = cross3(c.x, c.z)
		cr, sr := math.Cos(roll), math.Sin(roll)
		x, y := c.x, c.y
		for i := range 3 {
			c.x[i] = cr*x[i] + sr*y[i]
			c.y[i] = -sr*x[i] + cr*y[i]
		}
		c.homography()
	}
	for range 4 { // aim at the middle of the framed rectangle
		c.f, c.cx, c.cy = 1, 0, 0
		place()
		x0, y0, x1, y1 := c.bbox(frame, false)
		m := c.unprojectUndistorted(Pt{(x0 + x1) / 2, (y0 + y1) / 2})
		target[0] += m.X - target[0]
		target[1] += m.Y - target[1]
	}
	c.f, c.cx, c.cy = 1, 0, 0
	place()
	x0, y0, x1, y1 := c.bbox(frame, false)
	c.f = math.Min(0.5*float64(c.w)/math.Max(-x0, x1), 0.5*float64(c.h)/math.Max(-y0, y1))
	c.cx, c.cy = float64(c.w-1)/2, float64(c.h-1)/2
	c.homography()
	for range 3 { // grow the focal length until the distorted frame fills the image
		x0, y0, x1, y1 := c.bbox(frame, true)
		k := math.Min((float64(c.w)/2)/math.Max(c.cx-x0, x1-c.cx), (float64(c.h)/2)/math.Max(c.cy-y0, y1-c.cy))
		c.f *= k
		c.homography()
	}
	return c
}

func (c *camera) homography() {
	// For a table point (x, y, 0): pc = x*R[:,0] + y*R[:,1] - R*pos.
	t := [3]float64{-dot3(c.x, c.pos), -dot3(c.y, c.pos), -dot3(c.z, c.pos)}
	col := func(i int) [3]float64 {
		if i == 2 {
			return t
		}
		return [3]float64{c.x[i], c.y[i], c.z[i]}
	}
	for i := range 3 {
		v := col(i)
		c.hom[0+i] = c.f*v[0] + c.cx*v[2]
		c.hom[3+i] = c.f*v[1] + c.cy*v[2]
		c.hom[6+i] = v[2]
	}
	c.inv = inv3(c.hom)
}

func inv3(m [9]float64) [9]float64 {
	a, b, cc, d, e, f, g, h, i := m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8]
	A, B, C := e*i-f*h, -(d*i - f*g), d*h-e*g
	det := a*A + b*B + cc*C
	return [9]float64{
		A / det, -(b*i - cc*h) / det, (b*f - cc*e) / det,
		B / det, (a*i - cc*g) / det, -(a*f - cc*d) / det,
		C / det, -(a*h - b*g) / det, (a*e - b*d) / det,
	}
}

func applyH(m *[9]float64, p Pt) Pt {
	w := m[6]*p.X + m[7]*p.Y + m[8]
	return Pt{(m[0]*p.X + m[1]*p.Y + m[2]) / w, (m[3]*p.X + m[4]*p.Y + m[5]) / w}
}

func (c *camera) distort(p Pt) Pt {
	dx, dy := (p.X-c.cx)/c.norm, (p.Y-c.cy)/c.norm
	k := 1 - c.k1*(dx*dx+dy*dy)
	return Pt{c.cx + (p.X-c.cx)*k, c.cy + (p.Y-c.cy)*k}
}

func (c *camera) undistort(p Pt) Pt {
	dx, dy := (p.X-c.cx)/c.norm, (p.Y-c.cy)/c.norm
	ux, uy := dx, dy
	for range 8 {
		k := 1 - c.k1*(ux*ux+uy*uy)
		ux, uy = dx/k, dy/k
	}
	return Pt{c.cx + ux*c.norm, c.cy + uy*c.norm}
}

// project maps a table point to image pixels.
func (c *camera) project(p Pt) Pt { return c.distort(applyH(&c.hom, p)) }

// unproject maps an image pixel to the table plane.
func (c *camera) unproject(p Pt) Pt { return applyH(&c.inv, c.undistort(p)) }

func (c *camera) unprojectUndistorted(p Pt) Pt { return applyH(&c.inv, p) }

func (c *camera) bbox(ps []Pt, distorted bool) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range ps {
		q := applyH(&c.hom, p)
		if distorted {
			q = c.distort(q)
		}
		x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
	}
	return
}

// scaleAt is the image's pixels per table millimetre at table point p.
func (c *camera) scaleAt(p Pt) float64 {
	a := c.project(p)
	bx := c.project(p.add(Pt{1, 0}))
	by := c.project(p.add(Pt{0, 1}))
	return math.Max(bx.sub(a).len(), by.sub(a).len())
}
