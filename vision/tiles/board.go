// Package tiles reads the tile game (rulebook 002) from a camera above the
// table: it finds the board from the four corner markers, learns every
// field's colour, and turns what changes on the fields into observations
// for the observed model referee/tiles.Referee: each round's board and
// stones, every card (its fields, the colours seen on them, its owner by
// the frame style), every joker with its owner, and every stone's move.
// Wrong plays are reported as they lie, for the referee to judge. What
// the watcher cannot read surely it does not report (Watcher.Unsure says
// why). The stop, the cards left and the end of a round are not seen:
// they are inferred from the counts by the table's driver.
package tiles

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/referee/tiles"
	"ligretto/vision"
)

// Errors.
var (
	// ErrNoMarkers means the four table markers were not found.
	ErrNoMarkers = errors.New("vision/tiles: the four table markers were not found")
	// ErrNoBoard means no board of 6 or 9 parts was found.
	ErrNoBoard = errors.New("vision/tiles: no board found")
)

// Sizes in millimetres (those of render/tiles and of the printed game).
const (
	FieldMM = 45.0
	partMM  = 4*FieldMM + 5
)

// pxPerMM is the top view's resolution.
const pxPerMM = 1.0

// Board is the board as found: each part's centre and angle in the top
// view (mm), and every field's colour.
type Board struct {
	Cols    int
	Parts   []Pose
	Layout  tiles.Layout
	W, H    int // in fields
	colours [][]tiles.Colour
}

// Pose is a part's centre (top-view mm), angle (radians), and scale along
// its axes (top-view mm per mm).
type Pose struct {
	X, Y, A, SX, SY float64
	m               [4]float64 // part mm -> top view: (m0 m1; m2 m3), fitted to the fields' edges
}

func (p *Pose) setAffine() {
	ca, sa := math.Cos(p.A), math.Sin(p.A)
	p.m = [4]float64{ca * p.SX, -sa * p.SY, sa * p.SX, ca * p.SY}
}

// Colour returns field f's colour.
func (b *Board) Colour(f tiles.Field) tiles.Colour { return b.colours[f.Y][f.X] }

// At maps a point (u, v) mm from field f's centre, in the part's axes, to
// the top view.
func (b *Board) At(f tiles.Field, u, v float64) (float64, float64) {
	p := &b.Parts[(f.Y/tiles.PartSize)*b.Cols+f.X/tiles.PartSize]
	return p.at((float64(f.X%tiles.PartSize)-1.5)*FieldMM+u, (float64(f.Y%tiles.PartSize)-1.5)*FieldMM+v)
}

// at maps a point (lx, ly) mm from the part's centre, in its axes, to the
// top view.
func (p *Pose) at(lx, ly float64) (float64, float64) {
	return p.X + p.m[0]*lx + p.m[1]*ly, p.Y + p.m[2]*lx + p.m[3]*ly
}

// topView maps camera frames onto the table plane seen from above.
type topView struct {
	h     calibration.Homography // image px -> top view px
	inv   calibration.Homography
	hm    gocv.Mat
	size  image.Point // the top view's
	frame image.Point // the camera frame's
	img   gocv.Mat
	hsv   gocv.Mat
	bytes []byte
	hb    []byte
}

func newTopView(frame gocv.Mat) (*topView, error) {
	pl, err := vision.FindPlane(frame, calibration.DefaultMarkerMM)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMarkers, err)
	}
	h, w, hh, err := pl.TableHomography(pxPerMM)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMarkers, err)
	}
	m := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	for i, v := range h {
		m.SetDoubleAt(i/3, i%3, v)
	}
	return &topView{h: h, inv: h.Inverse(), hm: m, size: image.Pt(w, hh), frame: image.Pt(frame.Cols(), frame.Rows()), img: gocv.NewMat(), hsv: gocv.NewMat()}, nil
}

func (t *topView) Close() { t.hm.Close(); t.img.Close(); t.hsv.Close() }

