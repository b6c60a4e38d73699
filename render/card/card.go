// Package card renders synthetic Ligretto cards for training and testing
// the card classifier: clean faces and backs at any size, and augmented
// crops as the vision pipeline would cut them out of a camera frame.
//
// A face is the card colour all over, with a large white numeral with a
// dark shadow near one end, the same numeral turned 180 degrees at the
// other end, and small coloured balls scattered over it; 6 and 9 are
// underlined. A back is one of twelve designs (referee.BackDesigns) or a
// random design made from a seed, so that telling backs apart can be
// learned as a skill and tested on designs never seen in training.
//
// Crops are portrait (long axis vertical) and canonical up to a turn of
// 180 degrees: a card turned 180 degrees is the same card. Everything is
// deterministic given the seed. The package is pure Go.
package card

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"math/rand/v2"

	"ligretto/referee"
)

// Side is which side of a card a crop shows.
type Side uint8

// Sides.
const (
	FaceSide Side = iota
	BackSide
)

func (s Side) String() string {
	if s == BackSide {
		return "back"
	}
	return "face"
}

// Label says what a crop shows: for FaceSide the Face, for BackSide the
// back design's ID in Back (one of referee.BackDesigns, or a RandomDesign ID).
type Label struct {
	Side Side
	Face referee.Face
	Back string
}

func (l Label) String() string {
	if l.Side == BackSide {
		return "back " + l.Back
	}
	return l.Face.String()
}

// Params sets the crop size and how strongly samples vary. Probabilities
// are in [0,1]; strengths are the largest deviation drawn (uniformly).
type Params struct {
	W, H         int     // crop size in pixels (default 32x48, portrait)
	CardW, CardH int     // size of clean cards from Face, Back and Card (default 180x270)
	TexScale     float64 // card texture resolution relative to the crop (default 1.5; 2x2 samples a pixel from 1.75 up)

	BackFraction float64 // probability that Sample draws a back (default 0.3)
	RandomBacks  float64 // probability that a drawn back is a RandomDesign, not one of the twelve (default 0.25)
	SystemFonts  bool    // also use Debian fonts found on the machine (samples then depend on the machine)

	// Printing.
	Variety float64 // probability of a random print style (font, slant, shadow, layout) rather than the canonical one (default 1)
	Printed float64 // probability of the real Ligretto print's style, drawn before Variety is (default 0)
	// PrintedCanonical makes the canonical face (Face, Card unvaried, and
	// crops without Variety) the real print's clean look.
	PrintedCanonical bool
	HueJitter        float64 // degrees of hue drift (default 8)
	SatJitter        float64 // relative saturation drift (default 0.15)
	ValJitter        float64 // relative brightness drift (default 0.12)

	// Geometry: how the detector's crop sits on the card.
	RotJitter   float64 // degrees of rotation on top of 0 or 180 (default 4)
	Perspective float64 // corner displacement, as a fraction of the crop width (default 0.05)
	ScaleMin    float64 // card size relative to the crop (default 0.86..1.03)
	ScaleMax    float64
	Shift       float64 // centre offset, as a fraction of the crop size (default 0.04)

	// Scene.
	Occlusion    float64 // probability of a finger or another card's edge over the card (default 0.25)
	MaxOcclusion float64 // the most of the crop an occluder reaches into, as a fraction of its width or height (default 0.4)
	Neighbours   float64 // probability of other cards showing behind the edges (default 0.35)
	Shadow       float64 // probability of the card's shadow on the table (default 0.5)
	Glare        float64 // probability of a glossy highlight (default 0.15)

	// Camera.
	Light        float64 // strength of the lighting gradient and exposure change (default 0.35)
	WhiteBalance float64 // per-channel gain deviation (default 0.12)
	Gamma        float64 // largest |log gamma| (default 0.3)
	Blur         float64 // largest Gaussian sigma, in crop pixels (default 1.0)
	Noise        float64 // largest noise sigma, 0..1 scale (default 0.04)
	JPEG         float64 // probability of a JPEG round trip (default 0.5)
	JPEGQuality  int     // lowest JPEG quality (default 25; the highest is 95)
}

// DefaultParams returns the parameters for training crops.
func DefaultParams() Params {
	return Params{
		W: 32, H: 48, CardW: 180, CardH: 270, TexScale: 1.5,
		BackFraction: 0.3, RandomBacks: 0.25,
		Variety: 1, HueJitter: 8, SatJitter: 0.15, ValJitter: 0.12,
		RotJitter: 4, Perspective: 0.05, ScaleMin: 0.86, ScaleMax: 1.03, Shift: 0.04,
		Occlusion: 0.25, MaxOcclusion: 0.4, Neighbours: 0.35, Shadow: 0.5, Glare: 0.15,
		Light: 0.35, WhiteBalance: 0.12, Gamma: 0.3, Blur: 1.0, Noise: 0.04, JPEG: 0.5, JPEGQuality: 25,
	}
}

