package vision

import (
	"errors"
	"fmt"
	"image"
	"math"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/vision/find"
)

// ErrNotCalibrated means the source ended before the calibration was complete.
var ErrNotCalibrated = errors.New("calibration incomplete: the source ended before every player showed a card back alone in their seat (show the empty table with the four markers, then each player in turn lays one card back in their seat for about a second)")

// Calibrator builds a calibration from frames: the table plane from the
// four markers (or corners given by hand), the white balance and the empty
// table from the first frames, then each player's back as they show it,
// one after another, alone in their seat. Feed frames with Add until Done.
type Calibrator struct {
	players  int
	pred     model.Predictor
	mcfg     model.Config
	std      []BackPrototype
	markerMM float64
	manual   *calibration.Plane
	names    []string // players in the order they enrol; nil: P1, P2, ...

	file     *calibration.File
	view     *tableView
	planeN   int
	markers  [4]bool  // which table markers the last frame showed
	bgSum    gocv.Mat // float sum of rectified empty tables
	bgN      int
	bg       gocv.Mat // the empty table, 8-bit, work scale
	rect     gocv.Mat
	prev     gocv.Mat
	light    *relighter // relights bg
	relit    gocv.Mat   // the empty table under the current frame's light
	seen     int        // frames with one still card
	gone     int        // frames the shown card's place looked empty since it was last seen
	last     Quad       // where the shown card was last seen
	at       []Point    // positions of the current card (work px)
	embs     [][]float32
	enrolled []enrolment
}

// Point is a point in pixels.
type Point struct{ X, Y float64 }

type enrolment struct {
	at  Point
	emb []float32
}

// CalibratorOption configures a Calibrator.
type CalibratorOption func(*Calibrator)

// WithCorners uses four table corners given by hand (image pixels,
// clockwise from top-left) spanning wmm x hmm millimetres instead of markers.
func WithCorners(p calibration.Plane) CalibratorOption {
	return func(c *Calibrator) { c.manual = &p }
}

// WithPlayerNames names the players in the order they show their backs
// (their seat order round the table); the calibration's seats carry the
// names. It must name as many players as are calibrated.
func WithPlayerNames(names ...string) CalibratorOption {
	return func(c *Calibrator) { c.names = append([]string(nil), names...) }
}

// WithMarkerMM sets the side of the markers' black squares.
func WithMarkerMM(mm float64) CalibratorOption { return func(c *Calibrator) { c.markerMM = mm } }

// WithStandardBacks names enrolled backs after the nearest standard design.
func WithStandardBacks(b []BackPrototype) CalibratorOption { return func(c *Calibrator) { c.std = b } }

// NewCalibrator calibrates for players (2..12) with the classifier pred.
func NewCalibrator(players int, pred model.Predictor, opts ...CalibratorOption) (*Calibrator, error) {
	if players < 2 || players > 12 {
		return nil, fmt.Errorf("%w: %d players, want 2 to 12 (C2)", calibration.ErrZone, players)
	}
	c := &Calibrator{players: players, pred: pred, mcfg: pred.Config(), markerMM: calibration.DefaultMarkerMM,
		bgSum: gocv.NewMat(), bg: gocv.NewMat(), rect: gocv.NewMat(), prev: gocv.NewMat(), relit: gocv.NewMat()}
	for _, o := range opts {
		o(c)
	}
	if c.names != nil && len(c.names) != players {
		c.Close()
		return nil, fmt.Errorf("%w: %d player names for %d players", calibration.ErrZone, len(c.names), players)
	}
	return c, nil
}

// player names the i-th player to enrol (from 0).
func (c *Calibrator) player(i int) string {
	if c.names != nil {
		return c.names[i]
	}
	return fmt.Sprintf("P%d", i+1)
}

// Close frees the calibrator's images.
func (c *Calibrator) Close() {
	c.bgSum.Close()
	c.bg.Close()
	c.rect.Close()
	c.prev.Close()
	c.relit.Close()
	if c.light != nil {
		c.light.Close()
	}
	if c.view != nil {
		c.view.Close()
	}
}

// MarkersSeen counts the table markers seen in the last frame while the
// calibrator looked for them (4 once the table is found, or with corners
// given by hand).
func (c *Calibrator) MarkersSeen() int {
	if c.view != nil {
		return 4
	}
	n := 0
	for _, s := range c.markers {
		if s {
			n++
		}
	}
	return n
}

