package find

import (
	"image"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Finding cards in a photo nobody calibrated: the light is uneven, the
// table may be carpet, wood grain or a wrinkled cloth, and nothing tells
// the table from a card but the card's own outline. Outlines are taken
// from several pictures of the photo (edges of the photo, edges of the
// photo with its texture smoothed away, and the photo split into bright
// and dark, saturated and grey), and an outline is kept only when the
// photo changes across it nearly all round: a card's border is a step
// from card to table on every side, while a patch of grain or a fold in a
// cloth is bounded by a step on one side at most.

// photoWorkLong is the long side, in pixels, a photo is searched at.
const photoWorkLong = 640

// Border support: how far inside and outside an outline (a fraction of
// the card's short side, at least a pixel and a half) the photo is
// compared, the step in levels that counts as a change, and the share of
// the border, and of each of three sides, that must change.
const (
	photoBorderReach = 0.04
	photoBorderStep  = 28
	photoBorderAll   = 0.7
	photoBorderSide  = 0.5
)

// A card seen from above, or from an angle a photo is taken at, is 1.25
// to 1.9 times as long as it is wide (Ligretto, UNO and playing cards are
// 1.4 to 1.55); the squares of a checked cloth are not.
const photoMinAspect, photoMaxAspect = 1.25, 1.9

// photoMinShare is the least share of the photo a card covers in
// PhotoOptions: a card photographed to be read fills more than a
// hundredth of the frame, and the smaller card-like patches are grain and
// carpet. A photo of many cards at once (a deck laid out) takes
// LayoutOptions.
const photoMinShare = 0.01

// photoMinFill is the least share of its rectangle an outline's hull
// covers: a card's corner indices and dark print cut its corners off in
// a split into bright and dark.
const photoMinFill = 0.75

// cornerSkip is the fraction of each side, at either end, left out of
// the samples along a card's border: a card's corners are rounded.
const cornerSkip = 0.15

// inPhoto finds the cards in a BGR photo taken without calibration
// (identify): see the comment above.
func inPhoto(img gocv.Mat, p Options) []Quad {
	scale := 1.0
	work := img
	if long := max(img.Cols(), img.Rows()); long > photoWorkLong {
		scale = float64(photoWorkLong) / float64(long)
		work = gocv.NewMat()
		defer work.Close()
		gocv.Resize(img, &work, image.Pt(int(float64(img.Cols())*scale+0.5), int(float64(img.Rows())*scale+0.5)), 0, 0, gocv.InterpolationArea)
	}
	wp := p
	wp.MinArea, wp.MaxArea = p.MinArea*scale*scale, p.MaxArea*scale*scale
	wp.CardW, wp.CardH = 0, 0
	wp.MinAspect, wp.MaxAspect = max(wp.MinAspect, photoMinAspect), min(wp.MaxAspect, photoMaxAspect)

	smooth := smoothPhoto(work)
	defer smooth.Close()
	pix, err := smooth.DataPtrUint8()
	if err != nil {
		return nil
	}
	maps := photoOutlineMaps(work, smooth)
	defer closeAll(maps)
	var kept, sure []candidate
	for _, c := range photoCandidates(maps, wp) {
		b := borderOf(pix, smooth.Cols(), smooth.Rows(), c.q)
		if b.share >= photoBorderAll && b.sides() >= 3 {
			kept = append(kept, c)
		}
		if b.share >= photoBorderAll && b.sides() == 4 {
			sure = append(sure, c)
		}
	}
	if size, known := photoCardSize(largestApart(sure)); known && p.StraightSides {
		for _, c := range lineCandidates(maps[1], wp) {
			if size.fits(c.q, photoSizeSlack) && borderAllRound(pix, smooth.Cols(), smooth.Rows(), c.q) {
				kept = append(kept, c)
			}
		}
	}
	out := largestApart(kept)
	if scale != 1 {
		for i, q := range out {
			for k, pt := range q {
				q[k] = image.Pt(int(float64(pt.X)/scale+0.5), int(float64(pt.Y)/scale+0.5))
			}
			out[i] = q
		}
	}
	return out
}

// smoothPhoto is the photo with carpet, grain and print smoothed away
// and the steps between card and table kept.
func smoothPhoto(work gocv.Mat) gocv.Mat {
	smooth := gocv.NewMat()
	gocv.BilateralFilter(work, &smooth, 9, 60, 7)
	gocv.MedianBlur(smooth, &smooth, 5)
	return smooth
}

// photoCandidates are the card-shaped outlines of every outline map.
func photoCandidates(maps []gocv.Mat, wp Options) []candidate {
	var cands []candidate
	for _, m := range maps {
		cands = cardCandidates(m, wp, cands)
	}
	return cands
}

func closeAll(ms []gocv.Mat) {
	for _, m := range ms {
		m.Close()
	}
}

// cardSize is a card's long and short side in a photo.
type cardSize struct{ long, short float64 }

// photoSizeSlack is how much a card's sides may differ from the photo's
// typical card: perspective makes near cards larger than far ones.
const photoSizeSlack = 0.25

// sidesOf is q's long and short side (the mean of opposite sides).
func sidesOf(q Quad) (long, short float64) {
	d := func(a, b image.Point) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) }
	s1, s2 := (d(q[0], q[1])+d(q[2], q[3]))/2, (d(q[1], q[2])+d(q[3], q[0]))/2
	return math.Max(s1, s2), math.Min(s1, s2)
}

