package vision

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
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
	stopper, empty := "", 0
	for _, n := range p.names {
		if stack[n] == 0 {
			stopper = n
			empty++
		}
	}
	switch {
	case empty == 0 && !p.bg.Empty():
		// Every stack still holds cards: nobody could call the stop, so
		// the round ended because nobody could play (C17).
		obs = append(obs, referee.Observation{Kind: referee.ObsDeadlock, TimeMS: tMS, By: "camera"})
	case empty == 1:
		obs = append(obs, referee.Observation{Kind: referee.ObsStop, TimeMS: tMS, Player: stopper, By: "camera"})
	default:
		obs = append(obs, referee.Observation{Kind: referee.ObsStop, TimeMS: tMS, By: "camera"})
	}
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
	mask := countMask(img, bg)
	defer mask.Close()
	if debugCount != "" {
		gocv.IMWrite(debugCount+"_mask.png", mask)
		gocv.IMWrite(debugCount+"_img.png", img)
		gocv.IMWrite(debugCount+"_bg.png", bg)
	}
	cs := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	cw, ch := calibration.CardWMM*countScale, calibration.CardHMM*countScale
	tableScale := p.cal.Scale() / countScale // count px -> table image px
	gm := gocv.NewMatWithSize(mask.Rows(), mask.Cols(), gocv.MatTypeCV8U)
	defer gm.Close()
	for i := 0; i < cs.Size(); i++ {
		c := cs.At(i)
		if gocv.ContourArea(c) < 0.5*cw*ch {
			continue
		}
		// This group alone, holes filled.
		gm.SetTo(gocv.NewScalar(0, 0, 0, 0))
		gocv.DrawContours(&gm, cs, i, color.RGBA{255, 255, 255, 0}, -1)
		r := gocv.BoundingRect(c)
		mid := calibration.Point{X: float64(r.Min.X+r.Max.X) / 2 * tableScale, Y: float64(r.Min.Y+r.Max.Y) / 2 * tableScale}
		if p.cal.Centre.Contains(mid) {
			n := countCorners(img, gm, r, cw, ch)
			if who := p.whoseGroup(frame, h, gm, r, cw, ch); who != "" {
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
			// A stack spread along the seat is a card's length across it;
			// what is not (a marker or the cloth's pattern showing through
			// the mask) is no stack.
			across := r.Dy()
			if !horizontal {
				across = r.Dx()
			}
			if float64(across) < 0.75*ch || float64(across) > 1.3*ch {
				continue
			}
			stack[p.names[si]] += countLine(img, gm, r, cw, horizontal)
		}
	}
}

// countStrong and countWeak are differences from the relit empty table,
// in 8-bit levels of the most different channel: countStrong is surely a
// card, countWeak is a card where it touches one.
const (
	countStrong = 40
	countWeak   = 30
)

// countMask marks the pixels of img that differ from the empty table bg
// in any colour channel (a back may be as bright as the table in grey
// and still differ in hue), with the holes of each blob filled.
func countMask(img, bg gocv.Mat) gocv.Mat {
	// The light has drifted since the empty table was taken (a lamp, the
	// sun, the camera's exposure): on a contrasted cloth that alone makes
	// the table differ by more than the threshold, bridging cards that lie
	// apart. Compare with the empty table under img's light.
	lit := bg
	if l, err := newRelighter(bg); err == nil {
		relit := gocv.NewMat()
		defer relit.Close()
		if l.relight(img, &relit) == nil {
			lit = relit
		}
		l.Close()
	}
	m := channelDiffMask(img, lit, countStrong)
	// A back close to the table in every channel (orange backs on an
	// orange wood) differs by less than countStrong over much of its
	// print, and the fragments left are too small to be cards or break a
	// row's count. Whatever differs by countWeak and touches a sure
	// difference belongs to the same card; the table between cards lying
	// apart stays below countWeak under the relit light.
	weak := channelDiffMask(img, lit, countWeak)
	// growInto fails only on masks that are not continuous or not of one
	// size, which these are; the strong mask alone would still count
	// most cards, as the unrelit table does when relighting fails.
	_ = growInto(&m, weak)
	weak.Close()
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k.Close()
	gocv.MorphologyEx(m, &m, gocv.MorphOpen, k)
	// Light prints (green backs on a beige table) leave the mask of a
	// card dotted: close it over gaps narrower than those players leave
	// between cards, groups and rows (1.5 cm).
	kc := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(7, 7))
	defer kc.Close()
	gocv.MorphologyEx(m, &m, gocv.MorphClose, kc)
	cs := gocv.FindContours(m, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	gocv.DrawContours(&m, cs, -1, color.RGBA{255, 255, 255, 0}, -1)
	return m
}

