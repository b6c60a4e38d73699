package vision

import (
	"fmt"
	"image"
	"math"
	"sort"
	"unsafe"

	"gocv.io/x/gocv"
)

// relightCell is the side (work px) of the cells the light is measured in.
const relightCell = 16

// relighter shows the empty table under the light of another frame. The
// light drifts (a lamp warming up, the sun, the camera's auto exposure):
// brightness, colour temperature and the gradient across the table change
// slowly and smoothly, so that within seconds an unchanged table differs
// from its image by more than a card on it does, when the card is nearly
// the table's colour.
type relighter struct {
	bg     []byte // the empty table, 8-bit BGR, w x h, continuous
	w, h   int
	small  []byte // its mean over cells, cw x ch
	cw, ch int
	cur    gocv.Mat // scratch: the current frame's mean over cells
	// local also fits the light locally beside the plane (localGain): the
	// pipeline's view of the centre during play, where a shade may fall
	// over some piles. Calibration and the count fit the plane alone.
	local bool
}

// newRelighter copies the empty table bg (8-bit BGR).
func newRelighter(bg gocv.Mat) (*relighter, error) {
	if bg.Empty() || bg.Type() != gocv.MatTypeCV8UC3 {
		return nil, fmt.Errorf("relight: want an 8-bit BGR empty table")
	}
	r := &relighter{w: bg.Cols(), h: bg.Rows(), cur: gocv.NewMat()}
	r.cw, r.ch = max(1, r.w/relightCell), max(1, r.h/relightCell)
	c := bg.Clone()
	defer c.Close()
	b, err := c.DataPtrUint8()
	if err != nil {
		r.Close()
		return nil, err
	}
	r.bg = append([]byte(nil), b...)
	s := gocv.NewMat()
	defer s.Close()
	gocv.Resize(c, &s, image.Pt(r.cw, r.ch), 0, 0, gocv.InterpolationArea)
	sb, err := s.DataPtrUint8()
	if err != nil {
		r.Close()
		return nil, err
	}
	r.small = append([]byte(nil), sb...)
	return r, nil
}

// Close frees the scratch image.
func (r *relighter) Close() { r.cur.Close() }

// relight writes into dst the empty table as it would look under the light
// of cur (8-bit BGR, the table's size): per channel, cur/bg is fitted over
// coarse cells by a gain that varies linearly across the table. The fit
// is trimmed, so that cards, hands and shadows, which change the ratio far
// more than the light does, do not bend it.
func (r *relighter) relight(cur gocv.Mat, dst *gocv.Mat) error {
	if cur.Cols() != r.w || cur.Rows() != r.h || cur.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("relight: a %dx%d image of type %v, want %dx%d 8-bit BGR", cur.Cols(), cur.Rows(), cur.Type(), r.w, r.h)
	}
	gocv.Resize(cur, &r.cur, image.Pt(r.cw, r.ch), 0, 0, gocv.InterpolationArea)
	cs, err := r.cur.DataPtrUint8()
	if err != nil {
		return err
	}
	var gain [3][3]float64 // per channel: g(u, v) = a + b*u + c*v, u and v in 0..1
	n := r.cw * r.ch
	xs, ys, rs := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for k := range 3 {
		xs, ys, rs = xs[:0], ys[:0], rs[:0]
		for j := range r.ch {
			for i := range r.cw {
				o := 3*(j*r.cw+i) + k
				if r.small[o] < 40 { // the markers' black: too dark to measure the light on
					continue
				}
				xs = append(xs, (float64(i)+0.5)/float64(r.cw))
				ys = append(ys, (float64(j)+0.5)/float64(r.ch))
				rs = append(rs, float64(cs[o])/float64(r.small[o]))
			}
		}
		gain[k] = fitGain(xs, ys, rs)
	}
	var local []float32
	if r.local {
		local = r.localGain(cs, gain)
	}
	if dst.Rows() != r.h || dst.Cols() != r.w || dst.Type() != gocv.MatTypeCV8UC3 || !dst.IsContinuous() {
		dst.Close()
		*dst = gocv.NewMatWithSize(r.h, r.w, gocv.MatTypeCV8UC3)
	}
	out, err := dst.DataPtrUint8()
	if err != nil {
		return err
	}
	var g, step [3]float32
	for k := range 3 {
		step[k] = float32(gain[k][1] / float64(r.w))
	}
	for y := range r.h {
		v := (float64(y) + 0.5) / float64(r.h)
		for k := range 3 {
			g[k] = float32(gain[k][0] + gain[k][2]*v + gain[k][1]*0.5/float64(r.w))
		}
		src, row := r.bg[3*y*r.w:3*(y+1)*r.w], out[3*y*r.w:3*(y+1)*r.w]
		var lrow []float32
		if local != nil {
			lrow = local[y*r.w : (y+1)*r.w]
		}
		for x := 0; x < len(src); x += 3 {
			l := float32(1)
			if lrow != nil {
				l = lrow[x/3]
			}
			for k := range 3 {
				p := float32(src[x+k])*g[k]*l + 0.5
				switch {
				case p >= 255:
					row[x+k] = 255
				case p <= 0:
					row[x+k] = 0
				default:
					row[x+k] = uint8(p)
				}
				g[k] += step[k]
			}
		}
	}
	return nil
}

