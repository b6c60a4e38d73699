package tiles

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"ligretto/referee/tiles"
)

// A piece's owner is read from its frame style: the ink round the piece
// is compared with what each style prints (render/tiles draws them so, the
// printed game alike), over small shifts and turns of the piece, and the
// style that matches best, clearly, is taken. A stone on the piece hides
// what lies under its disc: those points are left out.

// The printed pieces (mm).
const (
	cardHX, cardHY = 44.0, 21.5 // half of a card's long and short side
	jokerH         = 21.5
	cornerR        = 2.5
	zoneDepth      = 10.0 // the frame zone compared: the edge to this depth
	tmplStep       = 0.25 // template raster (mm)
	obsStep        = 0.5  // observed points (mm)
)

var styles = [...]tiles.Frame{tiles.Plain, tiles.Double, tiles.Dashed, tiles.Dotted}

func sdRoundRect(x, y, hw, hh, r float64) float64 {
	qx, qy := math.Abs(x)-hw+r, math.Abs(y)-hh+r
	if qx <= 0 || qy <= 0 {
		return math.Max(qx, qy) - r
	}
	return math.Hypot(qx, qy) - r
}

// template is a style's ink on a piece, rastered and blurred as a camera
// sees it.
type template struct {
	hx, hy float64
	w, h   int
	ink    []float32
}

func (t *template) at(x, y float64) float32 {
	i := int((x + t.hx + 1) / tmplStep)
	j := int((y + t.hy + 1) / tmplStep)
	if i < 0 || j < 0 || i >= t.w || j >= t.h {
		return 0
	}
	return t.ink[j*t.w+i]
}

var (
	templates     map[[2]float64][len(styles)]*template
	templateBuild sync.Once
)

func buildTemplates() {
	templateBuild.Do(func() {
		templates = map[[2]float64][len(styles)]*template{}
		for _, hs := range [][2]float64{{cardHX, cardHY}, {jokerH, jokerH}} {
			var ts [len(styles)]*template
			for k, st := range styles {
				ts[k] = newTemplate(st, hs[0], hs[1])
			}
			templates[hs] = ts
		}
	})
}

