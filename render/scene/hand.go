package scene

import (
	"math"
)

// Colours of hand pieces.
const (
	colSkin uint8 = iota
	colSleeve
	colHair
)

// cone is a capsule whose radius runs linearly from ra at a to rb at b:
// the pieces a hand and arm are built from, in table millimetres.
type cone struct {
	a, b   Pt
	ra, rb float64
	colour uint8
	height float64 // above the table, for its shadow
}

// dist returns the signed distance from p to the cone's surface.
func (c *cone) dist(p Pt) float64 {
	ab := c.b.sub(c.a)
	l2 := ab.dot(ab)
	t := 0.0
	if l2 > 0 {
		t = max(0, min(1, p.sub(c.a).dot(ab)/l2))
	}
	q := c.a.add(ab.mul(t))
	return p.sub(q).len() - (c.ra + (c.rb-c.ra)*t)
}

// hand is an arm from a shoulder outside the table to a palm over it; a
// player reaching far leans in, and then their head and shoulders show.
type hand struct {
	cones  []cone
	colour [3][3]float32 // skin, sleeve, hair
	arm    int           // cones[arm:] are the arm and hand (the rest is body)
}

// covers reports whether table point p is under the hand or arm (the
// body of a leaning player included).
func (h *hand) covers(p Pt) bool {
	for i := range h.cones {
		if h.cones[i].dist(p) < 0 {
			return true
		}
	}
	return false
}

// maxReach is how far a palm gets from the shoulder before the player
// leans in.
const maxReach = 560

// maxLean is how far a player leans in over the table.
const maxLean = 240

// player is how a seat's player looks.
type player struct {
	body     Pt // centre of the torso at rest, outside the table
	shoulder [2]Pt
	skin     [3]float32
	sleeve   [3]float32
	hair     [3]float32
}

// newHand builds an arm from a shoulder of pl to a palm centred on palm,
// with fingers pointing away from the shoulder. right chooses the hand
// (the thumb's side); spread (0..1) opens the fingers.
func newHand(pl *player, palm Pt, right bool, spread float64) hand {
	s := pl.shoulder[0]
	if right {
		s = pl.shoulder[1]
	}
	h := hand{colour: [3][3]float32{pl.skin, pl.sleeve, pl.hair}}
	if d := palm.sub(s); d.len() > maxReach { // lean in, up to a point
		u := d.unit()
		lean := min(d.len()-maxReach, maxLean)
		shift := u.mul(lean)
		s = s.add(shift)
		body := pl.body.add(shift)
		across := pl.shoulder[1].sub(pl.shoulder[0]).unit()
		in := pl.shoulder[0].add(pl.shoulder[1]).mul(0.5).sub(pl.body).unit()
		neck := body.add(in.mul(70))
		h.cones = append(h.cones,
			cone{a: neck.add(in.mul(30)), b: neck.add(in.mul(10)), ra: 72, rb: 80, colour: colHair, height: 520},
			cone{a: body.sub(across.mul(150)), b: body.add(across.mul(150)), ra: 115, rb: 115, colour: colSleeve, height: 420},
		)
	}
	h.arm = len(h.cones)
	u := palm.sub(s).unit()
	v := u.perp()
	side := 1.0
	if right {
		side = -1
	}
	wrist := palm.sub(u.mul(58))
	reach := wrist.sub(s).len()
	elbow := s.add(u.mul(reach * 0.5))
	h.cones = append(h.cones,
		cone{a: s, b: elbow, ra: 50, rb: 42, colour: colSleeve, height: 160},
		cone{a: elbow, b: elbow.add(u.mul(reach * 0.12)), ra: 42, rb: 39, colour: colSleeve, height: 120},
		cone{a: elbow.add(u.mul(reach * 0.1)), b: wrist, ra: 34, rb: 26, height: 90},
		cone{a: wrist.add(u.mul(4)), b: palm.add(u.mul(22)), ra: 33, rb: 40, height: 45},
	)
	// Fingers: little to index from the side away from the thumb.
	lens := []float64{52, 66, 72, 66}
	offs := []float64{-27, -9, 9, 26}
	for i := range 4 {
		o := offs[i] * -side
		ang := (float64(i) - 1.5) * 0.07 * spread * -side
		d := Pt{u.X*math.Cos(ang) - u.Y*math.Sin(ang), u.X*math.Sin(ang) + u.Y*math.Cos(ang)}
		k := palm.add(u.mul(38)).add(v.mul(o))
		h.cones = append(h.cones, cone{a: k, b: k.add(d.mul(lens[i])), ra: 10, rb: 8.5, height: 20})
	}
	// Thumb, reaching forward and in.
	tb := palm.add(u.mul(-8)).add(v.mul(side * 30))
	ta := 0.55 * side
	td := Pt{u.X*math.Cos(ta) - u.Y*math.Sin(ta), u.X*math.Sin(ta) + u.Y*math.Cos(ta)}
	h.cones = append(h.cones, cone{a: tb, b: tb.add(td.mul(58)), ra: 14, rb: 10, height: 25})
	return h
}

