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
	"ligretto/vision/find"
)

// count reads the table after a stop: the centre cards lie face down in
// groups by back, each player's Ligretto stack lies spread face down in
// their seat. Cards overlap at a regular step, so a group's count follows
// from its extent and the step, which the repetition of the card backs
// along the group gives. It does the whole count at once; the pipeline
// spreads it over frames (countJob).
func (p *Pipeline) count(frame gocv.Mat, tMS int64) []referee.Observation {
	j := p.newCountJob(frame, tMS)
	defer j.Close()
	for !j.step(p) {
	}
	return p.countObservations(j.centre, j.stack, tMS)
}

// countObservations are the stop (or the deadlock), every player's counts
// and the end of the round, from the counts of the centre's backs and of
// the seats' stacks by player.
func (p *Pipeline) countObservations(centre, stack map[string]int, tMS int64) []referee.Observation {
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

// countJob is one count of the table after a stop, in steps: the warp to
// the table, the empty table under its light, the mask of the cards,
// their outlines, then each group (the backs of a centre group are read
// one window a step). Done at once the count holds one frame for most of
// a second, when everyone watches the screen; the pipeline does a few
// steps per frame (countBudget) on its own copy of the frame the count
// started from, so the result is the same as at once.
type countJob struct {
	tMS           int64
	frames        int      // frames it has taken so far
	frame         gocv.Mat // the camera frame counted (a copy)
	stage         int
	h             calibration.Homography
	img, bg, mask gocv.Mat
	lit           gocv.Mat // bg under img's light, or empty: bg itself
	gm            gocv.Mat // one group's mask
	cs            gocv.PointsVector
	hasCS         bool
	next          int          // the next outline of cs
	group         *centreGroup // the centre group under way
	centre, stack map[string]int
}

// count job stages; countGroupsStage steps through the outlines.
const (
	countWarpStage = iota
	countLightStage
	countMaskStage
	countOutlineStage
	countGroupsStage
	countDoneStage
)

// newCountJob starts counting frame, shown at tMS.
func (p *Pipeline) newCountJob(frame gocv.Mat, tMS int64) *countJob {
	j := &countJob{tMS: tMS, frame: frame.Clone(), centre: map[string]int{}, stack: map[string]int{}}
	if p.bg.Empty() {
		j.stage = countDoneStage // nothing to compare with: no cards are counted
	}
	return j
}

// Close frees the job's images.
func (j *countJob) Close() {
	for _, m := range []*gocv.Mat{&j.frame, &j.img, &j.bg, &j.lit, &j.mask, &j.gm} {
		if m.Ptr() != nil {
			m.Close()
		}
	}
	if j.hasCS {
		j.cs.Close()
	}
}

// done reports whether the count is complete.
func (j *countJob) done() bool { return j.stage == countDoneStage }

// step does the next step of the count and reports whether it is done.
func (j *countJob) step(p *Pipeline) bool {
	cw, ch := calibration.CardWMM*countScale, calibration.CardHMM*countScale
	switch j.stage {
	case countWarpStage:
		j.h = p.cal.H().Scale(countScale / p.cal.Scale())
		hm := homMat(j.h)
		defer hm.Close()
		size := image.Pt(int(float64(p.cal.TableW)*countScale/p.cal.Scale()), int(float64(p.cal.TableH)*countScale/p.cal.Scale()))
		j.img = gocv.NewMat()
		gocv.WarpPerspectiveWithParams(j.frame, &j.img, hm, size, gocv.InterpolationLinear, gocv.BorderReplicate, color0)
		j.bg = gocv.NewMat()
		gocv.Resize(p.bg, &j.bg, size, 0, 0, gocv.InterpolationLinear)
		j.stage++
	case countLightStage:
		j.lit = relitTable(j.img, j.bg)
		j.stage++
	case countMaskStage:
		lit := j.lit
		if lit.Empty() {
			lit = j.bg
		}
		j.mask = countMaskLit(j.img, lit)
		if debugCount != "" {
			gocv.IMWrite(debugCount+"_mask.png", j.mask)
			gocv.IMWrite(debugCount+"_img.png", j.img)
			gocv.IMWrite(debugCount+"_bg.png", j.bg)
		}
		j.stage++
	case countOutlineStage:
		j.cs, j.hasCS = gocv.FindContours(j.mask, gocv.RetrievalExternal, gocv.ChainApproxSimple), true
		j.gm = gocv.NewMatWithSize(j.mask.Rows(), j.mask.Cols(), gocv.MatTypeCV8U)
		j.stage++
	case countGroupsStage:
		if j.group != nil {
			j.stepGroup(p)
			break
		}
		// The next group big enough to be a card, if any.
		for j.next < j.cs.Size() && gocv.ContourArea(j.cs.At(j.next)) < 0.5*cw*ch {
			j.next++
		}
		if j.next >= j.cs.Size() {
			j.stage++
			break
		}
		p.countGroup(j, j.next)
		j.next++
	}
	return j.done()
}

// countGroup counts the group of outline i of the job: a seat's stack at
// once, a centre group's cards at once and its owner over the next steps.
func (p *Pipeline) countGroup(j *countJob, i int) {
	cw, ch := calibration.CardWMM*countScale, calibration.CardHMM*countScale
	tableScale := p.cal.Scale() / countScale // count px -> table image px
	c := j.cs.At(i)
	// This group alone, holes filled.
	j.gm.SetTo(gocv.NewScalar(0, 0, 0, 0))
	gocv.DrawContours(&j.gm, j.cs, i, color.RGBA{255, 255, 255, 0}, -1)
	r := gocv.BoundingRect(c)
	mid := calibration.Point{X: float64(r.Min.X+r.Max.X) / 2 * tableScale, Y: float64(r.Min.Y+r.Max.Y) / 2 * tableScale}
	if p.cal.Centre.Contains(mid) {
		// Its rows now, their cards and its owner in the next steps.
		g := &centreGroup{r: r}
		g.rows, g.several = groupRows(j.img, j.gm, r, cw, ch)
		j.group = g
		return
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
		j.stack[p.names[si]] += countLine(j.img, j.gm, r, cw, horizontal)
	}
}

// centreGroup is a centre group being counted (countCorners, a row a
// step) and its owner read (ownerVote, a back a step).
type centreGroup struct {
	r       image.Rectangle
	rows    []image.Rectangle // see groupRows
	several bool              // more than one card
	row     int               // rows counted
	n       int               // cards counted
	vote    *ownerVote        // nil until the backs to read are cut
}

// stepGroup does the next step of the centre group under way: count a
// row, cut the backs to read, read one; once all are read it adds the
// group's cards to its owner's.
func (j *countJob) stepGroup(p *Pipeline) {
	cw, ch := calibration.CardWMM*countScale, calibration.CardHMM*countScale
	g := j.group
	switch {
	case g.several && g.row < len(g.rows):
		g.n += countRow(j.img, j.gm, g.r, g.row, g.rows[g.row], cw)
		g.row++
		return
	case g.vote == nil:
		g.vote = p.ownerWindows(j.frame, j.h, j.gm, g.r, cw, ch)
		if len(g.vote.backs) > 0 {
			return
		}
	default:
		if !g.vote.readNext(p) {
			return
		}
	}
	n := 1 // a single card
	if g.several {
		n = max(g.n, 1)
	}
	if who := g.vote.owner(p); who != "" {
		j.centre[who] += n
	}
	j.group = nil
}

// countGroups counts the backs of frame at once, into centre (by owner)
// and stack (by player).
func (p *Pipeline) countGroups(frame gocv.Mat, centre, stack map[string]int) {
	j := p.newCountJob(frame, 0)
	defer j.Close()
	for !j.step(p) {
	}
	for k, v := range j.centre {
		centre[k] += v
	}
	for k, v := range j.stack {
		stack[k] += v
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
	lit := relitTable(img, bg)
	defer lit.Close()
	if lit.Empty() {
		return countMaskLit(img, bg)
	}
	return countMaskLit(img, lit)
}

// relitTable is the empty table bg under img's light, or an empty Mat
// when it cannot be relit. The light has drifted since the empty table was
// taken (a lamp, the sun, the camera's exposure): on a contrasted cloth
// that alone makes the table differ by more than the threshold, bridging
// cards that lie apart, so countMaskLit compares with the relit table.
func relitTable(img, bg gocv.Mat) gocv.Mat {
	relit := gocv.NewMat()
	l, err := newRelighter(bg)
	if err != nil {
		return relit
	}
	defer l.Close()
	if l.relight(img, &relit) != nil {
		relit.Close()
		return gocv.NewMat()
	}
	return relit
}

// countMaskLit is countMask against lit, the empty table under img's
// light (see relitTable).
func countMaskLit(img, lit gocv.Mat) gocv.Mat {
	m := find.ChannelDiffMask(img, lit, countStrong)
	// A back close to the table in every channel (orange backs on an
	// orange wood) differs by less than countStrong over much of its
	// print, and the fragments left are too small to be cards or break a
	// row's count. Whatever differs by countWeak and touches a sure
	// difference belongs to the same card; the table between cards lying
	// apart stays below countWeak under the relit light.
	weak := find.ChannelDiffMask(img, lit, countWeak)
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

// ownerVote reads the backs of one centre group, one window at a time,
// and counts the votes for each player.
type ownerVote struct {
	r      image.Rectangle
	backs  []model.BackViews
	read   int // backs read so far
	failed bool
	votes  []int
	best   int
}

// ownerWindows prepares the reading of the owner of the centre group in
// r (its pixels set in mask): every card-sized window at a corner of the
// group that lies within it shows that owner's backs only, so each is
// read and they vote (readNext, owner).
func (p *Pipeline) ownerWindows(frame gocv.Mat, h calibration.Homography, mask gocv.Mat, r image.Rectangle, cw, ch float64) *ownerVote {
	g := &ownerVote{r: r, votes: make([]int, len(p.names)), best: -1}
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
		g.backs = append(g.backs, v)
	}
	return g
}

// readNext reads the next back of the group and counts its vote; it
// reports whether all were read. Each back is read alone (ClassifyBacks
// reads twenty views of it), so that a step stays short.
func (g *ownerVote) readNext(p *Pipeline) bool {
	if g.failed || g.read >= len(g.backs) {
		return true
	}
	preds, err := model.ClassifyBacks(p.pred, g.backs[g.read:g.read+1])
	g.read++
	if err != nil {
		g.failed = true // no owner: as if none of the backs were read
		return true
	}
	for _, pr := range preds {
		k, _ := model.Nearest(pr.Embedding, p.protos)
		if k < 0 {
			continue
		}
		g.votes[k]++
		if g.best < 0 || g.votes[k] > g.votes[g.best] {
			g.best = k
		}
	}
	return g.read >= len(g.backs)
}

// owner is the player the group's backs voted for, "" for none.
func (g *ownerVote) owner(p *Pipeline) string {
	if g.failed || len(g.backs) == 0 {
		return ""
	}
	if debugCount != "" {
		fmt.Printf("group %v: owner votes %v\n", g.r, g.votes)
	}
	if g.best < 0 {
		return ""
	}
	return p.names[g.best]
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
