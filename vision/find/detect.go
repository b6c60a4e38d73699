package find

import (
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// inEdges finds card-shaped quadrilaterals in a BGR image: closed edges
// around regions that contrast with what lies around them, simplified to
// four corners, with a card's aspect ratio. Nested finds are kept only
// when the inner one is clearly a different card (a pile's top card lies
// inside the pile's outline and is the one returned).
func inEdges(img gocv.Mat, o Options) []Quad {
	edges := cardEdges(img)
	defer edges.Close()
	return cardsInEdges(edges, o)
}

// offTable is inEdges for an image of the table with the empty table bg
// (same size and scale) to compare with. Edges are kept only near what
// differs from the table, so a textured table (wood grain, a cloth's
// weave) cannot join a card's outline to its own lines, and where a card
// meets the table the outline is closed by the edge of what differs from
// the table, even where the card's colour is close to the table's (yellow
// on beige). Two or three touching piles then make one closed outline,
// which is split by the card size. Where o.Plain marks the table without
// texture to show, a card also stands out from the table by its hue alone
// (see hueDiffMask). With o.Fit, cards are also fitted into heaps of
// touching piles: what is split also by the cards' own edges (a card's
// border against its neighbour) is found as each card's outline.
func offTable(img, bg gocv.Mat, o Options) []Quad {
	edges, fg := offTableEdges(img, bg, o.Plain)
	defer edges.Close()
	defer fg.Close()
	found := cardsInEdges(edges, o)
	if !o.Fit || o.CardW <= 0 {
		return found
	}
	// Where piles touch or overlap, cards fitted into the blob add what
	// the outlines missed: a fitted card is kept unless its centre lies in
	// an outline found in the edges (those are read more reliably).
	fitted, _ := fitInBlobs(fg, edges, o)
	return dedupQuads(fitted, found)
}

// offTableEdges is the edge map of img near what differs from the empty
// table bg, with the outline of that difference, and the difference mask
// (plain: see Options.Plain).
func offTableEdges(img, bg gocv.Mat, plain *gocv.Mat) (edges, fg gocv.Mat) {
	edges = cardEdges(img)
	fg = tableForeground(img, bg, plain)
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k.Close()
	near := gocv.NewMat()
	defer near.Close()
	gocv.DilateWithParams(fg, &near, k, image.Pt(-1, -1), 2, gocv.BorderConstant, color.RGBA{})
	gocv.BitwiseAnd(edges, near, &edges)
	rim := gocv.NewMat()
	defer rim.Close()
	gocv.MorphologyEx(fg, &rim, gocv.MorphGradient, k)
	// A card cut by the image's border is closed along the border too.
	w, h := fg.Cols(), fg.Rows()
	for _, r := range []image.Rectangle{image.Rect(0, 0, w, 1), image.Rect(0, h-1, w, h), image.Rect(0, 0, 1, h), image.Rect(w-1, 0, w, h)} {
		a, b := fg.Region(r), rim.Region(r)
		gocv.BitwiseOr(a, b, &b)
		a.Close()
		b.Close()
	}
	gocv.BitwiseOr(edges, rim, &edges)
	return edges, fg
}

// dedupQuads appends to kept each quad of qs whose centre lies in no quad
// kept so far.
func dedupQuads(qs, kept []Quad) []Quad {
	for _, q := range qs {
		x, y := q.Centre()
		inside := false
		for _, k := range kept {
			if k.Contains(x, y) {
				inside = true
				break
			}
		}
		if !inside {
			kept = append(kept, q)
		}
	}
	return kept
}

// tableForeground is the mask (255) of pixels of img that differ from the
// empty table bg: the largest difference over the colour channels, so that
// a card whose brightness is the table's still differs in hue; and where
// plain (8-bit, or nil) marks the table plain, the pixels whose hue
// differs from the table's (hueDiffMask).
func tableForeground(img, bg gocv.Mat, plain *gocv.Mat) gocv.Mat {
	m := ChannelDiffMask(img, bg, ForegroundStep)
	if h, ok := hueDiffMask(img, bg, plain, hueThreshold); ok {
		gocv.BitwiseOr(m, h, &m)
		h.Close()
	}
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k.Close()
	gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
	gocv.MorphologyEx(m, &m, gocv.MorphClose, k)
	// Holes are foreground too: a card's white numeral may look like the
	// table.
	cs := gocv.FindContours(m, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	gocv.DrawContours(&m, cs, -1, color.RGBA{255, 255, 255, 0}, -1)
	cs.Close()
	return m
}

// ChannelDiffMask is the mask (255) of pixels where img and bg (BGR, same
// size) differ by more than thresh in at least one colour channel: a card
// as bright as the table still differs in hue.
func ChannelDiffMask(img, bg gocv.Mat, thresh float32) gocv.Mat {
	d := gocv.NewMat()
	defer d.Close()
	gocv.AbsDiff(img, bg, &d)
	chans := gocv.Split(d)
	m := gocv.NewMat()
	gocv.Max(chans[0], chans[1], &m)
	gocv.Max(m, chans[2], &m)
	for _, c := range chans {
		c.Close()
	}
	gocv.Threshold(m, &m, thresh, 255, gocv.ThresholdBinary)
	return m
}

// ForegroundStep is the least difference from the empty table, in 8-bit
// levels of one channel, of a pixel that is not table (noise, light
// drift and soft shadows stay below it).
const ForegroundStep = 40

// hueThreshold is the least difference from the empty table, in 8-bit
// levels, across the table's colour (see hueDiffMask), of a pixel of
// plain table that is not table: a green card on green felt stays under
// ForegroundStep in every channel but not across the felt's colour. Plain
// tables only: grain that varies in hue (wood, linen) would pass it.
const hueThreshold = 32

// hueDiffMask is the mask (255) of the pixels of img, where plain (8-bit,
// img's size) is not zero, whose colour differs from the empty table bg's
// by more than thresh levels across bg's colour: the part of the
// difference that no change of brightness (a shadow, a drift of the
// light) makes. It reports false, and no mask, when plain is nil or
// does not fit.
func hueDiffMask(img, bg gocv.Mat, plain *gocv.Mat, thresh float64) (gocv.Mat, bool) {
	w, h := img.Cols(), img.Rows()
	if plain == nil || plain.Empty() || plain.Cols() != w || plain.Rows() != h || plain.Type() != gocv.MatTypeCV8U ||
		img.Type() != gocv.MatTypeCV8UC3 || bg.Type() != gocv.MatTypeCV8UC3 ||
		!img.IsContinuous() || !bg.IsContinuous() || !plain.IsContinuous() {
		return gocv.Mat{}, false
	}
	a, err1 := img.DataPtrUint8()
	b, err2 := bg.DataPtrUint8()
	pl, err3 := plain.DataPtrUint8()
	if err1 != nil || err2 != nil || err3 != nil {
		return gocv.Mat{}, false
	}
	m := gocv.Zeros(h, w, gocv.MatTypeCV8U)
	o, err := m.DataPtrUint8()
	if err != nil {
		m.Close()
		return gocv.Mat{}, false
	}
	// The part of d = img-bg across b = bg+1 (black has a direction too)
	// is |d×b|/|b|; in integers, and only where |d| itself could pass.
	t2 := int64(thresh * thresh)
	for i, isPlain := range pl {
		if isPlain == 0 {
			continue
		}
		j := 3 * i
		d0, d1, d2 := int64(a[j])-int64(b[j]), int64(a[j+1])-int64(b[j+1]), int64(a[j+2])-int64(b[j+2])
		if d0*d0+d1*d1+d2*d2 <= t2 {
			continue
		}
		b0, b1, b2 := int64(b[j])+1, int64(b[j+1])+1, int64(b[j+2])+1
		c0, c1, c2 := d1*b2-d2*b1, d2*b0-d0*b2, d0*b1-d1*b0
		if c0*c0+c1*c1+c2*c2 > t2*(b0*b0+b1*b1+b2*b2) {
			o[i] = 255
		}
	}
	return m, true
}

// cardEdges is the dilated edge map of img: edges in brightness and in
// saturation (brightness alone misses yellow on white).
func cardEdges(img gocv.Mat) gocv.Mat {
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
	gocv.Canny(grey, &edges, 30, 90)
	satEdges := gocv.NewMat()
	defer satEdges.Close()
	gocv.Canny(sat, &satEdges, 30, 90)
	gocv.BitwiseOr(edges, satEdges, &edges)
	kernel := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer kernel.Close()
	gocv.Dilate(edges, &edges, kernel)
	return edges
}

// cardsInEdges finds the card outlines in an edge map (see inEdges).
func cardsInEdges(edges gocv.Mat, p Options) []Quad {
	return largestApart(cardCandidates(edges, p, nil))
}

// candidate is a card-shaped outline and the area it is ranked by.
type candidate struct {
	q    Quad
	area float64
}

// cardCandidates appends to cands every card-shaped outline in an edge
// map: every closed outline, and the outer hull of each connected group
// of edges.
func cardCandidates(edges gocv.Mat, p Options, cands []candidate) []candidate {
	type found = candidate
	consider := func(c gocv.PointVector) {
		hull := gocv.NewMat()
		defer hull.Close()
		gocv.ConvexHull(c, &hull, true, true)
		hpts := gocv.NewPointVectorFromMat(hull)
		defer hpts.Close()
		area := gocv.ContourArea(hpts)
		if p.CardW > 0 && area > 1.6*p.CardW*p.CardH && area < 4*p.CardW*p.CardH {
			var qs []Quad
			if area < 3*p.CardW*p.CardH {
				qs = splitTwo(c.ToPoints(), p.CardW, p.CardH)
			}
			if qs == nil && area > 2.3*p.CardW*p.CardH {
				qs = splitThree(c.ToPoints(), p.CardW, p.CardH)
			}
			for _, q := range qs {
				cands = append(cands, found{q, p.CardW * p.CardH})
			}
			return
		}
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
		minFill := p.MinFill
		if minFill == 0 {
			minFill = 0.85
		}
		if area < minFill*w*h { // a card's outline fills its bounding rectangle
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
	return cands
}

// largestApart keeps the candidates largest first, dropping one whose
// centre lies in a card already kept: it is part of that card's print (its
// inner frame, its numeral). A pile's top card that sits askew is kept,
// because then the pile's outline is no rectangle and was never a
// candidate.
func largestApart(cands []candidate) []Quad {
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

// splitTwo splits the outline of two touching cards (each cw x ch
// pixels, at any small angle) into the two cards' outlines, or returns nil
// when it is not two cards. The pair lies along the outline's long axis
// and touches about halfway along it; each half of the outline's points
// then bounds one card, which must be card-sized.
func splitTwo(contour []image.Point, cw, ch float64) []Quad {
	ux, uy, ok := longAxis(contour)
	if !ok {
		return nil
	}
	pts := outlinePoints(contour)
	// The line between the cards is across the axis, perhaps a little
	// turned (each card may be turned) and off the middle: try a few and
	// keep the one that leaves two halves most like a card. The halves are
	// sized in Go (minRect); OpenCV draws the chosen two.
	sorted := sortedPoints(pts)
	ts := make([]float64, len(sorted))
	sel := make([]image.Point, 0, len(sorted))
	hull := make([]image.Point, 0, len(sorted)+1)
	bestCost := math.Inf(1)
	var bestDX, bestDY, bestMid float64
	for _, turn := range []float64{-0.3, -0.15, 0, 0.15, 0.3} {
		dx, dy := ux*math.Cos(turn)-uy*math.Sin(turn), ux*math.Sin(turn)+uy*math.Cos(turn)
		t0, t1 := math.Inf(1), math.Inf(-1)
		for i, p := range sorted {
			t := float64(p.X)*dx + float64(p.Y)*dy
			ts[i] = t
			if t < t0 {
				t0 = t
			}
			if t > t1 {
				t1 = t
			}
		}
		for off := -10.0; off <= 10; off++ {
			mid := (t0+t1)/2 + off
			cost := 0.0
			var centres [2][2]float64
			for half := range 2 {
				sel = sel[:0]
				for i, p := range sorted {
					if (half == 0) == (ts[i] <= mid) {
						sel = append(sel, p)
					}
				}
				if len(sel) < 4 {
					cost = math.Inf(1)
					break
				}
				w, h, cx, cy := minRect(hullOfSorted(sel, hull))
				long, short := math.Max(w, h), math.Min(w, h)
				if long < 0.85*ch || long > 1.2*ch || short < 0.8*cw || short > 1.25*cw {
					cost = math.Inf(1)
					break
				}
				// An outline of edges may be a few pixels wider than the
				// card; a straight cut is likelier than a turned one.
				cost += math.Max(0, math.Abs(long-ch-2)-4) + math.Max(0, math.Abs(short-cw-2)-4) + 10*math.Abs(turn)
				centres[half] = [2]float64{cx, cy}
			}
			if !math.IsInf(cost, 1) && math.Hypot(centres[0][0]-centres[1][0], centres[0][1]-centres[1][1]) < 0.8*cw {
				cost = math.Inf(1) // the halves overlap: one card, not two
			}
			if cost < bestCost {
				bestCost, bestDX, bestDY, bestMid = cost, dx, dy, mid
			}
		}
	}
	if math.IsInf(bestCost, 1) {
		return nil
	}
	out := make([]Quad, 0, 2)
	for half := range 2 {
		sel = sel[:0]
		for _, p := range pts {
			if (half == 0) == (float64(p.X)*bestDX+float64(p.Y)*bestDY <= bestMid) {
				sel = append(sel, p)
			}
		}
		hv := gocv.NewPointVectorFromPoints(sel)
		r := gocv.MinAreaRect(hv)
		hv.Close()
		if len(r.Points) != 4 {
			return nil
		}
		var q Quad
		copy(q[:], r.Points)
		out = append(out, OrderCorners(q))
	}
	return out
}

// splitThree splits the outline of three cards in a row, touching (three
// piles side by side), into the three cards' outlines, or returns nil when
// it is not three cards. Each end card is cut off where the part left
// beyond the cut is most like a card; what lies between must be a card too.
func splitThree(contour []image.Point, cw, ch float64) []Quad {
	ux, uy, ok := longAxis(contour)
	if !ok {
		return nil
	}
	pts := outlinePoints(contour)
	var out []Quad
	bestCost := math.Inf(1)
	for _, turn := range []float64{-0.15, 0, 0.15} {
		dx, dy := ux*math.Cos(turn)-uy*math.Sin(turn), ux*math.Sin(turn)+uy*math.Cos(turn)
		t0, t1 := math.Inf(1), math.Inf(-1)
		ts := make([]float64, len(pts))
		for i, p := range pts {
			ts[i] = float64(p.X)*dx + float64(p.Y)*dy
			t0, t1 = math.Min(t0, ts[i]), math.Max(t1, ts[i])
		}
		part := func(a, b float64) (Quad, float64) {
			var sel []image.Point
			for i, p := range pts {
				if ts[i] > a && ts[i] <= b {
					sel = append(sel, p)
				}
			}
			return cardOf(sel, cw, ch)
		}
		span := t1 - t0
		cut := func(from float64, dir float64) (float64, Quad, float64) {
			bestC, bestQ, best := 0.0, Quad{}, math.Inf(1)
			for off := -8.0; off <= 8; off += 2 {
				c := from + dir*(span/3+off)
				var q Quad
				var cost float64
				if dir > 0 {
					q, cost = part(math.Inf(-1), c)
				} else {
					q, cost = part(c, math.Inf(1))
				}
				if cost < best {
					bestC, bestQ, best = c, q, cost
				}
			}
			return bestC, bestQ, best
		}
		c1, q1, k1 := cut(t0, 1)
		c2, q3, k3 := cut(t1, -1)
		if math.IsInf(k1+k3, 1) || c2-c1 < 0.5*cw {
			continue
		}
		q2, k2 := part(c1, c2)
		cost := k1 + k2 + k3 + 10*math.Abs(turn)
		if cost < bestCost {
			bestCost, out = cost, []Quad{q1, q2, q3}
		}
	}
	for i := 0; i+1 < len(out); i++ {
		ax, ay := out[i].Centre()
		bx, by := out[i+1].Centre()
		if math.Hypot(ax-bx, ay-by) < 0.8*cw {
			return nil // neighbours overlap: not three cards
		}
	}
	return out
}

// longAxis is the unit vector along the long side of the outline's
// smallest bounding rectangle.
func longAxis(contour []image.Point) (float64, float64, bool) {
	if len(contour) < 4 {
		return 0, 0, false
	}
	pv := gocv.NewPointVectorFromPoints(contour)
	rect := gocv.MinAreaRect(pv)
	pv.Close()
	if len(rect.Points) != 4 {
		return 0, 0, false
	}
	a, b, c := rect.Points[0], rect.Points[1], rect.Points[2]
	ux, uy := float64(b.X-a.X), float64(b.Y-a.Y)
	if l1, l2 := math.Hypot(ux, uy), math.Hypot(float64(c.X-b.X), float64(c.Y-b.Y)); l2 > l1 {
		ux, uy = float64(c.X-b.X), float64(c.Y-b.Y)
	}
	n := math.Hypot(ux, uy)
	if n == 0 {
		return 0, 0, false
	}
	return ux / n, uy / n, true
}

// outlinePoints is the outline with a point every pixel along it.
func outlinePoints(contour []image.Point) []image.Point {
	var pts []image.Point
	for i, p := range contour {
		q := contour[(i+1)%len(contour)]
		steps := max(abs(q.X-p.X), abs(q.Y-p.Y), 1)
		for k := range steps {
			pts = append(pts, image.Pt(p.X+(q.X-p.X)*k/steps, p.Y+(q.Y-p.Y)*k/steps))
		}
	}
	return pts
}

// cardOf is the smallest rectangle round pts and how unlike a cw x ch
// card it is (+Inf when it is no card at all).
func cardOf(pts []image.Point, cw, ch float64) (Quad, float64) {
	if len(pts) < 4 {
		return Quad{}, math.Inf(1)
	}
	hv := gocv.NewPointVectorFromPoints(pts)
	r := gocv.MinAreaRect(hv)
	hv.Close()
	w, h := float64(r.Width), float64(r.Height)
	long, short := math.Max(w, h), math.Min(w, h)
	if len(r.Points) != 4 || long < 0.85*ch || long > 1.2*ch || short < 0.8*cw || short > 1.25*cw {
		return Quad{}, math.Inf(1)
	}
	var q Quad
	copy(q[:], r.Points)
	return OrderCorners(q), math.Max(0, math.Abs(long-ch-2)-4) + math.Max(0, math.Abs(short-cw-2)-4)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