// fits reports whether q is a card of this size, give or take slack.
func (s cardSize) fits(q Quad, slack float64) bool {
	long, short := sidesOf(q)
	return math.Abs(long-s.long) <= slack*s.long && math.Abs(short-s.short) <= slack*s.short
}

// photoCardSize is the size of the cards in a photo: the median sides of
// the cards found by their closed outlines.
func photoCardSize(found []Quad) (cardSize, bool) {
	if len(found) == 0 {
		return cardSize{}, false
	}
	longs, shorts := make([]float64, len(found)), make([]float64, len(found))
	for i, q := range found {
		longs[i], shorts[i] = sidesOf(q)
	}
	sort.Float64s(longs)
	sort.Float64s(shorts)
	return cardSize{longs[len(longs)/2], shorts[len(shorts)/2]}, true
}

// photoOutlineMaps are the binary maps whose contours are card candidates:
// the photo's edges, the smoothed photo's edges, and the smoothed photo
// split at Otsu's threshold of its brightness and of its saturation (each
// way round, so that a dark card on a light table counts as well).
func photoOutlineMaps(work, smooth gocv.Mat) []gocv.Mat {
	maps := []gocv.Mat{cardEdges(work), cardEdges(smooth)}
	grey, hsv, sat := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer grey.Close()
	defer hsv.Close()
	defer sat.Close()
	gocv.CvtColor(smooth, &grey, gocv.ColorBGRToGray)
	gocv.CvtColor(smooth, &hsv, gocv.ColorBGRToHSV)
	gocv.ExtractChannel(hsv, &sat, 1)
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(5, 5))
	defer k.Close()
	for _, ch := range []gocv.Mat{grey, sat} {
		for _, inv := range []gocv.ThresholdType{gocv.ThresholdBinary, gocv.ThresholdBinaryInv} {
			m := gocv.NewMat()
			gocv.Threshold(ch, &m, 0, 255, inv|gocv.ThresholdOtsu)
			gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
			gocv.MorphologyEx(m, &m, gocv.MorphClose, k)
			maps = append(maps, m)
		}
	}
	return maps
}

// borderAllRound reports whether the photo (BGR bytes, w x h) changes
// across q's border on most of it and on at least three of its sides.
func borderAllRound(pix []byte, w, h int, q Quad) bool {
	b := borderOf(pix, w, h, q)
	return b.share >= photoBorderAll && b.sides() >= 3
}

