package tiles

import (
	"fmt"
	"math"

	"ligretto/referee/tiles"
)

// value is the top view's brightness (the largest channel) at (x, y) mm,
// interpolated.
func (t *topView) value(x, y float64) (float64, bool) {
	x, y = x*pxPerMM, y*pxPerMM
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= t.size.X || y0+1 >= t.size.Y {
		return 0, false
	}
	fx, fy := x-float64(x0), y-float64(y0)
	v := func(ix, iy int) float64 {
		i := 3 * (iy*t.size.X + ix)
		return float64(max(t.bytes[i], t.bytes[i+1], t.bytes[i+2]))
	}
	return (v(x0, y0)*(1-fx)+v(x0+1, y0)*fx)*(1-fy) + (v(x0, y0+1)*(1-fx)+v(x0+1, y0+1)*fx)*fy, true
}

// styleFeatures measures a card's frame along its two long sides: the
// ink's width across the band (mm), and how strongly the ink along it
// repeats at the dashes' and the dots' pitch.
type styleFeatures struct {
	width, r13, r7, ink float64
}

const (
	halfShort = 21.5 // a card's half width (mm)
	stepMM    = 0.5
)

func (t *topView) cardStyle(b *Board, f, g tiles.Field) (styleFeatures, bool) {
	fx, fy := b.At(f, 0, 0)
	gx, gy := b.At(g, 0, 0)
	cx, cy := (fx+gx)/2, (fy+gy)/2
	l := math.Hypot(gx-fx, gy-fy)
	ax, ay := (gx-fx)/l, (gy-fy)/l
	nx, ny := -ay, ax
	var sf styleFeatures
	for _, s := range []float64{-1, 1} {
		const ne, nu = 25, 145 // e 0..12, u -36..36
		var grid [ne][nu]float64
		var ref []float64
		for i := range ne {
			e := float64(i) * stepMM
			for j := range nu {
				u := -36 + float64(j)*stepMM
				d := s * (halfShort - e)
				v, ok := t.value(cx+ax*u+nx*d, cy+ay*u+ny*d)
				if !ok {
					return sf, false
				}
				grid[i][j] = v
				if e >= 10 {
					ref = append(ref, v)
				}
			}
		}
		vref := 0.0
		for _, v := range ref {
			vref += v / float64(len(ref))
		}
		if vref < 90 {
			return sf, false
		}
		var across [ne]float64
		peak, pi := 0.0, 0
		for i := range ne {
			for j := range nu {
				k := math.Min(1, math.Max(0, (vref-grid[i][j])/(vref-40)))
				grid[i][j] = k
				across[i] += k / nu
			}
			if across[i] > peak {
				peak, pi = across[i], i
			}
		}
		w := 0.0
		for i := range ne {
			if across[i] > peak/2 {
				w += stepMM
			}
		}
		var along [nu]float64
		for j := range nu {
			for i := max(0, pi-3); i <= min(ne-1, pi+3); i++ {
				along[j] += grid[i][j]
			}
		}
		sf.width += w / 2
		sf.ink += peak / 2
		sf.r13 += resonance(along[:], 13.3) / 2
		sf.r7 += resonance(along[:], 7.25) / 2
	}
	return sf, true
}

// resonance is the share of the profile's mean that repeats at period
// (mm).
func resonance(p []float64, period float64) float64 {
	var re, im, sum float64
	for j, v := range p {
		a := 2 * math.Pi * float64(j) * stepMM / period
		re += v * math.Cos(a)
		im += v * math.Sin(a)
		sum += v
	}
	if sum <= 0 {
		return 0
	}
	return math.Hypot(re, im) / sum
}

// styleOf decides the frame style, or "" when unsure.
func styleOf(sf styleFeatures) tiles.Frame {
	switch {
	case sf.ink < 0.25:
		return ""
	case sf.r13 > 0.25 && sf.r13 > sf.r7:
		return tiles.Dashed
	case sf.r7 > 0.25:
		return tiles.Dotted
	case sf.r13 > 0.15 || sf.r7 > 0.15:
		return ""
	case sf.width >= 4.5:
		return tiles.Double
	case sf.width <= 4:
		return tiles.Plain
	}
	return ""
}

// owner reads the frame style along the card on fields f and g and
// returns the player of that style, or "" and why not.
func (w *Watcher) owner(f, g tiles.Field) (string, string) {
	sf, ok := w.top.cardStyle(w.board, f, g)
	if !ok {
		return "", "card not measurable"
	}
	st := styleOf(sf)
	w.Styles = append(w.Styles, fmt.Sprintf("%v-%v %+v -> %q", f, g, sf, st))
	if st == "" {
		return "", fmt.Sprintf("frame unreadable %+v", sf)
	}
	for _, p := range w.cfg.Players {
		if p.Frame == st {
			return p.Name, ""
		}
	}
	return "", fmt.Sprintf("no player with a %s frame", st)
}
