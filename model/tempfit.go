package model

import (
	"fmt"
	"math"
)

// LabelledCrop is a crop and what it shows, to fit temperatures on.
type LabelledCrop struct {
	Crop   Crop
	Side   int // SideFace or SideBack
	Colour int // 0..3, faces only
	Number int // 1..10 on faces; 0 where the number cannot be read (left out of the number head's fit)
}

// TemperatureFit is what FitTemperatures found for each head.
type TemperatureFit struct {
	Side, Colour, Number HeadFit
}

// Temperatures returns the fitted temperatures.
func (f TemperatureFit) Temperatures() Temperatures {
	return Temperatures{Side: f.Side.T, Colour: f.Colour.T, Number: f.Number.T}
}

// FitTemperatures fits a temperature to each head of w (side on every
// crop, colour on faces, number on faces with a readable number) by
// minimising the negative log-likelihood of the labels, each head's
// temperature found alone by a golden-section search over log T. The
// likelihood is that of the reading every crop gets: the mean of the
// tempered softmaxes of the crop and of the crop turned half a turn
// (Classify's two-way reading), from the network's raw logits
// (w.Temperatures is ignored). A head with no crop keeps T = 1.
func FitTemperatures(w *Weights, crops []LabelledCrop) (TemperatureFit, error) {
	f, err := NewFast(w)
	if err != nil {
		return TemperatureFit{}, err
	}
	var side, colour, number twoWayLogits
	side.k, colour.k, number.k = NumSides, NumColours, NumNumbers
	const chunk = 256
	for lo := 0; lo < len(crops); lo += chunk {
		part := crops[lo:min(lo+chunk, len(crops))]
		cs := make([]Crop, len(part))
		for i, c := range part {
			cs[i] = c.Crop
		}
		if err := checkCrops(f.cfg, cs); err != nil {
			return TemperatureFit{}, err
		}
		r, err := f.forward(withTurned(cs, f.cfg.Width, f.cfg.Height))
		if err != nil {
			return TemperatureFit{}, err
		}
		n := len(part)
		for i, c := range part {
			if c.Side != SideFace && c.Side != SideBack {
				return TemperatureFit{}, fmt.Errorf("%w: crop %d: side %d", ErrInput, lo+i, c.Side)
			}
			side.add(r.side, i, n+i, c.Side)
			if c.Side != SideFace {
				continue
			}
			if c.Colour < 0 || c.Colour >= NumColours || c.Number < 0 || c.Number > NumNumbers {
				return TemperatureFit{}, fmt.Errorf("%w: crop %d: colour %d number %d", ErrInput, lo+i, c.Colour, c.Number)
			}
			colour.add(r.colour, i, n+i, c.Colour)
			if c.Number > 0 {
				number.add(r.number, i, n+i, c.Number-1)
			}
		}
	}
	return TemperatureFit{Side: side.fit(), Colour: colour.fit(), Number: number.fit()}, nil
}

// twoWayLogits holds a head's logits of crops read both ways up, and the
// labels.
type twoWayLogits struct {
	k      int
	a, b   []float64 // (n, k): as it is, turned
	labels []int
}

func (h *twoWayLogits) add(logits []float32, i, j, label int) {
	for c := range h.k {
		h.a = append(h.a, float64(logits[i*h.k+c]))
		h.b = append(h.b, float64(logits[j*h.k+c]))
	}
	h.labels = append(h.labels, label)
}

// nll is the mean negative log-likelihood of the labels under the mean of
// both readings' softmax(logits / t).
func (h *twoWayLogits) nll(t float64) float64 {
	var sum float64
	for i, y := range h.labels {
		p := (softmaxAt(h.a[i*h.k:(i+1)*h.k], t, y) + softmaxAt(h.b[i*h.k:(i+1)*h.k], t, y)) / 2
		sum -= math.Log(max(p, 1e-300))
	}
	return sum / float64(len(h.labels))
}

// softmaxAt is softmax(z / t)[y].
func softmaxAt(z []float64, t float64, y int) float64 {
	m := z[0]
	for _, v := range z {
		m = max(m, v)
	}
	var sum float64
	for _, v := range z {
		sum += math.Exp((v - m) / t)
	}
	return math.Exp((z[y]-m)/t) / sum
}

// fit finds the temperature of least nll: a golden-section search over
// log T in [log minFitT, log maxFitT]; the nll of one temperature is
// unimodal in practice (convex in 1/T for one reading).
func (h *twoWayLogits) fit() HeadFit {
	if len(h.labels) == 0 {
		return HeadFit{T: 1}
	}
	f := func(logT float64) float64 { return h.nll(math.Exp(logT)) }
	lo, hi := math.Log(minFitT), math.Log(maxFitT)
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := hi-g*(hi-lo), lo+g*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for hi-lo > 1e-4 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - g*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(hi-lo)
			f2 = f(x2)
		}
	}
	t := math.Exp((lo + hi) / 2)
	return HeadFit{T: t, N: len(h.labels), NLLBefore: h.nll(1), NLLAfter: h.nll(t)}
}

// The range a temperature is searched in.
const (
	minFitT = 0.25
	maxFitT = 20
)
