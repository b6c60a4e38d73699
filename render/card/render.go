package card

import (
	"image"
	"image/draw"
	"image/jpeg"
	"math"

	"ligretto/referee"
)

// uniform returns a value in [-a, a].
func (r *Renderer) uniform(a float64) float64 { return a * (2*r.rng.Float64() - 1) }

func (r *Renderer) between(lo, hi float64) float64 { return lo + (hi-lo)*r.rng.Float64() }

func (r *Renderer) chance(p float64) bool { return p > 0 && r.rng.Float64() < p }

// render draws an augmented crop of label l (d is its back design if a
// back) into dst. Every random draw comes from r.rng, in a fixed order.
func (r *Renderer) render(dst *image.RGBA, l Label, d BackDesign) {
	p := &r.p
	W, H := p.W, p.H
	A := r.aspect

	// The card's texture, and where the card sits in it.
	var numerals [2][4]float64 // a face's numerals: u0, v0, u1, v1 in card units
	var tex *canvas
	var tox, toy float64 // card coordinates of the texture's top-left corner
	if l.Side == FaceSide {
		k := float64(W) * p.TexScale
		r.tex.reset(int(math.Round(k)), int(math.Round(k*A)))
		r.tex.k = k
		var st faceStyle
		switch {
		case r.chance(p.Printed):
			st = printedFaceStyle(r.rng, l.Face, A, p)
		case r.chance(p.Variety):
			st = randomFaceStyle(r.rng, l.Face, A, r.fonts, p)
		default:
			st = r.cleanStyle(l.Face, A)
		}
		drawFace(&r.tex, l.Face, &st)
		tex = &r.tex
		numerals = numeralBoxes(l.Face, &st, A)
	} else {
		tex = r.backTexture(&d)
		tox, toy = -backMargin, -backMargin
		// Cards are cut a little off the print's centre.
		cut := 0.6 * backMargin * math.Min(1, p.Variety+p.Shift*10)
		tox += r.uniform(cut)
		toy += r.uniform(cut)
	}
	pm := printMatrix(r.uniform(p.HueJitter), 1+r.uniform(p.SatJitter), 1+r.uniform(p.ValJitter))

	// Where the card's corners land in the crop.
	theta := r.uniform(p.RotJitter) * math.Pi / 180
	if r.rng.IntN(2) == 1 {
		theta += math.Pi
	}
	s := r.between(p.ScaleMin, p.ScaleMax)
	asp := 1 + r.uniform(0.04*math.Min(1, p.Perspective*20))
	sx, sy := s*asp, s/asp
	cx := float64(W)/2 + r.uniform(p.Shift*float64(W))
	cy := float64(H)/2 + r.uniform(p.Shift*float64(H))
	ct, st := math.Cos(theta), math.Sin(theta)
	var cardPts, cropPts [4][2]float64
	for i, c := range [4][2]float64{{0, 0}, {1, 0}, {1, A}, {0, A}} {
		cardPts[i] = c
		// The crop is W pixels for one card width.
		u := (c[0] - 0.5) * float64(W) * sx
		v := (c[1] - A/2) * float64(W) * sy
		cropPts[i] = [2]float64{
			cx + ct*u - st*v + r.uniform(p.Perspective*float64(W)),
			cy + st*u + ct*v + r.uniform(p.Perspective*float64(W)),
		}
	}
	hm := homography(cropPts, cardPts)

	// Which pixels the card covers.
	offs := [][2]float64{{0.5, 0.5}}
	if p.TexScale*s >= 1.75 {
		offs = [][2]float64{{0.25, 0.25}, {0.75, 0.25}, {0.25, 0.75}, {0.75, 0.75}}
	}
	foot := 1 / (float64(W) * s) // card units per crop pixel, roughly
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			X, Y := float64(x)+0.5, float64(y)+0.5
			w := hm[6]*X + hm[7]*Y + hm[8]
			u := (hm[0]*X + hm[1]*Y + hm[2]) / w
			v := (hm[3]*X + hm[4]*Y + hm[5]) / w
			dd := sdRoundRect(u-0.5, v-A/2, 0.5, A/2, cardCorner)
			r.alpha[y*W+x] = float32(clampf(0.5-dd/foot, 0, 1))
			r.uv[2*(y*W+x)], r.uv[2*(y*W+x)+1] = u, v
		}
	}

	// The table, other cards behind, the card's shadow.
	r.table()
	if r.chance(p.Neighbours) {
		n := 1 + r.rng.IntN(2)
		for range n {
			r.neighbour(cropPts)
		}
	}
	var shadow float64
	var shx, shy float64
	if r.chance(p.Shadow) {
		shadow = r.between(0.15, 0.5)
		shx, shy = r.uniform(0.05), r.uniform(0.05)
	}

	// The card: one texture sample per pixel, or 2x2 when the texture is
	// much finer than the crop.
	ns := float32(len(offs))
	tk := float32(tex.k)
	buf := r.buf
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			i := 3 * (y*W + x)
			var sh float64
			if r.alpha[y*W+x] == 0 && shadow == 0 {
				continue
			}
			if shadow > 0 && r.alpha[y*W+x] < 1 {
				u, v := r.uv[2*(y*W+x)], r.uv[2*(y*W+x)+1]
				ds := sdRoundRect(u-0.5-shx, v-A/2-shy, 0.5, A/2, cardCorner)
				sh = shadow * clampf(0.5-ds/0.06, 0, 1)
				if sh > 0 {
					f := float32(1 - sh)
					buf[i] *= f
					buf[i+1] *= f
					buf[i+2] *= f
				}
			}
			var cr, cg, cb, ca float32
			for _, o := range offs {
				u, v := r.uv[2*(y*W+x)], r.uv[2*(y*W+x)+1]
				a := r.alpha[y*W+x]
				if ns > 1 {
					X, Y := float64(x)+o[0], float64(y)+o[1]
					w := hm[6]*X + hm[7]*Y + hm[8]
					u = (hm[0]*X + hm[1]*Y + hm[2]) / w
					v = (hm[3]*X + hm[4]*Y + hm[5]) / w
					dd := sdRoundRect(u-0.5, v-A/2, 0.5, A/2, cardCorner)
					a = float32(clampf(0.5-dd/(foot/float64(ns)), 0, 1))
				}
				if a <= 0 {
					continue
				}
				tr, tg, tb, ta := tex.sample(float32(u-tox)*tk, float32(v-toy)*tk)
				if ta > 0 && ta < 1 {
					tr, tg, tb = tr/ta, tg/ta, tb/ta
				}
				cr += tr * a
				cg += tg * a
				cb += tb * a
				ca += a
			}
			if ca == 0 {
				continue
			}
			cr, cg, cb = pm.apply(cr/ns, cg/ns, cb/ns)
			ca /= ns
			buf[i] = buf[i]*(1-ca) + cr
			buf[i+1] = buf[i+1]*(1-ca) + cg
			buf[i+2] = buf[i+2]*(1-ca) + cb
		}
	}

	if r.chance(p.Glare) {
		r.glare()
	}
	clear(r.occ)
	if r.chance(p.Occlusion) && p.MaxOcclusion > 0.05 {
		if r.rng.IntN(3) == 0 {
			r.cardEdge()
		} else {
			r.finger()
		}
	}
	r.numeralSeen = 1
	if l.Side == FaceSide {
		r.numeralSeen = max(r.seenFraction(numerals[0], cardPts, cropPts), r.seenFraction(numerals[1], cardPts, cropPts))
	}
	r.camera(dst)
}

