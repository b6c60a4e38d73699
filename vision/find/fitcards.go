package find

import (
	"image"
	"math"

	"gocv.io/x/gocv"
)

// Fitting cards into blobs of the table's foreground: where piles touch
// or overlap, the blob of what is not table holds several cards, and
// their outlines are not closed in the edges (a card's edge against its
// neighbour may be faint, one card may hide part of another). There,
// card-sized rectangles are fitted greedily: the best is the one whose
// outline lies on edges all round and whose inside is all foreground (the
// top card of the heap, which nothing hides); each next one may be hidden
// by the cards already fitted, but what shows of it must fit as well and
// must cover foreground that no fitted card explains.

// fitView is a mask and an edge map (255 = set), same size, row-major.
type fitView struct {
	w, h        int
	mask, edges []byte
}

func (v *fitView) at(b []byte, x, y float64) bool {
	ix, iy := int(math.Round(x)), int(math.Round(y))
	if ix < 0 || iy < 0 || ix >= v.w || iy >= v.h {
		return false
	}
	return b[iy*v.w+ix] != 0
}

// place is a card-sized rectangle: centre and turn of its short side
// from the x axis.
type place struct{ x, y, a float64 }

func (pl place) quad(cw, ch float64) Quad {
	c, s := math.Cos(pl.a), math.Sin(pl.a)
	corner := func(u, v float64) image.Point {
		return image.Pt(int(math.Round(pl.x+u*c-v*s)), int(math.Round(pl.y+u*s+v*c)))
	}
	return OrderCorners(Quad{corner(-cw/2, -ch/2), corner(cw/2, -ch/2), corner(cw/2, ch/2), corner(-cw/2, ch/2)})
}

// fitScore is how well a card fits at a place: the fraction of its
// visible outline on edges, the fraction of its visible inside that is
// foreground, how many inside samples show (are not hidden by a card
// fitted before), and the fraction of its outline that shows.
type fitScore struct {
	edge, fill float64
	shown      int
	outline    float64
	ok         bool // false: given up early, it cannot pass
}

// fitEval measures a card at pl (cw x ch) against v, sampling every step
// pixels; points inside a card of on are hidden. It gives up as soon as
// the card cannot reach minEdge or minFill.
func fitEval(v *fitView, pl place, cw, ch, step float64, on []place, minEdge, minFill float64) fitScore {
	c, s := math.Cos(pl.a), math.Sin(pl.a)
	type frame struct{ x, y, c, s float64 }
	var onF [8]frame
	fr := onF[:0]
	for _, o := range on {
		fr = append(fr, frame{o.x, o.y, math.Cos(o.a), math.Sin(o.a)})
	}
	hidden := func(x, y float64) bool {
		for _, o := range fr {
			dx, dy := x-o.x, y-o.y
			if math.Abs(dx*o.c+dy*o.s) < cw/2-0.5 && math.Abs(-dx*o.s+dy*o.c) < ch/2-0.5 {
				return true
			}
		}
		return false
	}
	sc := fitScore{}
	// The outline, 1 pixel in from the card's edge (edges are dilated).
	hw, hh := cw/2-1, ch/2-1
	nw, nh := int(math.Max(1, 2*hw/step)), int(math.Max(1, 2*hh/step))
	per := 2 * (nw + nh)
	maxMiss := (1 - minEdge) * float64(per)
	shownPer, miss := 0, 0
	sides := [4][4]float64{{-hw, -hh, hw, -hh}, {hw, -hh, hw, hh}, {hw, hh, -hw, hh}, {-hw, hh, -hw, -hh}}
	for i, sd := range sides {
		n := nw
		if i%2 == 1 {
			n = nh
		}
		du, dv := (sd[2]-sd[0])/float64(n), (sd[3]-sd[1])/float64(n)
		x, y := pl.x+sd[0]*c-sd[1]*s, pl.y+sd[0]*s+sd[1]*c
		dx, dy := du*c-dv*s, du*s+dv*c
		for range n {
			if len(fr) == 0 || !hidden(x, y) {
				shownPer++
				if !v.at(v.edges, x, y) {
					if miss++; float64(miss) > maxMiss {
						return sc
					}
				}
			}
			x, y = x+dx, y+dy
		}
	}
	if shownPer == 0 {
		return sc
	}
	sc.edge = float64(shownPer-miss) / float64(shownPer)
	sc.outline = float64(shownPer) / float64(per)
	if sc.edge < minEdge {
		return sc
	}
	nu, nv := int(cw/step)-1, int(ch/step)-1
	maxOut := (1 - minFill) * float64(nu*nv)
	out := 0
	for i := 1; i <= nu; i++ {
		u := -cw/2 + float64(i)*cw/float64(nu+1)
		x, y := pl.x+u*c+ch/2*s, pl.y+u*s-ch/2*c
		dx, dy := -ch/float64(nv+1)*s, ch/float64(nv+1)*c
		for range nv {
			x, y = x+dx, y+dy
			if len(fr) > 0 && hidden(x, y) {
				continue
			}
			sc.shown++
			if !v.at(v.mask, x, y) {
				if out++; float64(out) > maxOut {
					return sc
				}
			}
		}
	}
	if sc.shown > 0 {
		sc.fill = float64(sc.shown-out) / float64(sc.shown)
	}
	sc.ok = sc.fill >= minFill
	return sc
}

