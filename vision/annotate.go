package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/referee"
)

// The annotation's colours, as RGB (gocv draws them into BGR frames as
// such). Violation is a pure magenta that neither cards, hands nor tables
// show, so that an illegal play cannot be missed (and tests can find it).
var (
	ViolationColour = color.RGBA{255, 0, 255, 255}
	PileColour      = color.RGBA{0, 255, 255, 255}   // cyan: a pile the referee knows
	FoundColour     = color.RGBA{200, 200, 200, 255} // grey: a card found, not read yet
	CentreColour    = color.RGBA{90, 160, 160, 255}  // the centre area
	UnsureColour    = color.RGBA{235, 235, 235, 255} // the label of a pile whose top reads unsure: "#3 ?"
)

var faceRGB = map[referee.Colour]color.RGBA{
	referee.Red: {229, 57, 53, 255}, referee.Green: {46, 157, 72, 255},
	referee.Blue: {30, 123, 224, 255}, referee.Yellow: {245, 197, 24, 255},
}

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
)

// ShortFace writes a face as its colour's initial and number: "G7".
func ShortFace(f referee.Face) string {
	if !f.Valid() {
		return "?"
	}
	return strings.ToUpper(f.Colour.String()[:1]) + fmt.Sprint(f.Number)
}

// PileAnnotation is one tracked pile as Annotate draws it.
type PileAnnotation struct {
	ID      int             // referee pile ID; 0 while the first card is not read yet
	Outline Quad            // in camera pixels
	Reading referee.Face    // the committed reading (ID > 0)
	Verdict referee.Verdict // the referee's last call on the pile's plays
	// Unsure: the latest reading of the pile's top was unsure (under
	// model.SureAt); it is drawn as "?" until a reading is sure.
	Unsure bool
}

// Illegal reports whether the referee's last call on the pile was a violation.
func (a PileAnnotation) Illegal() bool { return a.Verdict.Status == referee.StatusViolation }

// Annotations lists the piles Annotate would draw for st: while playing,
// every pile the referee knows (at its last outline, even under a hand)
// and every card found in this frame but not read yet.
func (p *Pipeline) Annotations(st referee.State) []PileAnnotation {
	if p.view == nil || p.phase != referee.PhasePlaying {
		return nil
	}
	// A pile's status is the referee's last call on a play on it: an
	// override or a later legal card clears a violation.
	last := map[int]referee.Verdict{}
	for _, v := range st.Verdicts {
		switch v.Status {
		case referee.StatusOK, referee.StatusInferred, referee.StatusViolation, referee.StatusOverride:
			if v.Pile > 0 {
				last[v.Pile] = v
			}
		}
	}
	var out []PileAnnotation
	for _, pl := range p.piles {
		if pl.id == 0 && pl.seen != p.frame {
			continue // a passing find that may never become a pile
		}
		a := PileAnnotation{ID: pl.id, Reading: pl.committed, Verdict: last[pl.id], Unsure: pl.id > 0 && pl.unsure}
		for i, c := range pl.quad {
			a.Outline[i] = p.view.centreToCamera(float64(c.X), float64(c.Y))
		}
		out = append(out, a)
	}
	return out
}