// warp rectifies frame into the top view and its HSV copy.
func (t *topView) warp(frame gocv.Mat) error {
	gocv.WarpPerspectiveWithParams(frame, &t.img, t.hm, t.size, gocv.InterpolationLinear, gocv.BorderReplicate, colorBlack)
	gocv.CvtColor(t.img, &t.hsv, gocv.ColorBGRToHSV)
	var err error
	if t.bytes, err = t.img.DataPtrUint8(); err != nil {
		return err
	}
	t.hb, err = t.hsv.DataPtrUint8()
	return err
}

// px is the top view's pixel at (x, y) mm: B, G, R and H, S, V.
func (t *topView) px(x, y float64) (bgr, hsv [3]uint8, ok bool) {
	ix, iy := int(math.Round(x*pxPerMM)), int(math.Round(y*pxPerMM))
	if ix < 0 || iy < 0 || ix >= t.size.X || iy >= t.size.Y {
		return bgr, hsv, false
	}
	i := 3 * (iy*t.size.X + ix)
	copy(bgr[:], t.bytes[i:i+3])
	copy(hsv[:], t.hb[i:i+3])
	return bgr, hsv, true
}

// pixel classes.
const (
	pxOther = iota
	pxRed
	pxGreen
	pxBlue
	pxYellow
	pxDark
	pxWhite
	nClasses
)

var classColour = [...]tiles.Colour{pxRed: referee.Red, pxGreen: referee.Green, pxBlue: referee.Blue, pxYellow: referee.Yellow}

func classify(hsv [3]uint8) int {
	h, s, v := int(hsv[0]), int(hsv[1]), int(hsv[2])
	switch {
	case v < 70:
		return pxDark
	case s < 60 && v > 140:
		return pxWhite
	case s < 110:
		return pxOther
	case h < 8 || h >= 165:
		return pxRed
	case h >= 20 && h < 36:
		return pxYellow
	case h >= 45 && h < 88:
		return pxGreen
	case h >= 98 && h < 128:
		return pxBlue
	}
	return pxOther
}

// boardPixel says whether a top-view pixel shows a board part's print:
// strongly saturated (a wooden table or a cloth can be nearly as
// saturated, and brown is a dark yellow: the print's yellow is bright and
// less orange).
func boardPixel(hsv [3]uint8) bool {
	c := classify(hsv)
	if c < pxRed || c > pxYellow || hsv[1] < 185 {
		return false
	}
	return c != pxYellow || hsv[2] >= 140 && hsv[0] >= 21
}

// findBoard segments the saturated board parts in the top view and fits
// each part's square: 6 parts for 2 players, 9 for 3-4.
func findBoard(t *topView, players int) (*Board, error) {
	want, cols, err := tiles.PartsFor(players)
	if err != nil {
		return nil, err
	}
	mask := gocv.NewMatWithSize(t.size.Y, t.size.X, gocv.MatTypeCV8UC1)
	defer mask.Close()
	mb, err := mask.DataPtrUint8()
	if err != nil {
		return nil, err
	}
	for i := range mb {
		var hsv [3]uint8
		copy(hsv[:], t.hb[3*i:3*i+3])
		mb[i] = 0
		if boardPixel(hsv) {
			mb[i] = 255
		}
	}
	k3 := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k3.Close()
	gocv.MorphologyEx(mask, &mask, gocv.MorphOpen, k3)
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(7, 7))
	defer k.Close()
	gocv.MorphologyEx(mask, &mask, gocv.MorphClose, k)
	b, err := boardOf(t, partsIn(mask), want, cols)
	if err != nil {
		// A saturated cloth (checks of a print colour) joins the parts or
		// sticks to them: its squares are smaller than a field, the parts
		// solid.
		n := int(math.Round(0.8 * FieldMM * pxPerMM))
		kc := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(n, n))
		defer kc.Close()
		gocv.MorphologyEx(mask, &mask, gocv.MorphOpen, kc)
		b, err = boardOf(t, partsIn(mask), want, cols)
	}
	return b, err
}