// numeralBoxes returns the boxes of a face's upright numeral and of its
// turned copy, in card units, where drawFace puts them: the turned copy
// mirrors the upright one about the card's centre, and the print's shift
// moves both alike.
func numeralBoxes(f referee.Face, st *faceStyle, aspect float64) [2][4]float64 {
	hw, hh := numeralWidth(f, st)/2, st.height/2
	ux, uy := st.cx+st.shiftX, st.cy+st.shiftY
	tx, ty := 1-st.cx+st.shiftX, aspect-st.cy+st.shiftY
	return [2][4]float64{
		{ux - hw, uy - hh, ux + hw, uy + hh},
		{tx - hw, ty - hh, tx + hw, ty + hh},
	}
}

// seenFraction samples a box of the card (card units) on a grid and
// returns the fraction of points that land inside the crop and not under
// an occluder.
func (r *Renderer) seenFraction(box [4]float64, cardPts, cropPts [4][2]float64) float64 {
	hm := homography(cardPts, cropPts)
	const n = 6
	seen := 0
	for i := range n {
		for j := range n {
			u := box[0] + (box[2]-box[0])*(float64(i)+0.5)/n
			v := box[1] + (box[3]-box[1])*(float64(j)+0.5)/n
			w := hm[6]*u + hm[7]*v + hm[8]
			x := int(math.Floor((hm[0]*u + hm[1]*v + hm[2]) / w))
			y := int(math.Floor((hm[3]*u + hm[4]*v + hm[5]) / w))
			if x < 0 || y < 0 || x >= r.p.W || y >= r.p.H || r.occ[y*r.p.W+x] >= 0.5 {
				continue
			}
			seen++
		}
	}
	return float64(seen) / (n * n)
}

