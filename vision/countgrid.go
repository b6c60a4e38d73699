package vision

import (
	"fmt"
	"image"
	"math"
	"math/bits"
	"slices"

	"gocv.io/x/gocv"
)

// minStep is the least step (count pixels, 1 px/mm) between the leading
// edges of two overlapping cards that countRun can tell apart.
const minStep = 8

// maxStep is the largest step between the leading edges of one run, in
// cards: cards lie apart beyond a card, and the mask keeps those apart
// unless a shadow or a loud cloth joins them. So a run as long as L holds
// at least 1 + (L - a card)/maxStep cards, which rules out counts that put
// a few edges far apart on a back whose print has stronger edges than the
// cards (stars).
const maxStep = 1.5

// sizeSlack is how far (a fraction) a card's length in the count image may
// differ from the nominal one: the calibration's homography does not
// model the lens, which shrinks the table's edges a little.
const sizeSlack = 0.15

// outlineSlack is how far (count pixels) a group's outline may lie off a
// card's edge: a shadow, the blur, the mask's closing.
const outlineSlack = 6

// countCorners counts the face-down cards of one group laid in
// overlapping rows, each row below the ones before it, so that every
// row's top edge stays in view; along a row the cards overlap either
// way. Rows are found up the first column, then the cards of each row
// along it (countRun). Cards that lie apart (a few, with gaps) count the
// same way. r bounds the group, mask marks its pixels; cw, ch are a
// card's size in img pixels.
func countCorners(img, mask gocv.Mat, r image.Rectangle, cw, ch float64) int {
	rows, ok := groupRows(img, mask, r, cw, ch)
	if !ok {
		return 1
	}
	n := 0
	for i, band := range rows {
		n += countRow(img, mask, r, i, band, cw)
	}
	return max(n, 1)
}

// groupRows returns the visible band of each row of the group in r (see
// countCorners), and false when the group is a single card.
func groupRows(img, mask gocv.Mat, r image.Rectangle, cw, ch float64) ([]image.Rectangle, bool) {
	if float64(r.Dx()) < 1.25*cw && float64(r.Dy()) < 1.25*ch {
		return nil, false
	}
	// Rows that lie apart show as gaps across the whole group (a short
	// last row still covers some of it); rows that overlap are told apart
	// by their top edges, which run straight across the whole group.
	ich := int(math.Round(ch))
	var rows []image.Rectangle // each row's visible band
	for _, seg := range runs(mask, r, false, 0.12) {
		tops := []int{0}
		if float64(seg[1]-seg[0]) >= 1.25*ch {
			pos, neg := edgeProfiles(img, mask, image.Rect(r.Min.X+3, seg[0], r.Max.X-3, seg[1]), false)
			q := forwards(seg[1]-seg[0], ch)
			q.minStep = int(0.3 * ch)
			var sp float64
			tops, sp = evenEdges(pos, q)
			if t, sn := evenEdges(neg, q); sn > sp {
				tops = t
			}
		}
		for i, t := range tops {
			top, bot := seg[0]+t, seg[1]
			if i+1 < len(tops) {
				bot = min(seg[0]+tops[i+1], top+ich)
			}
			rows = append(rows, image.Rect(r.Min.X, top+3, r.Max.X, bot-3))
		}
	}
	return rows, true
}

// countRow counts the cards of row i, whose visible band is band, of the
// group in r (see countCorners).
func countRow(img, mask gocv.Mat, r image.Rectangle, i int, band image.Rectangle, cw float64) int {
	if band.Dy() < 4 {
		return 1
	}
	n := 0
	for _, seg := range runs(mask, band, true, 0.5) {
		k := countRun(img, mask, image.Rect(seg[0], band.Min.Y, seg[1], band.Max.Y), true, cw)
		if debugCount != "" {
			fmt.Printf("group %v row %d %v: run %v: %d cards\n", r, i, band, seg, k)
		}
		n += k
	}
	return n
}

