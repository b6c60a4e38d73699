package scene

import (
	"math"
	"math/rand/v2"
)

// hash64 is splitmix64's finaliser.
func hash64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hrng is a tiny counter-based generator: the same keys give the same
// numbers, whatever else was drawn before.
type hrng struct{ s uint64 }

func newHrng(keys ...uint64) hrng {
	h := uint64(0x9e3779b97f4a7c15)
	for _, k := range keys {
		h = hash64(h ^ k + 0x632be59bd9b4e019)
	}
	return hrng{h}
}

func (r *hrng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return hash64(r.s)
}

// unit returns a number in [0, 1).
func (r *hrng) unit() float64 { return float64(r.next()>>11) / (1 << 53) }

// sym returns a number in [-a, a).
func (r *hrng) sym(a float64) float64 { return a * (2*r.unit() - 1) }

// between returns a number in [lo, hi).
func (r *hrng) between(lo, hi float64) float64 { return lo + (hi-lo)*r.unit() }

// noise2 is smooth value noise in [0, 1] with unit lattice spacing.
type noise2 struct{ seed uint64 }

func (n noise2) lattice(i, j int64) float64 {
	return float64(hash64(n.seed^uint64(i)*0x9e3779b97f4a7c15^uint64(j)*0xc2b2ae3d27d4eb4f)>>11) / (1 << 53)
}

func (n noise2) at(x, y float64) float64 {
	fx, fy := math.Floor(x), math.Floor(y)
	i, j := int64(fx), int64(fy)
	tx, ty := x-fx, y-fy
	tx = tx * tx * (3 - 2*tx)
	ty = ty * ty * (3 - 2*ty)
	a := n.lattice(i, j)
	b := n.lattice(i+1, j)
	c := n.lattice(i, j+1)
	d := n.lattice(i+1, j+1)
	return a + (b-a)*tx + (c-a)*ty + (a-b-c+d)*tx*ty
}

// fbm sums octaves of value noise; the result is about in [0, 1].
func (n noise2) fbm(x, y float64, octaves int) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := range octaves {
		sum += amp * noise2{n.seed + uint64(o)*7919}.at(x, y)
		norm += amp
		amp *= 0.5
		x, y = x*2.03, y*2.03
	}
	return sum / norm
}

type rgbf [3]float64

func (c rgbf) mix(d rgbf, t float64) rgbf {
	return rgbf{c[0] + (d[0]-c[0])*t, c[1] + (d[1]-c[1])*t, c[2] + (d[2]-c[2])*t}
}
func (c rgbf) scale(k float64) rgbf { return rgbf{c[0] * k, c[1] * k, c[2] * k} }

func fromHSV(h, s, v float64) rgbf {
	c := hsv(h, s, v)
	return rgbf{float64(c[0]), float64(c[1]), float64(c[2])}
}

func put(pix []byte, i int, c rgbf) {
	for k := range 3 {
		v := c[2-k] * 255
		if v < 0 {
			v = 0
		} else if v > 255 {
			v = 255
		}
		pix[i+k] = uint8(v + 0.5)
	}
}

// surface paints table texture at table point (x, y).
type surface func(x, y float64) rgbf

func newSurface(kind string, rng *rand.Rand) surface {
	seed := rng.Uint64()
	nz := noise2{seed}
	fine := noise2{seed + 1}
	switch kind {
	case TableWood:
		base := fromHSV(20+18*rng.Float64(), 0.45+0.3*rng.Float64(), 0.35+0.4*rng.Float64())
		dark := base.scale(0.62 + 0.12*rng.Float64())
		plank := 95 + 70*rng.Float64()
		ring := 0.15 + 0.2*rng.Float64()
		return func(x, y float64) rgbf {
			pi := math.Floor(y / plank)
			py := y - pi*plank
			pr := newHrng(seed, uint64(int64(pi)))
			shift := pr.sym(0.12)
			xo := pr.sym(3000)
			w := nz.fbm((x+xo)*0.004, py*0.03+pi*7, 3)
			t := 0.5 + 0.5*math.Sin((py*ring+w*9)*1.0)
			t = t * t * t
			f := fine.at((x+xo)*0.02, y*0.9)
			c := base.mix(dark, 0.55*t+0.25*f).scale(1 + shift)
			if py < 1.2 || py > plank-1.2 { // the gap between planks
				c = c.scale(0.55)
			}
			return c
		}
	case TableCloth:
		hues := []float64{130, 150, 205, 350, 30}
		base := fromHSV(hues[rng.IntN(len(hues))]+10*rng.Float64(), 0.35+0.35*rng.Float64(), 0.25+0.3*rng.Float64())
		return func(x, y float64) rgbf {
			m := nz.fbm(x*0.004, y*0.004, 3)
			f := fine.at(x*0.7, y*0.7)
			return base.scale(0.85 + 0.25*m + 0.1*f)
		}
	case TableLinen:
		c1 := fromHSV(360*rng.Float64(), 0.4+0.4*rng.Float64(), 0.35+0.4*rng.Float64())
		white := fromHSV(40, 0.05, 0.9)
		period := 18 + 20*rng.Float64()
		return func(x, y float64) rgbf {
			sx := math.Mod(math.Abs(x), period) < period/2
			sy := math.Mod(math.Abs(y), period) < period/2
			t := 0.0
			if sx {
				t += 0.5
			}
			if sy {
				t += 0.5
			}
			c := white.mix(c1, t)
			fold := 0.92 + 0.1*nz.fbm(x*0.003, y*0.003, 2)
			weave := 0.97 + 0.06*fine.at(x*0.8, y*0.8)
			return c.scale(fold * weave)
		}
	default: // TableLight
		base := fromHSV(30+30*rng.Float64(), 0.04+0.08*rng.Float64(), 0.72+0.15*rng.Float64())
		return func(x, y float64) rgbf {
			m := nz.fbm(x*0.002, y*0.002, 2)
			f := fine.at(x*0.5, y*0.5)
			return base.scale(0.95 + 0.07*m + 0.03*f)
		}
	}
}