// homography returns the 3x3 matrix (row-major) mapping the four points
// from to the four points to.
func homography(from, to [4][2]float64) [9]float64 {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y := from[i][0], from[i][1]
		u, v := to[i][0], to[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		if a[c][c] == 0 {
			continue
		}
		for r := 0; r < 8; r++ {
			if r == c {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h [9]float64
	for i := 0; i < 8; i++ {
		if a[i][i] != 0 {
			h[i] = a[i][8] / a[i][i]
		}
	}
	h[8] = 1
	return h
}

// valueNoise is smooth noise in [0,1] with unit lattice spacing.
func valueNoise(x, y float64, seed uint64) float64 {
	fx, fy := math.Floor(x), math.Floor(y)
	ix, iy := int64(fx), int64(fy)
	tx, ty := x-fx, y-fy
	tx = tx * tx * (3 - 2*tx)
	ty = ty * ty * (3 - 2*ty)
	h := func(i, j int64) float64 {
		return float64(hash64(seed^uint64(i)*0x9e3779b97f4a7c15^uint64(j)*0xc2b2ae3d27d4eb4f)>>11) / (1 << 53)
	}
	a := h(ix, iy) + (h(ix+1, iy)-h(ix, iy))*tx
	b := h(ix, iy+1) + (h(ix+1, iy+1)-h(ix, iy+1))*tx
	return a + (b-a)*ty
}

// table fills the crop with a table texture.
func (r *Renderer) table() {
	W, H := r.p.W, r.p.H
	buf := r.buf
	seed := r.rng.Uint64()
	kind := r.rng.IntN(6)
	var c0, c1 rgb
	scale := r.between(0.5, 2) / float64(W) // texture frequency per pixel
	ang := r.between(0, math.Pi)
	ca, sa := math.Cos(ang), math.Sin(ang)
	grain := r.between(0, 0.06)
	switch kind {
	case 0: // wood
		c0 = hsv(r.between(18, 40), r.between(0.35, 0.75), r.between(0.3, 0.8))
		c1 = c0.scale(float32(r.between(0.6, 0.85)))
	case 1: // cloth or felt
		c0 = hsv(r.between(0, 360), r.between(0.15, 0.7), r.between(0.15, 0.6))
		c1 = c0.scale(0.85)
	case 2: // a light table
		c0 = hsv(r.between(0, 360), r.between(0, 0.12), r.between(0.7, 0.95))
		c1 = c0.scale(0.93)
	case 3: // dark
		c0 = hsv(r.between(0, 360), r.between(0, 0.4), r.between(0.04, 0.25))
		c1 = c0.scale(0.7)
	case 4: // checked cloth
		c0 = hsv(r.between(0, 360), r.between(0.2, 0.8), r.between(0.3, 0.9))
		c1 = hsv(r.between(0, 360), r.between(0, 0.3), r.between(0.7, 1))
	default: // stone
		c0 = hsv(r.between(0, 360), r.between(0, 0.25), r.between(0.3, 0.8))
		c1 = c0.scale(float32(r.between(0.6, 0.9)))
	}
	period := r.between(3, 12)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			if r.alpha[y*W+x] >= 1 { // under the card
				i := 3 * (y*W + x)
				buf[i], buf[i+1], buf[i+2] = 0, 0, 0
				continue
			}
			X, Y := float64(x)+0.5, float64(y)+0.5
			u := (ca*X + sa*Y) * scale
			v := (-sa*X + ca*Y) * scale
			var t float64
			switch kind {
			case 0:
				t = 0.5 + 0.5*math.Sin(u*18+5*valueNoise(u*1.5, v*6, seed))
				t = t*0.8 + 0.2*valueNoise(u*12, v*40, seed+1)
			case 1, 2, 3:
				t = valueNoise(u*3, v*3, seed)*0.6 + 0.4*valueNoise(u*12, v*12, seed+1)
			case 4:
				a := math.Floor((ca*X+sa*Y)/period) + math.Floor((-sa*X+ca*Y)/period)
				t = float64(int64(a) & 1)
			default:
				t = valueNoise(u*4, v*4, seed)
				t = math.Pow(math.Abs(math.Sin(t*9+u*3)), 3)
			}
			col := c0.mix(c1, float32(t))
			if grain > 0 {
				col = col.scale(float32(1 + grain*(2*hashUnit(seed, uint64(y*W+x))-1)))
			}
			i := 3 * (y*W + x)
			buf[i], buf[i+1], buf[i+2] = col.r, col.g, col.b
		}
	}
}

// neighbour paints another card lying beside the crop's card, outside it.
func (r *Renderer) neighbour(card [4][2]float64) {
	W, H := r.p.W, r.p.H
	var col rgb
	if r.rng.IntN(3) > 0 {
		col = cardColours[referee.Colours[r.rng.IntN(4)]]
		col = col.scale(float32(r.between(0.8, 1.05)))
	} else {
		col = rgbOf(designs[r.rng.IntN(len(designs))].Base)
	}
	// The neighbour is a card-sized rectangle moved one card width or height
	// away (plus a gap) in a random direction, a little turned.
	dir := r.rng.IntN(4)
	gap := r.between(0.02, 0.25)
	ox, oy := 0.0, 0.0
	switch dir {
	case 0:
		ox = 1 + gap
	case 1:
		ox = -1 - gap
	case 2:
		oy = 1 + gap
	default:
		oy = -1 - gap
	}
	ox += r.uniform(0.3)
	oy += r.uniform(0.3)
	ang := r.uniform(0.5)
	cx := float64(W)/2 + ox*float64(W)
	cy := float64(H)/2 + oy*float64(H)
	ca, sa := math.Cos(ang), math.Sin(ang)
	hw, hh := float64(W)/2, float64(H)/2
	white := r.chance(0.3)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			if r.alpha[y*W+x] >= 1 {
				continue
			}
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			u := ca*dx + sa*dy
			v := -sa*dx + ca*dy
			d := sdRoundRect(u, v, hw, hh, 0.06*float64(W))
			a := float32(clampf(0.5-d, 0, 1))
			if a <= 0 {
				continue
			}
			c := col
			if white && math.Abs(u) < hw*0.5 && math.Abs(v+hh*0.45) < hh*0.2 {
				c = rgb{0.95, 0.95, 0.95} // a bit of a numeral
			}
			i := 3 * (y*W + x)
			r.buf[i] += (c.r - r.buf[i]) * a
			r.buf[i+1] += (c.g - r.buf[i+1]) * a
			r.buf[i+2] += (c.b - r.buf[i+2]) * a
		}
	}
}