// cardSamples is how many inside samples a whole card has at step.
func cardSamples(cw, ch, step float64) int { return (int(cw/step) - 1) * (int(ch/step) - 1) }

// fitCards fits cards (cw x ch) into the foreground inside box, greedily,
// at most n of them, starting from the places already known.
func fitCards(v *fitView, box image.Rectangle, cw, ch float64, n int) []place {
	var on []place
	const minEdge, minFill = 0.8, 0.93
	good := func(sc fitScore, total int) (float64, bool) {
		if !sc.ok || sc.outline < 0.7 || float64(sc.shown) < 0.4*float64(total) {
			return 0, false
		}
		return sc.edge + 0.5*sc.fill + 0.3*sc.outline, true
	}
	full, fullFine := cardSamples(cw, ch, 3), cardSamples(cw, ch, 1.5)
	for len(on) < n {
		best, bestS := place{}, math.Inf(-1)
		for _, base := range []float64{0, math.Pi / 2} {
			for da := -0.4; da <= 0.401; da += 0.1 {
				for y := float64(box.Min.Y); y < float64(box.Max.Y); y += 3 {
					for x := float64(box.Min.X); x < float64(box.Max.X); x += 3 {
						if !v.at(v.mask, x, y) {
							continue
						}
						pl := place{x, y, base + da}
						if s, ok := good(fitEval(v, pl, cw, ch, 3, on, minEdge, minFill), full); ok && s > bestS {
							best, bestS = pl, s
						}
					}
				}
			}
		}
		if math.IsInf(bestS, -1) {
			break
		}
		// Refine around the best coarse place.
		fine, fineS := best, math.Inf(-1)
		for da := -0.05; da <= 0.051; da += 0.025 {
			for dy := -2.0; dy <= 2; dy++ {
				for dx := -2.0; dx <= 2; dx++ {
					pl := place{best.x + dx, best.y + dy, best.a + da}
					if s, ok := good(fitEval(v, pl, cw, ch, 1.5, on, minEdge, minFill), fullFine); ok && s > fineS {
						fine, fineS = pl, s
					}
				}
			}
		}
		if math.IsInf(fineS, -1) {
			fine = best
		}
		on = append(on, fine)
	}
	return on
}

// fitInBlobs fits cards into each blob of the foreground fg that is
// larger than one card, with edges the edge map; keep says which quads
// found otherwise are kept as they are (the rest, inside such a blob, are
// replaced by what is fitted there).
func fitInBlobs(fg, edges gocv.Mat, p Options) (fitted []Quad, blobs []image.Rectangle) {
	mb, err1 := fg.DataPtrUint8()
	eb, err2 := edges.DataPtrUint8()
	if err1 != nil || err2 != nil || !fg.IsContinuous() || !edges.IsContinuous() {
		return nil, nil
	}
	v := &fitView{w: fg.Cols(), h: fg.Rows(), mask: mb, edges: eb}
	card := p.CardW * p.CardH
	cs := gocv.FindContours(fg, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	for i := 0; i < cs.Size(); i++ {
		c := cs.At(i)
		area := gocv.ContourArea(c)
		if area < 1.3*card || area > 8*card {
			continue
		}
		box := gocv.BoundingRect(c)
		blobs = append(blobs, box)
		for _, pl := range fitCards(v, box, p.CardW, p.CardH, int(math.Ceil(area/card))+1) {
			fitted = append(fitted, pl.quad(p.CardW, p.CardH))
		}
	}
	return fitted, blobs
}