// Enrolled counts the players whose back is enrolled so far.
func (c *Calibrator) Enrolled() int { return len(c.enrolled) }

// Done reports whether every player is enrolled.
func (c *Calibrator) Done() bool { return len(c.enrolled) == c.players }

// Stage says what the calibrator waits for, for progress messages.
func (c *Calibrator) Stage() string {
	switch {
	case c.view == nil:
		return "looking for the four table markers"
	case c.bgN < bgFrames:
		return "learning the empty table"
	case !c.Done():
		if c.names != nil {
			return fmt.Sprintf("waiting for %s (player %d of %d) to show a card back in their seat", c.names[len(c.enrolled)], len(c.enrolled)+1, c.players)
		}
		return fmt.Sprintf("waiting for player %d to show a card back in their seat", len(c.enrolled)+1)
	}
	return "done"
}

const (
	bgFrames    = 5
	enrolStill  = 4 // frames a shown back must lie still before it is read
	enrolGone   = 5 // frames its place must look bare before the next player
	enrolMaxEmb = 6
)

// Add takes one BGR frame.
func (c *Calibrator) Add(frame gocv.Mat) error {
	if frame.Empty() || frame.Channels() != 3 {
		return fmt.Errorf("calibrate: want BGR frames")
	}
	if c.view == nil {
		return c.findPlane(frame)
	}
	if frame.Cols() != c.file.ImageW || frame.Rows() != c.file.ImageH {
		return fmt.Errorf("%w: frame size changed to %dx%d", ErrCalibration, frame.Cols(), frame.Rows())
	}
	c.view.rectifyFull(frame, &c.rect)
	if c.bgN < bgFrames {
		f := gocv.NewMat()
		defer f.Close()
		c.rect.ConvertTo(&f, gocv.MatTypeCV32FC3)
		if c.bgN == 0 {
			f.CopyTo(&c.bgSum)
		} else {
			gocv.Add(c.bgSum, f, &c.bgSum)
		}
		c.bgN++
		if c.bgN == bgFrames {
			c.bgSum.ConvertToWithParams(&c.bg, gocv.MatTypeCV8UC3, 1.0/bgFrames, 0)
			l, err := newRelighter(c.bg)
			if err != nil {
				return fmt.Errorf("calibrate: %w", err)
			}
			c.light = l
		}
		return nil
	}
	if c.Done() {
		return nil
	}
	return c.enrol(frame)
}

func (c *Calibrator) findPlane(frame gocv.Mat) error {
	var pl calibration.Plane
	var src string
	if c.manual != nil {
		pl, src = *c.manual, "manual"
	} else {
		p, seen, err := FindPlaneMarkers(frame, c.markerMM)
		c.markers = seen
		if err != nil {
			c.planeN = 0
			return nil // keep looking
		}
		if c.planeN++; c.planeN < 2 {
			return nil
		}
		pl, src = p, "aruco"
	}
	h, tw, th, err := pl.TableHomography(1)
	if err != nil {
		return err
	}
	wb, err := WhiteBalance(frame, pl.Corners)
	if err != nil {
		return err
	}
	f := &calibration.File{Version: calibration.Version, ImageW: frame.Cols(), ImageH: frame.Rows(), TableW: tw, TableH: th,
		Corners: pl.Corners, Homography: h, WhiteBalance: wb, Source: src, PxPerMM: 1}
	// Provisional zones until the players enrol, so that the view can be built.
	centre, seats := calibration.Layout(c.players, tw, th)
	f.Centre = centre
	for i, z := range seats {
		f.Seats = append(f.Seats, calibration.Seat{Player: c.player(i), Zone: z})
	}
	v, err := newTableView(f, frame.Cols(), frame.Rows())
	if err != nil {
		return err
	}
	c.file, c.view = f, v
	return nil
}

