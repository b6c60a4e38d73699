package tiles

import (
	"math"
	"sync"

	"ligretto/calibration"
	"ligretto/referee/tiles"
)

// Every frame each field is read at fixed points, mapped once from the
// top view (table mm) into the camera image: no per-frame warp, no
// per-frame colour conversion (a lookup table classifies the BGR bytes).

// classLUT classifies a BGR pixel quantised to 6 bits a channel.
var (
	classLUT  [1 << 18]uint8
	lutBuilds sync.Once
)

func lutIndex(b, g, r uint8) int { return int(b>>2)<<12 | int(g>>2)<<6 | int(r>>2) }

func buildLUT() {
	lutBuilds.Do(func() {
		for i := range classLUT {
			b, g, r := uint8(i>>12)<<2|2, uint8(i>>6&63)<<2|2, uint8(i&63)<<2|2
			classLUT[i] = uint8(classify(hsvOf(b, g, r)))
		}
	})
}

// hsvOf converts as OpenCV's 8-bit BGR2HSV does (H in 0..179).
func hsvOf(b, g, r uint8) [3]uint8 {
	v := max(b, g, r)
	mn := min(b, g, r)
	if v == 0 {
		return [3]uint8{}
	}
	d := float64(v) - float64(mn)
	s := math.Round(255 * d / float64(v))
	var h float64
	switch {
	case d == 0:
		h = 0
	case v == r:
		h = 60 * (float64(g) - float64(b)) / d
	case v == g:
		h = 120 + 60*(float64(b)-float64(r))/d
	default:
		h = 240 + 60*(float64(r)-float64(g))/d
	}
	if h < 0 {
		h += 360
	}
	h = math.Round(h / 2)
	if h >= 180 {
		h -= 180
	}
	return [3]uint8{uint8(h), uint8(s), v}
}

// sampler holds, for every field, the byte offsets in the camera frame
// of its sample points.
type sampler struct {
	w, h   int // frame size
	fields [][]fieldPoints
}

// fieldPoints are one field's sample points.
type fieldPoints struct {
	inner [4][]int32      // the inner square, every 2 mm, by quarters
	band  [4][]int32      // each side's frame band (0 up, 1 right, 2 down, 3 left)
	ring  [4][]int32      // the quarters of the ring round a stone (0 top-left, then clockwise)
	alt   [4]*fieldPoints // on a side towards another part: where a card half over the gap lies
}

// side bands and rings: depth from the field's edge, how far along.
const (
	innerMM   = 13.0
	bandFrom  = 2.0
	bandTo    = 8.5
	bandAlong = 11.0
	inkV      = 115  // a frame line, even a thin one blurred, is darker than this
	inkShare  = 62   // per cent of the field's colour's brightness: darker is ink
	ringIn    = 13.5 // a stone's disc (14 mm, placed within 2 mm) leaves this ring's colour
	ringOut   = 15.5 // inside every frame's ink
	ringAxis  = 2.5  // a joker's quarters meet on its axes: keep off them
)

// imagePoint maps a top-view point (mm) into the camera image.
func imagePoint(inv calibration.Homography, x, y float64) (float64, float64) {
	p := inv.Apply(calibration.Point{X: x * pxPerMM, Y: y * pxPerMM})
	return p.X, p.Y
}

func newSampler(inv calibration.Homography, w, h int, b *Board) *sampler {
	s := &sampler{w: w, h: h, fields: make([][]fieldPoints, b.H)}
	for y := range b.H {
		s.fields[y] = make([]fieldPoints, b.W)
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			fp := &s.fields[y][x]
			*fp = pointsAt(inv, w, h, b, f, 0, 0)
			// A card over the gap between two parts lies centred between
			// its fields: each half sits this far off its field, towards
			// the other.
			for k := range int8(4) {
				g := step(f, k)
				if g.X < 0 || g.Y < 0 || g.X >= b.W || g.Y >= b.H {
					continue
				}
				fx, fy := b.At(f, 0, 0)
				gx, gy := b.At(g, 0, 0)
				d := math.Hypot(gx-fx, gy-fy) / b.scaleAt(f)
				if shift := d/2 - FieldMM/2; shift > 2 {
					alt := pointsAt(inv, w, h, b, f, shift*float64(sideStep[k].X), shift*float64(sideStep[k].Y))
					fp.alt[k] = &alt
				}
			}
		}
	}
	return s
}