// paintBackground draws the floor, the players' bodies, the table and the
// markers onto cv.
func paintBackground(cv *canvas, L *layout, kind string, rng *rand.Rand, markerCells [4][36]bool) {
	surf := newSurface(kind, rng)
	floorSeed := rng.Uint64()
	floor := noise2{floorSeed}
	floorCol := fromHSV(25+20*rng.Float64(), 0.2+0.2*rng.Float64(), 0.1+0.12*rng.Float64())
	rim := 12.0
	hw, hh := L.w/2, L.h/2
	type body struct {
		c, along, in Pt
		col          rgbf
	}
	var bodies []body
	for _, s := range L.seats {
		bodies = append(bodies, body{s.look.body, s.along, s.Inward, rgbf{float64(s.look.sleeve[0]), float64(s.look.sleeve[1]), float64(s.look.sleeve[2])}})
	}
	for j := range cv.h {
		for i := range cv.w {
			x, y := cv.ox+float64(i)/cv.s, cv.oy+float64(j)/cv.s
			var c rgbf
			dx, dy := math.Abs(x)-hw, math.Abs(y)-hh
			if dx <= 0 && dy <= 0 {
				c = surf(x, y)
				e := -math.Max(dx, dy) // distance inside the edge
				if e < rim {
					c = c.scale(0.8 + 0.2*e/rim)
				}
			} else {
				c = floorCol.scale(0.7 + 0.6*floor.fbm(x*0.003, y*0.003, 3))
				for _, b := range bodies {
					d := Pt{x, y}.sub(b.c)
					u, v := d.dot(b.along)/260, d.dot(b.in)/190
					r := u*u + v*v
					if r < 1.3 {
						a := math.Min(1, (1.3-r)/0.4)
						shade := 0.55 + 0.45*math.Sqrt(math.Max(0, 1-r))
						c = c.mix(b.col.scale(shade*(0.9+0.2*floor.at(x*0.05, y*0.05))), a)
					}
				}
				// the table casts a shadow on what is below its edge
				out := math.Max(dx, dy)
				if out < 40 {
					c = c.scale(0.55 + 0.45*out/40)
				}
			}
			put(cv.pix, 3*(j*cv.w+i), c)
		}
	}
	for k, m := range L.markers {
		paintMarker(cv, m, markerCells[k])
	}
}

// paintMarker draws a marker's sheet of paper with the marker printed on
// it, antialiased by supersampling.
func paintMarker(cv *canvas, m marker, cells [36]bool) {
	paper := m.paper.quad(paperSide, paperSide)
	var poly [4]Pt
	for i, p := range paper {
		poly[i] = cv.px(p)
	}
	y0 := max(0, int(math.Floor(min(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y)))-2)
	y1 := min(cv.h-1, int(math.Ceil(max(poly[0].Y, poly[1].Y, poly[2].Y, poly[3].Y)))+2)
	ca, sa := math.Cos(m.paper.a), math.Sin(m.paper.a)
	const ss = 4
	white := rgbf{0.93, 0.93, 0.91}
	for y := y0; y <= y1; y++ {
		fx0, fx1, ok := span(poly[:], float64(y))
		if !ok {
			continue
		}
		for x := max(0, int(fx0)-2); x <= min(cv.w-1, int(fx1)+2); x++ {
			var acc rgbf
			cover := 0.0
			for sy := range ss {
				for sx := range ss {
					tx := cv.ox + (float64(x)+(float64(sx)+0.5)/ss-0.5)/cv.s - m.paper.c.X
					ty := cv.oy + (float64(y)+(float64(sy)+0.5)/ss-0.5)/cv.s - m.paper.c.Y
					lx, ly := ca*tx+sa*ty, -sa*tx+ca*ty
					if math.Abs(lx) > paperSide/2 || math.Abs(ly) > paperSide/2 {
						continue
					}
					cover++
					col := white
					if math.Abs(lx) < markerSide/2 && math.Abs(ly) < markerSide/2 {
						cx := int((lx + markerSide/2) / (markerSide / 6))
						cy := int((ly + markerSide/2) / (markerSide / 6))
						if cells[min(cy, 5)*6+min(cx, 5)] {
							col = rgbf{0.06, 0.06, 0.07}
						}
					}
					acc = rgbf{acc[0] + col[0], acc[1] + col[1], acc[2] + col[2]}
				}
			}
			if cover == 0 {
				continue
			}
			i := 3 * (y*cv.w + x)
			old := rgbf{float64(cv.pix[i+2]) / 255, float64(cv.pix[i+1]) / 255, float64(cv.pix[i]) / 255}
			c := old.scale(1-cover/(ss*ss)).mix(rgbf{}, 0)
			c = rgbf{c[0] + acc[0]/(ss*ss), c[1] + acc[1]/(ss*ss), c[2] + acc[2]/(ss*ss)}
			put(cv.pix, i, c)
		}
	}
}
