package tiles

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee/tiles"
	"ligretto/table"
	"ligretto/vision"
	vtiles "ligretto/vision/tiles"
)

// imageView maps the watcher's top view (table millimetres at 1 px/mm,
// as vision/tiles rectifies) back onto the camera's picture.
type imageView struct {
	inv calibration.Homography
}

func newImageView(frame gocv.Mat) (*imageView, error) {
	pl, err := vision.FindPlane(frame, calibration.DefaultMarkerMM)
	if err != nil {
		return nil, err
	}
	h, _, _, err := pl.TableHomography(1)
	if err != nil {
		return nil, err
	}
	return &imageView{inv: h.Inverse()}, nil
}

func (v *imageView) pt(x, y float64) image.Point {
	p := v.inv.Apply(calibration.Point{X: x, Y: y})
	return image.Pt(int(math.Round(p.X)), int(math.Round(p.Y)))
}

// quad is field f's square (shrunk by inset mm) in the picture.
func (v *imageView) quad(b *vtiles.Board, f tiles.Field, inset float64) []image.Point {
	d := vtiles.FieldMM/2 - inset
	out := make([]image.Point, 0, 4)
	for _, c := range [4][2]float64{{-d, -d}, {d, -d}, {d, d}, {-d, d}} {
		out = append(out, v.pt(b.At(f, c[0], c[1])))
	}
	return out
}

var (
	white  = color.RGBA{255, 255, 255, 0}
	green  = color.RGBA{40, 220, 40, 0}
	red    = color.RGBA{255, 30, 30, 0} // gocv turns RGBA into the Mats' BGR
	grey   = color.RGBA{160, 160, 160, 0}
	yellow = color.RGBA{255, 220, 0, 0}
)

// annotate draws the board as read (each part's outline, this round's
// cards and jokers green when legal, red when wrong, grey when late), the
// stones as the referee has them, the latest calls and the scores.
func (l *Loop) annotate(frame *gocv.Mat, shot table.Shot) {
	if frame.Empty() {
		return
	}
	k := max(float64(frame.Rows())/720, 0.7)
	st := l.ref.State()
	if b := l.watch.Board(); b != nil {
		if l.view == nil {
			l.view, _ = newImageView(*frame) // no markers in this frame: try the next
		}
		if l.view != nil {
			l.drawBoard(frame, b, st, k)
		}
	}
	y := int(28 * k)
	head := fmt.Sprintf("Tile game: round %d, %s", st.Round, strings.ReplaceAll(string(st.Phase), "_", " "))
	lines := append([]string{head}, l.calls...)
	panel(frame, image.Pt(int(10*k), y), lines, k)
	panel(frame, image.Pt(frame.Cols()-int(330*k), y), scores(st), k)
	caption := shot.Caption
	if l.status != "" {
		caption = strings.TrimPrefix(caption+". "+l.status, ". ")
	}
	if caption != "" {
		vision.Caption(frame, caption)
	}
}

func (l *Loop) drawBoard(frame *gocv.Mat, b *vtiles.Board, st tiles.State, k float64) {
	lw := max(1, int(math.Round(2*k)))
	for p := range b.Parts {
		x0, y0 := (p%b.Cols)*tiles.PartSize, (p/b.Cols)*tiles.PartSize
		e := tiles.PartSize - 1
		corner := func(fx, fy int, u, v float64) image.Point {
			return l.view.pt(b.At(tiles.Field{X: x0 + fx, Y: y0 + fy}, u, v))
		}
		h := vtiles.FieldMM / 2
		pts := gocv.NewPointsVectorFromPoints([][]image.Point{{corner(0, 0, -h, -h), corner(e, 0, h, -h), corner(e, e, h, h), corner(0, e, -h, h)}})
		gocv.Polylines(frame, pts, true, white, 1)
		pts.Close()
	}
	for _, pc := range l.pieces {
		c := green
		switch pc.status {
		case tiles.StatusViolation:
			c = red
		case tiles.StatusLate:
			c = grey
		}
		for _, f := range pc.fields {
			pts := gocv.NewPointsVectorFromPoints([][]image.Point{l.view.quad(b, f, 4)})
			gocv.Polylines(frame, pts, true, c, lw)
			pts.Close()
		}
	}
	if st.Phase != tiles.PhasePlaying && st.Phase != tiles.PhaseCounting {
		return
	}
	for i, s := range st.Stones {
		if s.At.X < 0 || s.At.Y < 0 || s.At.X >= b.W || s.At.Y >= b.H {
			continue
		}
		c := l.view.pt(b.At(s.At, 0, 0))
		gocv.Circle(frame, c, int(16*k), yellow, lw)
		gocv.PutTextWithParams(frame, fmt.Sprint(i+1), c.Add(image.Pt(int(-6*k), int(6*k))), gocv.FontHersheySimplex, 0.6*k, yellow, lw, gocv.LineAA, false)
	}
}

// scores are one line a player: cards laid of those in play, the
// round's faults, and the match total.
func scores(st tiles.State) []string {
	if st.Match == nil {
		return []string{"no match yet"}
	}
	out := []string{"player: laid, total"}
	for _, n := range st.Match.Players {
		s := fmt.Sprintf("%s (%s): %d/%d, %d pts", n, st.Match.Frames[n], st.Laid[n], st.Match.InPlay(n), st.Match.Totals[n])
		if len(st.Faults[n]) > 0 {
			s += " (fault)"
		}
		out = append(out, s)
	}
	return out
}

// panel writes lines on a dark box whose top-left is at.
func panel(frame *gocv.Mat, at image.Point, lines []string, k float64) {
	if len(lines) == 0 {
		return
	}
	scale := 0.5 * k
	step := int(22 * k)
	w := 0
	for _, s := range lines {
		sz := gocv.GetTextSize(s, gocv.FontHersheySimplex, scale, 1)
		w = max(w, sz.X)
	}
	r := image.Rect(at.X-4, at.Y-step+4, at.X+w+8, at.Y+step*(len(lines)-1)+int(8*k)).Intersect(image.Rect(0, 0, frame.Cols(), frame.Rows()))
	if !r.Empty() {
		roi := frame.Region(r)
		roi.MultiplyFloat(0.35)
		roi.Close()
	}
	for i, s := range lines {
		gocv.PutTextWithParams(frame, s, at.Add(image.Pt(0, i*step)), gocv.FontHersheySimplex, scale, white, 1, gocv.LineAA, false)
	}
}