// A shade across part of the table (someone standing in the lamp's light)
// is no gradient: beside the plane, the light is fitted locally too. A
// cell where the light alone changed keeps the table's colour, so its
// three channels change by one factor; a card, a hand or a shadow's
// colour changes them unevenly. The local factor is the median over a
// window of cells of the even ones: a window larger than a card, so that
// a grey card among them does not turn into table.
const (
	localEven   = 0.06 // the most the channels' factors may differ, relative
	localRadius = 2    // the window is (2*localRadius+1) cells square
	localMin    = 8    // even cells a window needs, else no local factor
	localLow    = 0.35 // bounds of the local factor
	localHigh   = 1.6
	localFlat   = 0.02 // a factor this close to 1 everywhere: no local light to mend
)

// localGain is the light's factor beside the plane, per pixel (w x h),
// from cur's cells cs and the plane's gains; nil where the plane alone
// explains the light.
func (r *relighter) localGain(cs []byte, gain [3][3]float64) []float32 {
	cells := make([]float64, r.cw*r.ch) // the even cells' factor, or 0
	for j := range r.ch {
		v := (float64(j) + 0.5) / float64(r.ch)
		for i := range r.cw {
			u := (float64(i) + 0.5) / float64(r.cw)
			o := 3 * (j*r.cw + i)
			lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
			ok := true
			for k := range 3 {
				if r.small[o+k] < 40 {
					ok = false
					break
				}
				plane := gain[k][0] + gain[k][1]*u + gain[k][2]*v
				q := float64(cs[o+k]) / (float64(r.small[o+k]) * plane)
				lo, hi, sum = math.Min(lo, q), math.Max(hi, q), sum+q
			}
			if ok && hi-lo <= localEven*hi {
				cells[j*r.cw+i] = sum / 3
			}
		}
	}
	factor := make([]float32, r.cw*r.ch)
	win := make([]float64, 0, (2*localRadius+1)*(2*localRadius+1))
	for j := range r.ch {
		for i := range r.cw {
			win = win[:0]
			for y := max(0, j-localRadius); y <= min(r.ch-1, j+localRadius); y++ {
				for x := max(0, i-localRadius); x <= min(r.cw-1, i+localRadius); x++ {
					if c := cells[y*r.cw+x]; c > 0 {
						win = append(win, c)
					}
				}
			}
			factor[j*r.cw+i] = 1
			if len(win) >= localMin {
				sort.Float64s(win)
				factor[j*r.cw+i] = float32(math.Max(localLow, math.Min(localHigh, win[len(win)/2])))
			}
		}
	}
	flat := true
	for _, f := range factor {
		flat = flat && math.Abs(float64(f)-1) < localFlat
	}
	if flat {
		return nil
	}
	// Bilinear between the cells' centres.
	small, err := gocv.NewMatFromBytes(r.ch, r.cw, gocv.MatTypeCV32F, unsafeFloatBytes(factor))
	if err != nil {
		return nil
	}
	defer small.Close()
	full := gocv.NewMat()
	defer full.Close()
	gocv.Resize(small, &full, image.Pt(r.w, r.h), 0, 0, gocv.InterpolationLinear)
	out, err := full.DataPtrFloat32()
	if err != nil {
		return nil
	}
	return append([]float32(nil), out...)
}

// unsafeFloatBytes is v's memory as bytes, for a Mat made from it.
func unsafeFloatBytes(v []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}

// fitGain fits r = a + b*x + c*y by least squares, trimming outliers: it
// starts from the median and keeps refitting on the samples within a few
// robust deviations of the fit. With too few samples it returns gain 1.
func fitGain(xs, ys, rs []float64) [3]float64 {
	if len(rs) < 6 {
		return [3]float64{1, 0, 0}
	}
	g := [3]float64{medianF64(rs), 0, 0}
	abs := make([]float64, len(rs))
	for range 4 {
		for i := range rs {
			abs[i] = math.Abs(rs[i] - (g[0] + g[1]*xs[i] + g[2]*ys[i]))
		}
		tol := math.Max(0.02, 3*1.4826*medianF64(abs))
		var a [3][4]float64 // normal equations, augmented
		n := 0
		for i := range rs {
			if abs[i] > tol {
				continue
			}
			f := [3]float64{1, xs[i], ys[i]}
			for r := range 3 {
				for c := range 3 {
					a[r][c] += f[r] * f[c]
				}
				a[r][3] += f[r] * rs[i]
			}
			n++
		}
		s, ok := solveGain3(a)
		if n < 6 || !ok {
			break
		}
		g = s
	}
	return g
}

// solveGain3 solves a 3x3 linear system given as an augmented matrix.
func solveGain3(a [3][4]float64) ([3]float64, bool) {
	for c := range 3 {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-9 {
			return [3]float64{}, false
		}
		a[c], a[p] = a[p], a[c]
		for r := range 3 {
			if r != c {
				k := a[r][c] / a[c][c]
				for j := c; j < 4; j++ {
					a[r][j] -= k * a[c][j]
				}
			}
		}
	}
	return [3]float64{a[0][3] / a[0][0], a[1][3] / a[1][1], a[2][3] / a[2][2]}, true
}

// medianF64 returns the (upper) median of v, leaving v as it is.
func medianF64(v []float64) float64 {
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	return w[len(w)/2]
}
