package training

import (
	"math"

	"ligretto/model"
)

// Reading is how sure an evaluation's reading of a face was, with the
// network's temperatures (calibrated) and without (Raw*), and whether it
// was right.
type Reading struct {
	Colour, RawColour  float32 // probability of the colour read
	Number, RawNumber  float32 // of the number read
	Face, RawFace      float32 // of the face read (FaceConfidence)
	ColourOK, NumberOK bool
	// Legible: the number can be read (synthetic crops: not both numerals
	// hidden; photos: a number card). Number and face are scored on
	// legible readings only.
	Legible bool
}

func readingOf(p model.Prediction, colourOK, numberOK, legible bool) Reading {
	return Reading{
		Colour: p.ColourProb, RawColour: p.Raw.Colour[p.Colour],
		Number: p.NumberProb, RawNumber: p.Raw.Number[p.Number-1],
		Face: p.FaceConfidence(), RawFace: p.RawFaceConfidence(),
		ColourOK: colourOK, NumberOK: numberOK, Legible: legible,
	}
}

// ECEBins is the number of equal-width confidence bins ECE uses.
const ECEBins = 15

// Bin is one confidence bin of a reliability diagram.
type Bin struct {
	Conf, Acc float64 // mean confidence and accuracy of its readings
	N         int
}

// Reliability puts the readings into bins equal-width bins of
// confidence ((i/bins, (i+1)/bins], 0 in the first) and returns every
// bin, empty ones with N 0.
func Reliability(conf []float64, ok []bool, bins int) []Bin {
	out := make([]Bin, bins)
	for i, c := range conf {
		b := min(max(int(math.Ceil(c*float64(bins)))-1, 0), bins-1)
		out[b].Conf += c
		if ok[i] {
			out[b].Acc++
		}
		out[b].N++
	}
	for i := range out {
		if out[i].N > 0 {
			out[i].Conf /= float64(out[i].N)
			out[i].Acc /= float64(out[i].N)
		}
	}
	return out
}

// ECE is the expected calibration error: over ECEBins equal-width bins of
// confidence, the mean of |accuracy - mean confidence| weighted by each
// bin's share of the readings (0 for none).
func ECE(conf []float64, ok []bool) float64 {
	if len(conf) == 0 {
		return 0
	}
	var e float64
	for _, b := range Reliability(conf, ok, ECEBins) {
		e += float64(b.N) * math.Abs(b.Acc-b.Conf)
	}
	return e / float64(len(conf))
}

// Head names the three confidences a Calibration scores.
type Head int

const (
	HeadColour Head = iota // colour, on every face
	HeadNumber             // number, on legible faces
	HeadFace               // the whole face, on legible faces
)

// Outcomes returns the confidences (calibrated, or raw) and outcomes of
// one head over the readings.
func Outcomes(rs []Reading, h Head, raw bool) ([]float64, []bool) {
	var conf []float64
	var ok []bool
	for _, r := range rs {
		switch h {
		case HeadColour:
			conf, ok = append(conf, float64(pick(raw, r.RawColour, r.Colour))), append(ok, r.ColourOK)
		case HeadNumber:
			if r.Legible {
				conf, ok = append(conf, float64(pick(raw, r.RawNumber, r.Number))), append(ok, r.NumberOK)
			}
		case HeadFace:
			if r.Legible {
				conf, ok = append(conf, float64(pick(raw, r.RawFace, r.Face))), append(ok, r.ColourOK && r.NumberOK)
			}
		}
	}
	return conf, ok
}

func pick(raw bool, a, b float32) float32 {
	if raw {
		return a
	}
	return b
}

// Calibration is the ECE of each head without temperatures (Before) and
// with them (After), and the sure misreads: legible faces read wrong at a
// face confidence of at least model.SureAt.
type Calibration struct {
	N                  int     `json:"n"` // readings
	ColourBefore       float64 `json:"ece_colour_before"`
	ColourAfter        float64 `json:"ece_colour_after"`
	NumberBefore       float64 `json:"ece_number_before"`
	NumberAfter        float64 `json:"ece_number_after"`
	FaceBefore         float64 `json:"ece_face_before"`
	FaceAfter          float64 `json:"ece_face_after"`
	SureMisreadsBefore int     `json:"sure_misreads_before"`
	SureMisreadsAfter  int     `json:"sure_misreads_after"`
}

// Calibrate scores the readings' calibration.
func Calibrate(rs []Reading) Calibration {
	c := Calibration{N: len(rs)}
	ece := func(h Head, raw bool) float64 { conf, ok := Outcomes(rs, h, raw); return ECE(conf, ok) }
	c.ColourBefore, c.ColourAfter = ece(HeadColour, true), ece(HeadColour, false)
	c.NumberBefore, c.NumberAfter = ece(HeadNumber, true), ece(HeadNumber, false)
	c.FaceBefore, c.FaceAfter = ece(HeadFace, true), ece(HeadFace, false)
	for _, r := range rs {
		if !r.Legible || r.ColourOK && r.NumberOK {
			continue
		}
		if r.RawFace >= model.SureAt {
			c.SureMisreadsBefore++
		}
		if r.Face >= model.SureAt {
			c.SureMisreadsAfter++
		}
	}
	return c
}
