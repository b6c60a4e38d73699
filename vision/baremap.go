package vision

// The bare-table map: where and when the centre last showed the empty
// table, against the calibration's empty table relit to the current light.

import (
	"image"
	"math"
	"slices"

	"gocv.io/x/gocv"
)

// bareCell is the side, in centre work pixels, of a cell of a bareMap.
const bareCell = 4

// bareMap records, cell by cell over the centre, the last frame in which
// the cell showed the empty table.
type bareMap struct {
	cols, rows int
	last       []int // frame index, 0 = never
}

// mark records that the cells where fg (a mask, 255 = not table) is
// mostly clear were bare at frame.
func (b *bareMap) mark(fg gocv.Mat, frame int) {
	cols, rows := fg.Cols()/bareCell, fg.Rows()/bareCell
	if cols < 1 || rows < 1 {
		return
	}
	if b.cols != cols || b.rows != rows {
		*b = bareMap{cols: cols, rows: rows, last: make([]int, cols*rows)}
	}
	small := gocv.NewMat()
	defer small.Close()
	sub := fg.Region(image.Rect(0, 0, cols*bareCell, rows*bareCell))
	defer sub.Close()
	gocv.Resize(sub, &small, image.Pt(cols, rows), 0, 0, gocv.InterpolationArea)
	px, err := small.DataPtrUint8() // one cgo call, not one a cell
	if err != nil || len(px) < cols*rows {
		return
	}
	for i, v := range px[:cols*rows] {
		if v < 26 {
			b.last[i] = frame
		}
	}
}

// neverBare is the bare age of a spot never seen bare.
const neverBare = math.MaxInt32

// bareAge is how many frames before frame most cells inside q (centre work
// pixels) were last bare: the median of the cells' ages, neverBare when
// most were never bare.
func (b *bareMap) bareAge(q Quad, frame int) int {
	var ages []int
	for _, l := range b.inside(q) {
		age := neverBare
		if l > 0 {
			age = frame - l
		}
		ages = append(ages, age)
	}
	if len(ages) == 0 {
		return neverBare
	}
	slices.Sort(ages)
	return ages[len(ages)/2]
}

// bareNow is the fraction of the cells inside q (centre work pixels) seen
// as bare table in frame.
func (b *bareMap) bareNow(q Quad, frame int) float64 {
	in := b.inside(q)
	if len(in) == 0 {
		return 1
	}
	bare := 0
	for _, l := range in {
		if l == frame {
			bare++
		}
	}
	return float64(bare) / float64(len(in))
}

// inside returns the frames when the cells whose centres lie inside q
// (centre work pixels) were last bare, 0 for never.
func (b *bareMap) inside(q Quad) []int {
	var out []int
	for y := range b.rows {
		for x := range b.cols {
			if q.Contains(float64(x*bareCell)+bareCell/2, float64(y*bareCell)+bareCell/2) {
				out = append(out, b.last[y*b.cols+x])
			}
		}
	}
	return out
}

// relightFrames is how often the bare map's empty table is brought to
// the current light (light drifts over seconds).
const relightFrames = 15

// updateBare marks the bare spots of the current centre image.
func (p *Pipeline) updateBare() {
	if p.bg.Empty() || p.view == nil {
		return
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return
	}
	// The light drifts from the calibration's: against the empty table as
	// it was, a bare spot can differ by more than the threshold and never
	// count as bare (a bad start then goes uncalled).
	if p.bareLight == nil {
		bgc := p.bg.Region(r)
		l, err := newRelighter(bgc) // copies it
		bgc.Close()
		if err != nil {
			return
		}
		l.local = true
		p.bareLight, p.bareLit = l, -relightFrames
	}
	if p.frame-p.bareLit >= relightFrames && p.bareLight.relight(p.rect, &p.bareBg) == nil {
		p.bareLit = p.frame
		if p.bareTex != nil {
			p.bareTex.Close()
		}
		p.bareTex = newTableTexture(p.bareBg)
	}
	if p.bareBg.Empty() {
		return
	}
	m := bareMask(p.rect, p.bareBg, p.bareTex)
	defer m.Close()
	p.bare.mark(m, p.frame)
}

// newPileDiffers is the least share of a find whose colour (its hue and
// saturation, not its brightness) must differ from the empty table's for
// it to start a pile: a card's does over most of it, while an outline that
// takes in a stretch of table beside a card, where a shade or the light's
// edge made the table differ in brightness only, does over half of it at
// most.
const newPileDiffers = 0.6

// differsFromTable reports whether find q's colour differs from the
// empty table's over at least newPileDiffers of it.
func (p *Pipeline) differsFromTable(q Quad) bool {
	w, h := p.rect.Cols(), p.rect.Rows()
	if p.bareBg.Cols() != w || p.bareBg.Rows() != h || !p.bareBg.IsContinuous() || !p.rect.IsContinuous() {
		return true
	}
	img, err1 := p.rect.DataPtrUint8()
	table, err2 := p.bareBg.DataPtrUint8()
	if err1 != nil || err2 != nil {
		return true
	}
	return chromaDiffers(img, table, w, h, q) >= newPileDiffers
}

// centreEmpty reports whether the centre shows the empty table.
func (p *Pipeline) centreEmpty() bool {
	if p.bg.Empty() {
		for _, pl := range p.piles {
			if pl.seen == p.frame {
				return false
			}
		}
		return true
	}
	r := p.view.centre.Intersect(image.Rectangle{Max: image.Pt(p.bg.Cols(), p.bg.Rows())})
	if r.Dx() != p.rect.Cols() || r.Dy() != p.rect.Rows() {
		return false
	}
	bgc := p.bg.Region(r)
	defer bgc.Close()
	m := foreground(p.rect, bgc)
	defer m.Close()
	in := m.Region(p.view.inner) // the seats' cards may reach into the margin
	defer in.Close()
	return float64(gocv.CountNonZero(in)) < 0.01*float64(p.view.inner.Dx()*p.view.inner.Dy())
}