// glare adds a soft glossy highlight.
func (r *Renderer) glare() {
	W, H := r.p.W, r.p.H
	gx, gy := r.between(0, float64(W)), r.between(0, float64(H))
	rad := r.between(0.2, 0.6) * float64(W)
	amt := float32(r.between(0.15, 0.5))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			dx, dy := float64(x)+0.5-gx, float64(y)+0.5-gy
			d2 := (dx*dx + dy*dy) / (rad * rad)
			if d2 > 4 {
				continue
			}
			t := amt * float32(math.Exp(-d2*1.5))
			i := 3 * (y*W + x)
			for j := 0; j < 3; j++ {
				r.buf[i+j] += (1 - r.buf[i+j]) * t
			}
		}
	}
}

// edgePoint picks a side of the crop and a depth into it: the occluder
// comes from outside across that side.
func (r *Renderer) edgePoint() (px, py, nx, ny, depth float64) {
	W, H := float64(r.p.W), float64(r.p.H)
	side := r.rng.IntN(4)
	f := r.between(0.08, r.p.MaxOcclusion)
	t := r.rng.Float64()
	switch side {
	case 0: // left
		return 0, t * H, 1, 0, f * W
	case 1: // right
		return W, t * H, -1, 0, f * W
	case 2: // top
		return t * W, 0, 0, 1, f * H
	default: // bottom
		return t * W, H, 0, -1, f * H
	}
}