// enrol watches for one card lying still on the table, reads its back,
// and enrols it when it is taken away.
func (c *Calibrator) enrol(frame gocv.Mat) error {
	quiet := true
	if !c.prev.Empty() {
		quiet = motionFraction(c.rect, c.prev, image.Rectangle{Max: c.view.full}) < 0.002
	}
	c.rect.CopyTo(&c.prev)
	// The light drifts while the players take turns (a lamp, the sun, the
	// camera's auto exposure): compare with the empty table relit to match.
	if err := c.light.relight(c.rect, &c.relit); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	fg := shownForeground(c.rect, c.relit)
	defer fg.Close()
	quads := cardsInMask(fg)
	if len(c.embs) > 0 {
		// The shown card is gone once its place is bare again, not merely
		// when it stops looking like a lone card (a hand on it, reaching
		// to take it, hides its outline).
		if maskFraction(fg, c.last) < 0.1 {
			c.gone++
		} else {
			c.gone = 0
		}
		if c.gone >= enrolGone {
			c.endShow()
		}
	}
	if len(quads) != 1 {
		c.seen = 0
		return nil
	}
	q := quads[0]
	x, y := q.Centre()
	if !quiet {
		c.seen = 0
		return nil
	}
	if c.seen++; c.seen < enrolStill {
		return nil
	}
	if len(c.at) > 0 {
		// A still card elsewhere is the next player's, even if the last
		// one's place never looked bare for long enough in between.
		m := meanPoint(c.at)
		if math.Hypot(x-m.X, y-m.Y) > calibration.CardWMM*WorkPxPerMM {
			c.endShow()
		}
	}
	if len(c.embs) >= enrolMaxEmb {
		return nil
	}
	var cam Quad
	for i, p := range q {
		cam[i] = c.view.fullToCamera(float64(p.X), float64(p.Y))
	}
	views, err := backViewsFromCamera(frame, cam, c.file.WhiteBalance, c.mcfg)
	if err != nil {
		return err
	}
	preds, err := model.ClassifyBacks(c.pred, []model.BackViews{views})
	if err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	if !preds[0].IsBack() {
		return nil // a face: not an enrolment
	}
	c.embs = append(c.embs, preds[0].Embedding)
	c.at = append(c.at, Point{x, y})
	c.last, c.gone = q, 0
	return nil
}

// endShow ends the current player's showing: it enrols their back if it
// was read often enough (one glimpse may be a misread), and waits for the next.
func (c *Calibrator) endShow() {
	if len(c.embs) >= 2 {
		c.enrolled = append(c.enrolled, enrolment{at: meanPoint(c.at), emb: model.MeanEmbedding(c.embs...)})
	}
	c.embs, c.at, c.gone = nil, nil, 0
}

func meanPoint(ps []Point) Point {
	var m Point
	for _, p := range ps {
		m.X += p.X / float64(len(ps))
		m.Y += p.Y / float64(len(ps))
	}
	return m
}

// File returns the calibration once Done.
func (c *Calibrator) File() (*calibration.File, error) {
	if !c.Done() {
		return nil, fmt.Errorf("%w (%s)", ErrNotCalibrated, c.Stage())
	}
	f := *c.file
	var at []calibration.Point
	for _, e := range c.enrolled {
		at = append(at, calibration.Point{X: e.at.X / c.view.scale, Y: e.at.Y / c.view.scale})
	}
	wmm, hmm := float64(f.TableW)-2*calibration.MarginMM, float64(f.TableH)-2*calibration.MarginMM
	centre, zones, err := calibration.Zones(wmm, hmm, at)
	if err != nil {
		return nil, err
	}
	f.Centre, f.Seats = centre, nil
	names := c.backNames()
	for i, e := range c.enrolled {
		p := at[i]
		f.Seats = append(f.Seats, calibration.Seat{Player: c.player(i), Back: names[i], Zone: zones[i], Prototype: e.emb, At: &p})
	}
	png, err := gocv.IMEncode(gocv.PNGFileExt, c.bg)
	if err != nil {
		return nil, err
	}
	defer png.Close()
	f.Background = append([]byte(nil), png.GetBytes()...)
	f.BackgroundPxPerMM = WorkPxPerMM
	return &f, f.Validate()
}

// backNames names each enrolled back after the nearest standard design
// when that is unambiguous, else back-1, back-2, ...
func (c *Calibrator) backNames() []string {
	names := make([]string, len(c.enrolled))
	used := map[string]bool{}
	for i, e := range c.enrolled {
		names[i] = fmt.Sprintf("back-%d", i+1)
		if len(c.std) == 0 {
			continue
		}
		protos := make([][]float32, len(c.std))
		for k, b := range c.std {
			protos[k] = b.Embedding
		}
		if k, sim := model.Nearest(e.emb, protos); k >= 0 && sim >= MinBackSimilarity && !used[c.std[k].Name] {
			names[i] = c.std[k].Name
			used[c.std[k].Name] = true
		}
	}
	return names
}