// Annotate draws onto frame, the BGR frame last given to Process, what
// the pipeline tracks and what the referee made of it (st, the referee's
// state after this frame's observations): each pile's outline and
// reading, illegal plays in thick magenta with the rule and the reason,
// and a scoreboard.
func (p *Pipeline) Annotate(frame *gocv.Mat, st referee.State) error {
	if frame.Empty() || frame.Channels() != 3 || frame.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("annotate: want an 8-bit BGR frame, got %dx%d type %v", frame.Cols(), frame.Rows(), frame.Type())
	}
	if p.view != nil && (frame.Cols() != p.cal.ImageW || frame.Rows() != p.cal.ImageH) {
		return fmt.Errorf("%w: annotate: frame is %dx%d, the calibration was made on %dx%d", ErrCalibration, frame.Cols(), frame.Rows(), p.cal.ImageW, p.cal.ImageH)
	}
	k := scaleOf(*frame)
	th := func(px float64) int { return max(1, int(math.Round(px*k))) }
	anns := p.Annotations(st)
	if p.view != nil && p.phase == referee.PhasePlaying {
		// The centre area, thin: where the camera looks for piles.
		in := p.view.inner
		x0, y0, x1, y1 := float64(in.Min.X), float64(in.Min.Y), float64(in.Max.X), float64(in.Max.Y)
		var q [4]image.Point
		for i, c := range [4][2]float64{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}} {
			q[i] = p.view.centreToCamera(c[0], c[1])
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{q[:]})
		gocv.Polylines(frame, pv, true, CentreColour, 1)
		pv.Close()
	}
	// Outlines first, so that no outline crosses a label.
	for _, a := range anns {
		c, w := PileColour, th(2)
		switch {
		case a.ID == 0:
			c, w = FoundColour, th(1)
		case a.Illegal():
			c, w = ViolationColour, th(5)
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{a.Outline[:]})
		gocv.Polylines(frame, pv, true, c, w)
		pv.Close()
	}
	for _, a := range anns {
		if a.ID == 0 {
			continue
		}
		top, centre := topOf(a.Outline)
		bg := faceRGB[a.Reading.Colour]
		fg := white
		if a.Reading.Colour == referee.Yellow {
			fg = black
		}
		text := fmt.Sprintf("#%d %s", a.ID, ShortFace(a.Reading))
		if a.Unsure {
			// What lies there now is not known: no colour, no number.
			text, bg, fg = fmt.Sprintf("#%d ?", a.ID), UnsureColour, black
		}
		label(frame, text, image.Pt(top.X, top.Y-th(6)), 0.5*k, bg, fg, alignCentre|alignBottom)
		if a.Illegal() {
			// The rule on the card itself, the reason under it.
			label(frame, string(a.Verdict.Rule), centre, 0.8*k, ViolationColour, white, alignCentre|alignMiddle)
			bottom := bottomOf(a.Outline)
			label(frame, shortReason(a.Verdict.Reason), image.Pt(centre.X, bottom+th(6)), 0.5*k, ViolationColour, white, alignCentre)
		}
	}
	scoreboard(frame, st, k)
	return nil
}

// shortReason keeps the words after the cards ("green 5 on red 4: colour
// differs" -> "colour differs").
func shortReason(r string) string {
	if i := strings.LastIndex(r, ": "); i >= 0 {
		r = r[i+2:]
	}
	return r
}

// scaleOf sizes lines and text for the frame: 1 at 720 rows, no less
// than 0.7, where the text would no longer read.
func scaleOf(frame gocv.Mat) float64 { return max(float64(frame.Rows())/720, 0.7) }

func topOf(q Quad) (top, centre image.Point) {
	top = q[0]
	for _, c := range q {
		centre = centre.Add(c)
		if c.Y < top.Y {
			top.Y = c.Y
		}
	}
	centre = centre.Div(4)
	top.X = centre.X
	return top, centre
}

func bottomOf(q Quad) int {
	b := q[0].Y
	for _, c := range q[1:] {
		b = max(b, c.Y)
	}
	return b
}