// countRun counts the cards of one run of overlapping cards that fills
// band along x (alongX) or y, whichever way they were laid: each card
// covers part of the one before, so the last card lies whole at one end
// and the others show a strip each, evenly spaced from the other end up
// to it. size is a card's length along the run.
func countRun(img, mask gocv.Mat, band image.Rectangle, alongX bool, size float64) int {
	length := band.Dx()
	if !alongX {
		length = band.Dy()
	}
	if float64(length) < 1.25*size {
		return 1
	}
	// Leading edges from the start (cards laid forwards) or up to the end
	// (backwards), the colour stepping either way across them. For k
	// cards both ways share one step, (length - size)/(k-1).
	pos, neg := edgeProfiles(img, mask, band, alongX)
	best, bestS := 1, math.Inf(-1)
	for _, q := range []edgeSearch{forwards(length, size), backwards(length, size)} {
		for _, prof := range [][]float64{pos, neg} {
			e, s := evenEdges(prof, q)
			if debugCount != "" {
				fmt.Printf("run %v dir %d: %d cards (%.1f)\n", band, q.dir, len(e), s)
			}
			if s > bestS {
				best, bestS = len(e), s
			}
		}
	}
	return best
}

// edgeSearch says where evenEdges looks for the leading edges of a run of
// cards.
type edgeSearch struct {
	first, last      int // where the first and the last edge should lie
	slack0, slack1   int // how far off each may lie
	minStep, maxStep int // the step between edges
	size, dir        int // a card's length; +1 if laid forwards, -1 if backwards
}

// forwards is the search along a run length long of cards size long,
// laid forwards: the first edge is the run's start, the last a card
// before its end.
func forwards(length int, size float64) edgeSearch {
	is := int(math.Round(size))
	return edgeSearch{first: 0, last: length - is, slack0: outlineSlack, slack1: max(outlineSlack, int(sizeSlack*size)),
		minStep: minStep, maxStep: int(maxStep * size), size: is, dir: 1}
}

// backwards is the search along a run of cards laid backwards: the first
// edge is a card after the run's start, the last its end.
func backwards(length int, size float64) edgeSearch {
	is := int(math.Round(size))
	return edgeSearch{first: is, last: length - 1, slack0: max(outlineSlack, int(sizeSlack*size)), slack1: outlineSlack,
		minStep: minStep, maxStep: int(maxStep * size), size: is, dir: -1}
}