// finger paints a finger tip reaching in from an edge.
func (r *Renderer) finger() {
	W, H := r.p.W, r.p.H
	px, py, nx, ny, depth := r.edgePoint()
	a := r.uniform(0.6)
	ca, sa := math.Cos(a), math.Sin(a)
	dx, dy := ca*nx-sa*ny, sa*nx+ca*ny // direction into the crop
	rad := r.between(0.14, 0.28) * float64(W)
	tipx, tipy := px+dx*(depth-rad), py+dy*(depth-rad)
	basex, basey := px-dx*3*float64(W), py-dy*3*float64(W)
	skin := hsv(r.between(8, 32), r.between(0.25, 0.6), r.between(0.3, 0.95))
	nail := skin.mix(rgb{1, 0.88, 0.88}, 0.45)
	blur := r.between(0.5, 2.5) // fingers are near the camera: soft edges
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			X, Y := float64(x)+0.5, float64(y)+0.5
			d := sdSegment(X, Y, basex, basey, tipx, tipy, rad)
			a := float32(clampf(0.5-d/blur, 0, 1))
			if a <= 0 {
				continue
			}
			// Cylinder shading across the finger.
			ex, ey := tipx-basex, tipy-basey
			el := length(ex, ey)
			across := math.Abs((X-basex)*ey-(Y-basey)*ex) / el / rad
			shade := float32(0.65 + 0.4*math.Sqrt(clampf(1-across*across, 0, 1)))
			col := skin.scale(shade)
			if length(X-(tipx-dx*rad*0.25), Y-(tipy-dy*rad*0.25)) < rad*0.55 {
				col = nail.scale(shade)
			}
			i := 3 * (y*W + x)
			r.buf[i] += (col.r - r.buf[i]) * a
			r.buf[i+1] += (col.g - r.buf[i+1]) * a
			r.buf[i+2] += (col.b - r.buf[i+2]) * a
			r.occ[y*W+x] = max(r.occ[y*W+x], a)
		}
	}
}

// cardEdge paints another card lying over an edge of this one, with its
// shadow.
func (r *Renderer) cardEdge() {
	W, H := r.p.W, r.p.H
	px, py, nx, ny, depth := r.edgePoint()
	a := r.uniform(0.5)
	ca, sa := math.Cos(a), math.Sin(a)
	nx, ny = ca*nx-sa*ny, sa*nx+ca*ny
	// Points with (p - q).n < 0 are under the other card.
	qx, qy := px+nx*depth, py+ny*depth
	var col rgb
	if r.rng.IntN(3) > 0 {
		col = cardColours[referee.Colours[r.rng.IntN(4)]]
	} else {
		col = rgbOf(designs[r.rng.IntN(len(designs))].Base)
	}
	shadow := r.between(0.2, 0.5)
	sw := r.between(0.5, 2.5)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			X, Y := float64(x)+0.5, float64(y)+0.5
			d := (X-qx)*nx + (Y-qy)*ny // positive: on this card
			i := 3 * (y*W + x)
			if d > 0 {
				f := float32(1 - shadow*math.Exp(-d/sw))
				r.buf[i] *= f
				r.buf[i+1] *= f
				r.buf[i+2] *= f
			}
			av := float32(clampf(0.5-d, 0, 1))
			if av <= 0 {
				continue
			}
			c := col
			if d > -1.2 {
				c = c.mix(rgb{0.95, 0.95, 0.92}, 0.5) // the card's cut edge
			}
			r.buf[i] += (c.r - r.buf[i]) * av
			r.buf[i+1] += (c.g - r.buf[i+1]) * av
			r.buf[i+2] += (c.b - r.buf[i+2]) * av
			r.occ[y*W+x] = max(r.occ[y*W+x], av)
		}
	}
}