// boardOf orders the parts found in rows and reads every field's colour:
// a part's square that is off (a blob with some cloth in it) leaves a
// field without one colour.
func boardOf(t *topView, parts []Pose, want, cols int) (*Board, error) {
	if len(parts) != want {
		return nil, fmt.Errorf("%w: %d board parts seen, want %d", ErrNoBoard, len(parts), want)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Y < parts[j].Y })
	for r := 0; r < want; r += cols {
		row := parts[r : r+cols]
		sort.Slice(row, func(i, j int) bool { return row[i].X < row[j].X })
	}
	b := &Board{Cols: cols, Parts: parts, W: cols * tiles.PartSize, H: want / cols * tiles.PartSize}
	b.colours = make([][]tiles.Colour, b.H)
	for y := range b.H {
		b.colours[y] = make([]tiles.Colour, b.W)
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			c, frac := topColour(t, b, f)
			if frac < 0.8 {
				return nil, fmt.Errorf("%w: field %v shows no one colour", ErrNoBoard, f)
			}
			b.colours[y][x] = c
		}
	}
	b.Layout.Cols = cols
	for p := range want {
		var part tiles.Part
		for fy := range tiles.PartSize {
			for fx := range tiles.PartSize {
				part[fy][fx] = b.colours[(p/cols)*tiles.PartSize+fy][(p%cols)*tiles.PartSize+fx]
			}
		}
		b.Layout.Parts = append(b.Layout.Parts, part)
	}
	return b, nil
}

// partsIn fits a board part's square to each blob of mask the size of
// one.
func partsIn(mask gocv.Mat) []Pose {
	cs := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer cs.Close()
	side := 4 * FieldMM * pxPerMM
	var parts []Pose
	for i := range cs.Size() {
		c := cs.At(i)
		r := gocv.MinAreaRect(c)
		w, h := float64(r.Width), float64(r.Height)
		if w < 0.85*side || w > 1.15*side || h < 0.85*side || h > 1.15*side {
			continue
		}
		a := r.Angle * math.Pi / 180
		for a > math.Pi/4 {
			a -= math.Pi / 2
			w, h = h, w
		}
		for a < -math.Pi/4 {
			a += math.Pi / 2
			w, h = h, w
		}
		// The lens bends the table a little: the markers' plane maps the
		// board's middle a few percent too big. Each part's fields are
		// spaced as the part measures.
		p := Pose{X: float64(r.Center.X) / pxPerMM, Y: float64(r.Center.Y) / pxPerMM, A: a,
			SX: w / pxPerMM / (4 * FieldMM), SY: h / pxPerMM / (4 * FieldMM)}
		p.setAffine()
		parts = append(parts, p)
	}
	return parts
}

var colorBlack = color.RGBA{}

// topColour is the main colour of field f in the top view (most of the
// field, so that a stone on it leaves enough) and its share of the
// coloured pixels (0 if few are coloured).
func topColour(t *topView, b *Board, f tiles.Field) (tiles.Colour, float64) {
	var counts [nClasses]int
	n := 0
	const reach = 19.0
	for v := -reach; v <= reach; v += 2 {
		for u := -reach; u <= reach; u += 2 {
			x, y := b.At(f, u, v)
			if _, hsv, ok := t.px(x, y); ok {
				counts[classify(hsv)]++
				n++
			}
		}
	}
	best, bn, coloured := pxRed, -1, 0
	for c := pxRed; c <= pxYellow; c++ {
		coloured += counts[c]
		if counts[c] > bn {
			best, bn = c, counts[c]
		}
	}
	if 10*coloured < 3*n {
		return classColour[pxRed], 0
	}
	return classColour[best], float64(bn) / float64(coloured)
}