// scoreboard draws the round, each player's match total and, once the
// cards are counted after the stop, the round's score, on a dark box in
// the top left corner.
func scoreboard(frame *gocv.Mat, st referee.State, k float64) {
	lines := []string{scoreTitle(st)}
	if m := st.Match; m != nil {
		for _, name := range m.Players {
			s := fmt.Sprintf("%-4s %4d", name, m.Totals[name])
			if c, ok := st.Centre[name]; ok && (st.Phase == referee.PhaseCounting || st.Phase == referee.PhaseBetween || st.Phase == referee.PhaseOver) {
				s += fmt.Sprintf("  round %+d", referee.Score(c, st.StackLeft[name]).Score)
			}
			if m.Winner != nil && *m.Winner == name {
				s += "  wins"
			}
			lines = append(lines, s)
		}
	}
	scale := 0.55 * k
	lh := int(math.Round(22 * k))
	w := 0
	for _, l := range lines {
		w = max(w, gocv.GetTextSize(l, gocv.FontHersheySimplex, scale, 1).X)
	}
	pad := int(math.Round(8 * k))
	box := image.Rect(pad, pad, 3*pad+w, 2*pad+lh*len(lines)).Intersect(image.Rect(0, 0, frame.Cols(), frame.Rows()))
	darken(frame, box)
	for i, l := range lines {
		c := white
		if i == 0 {
			c = PileColour
		}
		gocv.PutTextWithParams(frame, l, image.Pt(2*pad, pad+lh*(i+1)-lh/4), gocv.FontHersheySimplex, scale, c, 1, gocv.LineAA, false)
	}
}

func scoreTitle(st referee.State) string {
	switch {
	case st.Match == nil:
		return "no match"
	case st.Phase == referee.PhaseOver:
		return fmt.Sprintf("match over after %d rounds", len(st.Match.Rounds))
	}
	goal := fmt.Sprintf("to %d", st.Match.Settings.Target)
	if st.Match.Settings.Rounds > 0 {
		goal = fmt.Sprintf("of %d", st.Match.Settings.Rounds)
	}
	switch st.Phase {
	case referee.PhaseCounting:
		return fmt.Sprintf("round %d (%s): counting", st.Round, goal)
	case referee.PhaseBetween:
		return fmt.Sprintf("after round %d (%s)", st.Round, goal)
	}
	return fmt.Sprintf("round %d (%s)", st.Round, goal)
}

// darken dims r of frame, so that text on it reads on any table.
func darken(frame *gocv.Mat, r image.Rectangle) {
	if r.Empty() {
		return
	}
	roi := frame.Region(r)
	roi.MultiplyFloat(0.35)
	roi.Close()
}

type align int

const (
	alignCentre align = 1 << iota // x is the centre, not the left edge
	alignMiddle                   // y is the middle, not the top
	alignBottom                   // y is the bottom
)

// label writes s in fg on a box of bg placed at at.
func label(frame *gocv.Mat, s string, at image.Point, scale float64, bg, fg color.RGBA, a align) {
	sz := gocv.GetTextSize(s, gocv.FontHersheySimplex, scale, 1)
	pad := max(2, sz.Y/3)
	w, h := sz.X+2*pad, sz.Y+2*pad
	x, y := at.X, at.Y
	if a&alignCentre != 0 {
		x -= w / 2
	}
	switch {
	case a&alignMiddle != 0:
		y -= h / 2
	case a&alignBottom != 0:
		y -= h
	}
	// Keep the label inside the frame.
	x = min(max(x, 0), frame.Cols()-w)
	y = min(max(y, 0), frame.Rows()-h)
	gocv.Rectangle(frame, image.Rect(x, y, x+w, y+h), bg, -1)
	gocv.PutTextWithParams(frame, s, image.Pt(x+pad, y+pad+sz.Y), gocv.FontHersheySimplex, scale, fg, 1, gocv.LineAA, false)
}

// Caption writes s on a dark band along the bottom of frame: a line about
// the source (the demo says what it is, and how far it has calibrated).
func Caption(frame *gocv.Mat, s string) {
	k := scaleOf(*frame)
	h := int(math.Round(34 * k))
	darken(frame, image.Rect(0, frame.Rows()-h, frame.Cols(), frame.Rows()))
	gocv.PutTextWithParams(frame, s, image.Pt(int(12*k), frame.Rows()-h/3), gocv.FontHersheySimplex, 0.6*k, white, 1, gocv.LineAA, false)
}