// camera applies lighting, white balance, blur, noise, gamma and JPEG, and
// writes the crop to dst.
func (r *Renderer) camera(dst *image.RGBA) {
	p := &r.p
	W, H := p.W, p.H
	buf := r.buf
	gx, gy := r.uniform(p.Light), r.uniform(p.Light)
	exposure := 1 + r.uniform(p.Light*0.6)
	wb := [3]float64{1 + r.uniform(p.WhiteBalance), 1, 1 + r.uniform(p.WhiteBalance)}
	for y := 0; y < H; y++ {
		l0 := float32(exposure * (1 + gy*(float64(y)/float64(H)-0.5) - gx*0.5))
		dl := float32(exposure * gx / float64(W))
		r0, g0, b0 := float32(wb[0]), float32(wb[1]), float32(wb[2])
		row := buf[3*y*W : 3*(y+1)*W]
		for x := 0; x < W; x++ {
			l := l0 + dl*float32(x)
			row[3*x] *= l * r0
			row[3*x+1] *= l * g0
			row[3*x+2] *= l * b0
		}
	}
	if p.Blur > 0 && r.chance(0.8) {
		r.blur(r.between(0.2, p.Blur))
	}
	if p.Noise > 0 {
		// Gaussian-like noise (a sum of four uniforms) from a hash of the
		// pixel: luminance noise, plus colour noise on some cameras.
		sigma := float32(r.between(0, p.Noise))
		chroma := r.chance(0.5)
		seed := r.rng.Uint64()
		for i := 0; i < W*H; i++ {
			h := hash64(seed + uint64(i))
			n := approxNormal(h) * sigma
			if !chroma {
				buf[3*i] += n
				buf[3*i+1] += n
				buf[3*i+2] += n
				continue
			}
			h2 := hash64(h)
			buf[3*i] += 0.6*n + 0.5*sigma*approxNormal(h2)
			buf[3*i+1] += 0.6*n + 0.5*sigma*approxNormal(h2>>21|h2<<43)
			buf[3*i+2] += 0.6*n + 0.5*sigma*approxNormal(h2>>42|h2<<22)
		}
	}
	g := math.Exp(r.uniform(p.Gamma))
	const nl = len(r.gamma) - 1
	for i := range r.gamma {
		r.gamma[i] = float32(math.Pow(float64(i)/float64(nl), g))
	}
	for y := 0; y < H; y++ {
		row := dst.Pix[dst.PixOffset(0, y) : dst.PixOffset(0, y)+4*W]
		src := buf[3*y*W : 3*(y+1)*W]
		for x := 0; x < W; x++ {
			for j := 0; j < 3; j++ {
				v := clamp01(src[3*x+j]) * float32(nl)
				k := min(int(v), nl-1)
				v = r.gamma[k] + (r.gamma[k+1]-r.gamma[k])*(v-float32(k))
				row[4*x+j] = uint8(v*255 + 0.5)
			}
			row[4*x+3] = 255
		}
	}
	if r.chance(p.JPEG) {
		q := p.JPEGQuality + r.rng.IntN(max(1, 96-p.JPEGQuality))
		r.jpg.Reset()
		if err := jpeg.Encode(&r.jpg, dst, &jpeg.Options{Quality: min(q, 100)}); err == nil {
			if img, err := jpeg.Decode(&r.jpg); err == nil {
				draw.Draw(dst, dst.Bounds(), img, img.Bounds().Min, draw.Src)
			}
		}
	}
}

// blur applies a separable Gaussian blur of the given sigma to the crop.
func (r *Renderer) blur(sigma float64) {
	W, H := r.p.W, r.p.H
	rad := int(math.Ceil(2 * sigma))
	if rad < 1 {
		return
	}
	var kern [32]float32
	rad = min(rad, len(kern)/2-1)
	var sum float32
	for i := -rad; i <= rad; i++ {
		kern[i+rad] = float32(math.Exp(-float64(i*i) / (2 * sigma * sigma)))
		sum += kern[i+rad]
	}
	for i := range 2*rad + 1 {
		kern[i] /= sum
	}
	src, tmp := r.buf, r.tmp
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			var a, b, c float32
			for k := -rad; k <= rad; k++ {
				xx := min(max(x+k, 0), W-1)
				j := 3 * (y*W + xx)
				w := kern[k+rad]
				a += src[j] * w
				b += src[j+1] * w
				c += src[j+2] * w
			}
			i := 3 * (y*W + x)
			tmp[i], tmp[i+1], tmp[i+2] = a, b, c
		}
	}
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			var a, b, c float32
			for k := -rad; k <= rad; k++ {
				yy := min(max(y+k, 0), H-1)
				j := 3 * (yy*W + x)
				w := kern[k+rad]
				a += tmp[j] * w
				b += tmp[j+1] * w
				c += tmp[j+2] * w
			}
			i := 3 * (y*W + x)
			src[i], src[i+1], src[i+2] = a, b, c
		}
	}
}

// approxNormal turns 64 random bits into an approximately standard normal
// value: the sum of four 16-bit uniforms, centred and scaled (Irwin-Hall).
func approxNormal(h uint64) float32 {
	s := float32(h&0xffff) + float32(h>>16&0xffff) + float32(h>>32&0xffff) + float32(h>>48)
	return (s/65536 - 2) * 1.7320508 // sqrt(12/4)
}
