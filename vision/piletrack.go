package vision

// The pile tracker: the centre's piles, found and followed frame to frame.

import (
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// pile is a tracked centre pile.
type pile struct {
	id              int     // referee pile ID, 0 until its first card is committed
	x, y            float64 // centre, in centre work pixels
	quad            Quad    // last outline, centre work pixels
	seen            int     // frame index last seen
	sig             []float32
	reading         model.Prediction
	hasRead         bool
	candidate       referee.Face
	candidateFrames int
	candidateConf   float64 // the surest reading of candidate so far (raw: model.Prediction.RawFaceConfidence)
	// candidateSure is the surest calibrated reading of candidate so far
	// (FaceConfidence): a foul needs one at least model.SureAt.
	candidateSure float64
	// unsure: the pile's latest face reading was under model.SureAt (its
	// top shows as "?" until a reading is sure again).
	unsure bool
	// sureFromWhole: a reading of candidate at least OpenConfidence sure came from
	// an outline not cut short (see cutShort); only such a reading lets
	// SureStable commit.
	sureFromWhole bool
	// area and whole are the outline's area and the outline itself when
	// it last read the committed card.
	area      float64
	whole     Quad
	committed referee.Face
	back      bool // the last reading was a card back
	settled   int  // frame index when the current candidate was first seen quiet
	bareAge   int  // frames from its spot last seen bare to its first find
	born      int  // frame index when it was first found
	// lowestSeen is the lowest number of any reading, however unsure,
	// before the first commit (0: none; 1: a 1 was glimpsed).
	lowestSeen int
	// firstRead is the frame of each face's first sure reading, while
	// the pile has no committed card.
	firstRead map[referee.Face]int
	// sureReads counts, per face, the readings at least OpenConfidence
	// sure while the pile has no committed card.
	sureReads map[referee.Face]int
	// laterSeen counts, by number, the frames since the last commit that
	// read a later card of the pile's colour (above its top): cards laid
	// one on another faster than the camera could see them lie still.
	laterSeen [11]int
}

// findCards finds the cards in the rectified centre, against the empty
// table where the calibration has it.
func (p *Pipeline) findCards() []Quad {
	if p.bg.Empty() {
		return p.inCentre(find.Cards(p.rect, cardOptions()))
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return p.inCentre(find.Cards(p.rect, cardOptions()))
	}
	if p.bareBg.Cols() == p.rect.Cols() && p.bareBg.Rows() == p.rect.Rows() {
		// The empty table under the current light: against the calibration's,
		// a drift of light shows a checked cloth's squares beside a card as
		// foreground, and the outline fitted there takes in cloth and half
		// the card.
		// Where it is plain, a card its colour also stands out by hue.
		var plain *gocv.Mat
		if p.bareTex != nil {
			plain = &p.bareTex.plain
		}
		return p.findCardsAgainst(p.bareBg, plain)
	}
	bgc := p.bg.Region(r) // until the first relight
	defer bgc.Close()
	return p.findCardsAgainst(bgc, nil)
}

// findCardsAgainst finds the cards in the rectified centre against the
// empty table's picture table, of the same size, and where plain (or
// nil) marks it plain, by hue too (see find.Options.Plain).
func (p *Pipeline) findCardsAgainst(table gocv.Mat, plain *gocv.Mat) []Quad {
	return p.inCentre(find.Cards(p.rect, againstTable(&table, plain, p.cfg.FitPiles)))
}

// inCentre keeps the cards whose centre lies in the calibrated centre
// area: the margin round it is there to see those whole, not to take a
// seat's card or a hand beyond it for a pile.
func (p *Pipeline) inCentre(qs []Quad) []Quad {
	return slices.DeleteFunc(qs, func(q Quad) bool {
		x, y := q.Centre()
		return !image.Pt(int(x), int(y)).In(p.view.inner)
	})
}

// forgetFrames is how long a find that was never read as a card is kept
// out of sight (a card under a hand comes back within it).
const forgetFrames = 30

// A surprise reading counts only from a find whose outline is between
// these multiples of a lone card's area on this table (cardArea): a find
// cut by a neighbour's arm is smaller, two touching piles are two.
const minCardArea, maxCardArea = 0.7, 1.8

// noteCardArea records the outline area of a pile's first card, a lone
// card on this table (the rectified card size depends on the camera).
func (p *Pipeline) noteCardArea(a float64) {
	p.cardAreas = append(p.cardAreas, a)
	if len(p.cardAreas) > 15 {
		p.cardAreas = p.cardAreas[1:]
	}
	s := slices.Clone(p.cardAreas)
	slices.Sort(s)
	p.cardArea = s[len(s)/2]
}

// cardSized reports whether q's area is that of one card or one pile, as
// far as the lone cards seen so far tell (true before the first).
func (p *Pipeline) cardSized(q Quad) bool {
	if p.cardArea == 0 {
		return true
	}
	a := quadArea(q)
	return a >= minCardArea*p.cardArea && a <= maxCardArea*p.cardArea
}

// pileCentre is where the referee's pile id lies, in camera pixels.
func (p *Pipeline) pileCentre(id int) (calibration.Point, bool) {
	for _, pl := range p.piles {
		if pl.id == id && p.view != nil {
			c := p.view.centreToCamera(pl.x, pl.y)
			return calibration.Point{X: float64(c.X), Y: float64(c.Y)}, true
		}
	}
	return calibration.Point{}, false
}

// cameraQuad maps q, in centre work pixels, to camera pixels.
func (p *Pipeline) cameraQuad(q Quad) Quad {
	var cam Quad
	for i, c := range q {
		cam[i] = p.view.centreToCamera(float64(c.X), float64(c.Y))
	}
	return cam
}

func boundsOf(q Quad) image.Rectangle {
	r := image.Rectangle{Min: q[0], Max: q[0]}
	for _, c := range q[1:] {
		r = r.Union(image.Rectangle{Min: c, Max: c.Add(image.Pt(1, 1))})
	}
	return r
}

// signature is a small grey thumbnail of the card in q, to tell whether it
// changed since it was last read.
func signature(img gocv.Mat, q Quad) []float32 {
	w := find.WarpCard(img, find.OrderCorners(q), 6, 9)
	defer w.Close()
	b, err := w.DataPtrUint8()
	if err != nil {
		return nil
	}
	out := make([]float32, len(b))
	for i, v := range b {
		out[i] = float32(v) / 255
	}
	return out
}

func sigDiff(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 1
	}
	var s float64
	for i := range a {
		s += math.Abs(float64(a[i] - b[i]))
	}
	return s / float64(len(a))
}

// quadArea is the area enclosed by q.
func quadArea(q Quad) float64 {
	pg := make(calibration.Polygon, len(q))
	for i, c := range q {
		pg[i] = calibration.Point{X: float64(c.X), Y: float64(c.Y)}
	}
	return pg.Area()
}