// motionFraction is the fraction of pixels in r that changed between a and b.
func motionFraction(a, b gocv.Mat, r image.Rectangle) float64 {
	ra, rb := a.Region(r), b.Region(r)
	defer ra.Close()
	defer rb.Close()
	d := gocv.NewMat()
	defer d.Close()
	gocv.AbsDiff(ra, rb, &d)
	gocv.CvtColor(d, &d, gocv.ColorBGRToGray)
	gocv.Threshold(d, &d, 30, 255, gocv.ThresholdBinary)
	return float64(gocv.CountNonZero(d)) / math.Max(1, float64(r.Dx()*r.Dy()))
}

// foreground is the mask of pixels that differ from the empty table.
func foreground(rect, bg gocv.Mat) gocv.Mat {
	d := gocv.NewMat()
	gocv.AbsDiff(rect, bg, &d)
	gocv.CvtColor(d, &d, gocv.ColorBGRToGray)
	gocv.Threshold(d, &d, 28, 255, gocv.ThresholdBinary)
	return cleanMask(d)
}

// bareMask is the mask of pixels of rect that are not bare table bg, by
// the channel that differs most: in grey levels a yellow card on a beige
// table is table, and a spot under a card must never look bare (a card
// laid on it would seem to start a new pile).
// Where tex is given, a spot that hides the table's texture (a hand the
// table's colour) is not bare either.
func bareMask(rect, bg gocv.Mat, tex *tableTexture) gocv.Mat {
	m := find.ChannelDiffMask(rect, bg, 28)
	if tex != nil && tex.some {
		h := tex.hidden(rect)
		gocv.BitwiseOr(m, h, &m)
		h.Close()
	}
	return cleanMask(m)
}

// shownForeground is the mask of pixels of rect that differ from relit,
// the empty table under the same light. It is more sensitive than
// foreground, which the pipeline uses against a background that the light
// has drifted away from: a back can be nearly the table's colour (a green
// back on green felt), so it takes the channel that differs most, not the
// grey level, and a lower threshold, which the relit table affords.
func shownForeground(rect, relit gocv.Mat) gocv.Mat {
	return cleanMask(find.ChannelDiffMask(rect, relit, 20))
}

// cleanMask drops specks from mask d and closes small gaps in it, in
// place, and returns it.
func cleanMask(d gocv.Mat) gocv.Mat {
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k.Close()
	gocv.MorphologyEx(d, &d, gocv.MorphOpen, k)
	k7 := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(7, 7))
	defer k7.Close()
	gocv.MorphologyEx(d, &d, gocv.MorphClose, k7)
	return d
}

// cardsInMask returns the blobs of mask shaped like one card.
func cardsInMask(mask gocv.Mat) []Quad {
	p := cardOptions()
	cs := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	var out []Quad
	for i := 0; i < cs.Size(); i++ {
		hull := gocv.NewMat()
		gocv.ConvexHull(cs.At(i), &hull, true, true)
		c := gocv.NewPointVectorFromMat(hull)
		hull.Close()
		area := gocv.ContourArea(c)
		r := gocv.MinAreaRect(c)
		c.Close()
		if area < p.MinArea || area > p.MaxArea {
			continue
		}
		w, h := float64(r.Width), float64(r.Height)
		if w == 0 || h == 0 || area < 0.8*w*h {
			continue
		}
		if a := math.Max(w, h) / math.Min(w, h); a < p.MinAspect || a > p.MaxAspect {
			continue
		}
		var q Quad
		copy(q[:], r.Points)
		out = append(out, find.OrderCorners(q))
	}
	return out
}

// maskFraction is the fraction of set pixels of mask in q's bounding box.
func maskFraction(mask gocv.Mat, q Quad) float64 {
	r := boundsOf(q).Intersect(image.Rect(0, 0, mask.Cols(), mask.Rows()))
	if r.Empty() {
		return 0
	}
	m := mask.Region(r)
	defer m.Close()
	return float64(gocv.CountNonZero(m)) / float64(r.Dx()*r.Dy())
}