// runs returns the stretches of r (along x when alongX, else along y)
// where the mask covers more than frac of r across, at least 12 px long.
func runs(mask gocv.Mat, r image.Rectangle, alongX bool, frac float64) [][2]int {
	r = r.Intersect(image.Rectangle{Max: image.Pt(mask.Cols(), mask.Rows())})
	a0, a1, b0, b1 := r.Min.Y, r.Max.Y, r.Min.X, r.Max.X
	if alongX {
		a0, a1, b0, b1 = r.Min.X, r.Max.X, r.Min.Y, r.Max.Y
	}
	mb, stride := maskPixels(mask)
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
				if mb[y*stride+x] > 0 {
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

// maskPixels returns the pixels of mask (8-bit, one channel) row after
// row and the length of a row, copied if mask is a view into a larger
// image.
func maskPixels(mask gocv.Mat) ([]byte, int) {
	if b, err := mask.DataPtrUint8(); err == nil {
		return b, mask.Cols()
	}
	c := mask.Clone() // continuous
	defer c.Close()
	b, _ := c.DataPtrUint8()
	return append([]byte(nil), b...), mask.Cols()
}

// maxTilt is the largest slope (across over along) of a card edge that
// edgeProfiles follows: cards spread by hand lie a few degrees askew.
const maxTilt = 0.07

// edgeProfiles are, for each line across band (columns when alongX,
// else rows), the strength of a straight edge along it, one profile for
// each way the colour may step across it. A card's leading edge runs
// straight across the whole band and steps the same way all along it
// (from the print of the card before into this card's margin), so the
// colour gradient averaged along it is strong; the print of a back
// (stars, rings, the emblem) steps both ways and only across parts of
// the band, so it cancels however strong its own edges are. Each line is
// the one, tilted by up to maxTilt, whose mean over its pixels inside
// mask is strongest. The leading edges of a run all step alike, so they
// dominate the gradients' principal colour axis; an edge stepping the
// other way along it (a margin's inner side) goes to the other profile,
// so that it does not blur the leading edge beside it.
func edgeProfiles(img, mask gocv.Mat, band image.Rectangle, alongX bool) (pos, neg []float64) {
	band = band.Intersect(image.Rectangle{Max: image.Pt(img.Cols(), img.Rows())})
	n, m := band.Dx(), band.Dy()
	if !alongX {
		n, m = m, n
	}
	pos, neg = make([]float64, max(n, 0)), make([]float64, max(n, 0))
	if n < 3 || m < 1 || img.Channels() != 3 || mask.Type() != gocv.MatTypeCV8U {
		return pos, neg
	}
	sub := img.Region(band)
	defer sub.Close()
	g := gocv.NewMat()
	defer g.Close()
	dx, dy := 1, 0
	if !alongX {
		dx, dy = 0, 1
	}
	gocv.Sobel(sub, &g, gocv.MatTypeCV32F, dx, dy, 3, 0.25, 0, gocv.BorderReplicate)
	gb, err := g.DataPtrFloat32()
	if err != nil {
		return pos, neg
	}
	// Transposed to travel i, across j, and zero outside the mask.
	mb, stride := maskPixels(mask)
	gv := make([]float32, 3*n*m)
	in := make([]bool, n*m)
	for y := range band.Dy() {
		for x := range band.Dx() {
			if mb[(band.Min.Y+y)*stride+band.Min.X+x] == 0 {
				continue
			}
			i, j := x, y
			if !alongX {
				i, j = y, x
			}
			in[j*n+i] = true
			copy(gv[3*(j*n+i):3*(j*n+i)+3], gb[3*(y*band.Dx()+x):])
		}
	}
	// The mean gradient along each line, for every tilt.
	const tilts = 7 // each way
	sums := make([][3]float64, (2*tilts+1)*n)
	shift := make([]int, m)
	var cov [3][3]float64
	for k := range 2*tilts + 1 {
		t := maxTilt * float64(k-tilts) / tilts
		for j := range m {
			shift[j] = int(math.Round(t * (float64(j) - float64(m-1)/2)))
		}
		for i := range n {
			var s [3]float32
			tot := 0
			for j, d := range shift {
				ii := i + d
				if ii < 0 || ii >= n || !in[j*n+ii] {
					continue
				}
				p := 3 * (j*n + ii)
				s[0], s[1], s[2] = s[0]+gv[p], s[1]+gv[p+1], s[2]+gv[p+2]
				tot++
			}
			// A line mostly off the cards (the run's rounded ends) is no edge.
			if 2*tot <= m {
				continue
			}
			v := [3]float64{float64(s[0]) / float64(tot), float64(s[1]) / float64(tot), float64(s[2]) / float64(tot)}
			sums[k*n+i] = v
			for a := range 3 {
				for b := range 3 {
					cov[a][b] += v[a] * v[b]
				}
			}
		}
	}
	// The principal colour axis of the edges, by power iteration.
	u := [3]float64{1, 1, 1}
	for range 20 {
		var w [3]float64
		for a := range 3 {
			w[a] = cov[a][0]*u[0] + cov[a][1]*u[1] + cov[a][2]*u[2]
		}
		l := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
		if l == 0 {
			return pos, neg
		}
		u = [3]float64{w[0] / l, w[1] / l, w[2] / l}
	}
	for k := range 2*tilts + 1 {
		for i := range n {
			v := sums[k*n+i]
			p := v[0]*u[0] + v[1]*u[1] + v[2]*u[2]
			pos[i] = math.Max(pos[i], p)
			neg[i] = math.Max(neg[i], -p)
		}
	}
	return pos, neg
}

// evenEdges chooses how many evenly spaced leading edges lie as q says
// (offsets into prof) and returns their offsets and the choice's score:
// the mean strength at the weaker half of the edges (bar the ends of
// prof, the group's outline) less the strongest value in any stretch
// between them and on to the ends. Too few edges leave strong
// ones in those stretches; too many put edges on plain card or print,
// however strong the others. Cards further apart than a card show their
// trailing edge too.
func evenEdges(prof []float64, q edgeSearch) ([]int, float64) {
	const (
		near    = 3 // an edge's width, blurred
		outline = 8 // the ends of prof: the outline, not an edge
	)
	n := len(prof)
	if n == 0 || q.last-q.first < q.minStep {
		return []int{max(q.first, 0)}, 0
	}
	env := make([]float64, n) // the strongest value within 2 px
	for i := range n {
		for d := -2; d <= 2; d++ {
			if i+d >= 0 && i+d < n {
				env[i] = max(env[i], prof[i+d])
			}
		}
	}
	top := newRangeMax(prof)
	lo, hi := outline, n-1-outline
	var edges []int
	var ons []float64
	bestK, bestF, bestL, bestS := 1, q.first, q.last, math.Inf(-1)
	for d0 := -q.slack0; d0 <= q.slack0; d0++ {
		for d1 := -q.slack1; d1 <= q.slack1; d1++ {
			f, l := q.first+d0, q.last+d1
			span := l - f
			if span < q.minStep || q.maxStep < 1 {
				continue
			}
			for k := 2 + (span-1)/q.maxStep; span >= q.minStep*(k-1); k++ {
				step := float64(span) / float64(k-1)
				edges = edges[:0]
				for j := range k {
					edges = append(edges, f+int(math.Round(step*float64(j))))
				}
				if step > float64(q.size-near) {
					// Cards apart: each card's far edge shows too.
					for j := range k {
						edges = append(edges, edges[j]+q.dir*q.size)
					}
					slices.Sort(edges)
				}
				ons = ons[:0]
				var gap float64 // 0 where there is no stretch
				prev := lo - near - 1
				for j := range len(edges) + 1 {
					x := hi + near + 1 // past the last edge: on to the end
					if j < len(edges) {
						x = edges[j]
						if x >= lo && x <= hi {
							ons = append(ons, env[x])
						}
					}
					if a, b := max(prev+near+1, lo), min(x-near-1, hi); a <= b {
						gap = max(gap, top.max(a, b))
					}
					prev = max(prev, x)
				}
				if len(ons) == 0 {
					continue
				}
				s := -0.1 * float64(abs(d0)+abs(d1)) // the outline where it lies, unless clearly not
				// The strongest print between edges, in any gap: a mean
				// over the gaps rewards more, closer edges on a back
				// printed in rows (more short gaps clear of the rows), two
				// cards counted as four.
				s -= gap
				// The weaker half's mean is at most the mean: sort only
				// when that could beat the best.
				var sum float64
				for _, v := range ons {
					sum += v
				}
				if s+sum/float64(len(ons)) <= bestS {
					continue
				}
				slices.Sort(ons)
				sum = 0
				for _, v := range ons[:(len(ons)+1)/2] {
					sum += v
				}
				s += sum / float64((len(ons)+1)/2)
				if s > bestS {
					bestK, bestF, bestL, bestS = k, f, l, s
				}
			}
		}
	}
	if math.IsInf(bestS, -1) {
		return []int{max(q.first, 0)}, 0
	}
	out := make([]int, bestK)
	for j := range bestK {
		out[j] = bestF + int(math.Round(float64(bestL-bestF)*float64(j)/float64(max(bestK-1, 1))))
	}
	return out, bestS
}

// rangeMax answers the largest value of a slice over a range in constant
// time (a sparse table).
type rangeMax [][]float64

func newRangeMax(v []float64) rangeMax {
	t := rangeMax{v}
	for w := 1; 2*w <= len(v); w *= 2 {
		prev := t[len(t)-1]
		next := make([]float64, len(prev)-w)
		for i := range next {
			next[i] = max(prev[i], prev[i+w])
		}
		t = append(t, next)
	}
	return t
}

// max is the largest value from a to b inclusive (a <= b).
func (t rangeMax) max(a, b int) float64 {
	l := bits.Len(uint(b-a+1)) - 1
	return max(t[l][a], t[l][b-(1<<l)+1])
}