// Scaled returns p with every variation scaled by s: 0 gives clean,
// centred, canonical cards; 1 leaves p as it is; more than 1 exaggerates
// (probabilities are capped at 1). Useful for a training curriculum.
func (p Params) Scaled(s float64) Params {
	s = math.Max(s, 0)
	pr := func(v float64) float64 { return math.Min(v*s, 1) }
	p.Variety = pr(p.Variety)
	p.Printed = pr(p.Printed)
	p.HueJitter *= s
	p.SatJitter *= s
	p.ValJitter *= s
	p.RotJitter *= s
	p.Perspective *= s
	p.ScaleMin = 1 - (1-p.ScaleMin)*s
	p.ScaleMax = 1 - (1-p.ScaleMax)*s
	p.Shift *= s
	p.Occlusion = pr(p.Occlusion)
	p.MaxOcclusion = math.Min(p.MaxOcclusion*s, 0.9)
	p.Neighbours = pr(p.Neighbours)
	p.Shadow = pr(p.Shadow)
	p.Glare = pr(p.Glare)
	p.Light *= s
	p.WhiteBalance *= s
	p.Gamma *= s
	p.Blur *= s
	p.Noise *= s
	p.JPEG = pr(p.JPEG)
	p.JPEGQuality = max(5, int(math.Round(95-(95-float64(p.JPEGQuality))*s)))
	return p
}

