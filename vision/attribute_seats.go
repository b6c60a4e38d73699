package vision

// Attribution, part 2: the seats watched and read, and the faces they lose.

import (
	"fmt"
	"image"
	"maps"
	"math"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// seatWatch is what the Attributor knows of one seat.
type seatWatch struct {
	player  string
	low     image.Rectangle        // the zone's bounds in the low table image
	size    image.Point            // the read image's size (WorkPxPerMM)
	fromCam calibration.Homography // camera -> read image
	toCam   calibration.Homography // read image -> camera
	box     image.Rectangle        // where the seat's cards lay this round, read image pixels
	mask    gocv.Mat               // the zone in the seat's low image (255 inside)
	maskN   int
	// active is where the seat's cards lay this round (the zone until the
	// first read): a neighbour's arm over a corner of the zone does not
	// keep the seat from being read.
	active  gocv.Mat
	activeN int
	img     gocv.Mat // this frame's low seat image
	read    gocv.Mat // the one last read
	hi      gocv.Mat // the read image
	diff    gocv.Mat // scratch

	cards     []seatCard // as last read, quads in read image pixels
	readAt    int64      // when it was last read; -1 before the first read
	quiet     int        // quiet frames in a row
	dirty     bool       // something moved or changed since the last read
	dealt     []dealtSpot
	dealtDone bool
	losses    []loss
	changedAt int64 // the last read whose faces differed from the one before
}

// seatCard is a face-up card seen in a seat.
type seatCard struct {
	q    Quad // read image pixels
	sig  []float32
	face referee.Face
	ok   bool  // read with confidence
	seen int64 // when it was last seen
}

// dealtSpot is where a card of the deal lay: the Ligretto stack or a row card.
type dealtSpot struct {
	r         image.Rectangle // low seat image pixels, inset
	bareSince int64           // -1 when not bare
}

// loss is a face that a seat showed at one read and no longer at the next.
type loss struct {
	face   referee.Face
	seenMS int64 // the last read that showed it
	goneMS int64 // the read that no longer did
	dealt  bool  // it lay in the stack or the row, not on the hand's pile
	used   bool
}

// watch looks at a seat in this frame's low table image, and reads it when
// it is quiet and changed.
func (a *Attributor) watch(s *seatWatch, frame gocv.Mat, tMS int64, first bool) error {
	sub := a.low.Region(s.low)
	sub.CopyTo(&s.img)
	sub.Close()
	moving := first
	if !first {
		m := a.moved.Region(s.low)
		gocv.BitwiseAnd(m, s.active, &s.diff)
		m.Close()
		moving = float64(gocv.CountNonZero(s.diff)) > math.Max(2, a.cfg.MaxMotion*float64(s.activeN))
	}
	a.checkBare(s, tMS)
	if moving {
		s.quiet, s.dirty = 0, true
		return nil
	}
	if s.quiet++; s.quiet < a.cfg.QuietFrames {
		return nil
	}
	cardPx := calibration.CardWMM * calibration.CardHMM * lowPxPerMM * lowPxPerMM
	if s.readAt >= 0 && s.changed(s.img, s.read, s.mask) < a.cfg.ChangeCards*cardPx {
		s.dirty = false // it looks as it did when last read
		return nil
	}
	return a.readSeat(s, frame, tMS)
}

// changed counts the pixels within mask that differ clearly between x and y.
func (s *seatWatch) changed(x, y, mask gocv.Mat) float64 {
	gocv.AbsDiff(x, y, &s.diff)
	gocv.CvtColor(s.diff, &s.diff, gocv.ColorBGRToGray)
	gocv.Threshold(s.diff, &s.diff, 30, 255, gocv.ThresholdBinary)
	gocv.BitwiseAnd(s.diff, mask, &s.diff)
	return float64(gocv.CountNonZero(s.diff))
}

// readSeat finds the seat's face-up cards, reads those that changed, and
// notes the faces it no longer shows.
func (a *Attributor) readSeat(s *seatWatch, frame gocv.Mat, tMS int64) error {
	t0 := time.Now()
	a.t.Reads++
	next, crops, todo, err := a.findSeatCards(s, frame, tMS)
	if err != nil {
		return err
	}
	next = a.keepCovered(s, next)
	t1 := time.Now()
	a.t.Read += t1.Sub(t0)
	if err := a.classifySeatCards(next, crops, todo); err != nil {
		return err
	}
	a.t.Classify += time.Since(t1)
	if s.readAt >= 0 {
		a.noteLosses(s, next, tMS)
	}
	a.noteDeal(s, next)
	a.watchSeat(s, next, tMS)
	a.forgetOldLosses(s, tMS)
	return nil
}

// findSeatCards finds the face-up cards in the seat's zone of the frame:
// next, with the faces of those already read carried over, and for those
// new or moved, their crops from the camera and where they are in next
// (todo).
func (a *Attributor) findSeatCards(s *seatWatch, frame gocv.Mat, tMS int64) (next []seatCard, crops []model.Crop, todo []int, err error) {
	// Once the seat's cards were found, only where they lie and a card
	// round it is read: not the rest of the zone (a marker in its corner
	// costs much to find no card in).
	win := image.Rectangle{Max: s.size}
	if s.readAt >= 0 && !s.box.Empty() {
		win = s.box.Inset(-cardReach).Intersect(win)
	}
	h := homMat(s.fromCam.Translate(-float64(win.Min.X), -float64(win.Min.Y)))
	gocv.WarpPerspectiveWithParams(frame, &s.hi, h, win.Size(), gocv.InterpolationLinear, gocv.BorderReplicate, color0)
	h.Close()
	// Edges only: fitting cards into the blob of a seat's neighbouring
	// cards (find.Cards with Fit) finds cards between them that are not there.
	found := find.Cards(s.hi, cardOptions())
	reach := 0.3 * calibration.CardWMM * WorkPxPerMM
	for _, wq := range found {
		sig := signature(s.hi, wq)
		var q Quad
		for i, p := range wq {
			q[i] = p.Add(win.Min)
		}
		if !s.inZone(q) {
			continue // another seat's card, or one on its way to the centre
		}
		c := seatCard{q: q, sig: sig, seen: tMS}
		if old, ok := s.same(c, reach); ok {
			c.face, c.ok = old.face, old.ok
		} else {
			crop, err := a.cropSeatCard(s, frame, q)
			if err != nil {
				return nil, nil, nil, err
			}
			crops = append(crops, crop)
			todo = append(todo, len(next))
		}
		next = append(next, c)
	}
	return next, crops, todo, nil
}

// inZone reports whether the centre of q (in the seat's view) lies in
// the seat's zone.
func (s *seatWatch) inZone(q Quad) bool {
	x, y := q.Centre()
	xi, yi := int(x*hiToLow), int(y*hiToLow)
	return !(xi < 0 || yi < 0 || xi >= s.mask.Cols() || yi >= s.mask.Rows() || s.mask.GetUCharAt(yi, xi) == 0)
}

// cropSeatCard is the crop of the card at q in the seat's view, cut from
// the camera frame.
func (a *Attributor) cropSeatCard(s *seatWatch, frame gocv.Mat, q Quad) (model.Crop, error) {
	var cam Quad
	for i, p := range q {
		cp := s.toCam.Apply(calibration.Point{X: float64(p.X), Y: float64(p.Y)})
		cam[i] = image.Pt(int(math.Round(cp.X)), int(math.Round(cp.Y)))
	}
	crop, err := cropFromCamera(frame, cam, a.cal.WhiteBalance, a.mcfg.Width, a.mcfg.Height)
	if err != nil {
		return crop, fmt.Errorf("attributor: %w", err)
	}
	return crop, nil
}

// keepCovered adds to next the cards last read that are neither under a
// card found now nor gone to bare table: they lie under a hand or an arm,
// still there as far as anyone can tell.
func (a *Attributor) keepCovered(s *seatWatch, next []seatCard) []seatCard {
	for _, old := range s.cards {
		x, y := old.q.Centre()
		under := false
		for _, c := range next {
			if c.q.Contains(x, y) {
				under = true
				break
			}
		}
		if !under && !a.bareAt(s, old.q, 0.9) {
			next = append(next, old)
		}
	}
	return next
}

// classifySeatCards reads the crops of the cards next[todo[i]].
func (a *Attributor) classifySeatCards(next []seatCard, crops []model.Crop, todo []int) error {
	if len(crops) == 0 {
		return nil
	}
	preds, err := a.pred.Classify(crops)
	if err != nil {
		return fmt.Errorf("attributor: %w", err)
	}
	a.t.Crops += len(crops)
	for i, k := range todo {
		p := preds[i]
		next[k].face, next[k].ok = p.Face(), !p.IsBack() && float64(p.RawFaceConfidence()) >= a.cfg.MinConfidence
	}
	return nil
}

// noteDeal notes where the seat's deal lies: the first read that shows
// the stack and the whole row and nothing else (C3, C4); the hand's pile,
// once there, lies in line with them and could not be told apart.
func (a *Attributor) noteDeal(s *seatWatch, next []seatCard) {
	if s.dealtDone || len(next) != a.rowSize+1 {
		return
	}
	s.dealtDone = true
	for _, c := range next {
		if r := s.lowRect(c.q, 1); c.ok && r.Dx() > 2 && r.Dy() > 2 && !a.bareAt(s, c.q, 0.5) {
			s.dealt = append(s.dealt, dealtSpot{r: r, bareSince: -1})
		}
	}
}

// watchSeat keeps the seat's cards as read at tMS, and watches for motion
// where they lie from now on.
func (a *Attributor) watchSeat(s *seatWatch, next []seatCard, tMS int64) {
	if s.readAt < 0 {
		s.active.SetTo(gocv.NewScalar(0, 0, 0, 0))
	}
	for _, c := range next {
		s.box = s.box.Union(boundsOf(c.q))
		sub := s.active.Region(s.lowRect(c.q, 3))
		sub.SetTo(gocv.NewScalar(255, 0, 0, 0))
		sub.Close()
	}
	gocv.BitwiseAnd(s.active, s.mask, &s.active)
	s.activeN = max(1, gocv.CountNonZero(s.active))
	s.cards, s.readAt, s.dirty = next, tMS, false
	s.img.CopyTo(&s.read)
}

// forgetOldLosses forgets the seat's losses too old to match any commit
// still to come.
func (a *Attributor) forgetOldLosses(s *seatWatch, tMS int64) {
	keep := s.losses[:0]
	for _, l := range s.losses {
		if tMS-l.goneMS <= a.cfg.WindowMS+a.cfg.HoldMS {
			keep = append(keep, l)
		}
	}
	s.losses = keep
}

// noteLosses compares the faces the seat showed with those it shows now,
// as multisets: a card moved within the seat (a row gap refilled from the
// stack, C11) is no loss.
func (a *Attributor) noteLosses(s *seatWatch, next []seatCard, tMS int64) {
	before, after := faceCounts(s.cards), faceCounts(next)
	if !maps.Equal(before, after) {
		s.changedAt = tMS
	}
	for f, n := range before {
		for k := range n - after[f] {
			// The k-th card that showed f: its place says whether it lay
			// in the deal's spots (the stack or the row: only a play takes
			// a card from there) or on the hand's pile, where counting off
			// covers a card too.
			var old seatCard
			for _, c := range s.cards {
				if c.ok && c.face == f {
					old = c
					if k--; k < 0 {
						break
					}
				}
			}
			s.losses = append(s.losses, loss{face: f, seenMS: old.seen, goneMS: tMS, dealt: s.inDeal(old.q)})
		}
	}
	for f, n := range after {
		// A face seen again soon after it was lost was covered a moment
		// (a hand lying still on it), not played.
		for range n - before[f] {
			for i := range s.losses {
				if l := &s.losses[i]; !l.used && l.face == f && tMS-l.goneMS <= a.cfg.WindowMS {
					l.used = true
					break
				}
			}
		}
	}
}

// same returns the card last read where c lies, if it looks the same:
// its reading stands.
func (s *seatWatch) same(c seatCard, reach float64) (seatCard, bool) {
	x, y := c.q.Centre()
	for _, old := range s.cards {
		ox, oy := old.q.Centre()
		if math.Hypot(ox-x, oy-y) < reach && sigDiff(c.sig, old.sig) < 0.03 {
			return old, true
		}
	}
	return seatCard{}, false
}

func faceCounts(cs []seatCard) map[referee.Face]int {
	m := map[referee.Face]int{}
	for _, c := range cs {
		if c.ok {
			m[c.face]++
		}
	}
	return m
}

// lowRect is the bounding box of q (read image pixels) in the low seat
// image, shrunk by inset pixels on each side (grown when negative).
func (s *seatWatch) lowRect(q Quad, inset int) image.Rectangle {
	b := boundsOf(q)
	r := image.Rect(int(float64(b.Min.X)*hiToLow), int(float64(b.Min.Y)*hiToLow), int(math.Ceil(float64(b.Max.X)*hiToLow)), int(math.Ceil(float64(b.Max.Y)*hiToLow)))
	return r.Inset(inset).Intersect(image.Rectangle{Max: s.low.Size()})
}

// inDeal reports whether the card q lay in a spot of the deal, or on the
// first card of a C18 cascade from one.
func (s *seatWatch) inDeal(q Quad) bool {
	x, y := q.Centre()
	p := image.Pt(int(x*hiToLow), int(y*hiToLow))
	for _, d := range s.dealt {
		if p.In(d.r.Inset(-2)) {
			return true
		}
	}
	return false
}

// bareAt reports whether at least frac of the card q's place shows the
// empty table (false without a background).
func (a *Attributor) bareAt(s *seatWatch, q Quad, frac float64) bool {
	r := s.lowRect(q, 2)
	return a.notTable != nil && r.Dx() > 2 && r.Dy() > 2 && a.bareFraction(r.Add(s.low.Min)) >= frac
}

// checkBare notes, for each spot of the seat's deal, since when it shows
// the empty table.
func (a *Attributor) checkBare(s *seatWatch, tMS int64) {
	if !a.cfg.StackStop || a.notTable == nil {
		return
	}
	for i := range s.dealt {
		d := &s.dealt[i]
		if a.bareFraction(d.r.Add(s.low.Min)) >= 0.95 {
			if d.bareSince < 0 {
				d.bareSince = tMS
			}
		} else {
			d.bareSince = -1
		}
	}
}

// bareFraction is the fraction of r (low table image) where this frame
// matches the empty table.
func (a *Attributor) bareFraction(r image.Rectangle) float64 {
	r = r.Intersect(image.Rectangle{Max: a.lowSize})
	if r.Empty() {
		return 0
	}
	bare := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for _, v := range a.notTable[y*a.lowSize.X+r.Min.X : y*a.lowSize.X+r.Max.X] {
			if v == 0 {
				bare++
			}
		}
	}
	return float64(bare) / float64(r.Dx()*r.Dy())
}

// maxChannel is the largest of a BGR image's channels, pixel by pixel.
func maxChannel(img gocv.Mat) gocv.Mat {
	chans := gocv.Split(img)
	for _, c := range chans[1:] {
		gocv.Max(chans[0], c, &chans[0])
		c.Close()
	}
	return chans[0]
}

// bareSeat returns the seat one of whose dealt spots has been bare for
// BareMS, or nil. When several seats' are, none is named: that is no
// stack running out but a table cleared.
func (a *Attributor) bareSeat(tMS int64) *seatWatch {
	var found *seatWatch
	for _, s := range a.seats {
		for _, d := range s.dealt {
			if d.bareSince >= 0 && tMS-d.bareSince >= a.cfg.BareMS {
				if found != nil && found != s {
					return nil
				}
				found = s
			}
		}
	}
	return found
}
