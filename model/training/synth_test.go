package training

import (
	"ligretto/model"
	"math"
	"math/rand/v2"
)

// A tiny synthetic card task for the tests. A face is a noisy crop in one of
// the four colours with a white or black square, drawn twice, whose cell and fill
// encode the number. A back is a two-colour pattern (stripes or checks of some period
// and orientation) that depends on its design ID; designs are drawn at
// random from the seed, so new IDs give designs never seen in training.

type synth struct {
	cfg     model.Config
	rng     *rand.Rand
	designs map[int]backDesign
}

type backDesign struct {
	a, b    [3]float32
	pattern int // 0 horizontal stripes, 1 vertical stripes, 2 checks, 3 diagonal
	period  int
}

var faceColours = [model.NumColours][3]float32{
	{0.85, 0.15, 0.15}, // red
	{0.15, 0.7, 0.25},  // green
	{0.15, 0.3, 0.85},  // blue
	{0.9, 0.8, 0.1},    // yellow
}

func newSynth(cfg model.Config, seed uint64) *synth {
	return &synth{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 7)), designs: map[int]backDesign{}}
}

func (s *synth) design(id int) backDesign {
	if d, ok := s.designs[id]; ok {
		return d
	}
	r := rand.New(rand.NewPCG(uint64(id)+1000, 99))
	col := func() [3]float32 {
		return [3]float32{r.Float32(), r.Float32(), r.Float32()}
	}
	d := backDesign{a: col(), b: col(), pattern: r.IntN(4), period: 2 + r.IntN(4)}
	s.designs[id] = d
	return d
}

// jitter adds brightness variation and pixel noise and clamps to [0,1].
func (s *synth) finish(c model.Crop) {
	gain := 0.8 + 0.4*s.rng.Float32()
	for i := range c {
		v := c[i]*gain + 0.06*float32(s.rng.NormFloat64())
		c[i] = min(1, max(0, v))
	}
}

// face renders a face of colour c (0..3) and number n (1..10).
func (s *synth) face(c, n int) model.Crop {
	W, H := s.cfg.Width, s.cfg.Height
	plane := W * H
	crop := make(model.Crop, 3*plane)
	col := faceColours[c]
	for ch := 0; ch < 3; ch++ {
		v := col[ch] + 0.08*(s.rng.Float32()-0.5)
		for i := 0; i < plane; i++ {
			crop[ch*plane+i] = v
		}
	}
	// Like a real card, the face reads the same turned half a turn (the
	// classifier reads both ways up): the number is a square drawn twice,
	// in one of the first five cells of a 2 (columns) x 5 (rows) grid and
	// at the point reflection of that cell; white for 1-5, black for 6-10.
	k := (n - 1) % 5
	ink := float32(1)
	if n > 5 {
		ink = 0
	}
	cw, chh := W/2, H/5
	cx := (k%2)*cw + cw/2 + s.rng.IntN(3) - 1
	cy := (k/2)*chh + chh/2 + s.rng.IntN(3) - 1
	r := max(2, min(cw, chh)/3)
	for _, c := range [2][2]int{{cx, cy}, {W - cx, H - cy}} {
		for y := c[1] - r; y < c[1]+r; y++ {
			for x := c[0] - r; x < c[0]+r; x++ {
				if x < 0 || y < 0 || x >= W || y >= H {
					continue
				}
				for ch := 0; ch < 3; ch++ {
					crop[ch*plane+y*W+x] = ink
				}
			}
		}
	}
	s.finish(crop)
	return crop
}

// back renders a back of design id.
func (s *synth) back(id int) model.Crop {
	d := s.design(id)
	W, H := s.cfg.Width, s.cfg.Height
	plane := W * H
	crop := make(model.Crop, 3*plane)
	ox, oy := s.rng.IntN(d.period*2), s.rng.IntN(d.period*2)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			var on bool
			X, Y := x+ox, y+oy
			switch d.pattern {
			case 0:
				on = (Y/d.period)%2 == 0
			case 1:
				on = (X/d.period)%2 == 0
			case 2:
				on = (X/d.period+Y/d.period)%2 == 0
			default:
				on = ((X+Y)/d.period)%2 == 0
			}
			col := d.b
			if on {
				col = d.a
			}
			for ch := 0; ch < 3; ch++ {
				crop[ch*plane+y*W+x] = col[ch]
			}
		}
	}
	s.finish(crop)
	return crop
}

// sample is one labelled crop.
type sample struct {
	crop                     model.Crop
	side, colour, number, bc int
}

// draw returns a random sample: a face with probability 0.6, else a back of
// one of the designs.
func (s *synth) draw(designs []int) sample {
	if s.rng.Float64() < 0.6 {
		c, n := s.rng.IntN(model.NumColours), 1+s.rng.IntN(model.NumNumbers)
		return sample{crop: s.face(c, n), side: model.SideFace, colour: c, number: n, bc: -1}
	}
	i := s.rng.IntN(len(designs))
	return sample{crop: s.back(designs[i]), side: model.SideBack, colour: -1, number: -1, bc: i}
}

// maxAbsDiff is the largest absolute difference of two equal-length slices
// (Inf when the lengths differ).
func maxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}