// Validate reports the first field out of range.
func (p Params) Validate() error {
	for _, check := range []func() error{p.validateSizes, p.validateDraws, p.validatePose, p.validateCamera} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// badParam is the error for field f out of range at v.
func badParam(f string, v any) error { return fmt.Errorf("%w: %s = %v", ErrParams, f, v) }

// prob reports whether v is a probability.
func prob(v float64) bool { return v >= 0 && v <= 1 }

// validateSizes checks the crop's, the card's and the texture's sizes.
func (p Params) validateSizes() error {
	bad := badParam
	switch {
	case p.W < 4 || p.H < 4 || p.W > 4096 || p.H > 4096:
		return bad("W x H", fmt.Sprintf("%dx%d", p.W, p.H))
	case p.CardW < 4 || p.CardH < 4 || p.CardW > 8192 || p.CardH > 8192:
		return bad("CardW x CardH", fmt.Sprintf("%dx%d", p.CardW, p.CardH))
	case p.TexScale < 0.5 || p.TexScale > 8:
		return bad("TexScale", p.TexScale)
	}
	return nil
}

// validateDraws checks the shares of what is drawn: backs, random backs,
// variety and the printed style.
func (p Params) validateDraws() error {
	bad := badParam
	switch {
	case !prob(p.BackFraction):
		return bad("BackFraction", p.BackFraction)
	case !prob(p.RandomBacks):
		return bad("RandomBacks", p.RandomBacks)
	case !prob(p.Variety):
		return bad("Variety", p.Variety)
	case !prob(p.Printed):
		return bad("Printed", p.Printed)
	}
	return nil
}

// validatePose checks how the card is coloured, turned, placed and
// covered.
func (p Params) validatePose() error {
	bad := badParam
	switch {
	case p.HueJitter < 0 || p.SatJitter < 0 || p.SatJitter >= 1 || p.ValJitter < 0 || p.ValJitter >= 1:
		return bad("colour jitter", fmt.Sprint(p.HueJitter, p.SatJitter, p.ValJitter))
	case p.RotJitter < 0 || p.RotJitter > 45:
		return bad("RotJitter", p.RotJitter)
	case p.Perspective < 0 || p.Perspective > 0.3:
		return bad("Perspective", p.Perspective)
	case p.ScaleMin <= 0.2 || p.ScaleMax < p.ScaleMin || p.ScaleMax > 2:
		return bad("ScaleMin..ScaleMax", fmt.Sprint(p.ScaleMin, p.ScaleMax))
	case p.Shift < 0 || p.Shift > 0.5:
		return bad("Shift", p.Shift)
	case !prob(p.Occlusion) || !prob(p.MaxOcclusion):
		return bad("Occlusion, MaxOcclusion", fmt.Sprint(p.Occlusion, p.MaxOcclusion))
	}
	return nil
}

// validateCamera checks the scene and camera effects: neighbours,
// shadow, glare, light, white balance, gamma, blur, noise and JPEG.
func (p Params) validateCamera() error {
	bad := badParam
	switch {
	case !prob(p.Neighbours) || !prob(p.Shadow) || !prob(p.Glare) || !prob(p.JPEG):
		return bad("Neighbours, Shadow, Glare, JPEG", fmt.Sprint(p.Neighbours, p.Shadow, p.Glare, p.JPEG))
	case p.Light < 0 || p.Light > 1:
		return bad("Light", p.Light)
	case p.WhiteBalance < 0 || p.WhiteBalance > 0.5:
		return bad("WhiteBalance", p.WhiteBalance)
	case p.Gamma < 0 || p.Gamma > 1:
		return bad("Gamma", p.Gamma)
	case p.Blur < 0 || p.Blur > 10:
		return bad("Blur", p.Blur)
	case p.Noise < 0 || p.Noise > 0.5:
		return bad("Noise", p.Noise)
	case p.JPEGQuality < 1 || p.JPEGQuality > 100:
		return bad("JPEGQuality", p.JPEGQuality)
	}
	return nil
}

// Renderer draws cards. It is deterministic given its Params and seed,
// and not safe for concurrent use: give each goroutine its own (with
// different seeds).
type Renderer struct {
	p      Params
	rng    *rand.Rand
	fonts  []*numeralFont
	aspect float64 // card height / width, from the crop's H/W

	tex   canvas             // face texture scratch
	backs map[string]*canvas // back textures at training resolution, by design ID
	buf   []float32          // the crop being made, RGB
	alpha []float32          // how much of each crop pixel the card covers
	uv    []float64          // card coordinates of each crop pixel's centre
	occ   []float32          // how much of each crop pixel a finger or another card covers
	// numeralSeen is, for the last crop rendered, the larger fraction of
	// the two numerals that lies inside the crop and is not covered (1 for
	// a back).
	numeralSeen float64
	tmp         []float32
	jpg         bytes.Buffer
	gamma       [129]float32
}

// cardCorner is the corner radius of a card, in card widths.
const cardCorner = 0.06

// backMargin is how far a back's texture extends past the card edges, so
// that a crop can cut it off centre as a real card's print is.
const backMargin = 0.06

// New makes a renderer.
func New(p Params, seed uint64) (*Renderer, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	r := &Renderer{
		p:      p,
		rng:    rand.New(rand.NewPCG(seed, 0x6c696772657474)),
		fonts:  fontsFor(p.SystemFonts),
		aspect: float64(p.H) / float64(p.W),
		backs:  map[string]*canvas{},
		buf:    make([]float32, 3*p.W*p.H),
		tmp:    make([]float32, 3*p.W*p.H),
		alpha:  make([]float32, p.W*p.H),
		uv:     make([]float64, 2*p.W*p.H),
		occ:    make([]float32, p.W*p.H),
	}
	return r, nil
}

// LegibleNumeral is how much of at least one of its two numerals a face
// crop must show (inside the crop, not under a finger or another card) for
// its number to be readable at all.
const LegibleNumeral = 0.6

// NumeralSeen is, for the last crop rendered, the larger fraction of its
// two numerals inside the crop and uncovered; 1 for a back. A face crop
// below LegibleNumeral shows its colour but not its number: a person could
// not read it either, so training leaves its number out and evaluation
// does not score it.
func (r *Renderer) NumeralSeen() float64 { return r.numeralSeen }

// Params returns the renderer's parameters.
func (r *Renderer) Params() Params { return r.p }

// Face renders face f cleanly, upright, at CardW x CardH, with transparent
// rounded corners.
func (r *Renderer) Face(f referee.Face) *image.RGBA {
	img, _ := r.Card(Label{Side: FaceSide, Face: f}, r.p.CardW, r.p.CardH, false)
	return img
}

// Back renders a back design cleanly at CardW x CardH, with transparent
// rounded corners.
func (r *Renderer) Back(d BackDesign) *image.RGBA {
	var c canvas
	c.reset(r.p.CardW, r.p.CardH)
	drawBack(&c, &d, float64(r.p.CardH)/float64(r.p.CardW), 0)
	c.cutCorners(cardCorner)
	return c.rgba()
}

// Card renders the card of label l, upright, at w x h with transparent
// rounded corners: cleanly, or (varied) in a random print style from the
// renderer's stream. It is for scene renderers that warp cards onto a
// table.
func (r *Renderer) Card(l Label, w, h int, varied bool) (*image.RGBA, error) {
	if w < 4 || h < 4 || w > 8192 || h > 8192 {
		return nil, fmt.Errorf("%w: card size %dx%d", ErrParams, w, h)
	}
	var c canvas
	c.reset(w, h)
	aspect := float64(h) / float64(w)
	switch l.Side {
	case FaceSide:
		if !l.Face.Valid() {
			return nil, fmt.Errorf("%w: face %v", ErrLabel, l.Face)
		}
		st := r.cleanStyle(l.Face, aspect)
		if varied {
			st = r.variedStyle(l.Face, aspect)
		}
		drawFace(&c, l.Face, &st)
	case BackSide:
		d, err := DesignByID(l.Back)
		if err != nil {
			return nil, err
		}
		drawBack(&c, &d, aspect, 0)
	default:
		return nil, fmt.Errorf("%w: side %d", ErrLabel, l.Side)
	}
	c.cutCorners(cardCorner)
	return c.rgba(), nil
}

// cleanStyle is the canonical look of face f: the real print's with
// PrintedCanonical.
func (r *Renderer) cleanStyle(f referee.Face, aspect float64) faceStyle {
	if r.p.PrintedCanonical {
		return canonicalPrintedStyle(f, aspect)
	}
	return canonicalFaceStyle(f, aspect)
}

// variedStyle is a printing of face f for a varied Card: the real print
// with probability Printed, else a random style. A probability of 0 draws
// no random number, so Printed 0 renders what it did before Printed existed.
func (r *Renderer) variedStyle(f referee.Face, aspect float64) faceStyle {
	if r.chance(r.p.Printed) {
		return printedFaceStyle(r.rng, f, aspect, &r.p)
	}
	return randomFaceStyle(r.rng, f, aspect, r.fonts, &r.p)
}

// Sample renders a random augmented crop and says what it shows.
func (r *Renderer) Sample() (*image.RGBA, Label) {
	dst := image.NewRGBA(image.Rect(0, 0, r.p.W, r.p.H))
	return dst, r.SampleInto(dst)
}

// SampleInto is Sample drawing into dst, which must be W x H.
func (r *Renderer) SampleInto(dst *image.RGBA) Label {
	l := r.randomLabel()
	d, _ := r.design(l)
	r.render(dst, l, d)
	return l
}

// SampleOf renders an augmented crop of the card with label l.
func (r *Renderer) SampleOf(l Label) (*image.RGBA, error) {
	dst := image.NewRGBA(image.Rect(0, 0, r.p.W, r.p.H))
	if err := r.SampleOfInto(dst, l); err != nil {
		return nil, err
	}
	return dst, nil
}

// SampleOfInto is SampleOf drawing into dst, which must be W x H.
func (r *Renderer) SampleOfInto(dst *image.RGBA, l Label) error {
	if b := dst.Bounds(); b.Dx() != r.p.W || b.Dy() != r.p.H {
		return fmt.Errorf("%w: destination %v, want %dx%d", ErrParams, b, r.p.W, r.p.H)
	}
	d, err := r.design(l)
	if err != nil {
		return err
	}
	r.render(dst, l, d)
	return nil
}

func (r *Renderer) design(l Label) (BackDesign, error) {
	switch l.Side {
	case FaceSide:
		if !l.Face.Valid() {
			return BackDesign{}, fmt.Errorf("%w: face %v", ErrLabel, l.Face)
		}
		return BackDesign{}, nil
	case BackSide:
		return DesignByID(l.Back)
	}
	return BackDesign{}, fmt.Errorf("%w: side %d", ErrLabel, l.Side)
}

func (r *Renderer) randomLabel() Label {
	if r.rng.Float64() < r.p.BackFraction {
		if r.rng.Float64() < r.p.RandomBacks {
			return Label{Side: BackSide, Back: RandomDesign(r.rng.Uint64()).ID}
		}
		return Label{Side: BackSide, Back: designs[r.rng.IntN(len(designs))].ID}
	}
	return Label{Side: FaceSide, Face: referee.Face{
		Colour: referee.Colours[r.rng.IntN(4)], Number: 1 + r.rng.IntN(10)}}
}

// backTexture returns design d's texture at training resolution, with a
// margin of backMargin card widths all round.
func (r *Renderer) backTexture(d *BackDesign) *canvas {
	if c, ok := r.backs[d.ID]; ok {
		return c
	}
	if len(r.backs) >= 64 { // random designs come and go; keep the cache small
		for id := range r.backs {
			if DesignIndex(id) < 0 {
				delete(r.backs, id)
			}
		}
	}
	k := float64(r.p.W) * r.p.TexScale
	c := &canvas{}
	c.reset(int(math.Ceil((1+2*backMargin)*k)), int(math.Ceil((r.aspect+2*backMargin)*k)))
	c.k = k
	drawBack(c, d, r.aspect, backMargin)
	r.backs[d.ID] = c
	return c
}
