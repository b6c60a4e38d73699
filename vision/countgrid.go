package vision

import (
	"fmt"
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// minStep is the least step (count pixels, 1 px/mm) between the leading
// edges of two overlapping cards that countCorners can tell apart.
const minStep = 8

// countCorners counts the face-down cards of one group laid in
// overlapping rows, each card to the right of and below the ones before
// it, so that every card's left and top edges stay in view. It finds the
// visible leading edges: the group's outline gives where the first and
// the last edge of a row (or column) lie, and of the ways to space k
// edges evenly between them it takes the one whose edges are strong and
// whose midpoints are not (a multiple of the true step puts edges on
// midpoints, a fraction of it puts them on plain card). Rows are found so
// up the first column, then the cards of each row along it. Cards that
// lie apart (a few, with gaps) count the same way. r bounds the group,
// mask marks its pixels; cw, ch are a card's size in img pixels.
func countCorners(img, mask gocv.Mat, r image.Rectangle, cw, ch float64) int {
	if float64(r.Dx()) < 1.25*cw && float64(r.Dy()) < 1.25*ch {
		return 1
	}
	bounds := image.Rectangle{Max: image.Pt(img.Cols(), img.Rows())}
	roi := r.Inset(-2).Intersect(bounds)
	sub := img.Region(roi)
	defer sub.Close()
	gx, gy := gradients(sub)
	defer gx.Close()
	defer gy.Close()
	icw, ich := int(math.Round(cw)), int(math.Round(ch))
	// Rows that lie apart show as gaps across the whole group (a short
	// last row still covers some of it); rows that overlap are told apart
	// by their top edges up the first column.
	var rows []image.Rectangle // each row's visible band
	for _, seg := range runs(mask, r, false, 0.12) {
		tops := []int{0}
		if float64(seg[1]-seg[0]) >= 1.25*ch {
			// A row's top edge runs across the whole group; the print of
			// the backs (the oval, the motif) only across part of each card.
			prof := lineProfile(gy, mask, image.Rect(r.Min.X, seg[0], r.Max.X, seg[1]), roi.Min, false)
			tops, _ = evenEdgesScore(prof, 0, seg[1]-seg[0]-ich, int(0.3*ch))
		}
		for i, t := range tops {
			top, bot := seg[0]+t, seg[1]
			if i+1 < len(tops) {
				bot = min(seg[0]+tops[i+1], top+ich)
			}
			rows = append(rows, image.Rect(r.Min.X, top+3, r.Max.X, bot-3))
		}
	}
	n := 0
	for i, band := range rows {
		if band.Dy() < 4 {
			n++
			continue
		}
		for _, seg := range runs(mask, band, true, 0.5) {
			k := 1
			if float64(seg[1]-seg[0]) >= 1.25*cw {
				k = len(evenEdges(profile(gx, image.Rect(seg[0], band.Min.Y, seg[1], band.Max.Y).Sub(roi.Min), true), 0, seg[1]-seg[0]-icw))
			}
			if debugCount != "" {
				fmt.Printf("group %v row %d %v: run %v: %d cards\n", r, i, band, seg, k)
			}
			n += k
		}
	}
	return max(n, 1)
}

// runs returns the stretches of r (along x when alongX, else along y)
// where the mask covers more than frac of r across, at least 12 px long.
func runs(mask gocv.Mat, r image.Rectangle, alongX bool, frac float64) [][2]int {
	r = r.Intersect(image.Rectangle{Max: image.Pt(mask.Cols(), mask.Rows())})
	a0, a1, b0, b1 := r.Min.Y, r.Max.Y, r.Min.X, r.Max.X
	if alongX {
		a0, a1, b0, b1 = r.Min.X, r.Max.X, r.Min.Y, r.Max.Y
	}
	var out [][2]int
	start := -1
	for a := a0; a <= a1; a++ {
		on := false
		if a < a1 {
			c := 0
			for b := b0; b < b1; b++ {
				x, y := b, a
				if alongX {
					x, y = a, b
				}
				if mask.GetUCharAt(y, x) > 0 {
					c++
				}
			}
			on = float64(c) > frac*float64(b1-b0)
		}
		switch {
		case on && start < 0:
			start = a
		case !on && start >= 0:
			if a-start >= 12 {
				out = append(out, [2]int{start, a})
			}
			start = -1
		}
	}
	return out
}

// gradients returns the magnitude of the horizontal and vertical
// gradients of a BGR image, summed over its channels (8-bit grey).
func gradients(img gocv.Mat) (gocv.Mat, gocv.Mat) {
	out := [2]gocv.Mat{}
	for i, d := range [][2]int{{1, 0}, {0, 1}} {
		s := gocv.NewMat()
		gocv.Sobel(img, &s, gocv.MatTypeCV32F, d[0], d[1], 3, 0.25, 0, gocv.BorderReplicate)
		a := gocv.NewMat()
		gocv.ConvertScaleAbs(s, &a, 1, 0)
		s.Close()
		g := gocv.NewMat()
		gocv.CvtColor(a, &g, gocv.ColorBGRToGray)
		a.Close()
		out[i] = g
	}
	return out[0], out[1]
}

// profile averages the gradient magnitude g over r across the direction
// of travel (along x when alongX), taking at each point the largest value
// within one pixel of it along the direction of travel, so that an edge
// tilted by a pixel or two still adds up.
func profile(g gocv.Mat, r image.Rectangle, alongX bool) []float64 {
	r = r.Intersect(image.Rectangle{Max: image.Pt(g.Cols(), g.Rows())})
	n, m := r.Dx(), r.Dy()
	if !alongX {
		n, m = m, n
	}
	if n <= 0 || m <= 0 {
		return nil
	}
	at := func(i, j int) float64 {
		if alongX {
			return float64(g.GetUCharAt(r.Min.Y+j, r.Min.X+i))
		}
		return float64(g.GetUCharAt(r.Min.Y+i, r.Min.X+j))
	}
	out := make([]float64, n)
	for i := range n {
		var s float64
		for j := range m {
			v := at(i, j)
			if i > 0 {
				v = math.Max(v, at(i-1, j))
			}
			if i+1 < n {
				v = math.Max(v, at(i+1, j))
			}
			s += v
		}
		out[i] = s / float64(m)
	}
	return out
}

// evenEdges chooses how many evenly spaced edges lie from first to last
// (offsets into prof; first may be a little off, by the outline's blur)
// and returns their offsets: of every count whose step is at least
// minStep, the one whose edges are strongest against their midpoints.
func evenEdges(prof []float64, first, last int) []int {
	e, _ := evenEdgesScore(prof, first, last, minStep)
	return e
}

// lineProfile is, for each line across r (rows when !alongX), the
// fraction of its pixels inside mask where the gradient g (whose origin
// is at org in mask's coordinates) is strong within a pixel along the
// direction of travel: an edge that runs all the way across scores 1.
func lineProfile(g, mask gocv.Mat, r image.Rectangle, org image.Point, alongX bool) []float64 {
	r = r.Intersect(image.Rectangle{Min: org, Max: org.Add(image.Pt(g.Cols(), g.Rows()))})
	n, m := r.Dx(), r.Dy()
	if !alongX {
		n, m = m, n
	}
	out := make([]float64, max(n, 0))
	const strong = 25
	for i := range n {
		on, in := 0, 0
		for j := range m {
			x, y := r.Min.X+i, r.Min.Y+j
			if !alongX {
				x, y = r.Min.X+j, r.Min.Y+i
			}
			if mask.GetUCharAt(y, x) == 0 {
				continue
			}
			in++
			for d := -1; d <= 1; d++ {
				xx, yy := x-org.X, y-org.Y
				if alongX {
					xx += d
				} else {
					yy += d
				}
				if xx >= 0 && yy >= 0 && xx < g.Cols() && yy < g.Rows() && g.GetUCharAt(yy, xx) > strong {
					on++
					break
				}
			}
		}
		if in > 0 {
			out[i] = float64(on) / float64(in)
		}
	}
	return out
}

// evenEdgesScore is evenEdges with the score of its choice (mean edge
// strength less mean midpoint strength; 0 for a single edge).
func evenEdgesScore(prof []float64, first, last, minStep int) ([]int, float64) {
	first = max(first, 0)
	if last-first < minStep || len(prof) == 0 {
		return []int{first}, 0
	}
	peakIn := func(x float64, w int) float64 { // the strongest value within w of x
		best := 0.0
		for i := int(math.Round(x)) - w; i <= int(math.Round(x))+w; i++ {
			if i >= 0 && i < len(prof) {
				best = math.Max(best, prof[i])
			}
		}
		return best
	}
	// The score of k edges: the mean strength at the edges that are not
	// the group's outline (the ends of prof), less the mean strength
	// elsewhere (its mean, its top fifth away from every edge, or the
	// midpoints, whichever is stronger). Too few edges leave strong ones between them, too many
	// put edges on plain card. The outline may lie a few pixels off the
	// first and the last edge (a shadow, a blurred or ragged border): each
	// may shift by up to maxShift, at a small cost.
	const maxShift = 6
	var offs []float64
	bestK, bestF, bestL, bestS := 1, first, last, math.Inf(-1)
	for d0 := -maxShift; d0 <= maxShift; d0++ {
		for d1 := -maxShift; d1 <= maxShift; d1++ {
			f, l := first+d0, last+d1
			span := l - f
			for k := 2; span >= minStep && float64(span)/float64(k-1) >= float64(minStep); k++ {
				step := float64(span) / float64(k-1)
				mw := 2
				if step < 20 {
					mw = 1
				}
				var on, off, mid float64
				var nOn, nOff int
				offs = offs[:0]
				for j := range k {
					x := float64(f) + step*float64(j)
					if x >= 8 && x <= float64(len(prof)-9) { // not the outline
						on += peakIn(x, 2)
						nOn++
					}
					if j+1 < k {
						mid += peakIn(x+step/2, mw)
					}
				}
				// Between them, and beyond them (a whole card) to the outline.
				for i := 8; i < len(prof)-8; i++ {
					j := math.Max(0, math.Min(float64(k-1), math.Round(float64(i-f)/step)))
					if math.Abs(float64(i-f)-j*step) > 3 {
						off += prof[i]
						nOff++
						offs = append(offs, prof[i])
					}
				}
				if nOn == 0 || nOff == 0 {
					continue
				}
				// A strong edge left between the chosen ones shows in the
				// top fifth of the values between them.
				slices.Sort(offs)
				hi := offs[len(offs)*4/5]
				s := on/float64(nOn) - max(off/float64(nOff), mid/float64(k-1), hi)
				s -= 0.1 * float64(abs(d0)+abs(d1)) // the outline where it lies, unless clearly not
				if s > bestS {
					bestK, bestF, bestL, bestS = k, f, l, s
				}
			}
		}
	}
	if math.IsInf(bestS, -1) {
		return []int{first}, 0
	}
	out := make([]int, bestK)
	for j := range bestK {
		out[j] = bestF + int(math.Round(float64(bestL-bestF)*float64(j)/float64(max(bestK-1, 1))))
	}
	return out, bestS
}