func newTemplate(st tiles.Frame, hx, hy float64) *template {
	t := &template{hx: hx, hy: hy, w: int(2*(hx+1)/tmplStep) + 1, h: int(2*(hy+1)/tmplStep) + 1}
	raw := make([]float32, t.w*t.h)
	for j := range t.h {
		for i := range t.w {
			n := 0
			for s := range 4 {
				x := float64(i)*tmplStep - hx - 1 + (float64(s%2)+0.5)*tmplStep/2
				y := float64(j)*tmplStep - hy - 1 + (float64(s/2)+0.5)*tmplStep/2
				d := sdRoundRect(x, y, hx, hy, cornerR)
				if d <= 0 && st.Inked(x, y, -d, hx, hy) {
					n++
				}
			}
			raw[j*t.w+i] = float32(n) / 4
		}
	}
	// blur: the camera's defocus and the resampling, about 0.6 mm
	const sigma = 1.3
	r := int(math.Ceil(2 * sigma / tmplStep))
	k := make([]float32, 2*r+1)
	var sum float32
	for i := range k {
		d := float64(i-r) * tmplStep
		k[i] = float32(math.Exp(-d * d / (2 * sigma * sigma)))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	tmp := make([]float32, len(raw))
	for j := range t.h {
		for i := range t.w {
			var v float32
			for d := -r; d <= r; d++ {
				if ii := i + d; ii >= 0 && ii < t.w {
					v += k[d+r] * raw[j*t.w+ii]
				}
			}
			tmp[j*t.w+i] = v
		}
	}
	t.ink = make([]float32, len(raw))
	for j := range t.h {
		for i := range t.w {
			var v float32
			for d := -r; d <= r; d++ {
				if jj := j + d; jj >= 0 && jj < t.h {
					v += k[d+r] * tmp[jj*t.w+i]
				}
			}
			t.ink[j*t.w+i] = v
		}
	}
	return t
}

// piece is where a card or joker should lie: its centre in the top view
// (mm), its long axis, its half-size, and the top view's scale there.
type piece struct {
	cx, cy float64
	ax, ay float64 // the local x axis, a unit vector times the scale
	hx, hy float64
}

// scaleAt is the top view's scale (mm per mm) on field f.
func (b *Board) scaleAt(f tiles.Field) float64 {
	p := b.Parts[(f.Y/tiles.PartSize)*b.Cols+f.X/tiles.PartSize]
	return math.Sqrt(math.Abs(p.m[0]*p.m[3] - p.m[1]*p.m[2]))
}

func (w *Watcher) cardPiece(f, g tiles.Field) piece {
	fx, fy := w.board.At(f, 0, 0)
	gx, gy := w.board.At(g, 0, 0)
	l := math.Hypot(gx-fx, gy-fy)
	s := (w.board.scaleAt(f) + w.board.scaleAt(g)) / 2
	return piece{cx: (fx + gx) / 2, cy: (fy + gy) / 2, ax: s * (gx - fx) / l, ay: s * (gy - fy) / l, hx: cardHX, hy: cardHY}
}

func (w *Watcher) jokerPiece(f tiles.Field) piece {
	cx, cy := w.board.At(f, 0, 0)
	ex, ey := w.board.At(f, 1, 0)
	return piece{cx: cx, cy: cy, ax: ex - cx, ay: ey - cy, hx: jokerH, hy: jokerH}
}

// styleRead is the outcome of a frame style read: every style's best
// match (normalised correlation, -1..1) and the one taken, or "".
type styleRead struct {
	score [len(styles)]float64
	style tiles.Frame
	n     int // points compared
	pose  [len(styles)][3]float64
	gaps  float64 // plain or dashed, close: the gaps' ink (gapInk), else 0
	inner float64 // double one of the two best, close, the best at minDoubleScore: its inner line's ink (innerInk), else 0
}

func (r styleRead) String() string {
	return fmt.Sprintf("plain %.2f double %.2f dashed %.2f dotted %.2f (%d points, poses %v, gaps %.2f, inner %.2f) -> %q", r.score[0], r.score[1], r.score[2], r.score[3], r.n, r.pose, r.gaps, r.inner, r.style)
}

// Thresholds of a clear read.
const (
	minScore  = 0.45
	minMargin = 0.10
)

// obsPoint is a frame-zone point: piece-local position, darkness, region.
type obsPoint struct {
	x, y   float32
	dark   float32
	region uint8
}

// readStyle compares the frame zone of piece p in the current frame with
// every style. Points within maskR of (mx, my) (top view mm; a stone and
// its shadow) are left out when maskR > 0.
func (w *Watcher) readStyle(p piece, mx, my, maskR float64) styleRead {
	buildTemplates()
	pts := w.zonePoints(p, mx, my, maskR)
	var r styleRead
	r.n = len(pts)
	if len(pts) < 200 {
		return r
	}
	againstColour(pts)
	for k, t := range templates[[2]float64{p.hx, p.hy}] {
		r.score[k], r.pose[k] = bestPose(pts, t)
	}
	first, second := 0, -1
	for k := 1; k < len(styles); k++ {
		if r.score[k] > r.score[first] {
			first, second = k, first
		} else if second < 0 || r.score[k] > r.score[second] {
			second = k
		}
	}
	sure := r.score[first] >= minScore && r.score[first]-r.score[second] >= minMargin
	switch {
	case sure:
		r.style = styles[first]
	case (styles[first] == tiles.Double || styles[second] == tiles.Double) && r.score[first] >= minDoubleScore:
		// Double and another close (an edge of the board or of a part,
		// a stone masked): no other style has ink on its inner line.
		ts := templates[[2]float64{p.hx, p.hy}]
		r.inner = innerInk(pts, ts[0], ts[1], r.pose[0])
		if doubleByInner(r.score, first, r.inner) {
			r.style = tiles.Double
		}
	case r.score[first] < minScore:
	case min(first, second) == 0 && max(first, second) >= 2:
		// Plain, and dashed or dotted: a joker's short gaps between
		// dashes, or dots blurred far from the camera, match almost
		// alike; the ink in the gaps tells them apart.
		k := max(first, second)
		ts := templates[[2]float64{p.hx, p.hy}]
		r.gaps = gapInk(pts, ts[0], ts[k], r.pose[k])
		switch {
		case r.gaps < 0:
		case r.gaps <= maxBrokenGaps:
			r.style = styles[k]
		case r.gaps >= minPlainGaps:
			r.style = tiles.Plain
		}
	}
	return r
}

// doubleByInner decides a close read with double one of the two best
// (first the best) on inner, the ink on its inner line: ink as dark as
// the outer line's tells; less, only with double best at minScore (a
// weaker match's inner ink is as unsure as the match).
func doubleByInner(score [len(styles)]float64, first int, inner float64) bool {
	return inner >= clearDoubleInner || styles[first] == tiles.Double && score[first] >= minScore && inner >= minDoubleInner
}

// The least ink on the inner line of a double frame (innerInk) that
// reads it as double when another style comes close: minDoubleInner when
// double matches best at minScore, clearDoubleInner when the best match
// scores minDoubleScore. A plain, dashed or dotted frame has none there.
const (
	minDoubleInner   = 0.35
	clearDoubleInner = 0.9
	minDoubleScore   = 0.40
)

// How much ink a broken frame's gaps (between dashes or dots) hold,
// against its marks: they show the colour (the blur leaves some ink),
// where a plain frame's are ink.
const (
	maxBrokenGaps = 0.6
	minPlainGaps  = 0.85
)

// gapInk measures the darkness in the gaps of the broken (dashed or
// dotted) template bt at pose, against the darkness on its marks (both
// over the background's, where the plain template pl has no ink); -1
// when too few points.
func gapInk(pts []obsPoint, pl, bt *template, pose [3]float64) float64 {
	return inkRatio(pts, pl, bt, pose, 10, func(tp, td float32) int {
		switch {
		case tp < 0.05:
			return 0 // background
		case tp > 0.6 && td > 0.6:
			return 1 // a mark
		case tp > 0.6 && td < 0.25:
			return 2 // a gap's middle
		}
		return -1
	})
}

// innerInk measures the darkness on the double template db's inner line,
// where the plain template pl has no ink, against the darkness where both
// have (the outer line), both over the background's (where neither has),
// with the templates at pose (the plain one's: centred on any frame):
// about 1 for a double frame, 0 for another; -1 when too few points.
func innerInk(pts []obsPoint, pl, db *template, pose [3]float64) float64 {
	return inkRatio(pts, pl, db, pose, 20, func(tp, td float32) int {
		switch {
		case tp < 0.1 && td < 0.1:
			return 0 // background
		case tp > 0.4 && td > 0.4:
			return 1 // the outer line
		case td > 0.4 && tp < 0.1:
			return 2 // the inner line
		}
		return -1
	})
}

// inkRatio sorts the points by region (0 background, 1 ink, 2 the part
// measured, -1 none) from templates a and b at pose, and returns the
// darkness on region 2 against that on region 1, both over region 0's;
// -1 with fewer than 20 points in region 0 or 1, or minMeasured in 2.
func inkRatio(pts []obsPoint, a, b *template, pose [3]float64, minMeasured int, region func(ta, tb float32) int) float64 {
	ca, sa := math.Cos(pose[2]*math.Pi/180), math.Sin(pose[2]*math.Pi/180)
	var sum [3]float64
	var n [3]int
	for _, p := range pts {
		x, y := float64(p.x)-pose[0], float64(p.y)-pose[1]
		qx, qy := ca*x+sa*y, -sa*x+ca*y
		if k := region(a.at(qx, qy), b.at(qx, qy)); k >= 0 {
			sum[k] += float64(p.dark)
			n[k]++
		}
	}
	if n[0] < 20 || n[1] < 20 || n[2] < minMeasured {
		return -1
	}
	bg := sum[0] / float64(n[0])
	mark := sum[1]/float64(n[1]) - bg
	if mark <= 0.05 {
		return -1
	}
	return (sum[2]/float64(n[2]) - bg) / mark
}

// zonePoints reads piece p's frame zone: its brightness (negated) every
// obsStep mm, by region (card halves, joker quarters), leaving out a stone
// at (mx, my) and its shadow when maskR > 0.
func (w *Watcher) zonePoints(p piece, mx, my, maskR float64) []obsPoint {
	// the stone's shadow falls beside it, the way the light comes from
	sx, sy := mx+shadowReach*w.shadow[0], my+shadowReach*w.shadow[1]
	var pts []obsPoint
	for y := -p.hy; y <= p.hy; y += obsStep {
		for x := -p.hx; x <= p.hx; x += obsStep {
			d := sdRoundRect(x, y, p.hx, p.hy, cornerR)
			if d > 0 || d < -zoneDepth {
				continue
			}
			tx := p.cx + p.ax*x - p.ay*y
			ty := p.cy + p.ay*x + p.ax*y
			if maskR > 0 && (math.Hypot(tx-mx, ty-my) < maskR || math.Hypot(tx-sx, ty-sy) < maskR) {
				continue
			}
			v, ok := w.value(tx, ty)
			if !ok {
				continue
			}
			var reg uint8
			if x >= 0 {
				reg = 1
			}
			if p.hx == p.hy && y >= 0 {
				reg += 2
			}
			pts = append(pts, obsPoint{x: float32(x), y: float32(y), dark: float32(-v), region: reg})
		}
	}
	return pts
}

// againstColour turns the points' brightness into darkness against the
// piece's own colour there (most of the zone): ink is dark on any colour;
// the white rim and middle line are not ink either, and count as the
// colour does.
func againstColour(pts []obsPoint) {
	var byRegion [4][]float32
	for _, q := range pts {
		byRegion[q.region] = append(byRegion[q.region], -q.dark)
	}
	var ref [4]float32
	for k, vs := range byRegion {
		if len(vs) > 0 {
			slices.Sort(vs)
			ref[k] = max(vs[len(vs)*65/100], 1)
		}
	}
	for i := range pts {
		v := -pts[i].dark
		pts[i].dark = max(0, min(1, 1-v/ref[pts[i].region]))
	}
}

// bestPose finds the shift (mm) and turn (degrees) of the piece that
// matches template t best: every mm and degree, then half steps round the
// best; it returns the correlation there and the pose.
func bestPose(pts []obsPoint, t *template) (float64, [3]float64) {
	best := -1.0
	var bx, by, ba float64
	for _, dx := range []float64{-4, -3, -2, -1, 0, 1, 2, 3, 4} {
		for _, dy := range []float64{-4, -3, -2, -1, 0, 1, 2, 3, 4} {
			for _, da := range []float64{-1, 0, 1} {
				if s := ncc(pts, t, dx, dy, da*math.Pi/180, 2); s > best {
					best, bx, by, ba = s, dx, dy, da
				}
			}
		}
	}
	for _, dx := range []float64{-0.5, 0, 0.5} {
		for _, dy := range []float64{-0.5, 0, 0.5} {
			for _, da := range []float64{-0.5, 0, 0.5} {
				if s := ncc(pts, t, bx+dx, by+dy, (ba+da)*math.Pi/180, 1); s > best {
					best = s
				}
			}
		}
	}
	return best, [3]float64{bx, by, ba}
}

// ncc correlates the observed darkness with template t for the piece
// shifted by (dx, dy) and turned by da, each region's mean removed; every
// stride-th point.
func ncc(pts []obsPoint, t *template, dx, dy, da float64, stride int) float64 {
	var so, soo, st, stt, sot, n [4]float64
	ca, sa := math.Cos(da), math.Sin(da)
	for i := 0; i < len(pts); i += stride {
		p := &pts[i]
		// the point in the true piece's axes
		x, y := float64(p.x)-dx, float64(p.y)-dy
		qx, qy := ca*x+sa*y, -sa*x+ca*y
		tv := float64(t.at(qx, qy))
		o := float64(p.dark)
		r := p.region
		so[r] += o
		soo[r] += o * o
		st[r] += tv
		stt[r] += tv * tv
		sot[r] += o * tv
		n[r]++
	}
	var cov, vo, vt float64
	for r := range 4 {
		if n[r] == 0 {
			continue
		}
		cov += sot[r] - so[r]*st[r]/n[r]
		vo += soo[r] - so[r]*so[r]/n[r]
		vt += stt[r] - st[r]*st[r]/n[r]
	}
	if vo <= 0 || vt <= 0 {
		return 0
	}
	return cov / math.Sqrt(vo*vt)
}

// value is the camera frame's brightness (the largest channel) at top
// view point (x, y) mm, interpolated.
func (w *Watcher) value(x, y float64) (float64, bool) {
	ix, iy := imagePoint(w.top.inv, x, y)
	x0, y0 := int(math.Floor(ix)), int(math.Floor(iy))
	W, H := w.smp.w, w.smp.h
	if x0 < 0 || y0 < 0 || x0+1 >= W || y0+1 >= H {
		return 0, false
	}
	fx, fy := ix-float64(x0), iy-float64(y0)
	v := func(px, py int) float64 {
		i := 3 * (py*W + px)
		return float64(max(w.pix[i], w.pix[i+1], w.pix[i+2]))
	}
	return (v(x0, y0)*(1-fx)+v(x0+1, y0)*fx)*(1-fy) + (v(x0, y0+1)*(1-fx)+v(x0+1, y0+1)*fx)*fy, true
}

// stoneCentre finds the stone on field f: the disc of a stone's size
// holding the most dark pixels, within 4 mm of the field's centre.
func (w *Watcher) stoneCentre(f tiles.Field) (float64, float64) {
	cx, cy := w.board.At(f, 0, 0)
	type pt struct{ x, y float64 }
	var dark []pt
	for v := -19.0; v <= 19; v++ {
		for u := -19.0; u <= 19; u++ {
			x, y := cx+u, cy+v
			if val, ok := w.value(x, y); ok && val < 70 {
				dark = append(dark, pt{x, y})
			}
		}
	}
	best, bx, by := -1, cx, cy
	for dv := -4.0; dv <= 4; dv += 0.5 {
		for du := -4.0; du <= 4; du += 0.5 {
			n := 0
			for _, p := range dark {
				if (p.x-cx-du)*(p.x-cx-du)+(p.y-cy-dv)*(p.y-cy-dv) < 13.5*13.5 {
					n++
				}
			}
			if n > best {
				best, bx, by = n, cx+du, cy+dv
			}
		}
	}
	return bx, by
}

// stoneMaskMM leaves out a stone's disc (14 mm) and, shadowReach mm on
// the way its shadow falls, the shadow.
const (
	stoneMaskMM = 17.0
	// a covered card half's frame, corners included, from its middle
	coveredMaskMM = 32.0
	shadowReach   = 4.0
)

// shadowOf measures the way the stones' shadows fall (a unit vector in
// the top view, or zero): round each stone on a free field the ring just
// outside its disc is darkest there.
func (w *Watcher) shadowOf(stones []tiles.Field) [2]float64 {
	var sx, sy float64
	for _, f := range stones {
		cx, cy := w.stoneCentre(f)
		var vs [36]float64
		top := 0.0
		for k := range vs {
			a := float64(k) * math.Pi / 18
			n := 0
			for r := 15.0; r <= 19; r++ {
				if v, ok := w.value(cx+r*math.Cos(a), cy+r*math.Sin(a)); ok {
					vs[k] += v
					n++
				}
			}
			if n > 0 {
				vs[k] /= float64(n)
			}
			top = math.Max(top, vs[k])
		}
		if top <= 0 {
			continue
		}
		for k, v := range vs {
			a := float64(k) * math.Pi / 18
			d := 1 - v/top
			sx += d * math.Cos(a)
			sy += d * math.Sin(a)
		}
	}
	l := math.Hypot(sx, sy)
	if l < 1 { // no clear way
		return [2]float64{}
	}
	return [2]float64{sx / l, sy / l}
}

// maxStyles bounds Watcher.Styles: the latest reads are kept.
const maxStyles = 1000

// notInView is owner's answer when the piece is not in full view: not read.
const notInView = "not in full view"

// owner reads the frame style of piece p (with a stone on field stone, or
// none) lying on fields, and returns the player of that style, or "" and
// why not.
func (w *Watcher) owner(p piece, stone *tiles.Field, fields ...tiles.Field) (string, string) {
	var mx, my, r float64
	if stone != nil {
		mx, my = w.stoneCentre(*stone)
		r = stoneMaskMM
	}
	return w.ownerMasked(p, mx, my, r, fields...)
}

// coveredOwner reads the owner of the card on f and g from the frame
// round f alone: another card covers g.
func (w *Watcher) coveredOwner(f, g tiles.Field) (string, string) {
	mx, my := w.board.At(g, 0, 0)
	return w.ownerMasked(w.cardPiece(f, g), mx, my, coveredMaskMM, f)
}

// ownerMasked reads the owner of piece p, leaving out what lies within
// r of (mx, my) (r 0: nothing), if fields are in full view.
func (w *Watcher) ownerMasked(p piece, mx, my, r float64, fields ...tiles.Field) (string, string) {
	for _, f := range fields { // read only what is in full view now
		if ft := &w.fields[f.Y][f.X]; ft.cand != ft.believed {
			return "", notInView
		}
	}
	rd := w.readStyle(p, mx, my, r)
	if len(w.Styles) >= maxStyles {
		w.Styles = w.Styles[len(w.Styles)-maxStyles/2:]
	}
	w.Styles = append(w.Styles, rd.String())
	if w.styleHook != nil {
		w.styleHook(p, rd)
	}
	if rd.style == "" {
		return "", "frame unreadable: " + rd.String()
	}
	for _, pl := range w.cfg.Players {
		if pl.Frame == rd.style {
			return pl.Name, ""
		}
	}
	return "", fmt.Sprintf("no player with a %s frame", rd.style)
}