// pointsAt places a field's sample points round (u0, v0) mm off its centre.
func pointsAt(inv calibration.Homography, w, h int, b *Board, f tiles.Field, u0, v0 float64) fieldPoints {
	var fp fieldPoints
	off := func(u, v float64) (int32, bool) {
		x, y := b.At(f, u0+u, v0+v)
		ix, iy := imagePoint(inv, x, y)
		px, py := int(math.Round(ix)), int(math.Round(iy))
		if px < 0 || py < 0 || px >= w || py >= h {
			return 0, false
		}
		return int32(3 * (py*w + px)), true
	}
	half := FieldMM / 2
	for q := range 4 { // by quarters: 0 top-left, then clockwise
		su, sv := 1.0, 1.0
		if q == 0 || q == 3 {
			su = -1
		}
		if q < 2 {
			sv = -1
		}
		for v := 1.0; v <= innerMM; v += 2 {
			for u := 1.0; u <= innerMM; u += 2 {
				if o, ok := off(su*u, sv*v); ok {
					fp.inner[q] = append(fp.inner[q], o)
				}
			}
		}
	}
	for d := bandFrom; d <= bandTo; d++ {
		for a := -bandAlong; a <= bandAlong; a += 1.5 {
			pts := [4][2]float64{{a, -half + d}, {half - d, a}, {a, half - d}, {-half + d, a}}
			for k, p := range pts {
				if o, ok := off(p[0], p[1]); ok {
					fp.band[k] = append(fp.band[k], o)
				}
			}
		}
	}
	for v := -ringOut; v <= ringOut; v++ {
		for u := -ringOut; u <= ringOut; u++ {
			if math.Hypot(u, v) < ringIn || math.Abs(u) < ringAxis || math.Abs(v) < ringAxis {
				continue
			}
			q := 0
			switch {
			case u > 0 && v < 0:
				q = 1
			case u > 0 && v > 0:
				q = 2
			case u < 0 && v > 0:
				q = 3
			}
			if o, ok := off(u, v); ok {
				fp.ring[q] = append(fp.ring[q], o)
			}
		}
	}
	return fp
}

// fieldStats counts the pixel classes on a field: its inner square, the
// dark pixels in each side's frame band, and for a field under a stone
// the classes in each quarter of the ring round it.
type fieldStats struct {
	inner [nClasses]int
	n     int
	darkQ [4]int // dark pixels in each quarter of the inner square
	nQ    [4]int
	side  [4]int // dark pixels in each side band
	sideN [4]int
	ring  [4][nClasses]int
	ringN [4]int
}

// stats reads the points fp of frame pix (BGR bytes). The ring is read
// round a stone (a dark middle), or when ring says so.
func stats(pix []byte, fp *fieldPoints, ring bool) fieldStats {
	var st fieldStats
	sumV, nV := 0, 0
	for q := range 4 {
		d := 0
		for _, o := range fp.inner[q] {
			c := classLUT[lutIndex(pix[o], pix[o+1], pix[o+2])]
			st.inner[c]++
			switch c {
			case pxDark:
				d++
			case pxRed, pxGreen, pxBlue, pxYellow:
				sumV += int(max(pix[o], pix[o+1], pix[o+2]))
				nV++
			}
		}
		st.n += len(fp.inner[q])
		st.darkQ[q], st.nQ[q] = d, len(fp.inner[q])
	}
	// Ink is much darker than the colour it is printed on: a thin line,
	// blurred, is still darker than this share of it.
	ink := uint8(inkV)
	if nV > 20 {
		ink = uint8(min(170, max(60, inkShare*sumV/nV/100)))
	}
	for k := range 4 {
		n := 0
		for _, o := range fp.band[k] {
			if max(pix[o], pix[o+1], pix[o+2]) < ink {
				n++
			}
		}
		st.side[k], st.sideN[k] = n, len(fp.band[k])
	}
	if ring || st.darkMiddle() {
		for q := range 4 {
			for _, o := range fp.ring[q] {
				st.ring[q][classLUT[lutIndex(pix[o], pix[o+1], pix[o+2])]]++
			}
			st.ringN[q] = len(fp.ring[q])
		}
	}
	return st
}

func (s fieldStats) darkMiddle() bool { return 10*s.inner[pxDark] > 3*s.n }

// unknownInside reports whether much of the inner square is of no class:
// skin, a sleeve.
func (s fieldStats) unknownInside() bool { return 100*s.inner[pxOther] > 12*s.n }

// darkMiddle reports whether field f of frame pix is dark in its middle:
// something dark stands on it, maybe a stone off its centre.
func (s *sampler) darkMiddle(pix []byte, f tiles.Field) bool {
	return stats(pix, &s.fields[f.Y][f.X], false).darkMiddle()
}

// look classifies field f of frame pix: as it lies, or, on a side towards
// another part, as a card half over the gap (a stone stands on its
// field's middle, off the half's).
func (s *sampler) look(pix []byte, f tiles.Field) look {
	fp := &s.fields[f.Y][f.X]
	st := stats(pix, fp, false)
	l := lookOf(st)
	switch {
	case l.kind == lookFree || l.kind == lookCard || l.kind == lookJoker:
		return l
	case l.kind == lookStone && (l.colour != 0 || l.joker):
		return l
	}
	if !st.darkMiddle() && st.unknownInside() {
		return l // a hand over the field, not a card half over the gap
	}
	// A half at a part's corner may read as a card over either gap: the
	// window squarely on it sees the most of its colour.
	half, most := l, -1
	for k, alt := range fp.alt {
		if alt == nil {
			continue
		}
		as := stats(pix, alt, st.darkMiddle())
		if st.darkMiddle() {
			if c := ringColour(as); c != 0 {
				return look{kind: lookStone, colour: c, open: -1}
			}
			continue
		}
		if la := lookOf(as); la.kind == lookCard && la.open == int8(k) {
			if m := as.mostColour(); m > most {
				half, most = la, m
			}
		}
	}
	return half
}

// mostColour is the count of the inner square's commonest card colour.
func (s fieldStats) mostColour() int {
	return max(s.inner[pxRed], s.inner[pxGreen], s.inner[pxBlue], s.inner[pxYellow])
}