// handRaster is scratch space for drawing hands.
type handRaster struct {
	cov, shd  []uint8 // coverage and shading of the hand, over its box
	col       []uint8 // colour index of the piece on top
	shadow    []uint8
	x0, y0    int
	w, h      int
	rowLo     []int32
	rowHi     []int32
	shadowDir Pt // shadow offset per millimetre of height
}

func (hr *handRaster) reset(x0, y0, w, h int) {
	n := w * h
	if cap(hr.cov) < n {
		hr.cov, hr.shd, hr.col, hr.shadow = make([]uint8, n), make([]uint8, n), make([]uint8, n), make([]uint8, n)
	}
	hr.cov, hr.shd, hr.col, hr.shadow = hr.cov[:n], hr.shd[:n], hr.col[:n], hr.shadow[:n]
	clear(hr.cov)
	clear(hr.shd)
	clear(hr.shadow)
	if cap(hr.rowLo) < h {
		hr.rowLo, hr.rowHi = make([]int32, h), make([]int32, h)
	}
	hr.rowLo, hr.rowHi = hr.rowLo[:h], hr.rowHi[:h]
	for i := range hr.rowLo {
		hr.rowLo[i], hr.rowHi[i] = math.MaxInt32, -1
	}
	hr.x0, hr.y0, hr.w, hr.h = x0, y0, w, h
}

func shadowSoft(height float64) float64 { return 3 + 0.08*height }

// shadowLift is the height that sets how far a piece's shadow falls: high
// pieces (heads, shoulders) are lit from more directions, so their shadow
// falls nearer than their height says.
func shadowLift(height float64) float64 { return min(height, 200) }

// drawHand draws hand hd over the canvas with its soft shadow.
func (cv *canvas) drawHand(hd *hand, hr *handRaster) {
	// Box of every piece and its shadow, in canvas pixels.
	bx0, by0, bx1, by1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range hd.cones {
		off := hr.shadowDir.mul(shadowLift(c.height))
		r := max(c.ra, c.rb) + shadowSoft(c.height)
		for _, p := range []Pt{c.a, c.b, c.a.add(off), c.b.add(off)} {
			q := cv.px(p)
			rr := r * cv.s
			bx0, by0 = min(bx0, q.X-rr), min(by0, q.Y-rr)
			bx1, by1 = max(bx1, q.X+rr), max(by1, q.Y+rr)
		}
	}
	x0, y0 := max(0, int(bx0)-1), max(0, int(by0)-1)
	x1, y1 := min(cv.w-1, int(bx1)+1), min(cv.h-1, int(by1)+1)
	if x1 < x0 || y1 < y0 {
		return
	}
	hr.reset(x0, y0, x1-x0+1, y1-y0+1)
	for i := range hd.cones {
		c := hd.cones[i]
		// Shadow: the cone moved along the light and blurred with height.
		off := hr.shadowDir.mul(shadowLift(c.height))
		sc := cone{a: c.a.add(off), b: c.b.add(off), ra: c.ra, rb: c.rb}
		hr.raster(cv, &sc, shadowSoft(c.height), true, 0)
	}
	for i := range hd.cones {
		hr.raster(cv, &hd.cones[i], 0, false, hd.cones[i].colour)
	}
	// Composite: shadow first, then the arm.
	var cols [3][3]float32
	for i, c := range hd.colour {
		cols[i] = [3]float32{c[2] * 255, c[1] * 255, c[0] * 255}
	}
	for j := range hr.h {
		lo, hi := int(hr.rowLo[j]), int(hr.rowHi[j])
		if hi < lo {
			continue
		}
		row := cv.pix[3*((j+hr.y0)*cv.w+hr.x0):]
		base := j * hr.w
		for i := lo; i <= hi; i++ {
			sh8, a8 := hr.shadow[base+i], hr.cov[base+i]
			if sh8 == 0 && a8 == 0 {
				continue
			}
			d := row[3*i : 3*i+3 : 3*i+3]
			k := 1 - 0.5*float32(sh8)/255
			b, g, r := float32(d[0])*k, float32(d[1])*k, float32(d[2])*k
			if a8 > 0 {
				a := float32(a8) / 255
				s := 0.45 + 0.55*float32(hr.shd[base+i])/255
				col := &cols[hr.col[base+i]]
				b += (col[0]*s - b) * a
				g += (col[1]*s - g) * a
				r += (col[2]*s - r) * a
			}
			d[0], d[1], d[2] = uint8(b+0.5), uint8(g+0.5), uint8(r+0.5)
		}
	}
}

