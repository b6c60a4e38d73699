package vision

import (
	"image"
	"math"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// count reads the table after a stop: the centre cards lie face down in
// groups by back, each player's Ligretto stack lies spread face down in
// their seat. Cards overlap at a regular step, so a group's count follows
// from its extent and the step, which the repetition of the card backs
// along the group gives.
func (p *Pipeline) count(frame gocv.Mat, tMS int64) []referee.Observation {
	centre := map[string]int{}
	stack := map[string]int{}
	if !p.bg.Empty() {
		p.countGroups(frame, centre, stack)
	}
	var obs []referee.Observation
	stopper := ""
	for _, n := range p.names {
		if stack[n] == 0 {
			if stopper != "" {
				stopper = ""
				break
			}
			stopper = n
		}
	}
	obs = append(obs, referee.Observation{Kind: referee.ObsStop, TimeMS: tMS, Player: stopper, By: "camera"})
	for _, n := range p.names {
		obs = append(obs,
			referee.Observation{Kind: referee.ObsCentre, TimeMS: tMS, Player: n, Count: min(centre[n], 40), By: "camera"},
			referee.Observation{Kind: referee.ObsStackLeft, TimeMS: tMS, Player: n, Count: min(stack[n], 10), By: "camera"})
	}
	return append(obs, referee.Observation{Kind: referee.ObsRoundEnd, TimeMS: tMS, By: "camera"})
}

// debugCount, when set, is where the count images are written.
var debugCount = ""

// countScale is the scale (px/mm) at which groups are counted.
const countScale = 1.0

func (p *Pipeline) countGroups(frame gocv.Mat, centre, stack map[string]int) {
	h := p.cal.H().Scale(countScale / p.cal.Scale())
	hm := homMat(h)
	defer hm.Close()
	size := image.Pt(int(float64(p.cal.TableW)*countScale/p.cal.Scale()), int(float64(p.cal.TableH)*countScale/p.cal.Scale()))
	img := gocv.NewMat()
	defer img.Close()
	gocv.WarpPerspectiveWithParams(frame, &img, hm, size, gocv.InterpolationLinear, gocv.BorderReplicate, color0)
	bg := gocv.NewMat()
	defer bg.Close()
	gocv.Resize(p.bg, &bg, size, 0, 0, gocv.InterpolationLinear)
	mask := foreground(img, bg)
	defer mask.Close()
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(5, 5))
	defer k.Close()
	gocv.MorphologyEx(mask, &mask, gocv.MorphClose, k)
	if debugCount != "" {
		gocv.IMWrite(debugCount+"_mask.png", mask)
		gocv.IMWrite(debugCount+"_img.png", img)
	}
	cs := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	cw, ch := calibration.CardWMM*countScale, calibration.CardHMM*countScale
	tableScale := p.cal.Scale() / countScale // count px -> table image px
	for i := 0; i < cs.Size(); i++ {
		c := cs.At(i)
		if gocv.ContourArea(c) < 0.5*cw*ch {
			continue
		}
		r := gocv.BoundingRect(c)
		mid := calibration.Point{X: float64(r.Min.X+r.Max.X) / 2 * tableScale, Y: float64(r.Min.Y+r.Max.Y) / 2 * tableScale}
		if p.cal.Centre.Contains(mid) {
			n := countGrid(img, mask, r, cw, ch)
			// Whose: the last card (bottom right) lies whole.
			band := image.Rect(r.Min.X, r.Max.Y-int(ch*0.8), r.Max.X, r.Max.Y)
			_, x1 := extent(mask, band)
			last := image.Rect(x1-int(cw), r.Max.Y-int(ch), x1, r.Max.Y)
			if who := p.whoseBack(frame, h, last); who != "" {
				centre[who] += n
			}
			continue
		}
		for si, s := range p.cal.Seats {
			if !s.Zone.Contains(mid) {
				continue
			}
			// Along the seat's edge: horizontal for seats at the top or bottom.
			horizontal := true
			if s.At != nil {
				y0, y1 := math.Inf(1), math.Inf(-1)
				for _, c := range p.cal.Centre {
					y0, y1 = math.Min(y0, c.Y), math.Max(y1, c.Y)
				}
				horizontal = s.At.Y < y0 || s.At.Y > y1
			}
			stack[p.names[si]] += countRow(img, mask, r, cw, horizontal)
		}
	}
}