// border is how the photo steps across a quad's outline: the share of
// the samples on its border that step, and which sides (from q[i] to
// q[i+1]) step along most of their length with an even colour beside them.
type border struct {
	share float64
	side  [4]bool
}

func (b border) sides() int {
	n := 0
	for _, s := range b.side {
		if s {
			n++
		}
	}
	return n
}

// borderOf measures the step across q's border in the photo (BGR bytes,
// w x h).
func borderOf(pix []byte, w, h int, q Quad) border {
	var b border
	cx, cy := q.Centre()
	short := math.Min(math.Hypot(float64(q[1].X-q[0].X), float64(q[1].Y-q[0].Y)),
		math.Hypot(float64(q[2].X-q[1].X), float64(q[2].Y-q[1].Y)))
	reach := math.Max(1.5, photoBorderReach*short)
	at := func(x, y float64) (int, bool) {
		ix, iy := int(math.Round(x)), int(math.Round(y))
		if ix < 0 || iy < 0 || ix >= w || iy >= h {
			return 0, false
		}
		return 3 * (iy*w + ix), true
	}
	n, ok := 0, 0
	for i := range q {
		a, e := q[i], q[(i+1)%4]
		ax, ay, bx, by := float64(a.X), float64(a.Y), float64(e.X), float64(e.Y)
		l := math.Hypot(bx-ax, by-ay)
		if l < 1 {
			continue
		}
		ux, uy := (bx-ax)/l, (by-ay)/l
		nx, ny := -uy, ux
		if mx, my := (ax+bx)/2, (ay+by)/2; nx*(mx-cx)+ny*(my-cy) < 0 {
			nx, ny = -nx, -ny
		}
		step := math.Max(1, l/40)
		sn, sok := 0, 0
		var inside, outside [][3]int
		for s := cornerSkip * l; s <= (1-cornerSkip)*l; s += step {
			px, py := ax+s*ux, ay+s*uy
			in, ok1 := at(px-reach*nx, py-reach*ny)
			out, ok2 := at(px+reach*nx, py+reach*ny)
			if !ok1 || !ok2 {
				continue
			}
			sn++
			d := 0
			for c := range 3 {
				d += abs(int(pix[in+c]) - int(pix[out+c]))
			}
			if d >= photoBorderStep {
				sok++
			}
			inside = append(inside, [3]int{int(pix[in]), int(pix[in+1]), int(pix[in+2])})
			outside = append(outside, [3]int{int(pix[out]), int(pix[out+1]), int(pix[out+2])})
		}
		n, ok = n+sn, ok+sok
		b.side[i] = sn > 0 && float64(sok) >= photoBorderSide*float64(sn) && (evenAlong(inside) || evenAlong(outside))
	}
	if n > 0 {
		b.share = float64(ok) / float64(n)
	}
	return b
}

// photoEvenStep and photoEvenShare: along a card's side, its margin (its
// border, or its face's colour) or the plain table beside it is one
// colour: most samples lie within photoEvenStep levels of their median.
// Along a patch of carpet both are as varied, and along a patch of wood
// grain that holds only on the sides that follow the grain.
const (
	photoEvenStep  = 36
	photoEvenShare = 0.6
)

// evenAlong reports whether most colours (BGR) lie near their median.
func evenAlong(cols [][3]int) bool {
	if len(cols) == 0 {
		return false
	}
	var med [3]int
	vals := make([]int, len(cols))
	for c := range 3 {
		for i, v := range cols {
			vals[i] = v[c]
		}
		sort.Ints(vals)
		med[c] = vals[len(vals)/2]
	}
	near := 0
	for _, v := range cols {
		if abs(v[0]-med[0])+abs(v[1]-med[1])+abs(v[2]-med[2]) <= photoEvenStep {
			near++
		}
	}
	return float64(near) >= photoEvenShare*float64(len(cols))
}