// whoseGroup names the owner of the centre group in r (its pixels set in
// mask): every card-sized window at a corner of the group that lies
// within it shows that owner's backs only, so each is read and they vote.
func (p *Pipeline) whoseGroup(frame gocv.Mat, h calibration.Homography, mask gocv.Mat, r image.Rectangle, cw, ch float64) string {
	w, hh := int(math.Min(cw, float64(r.Dx()))), int(math.Min(ch, float64(r.Dy())))
	wins := []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Min.X+w, r.Min.Y+hh),
		image.Rect(r.Max.X-w, r.Min.Y, r.Max.X, r.Min.Y+hh),
		image.Rect(r.Min.X, r.Max.Y-hh, r.Min.X+w, r.Max.Y),
		image.Rect(r.Max.X-w, r.Max.Y-hh, r.Max.X, r.Max.Y),
	}
	// The last card (bottom right) lies whole.
	band := image.Rect(r.Min.X, r.Max.Y-int(ch*0.8), r.Max.X, r.Max.Y)
	if _, x1 := extent(mask, band); x1 > 0 {
		wins = append(wins, image.Rect(x1-w, r.Max.Y-hh, x1, r.Max.Y))
	}
	inv := h.Inverse()
	var backs []model.BackViews
	bestCover, bestWin := 0.0, image.Rectangle{}
	var use []image.Rectangle
	for _, win := range wins {
		if win.Min.X < 0 || win.Min.Y < 0 || win.Max.X > mask.Cols() || win.Max.Y > mask.Rows() || win.Empty() {
			continue
		}
		sub := mask.Region(win)
		cover := float64(gocv.CountNonZero(sub)) / float64(win.Dx()*win.Dy())
		sub.Close()
		if cover > bestCover {
			bestCover, bestWin = cover, win
		}
		if cover >= 0.8 {
			use = append(use, win)
		}
	}
	if len(use) == 0 && bestCover > 0.5 {
		use = append(use, bestWin) // a lone card with a ragged outline
	}
	for _, win := range use {
		var q Quad
		for i, pt := range []image.Point{win.Min, {win.Max.X, win.Min.Y}, win.Max, {win.Min.X, win.Max.Y}} {
			c := inv.Apply(calibration.Point{X: float64(pt.X), Y: float64(pt.Y)})
			q[i] = image.Pt(int(math.Round(c.X)), int(math.Round(c.Y)))
		}
		v, err := backViewsFromCamera(frame, q, p.cal.WhiteBalance, p.mcfg)
		if err != nil {
			continue
		}
		backs = append(backs, v)
	}
	if len(backs) == 0 {
		return ""
	}
	preds, err := model.ClassifyBacks(p.pred, p.mcfg, backs)
	if err != nil {
		return ""
	}
	votes := make([]int, len(p.names))
	best := -1
	for _, pr := range preds {
		k, _ := model.Nearest(pr.Embedding, p.protos)
		if k < 0 {
			continue
		}
		votes[k]++
		if best < 0 || votes[k] > votes[best] {
			best = k
		}
	}
	if debugCount != "" {
		fmt.Printf("group %v: owner votes %v\n", r, votes)
	}
	if best < 0 {
		return ""
	}
	return p.names[best]
}

// countLine counts cards overlapping along one axis within r (a stack
// spread along a seat), whichever way along it they were laid: each run
// of the mask along it is counted by countRun.
func countLine(img, mask gocv.Mat, r image.Rectangle, cw float64, horizontal bool) int {
	n := 0
	for _, seg := range runs(mask, r, horizontal, 0.3) {
		// Across, clear of the outline.
		band := image.Rect(seg[0], r.Min.Y+3, seg[1], r.Max.Y-3)
		if !horizontal {
			band = image.Rect(r.Min.X+3, seg[0], r.Max.X-3, seg[1])
		}
		n += countRun(img, mask, band, horizontal, cw)
	}
	return n
}

// extent is the first and last column of band with cards in most rows.
func extent(mask gocv.Mat, band image.Rectangle) (int, int) {
	band = band.Intersect(image.Rectangle{Max: image.Pt(mask.Cols(), mask.Rows())})
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

// growInto sets in strong every pixel of weak connected (in weak) to a
// pixel already set in strong: the whole of each weak blob that a strong
// pixel vouches for, and nothing else.
func growInto(strong *gocv.Mat, weak gocv.Mat) error {
	labels := gocv.NewMat()
	defer labels.Close()
	n := gocv.ConnectedComponents(weak, &labels)
	lb, err := labels.DataPtrUint8() // int32 labels, 4 bytes each
	if err != nil {
		return fmt.Errorf("grow mask: labels: %w", err)
	}
	px, err := strong.DataPtrUint8()
	if err != nil {
		return fmt.Errorf("grow mask: %w", err)
	}
	if len(lb) != 4*len(px) {
		return fmt.Errorf("grow mask: %d labels for %d pixels", len(lb)/4, len(px))
	}
	label := func(i int) uint32 { return binary.NativeEndian.Uint32(lb[4*i:]) }
	keep := make([]bool, n)
	for i, v := range px {
		if v != 0 {
			keep[label(i)] = true
		}
	}
	keep[0] = false // weak's background
	for i := range px {
		if keep[label(i)] {
			px[i] = 255
		}
	}
	return nil
}