// whoseBack reads the back in rect r of the count image (homography h from
// the camera) and names its owner.
func (p *Pipeline) whoseBack(frame gocv.Mat, h calibration.Homography, r image.Rectangle) string {
	inv := h.Inverse()
	var q Quad
	for i, pt := range []image.Point{r.Min, {r.Max.X, r.Min.Y}, r.Max, {r.Min.X, r.Max.Y}} {
		c := inv.Apply(calibration.Point{X: float64(pt.X), Y: float64(pt.Y)})
		q[i] = image.Pt(int(math.Round(c.X)), int(math.Round(c.Y)))
	}
	crop, err := cropFromCamera(frame, q, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
	if err != nil {
		return ""
	}
	preds, err := p.pred.Classify([]model.Crop{crop})
	if err != nil {
		return ""
	}
	k, _ := model.Nearest(preds[0].Embedding, p.protos)
	if k < 0 {
		return ""
	}
	return p.names[k]
}

// countGrid counts cards laid in overlapping rows (each row shifted down
// by a step, each card in a row shifted right by a step).
func countGrid(img, mask gocv.Mat, r image.Rectangle, cw, ch float64) int {
	rows := 1
	sy := ch
	if float64(r.Dy()) > 1.15*ch {
		sy = period(img, r, false, float64(r.Dy())-ch)
		rows = int(math.Round((float64(r.Dy())-ch)/sy)) + 1
	}
	n := 0
	for k := range rows {
		y0 := r.Min.Y + int(float64(k)*sy)
		y1 := y0 + int(math.Min(sy, ch))
		if k == rows-1 {
			y1 = r.Max.Y
		}
		band := image.Rect(r.Min.X, y0, r.Max.X, y1).Intersect(r)
		// The row's extent: columns mostly covered by cards.
		x0, x1 := extent(mask, band)
		if x1-x0 < int(0.5*cw) {
			continue
		}
		row := image.Rect(x0, band.Min.Y, x1, band.Max.Y)
		n += countRow(img, mask, row, cw, true)
	}
	return n
}

// countRow counts cards overlapping along one axis within r.
func countRow(img, mask gocv.Mat, r image.Rectangle, cw float64, horizontal bool) int {
	length := float64(r.Dx())
	if !horizontal {
		length = float64(r.Dy())
	}
	if length < 1.15*cw {
		return 1
	}
	step := period(img, r, horizontal, length-cw)
	return int(math.Round((length-cw)/step)) + 1
}

// extent is the first and last column of band with cards in most rows.
func extent(mask gocv.Mat, band image.Rectangle) (int, int) {
	x0, x1 := -1, -1
	for x := band.Min.X; x < band.Max.X; x++ {
		on := 0
		for y := band.Min.Y; y < band.Max.Y; y++ {
			if mask.GetUCharAt(y, x) > 0 {
				on++
			}
		}
		if 2*on > band.Dy() {
			if x0 < 0 {
				x0 = x
			}
			x1 = x + 1
		}
	}
	return x0, x1
}

// period finds the step at which the picture in r repeats along the axis,
// from the autocorrelation of its mean colour profile; the step is at most
// maxStep (the group's extent beyond one card).
func period(img gocv.Mat, r image.Rectangle, horizontal bool, span float64) float64 {
	n := r.Dx()
	if !horizontal {
		n = r.Dy()
	}
	prof := make([][3]float64, n)
	for i := range n {
		var s [3]float64
		cnt := 0
		if horizontal {
			x := r.Min.X + i
			for y := r.Min.Y; y < r.Max.Y; y += 2 {
				v := img.GetVecbAt(y, x)
				s[0], s[1], s[2] = s[0]+float64(v[0]), s[1]+float64(v[1]), s[2]+float64(v[2])
				cnt++
			}
		} else {
			y := r.Min.Y + i
			for x := r.Min.X; x < r.Max.X; x += 2 {
				v := img.GetVecbAt(y, x)
				s[0], s[1], s[2] = s[0]+float64(v[0]), s[1]+float64(v[1]), s[2]+float64(v[2])
				cnt++
			}
		}
		for c := range 3 {
			prof[i][c] = s[c] / float64(max(cnt, 1))
		}
	}
	// Gradient of the profile: the edges of each card repeat.
	d := make([]float64, n)
	for i := 1; i < n; i++ {
		for c := range 3 {
			d[i] += math.Abs(prof[i][c] - prof[i-1][c])
		}
	}
	var mean float64
	for _, v := range d {
		mean += v / float64(n)
	}
	for i := range d {
		d[i] -= mean
	}
	minLag := 6
	maxLag := int(math.Min(span, 0.7*float64(n)))
	if maxLag < minLag {
		return math.Max(span, 1)
	}
	ac := make([]float64, maxLag+2)
	best := math.Inf(-1)
	for lag := minLag; lag <= maxLag+1 && lag < n; lag++ {
		var s float64
		for i := 0; i+lag < n; i++ {
			s += d[i] * d[i+lag]
		}
		ac[lag] = s / float64(n-lag)
		if lag <= maxLag {
			best = math.Max(best, ac[lag])
		}
	}
	// The first clear peak: multiples of the step correlate as well.
	for lag := minLag; lag <= maxLag; lag++ {
		if ac[lag] >= 0.7*best && ac[lag] >= ac[lag-1] && ac[lag] >= ac[lag+1] {
			return float64(lag)
		}
	}
	return math.Max(span, 1)
}