// raster accumulates one cone's coverage (or its shadow, with an edge
// softened over soft millimetres) into the scratch buffers.
func (hr *handRaster) raster(cv *canvas, c *cone, soft float64, shadow bool, colour uint8) {
	a, b := cv.px(c.a), cv.px(c.b)
	ra, rb := c.ra*cv.s, c.rb*cv.s
	sp := soft * cv.s
	R := max(ra, rb) + sp + 1.5
	u := b.sub(a)
	if u.len() < 1e-6 {
		u = Pt{1, 0}
	}
	u = u.unit()
	v := u.perp()
	poly := [4]Pt{
		a.sub(u.mul(R)).add(v.mul(R)), b.add(u.mul(R)).add(v.mul(R)),
		b.add(u.mul(R)).sub(v.mul(R)), a.sub(u.mul(R)).sub(v.mul(R)),
	}
	ab := b.sub(a)
	l2 := ab.dot(ab)
	if l2 < 1e-9 {
		l2 = 1e-9
	}
	abx, aby := float32(ab.X), float32(ab.Y)
	il2 := float32(1 / l2)
	fra, frd := float32(ra), float32(rb-ra)
	isp := float32(1 / (2 * max(sp, 0.5)))
	ys := max(hr.y0, int(math.Floor(min(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	ye := min(hr.y0+hr.h-1, int(math.Ceil(max(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y))))
	for y := ys; y <= ye; y++ {
		fx0, fx1, ok := span(poly[:], float64(y))
		if !ok {
			continue
		}
		xs, xe := max(hr.x0, int(fx0)), min(hr.x0+hr.w-1, int(fx1)+1)
		if xs > xe {
			continue
		}
		j := y - hr.y0
		base := j*hr.w - hr.x0
		touched := false
		py := float32(float64(y) - a.Y)
		px := float32(float64(xs) - a.X)
		tpy := py * aby * il2
		for x := xs; x <= xe; x, px = x+1, px+1 {
			t := px*abx*il2 + tpy
			t = min(max(t, 0), 1)
			qx, qy := px-abx*t, py-aby*t
			d2 := qx*qx + qy*qy
			r := fra + frd*t
			i := base + x
			if shadow {
				lo := r - 1/isp/2
				if lo > 0 && d2 <= lo*lo {
					hr.shadow[i] = 255
					touched = true
					continue
				}
				d := float32(math.Sqrt(float64(d2)))
				cov := 0.5 - (d-r)*isp
				if cov <= 0 {
					continue
				}
				cov = min(cov, 1)
				cov = cov * cov * (3 - 2*cov)
				if v := uint8(cov * 255); v > hr.shadow[i] {
					hr.shadow[i] = v
				}
				touched = true
				continue
			}
			if d2 >= (r+0.5)*(r+0.5) {
				continue
			}
			d := float32(math.Sqrt(float64(d2)))
			cov := min(0.5-(d-r), 1)
			q := d / r
			hh := float32(math.Sqrt(float64(max(0, 1-q*q))))
			cv8, h8 := uint8(cov*255), uint8(hh*255)
			if cv8 > hr.cov[i] {
				hr.cov[i] = cv8
				hr.shd[i] = max(hr.shd[i], h8)
				hr.col[i] = colour
			} else if cv8 == hr.cov[i] && h8 > hr.shd[i] {
				hr.shd[i] = h8
			}
			touched = true
		}
		if touched {
			hr.rowLo[j] = min(hr.rowLo[j], int32(xs-hr.x0))
			hr.rowHi[j] = max(hr.rowHi[j], int32(xe-hr.x0))
		}
	}
}
