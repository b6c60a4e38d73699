// Package training feeds the card classifier: batches of synthetic crops
// from vision/synth, optionally mixed with real photo crops, and the
// held-out evaluation that says how good a network is.
package training

import (
	"errors"
	"fmt"
	"image"
	"math/rand/v2"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/realphotos"
	"ligretto/vision/synth"
)

// ErrNoData means a data source was set up with nothing to draw from.
var ErrNoData = errors.New("no training data")

// TrainDesignSeed offsets the seeds of the random back designs used in
// training; evaluation draws unseen designs from UnseenDesignSeed on.
const (
	TrainDesignSeed  = 1_000
	UnseenDesignSeed = 9_000_000
)

// PhotoCrop is a real photo crop with what it shows: Colour 0..3 in
// referee.Colours order, Number 1..10 or -1 when the photo's number has no
// Ligretto counterpart (UNO's 0).
type PhotoCrop struct {
	Image  *image.RGBA
	Colour int
	Number int
}

// Data draws training batches. Half the synthetic samples are faces, half
// backs over BackClasses designs: the 12 real ones and random ones, so that
// the back embedding learns backs in general.
type Data struct {
	cfg        model.Config
	r          *synth.Renderer
	rng        *rand.Rand
	designs    []string
	photos     []PhotoCrop
	photoShare float64
	img        *image.RGBA
	// colourCum is the cumulative share of each face colour (referee.Colours
	// order), 1 at the end; nil draws the four colours equally.
	colourCum []float64
	// faceShare is the share of synthetic samples that are faces; 0 means
	// half, drawn as the runs before SetFaceShare drew them (so that their
	// commands still reproduce their weights).
	faceShare float64
}

// NewData makes a data source for cfg's crop size and back classes. With
// photos, a share of each batch (photoShare, 0..1) is real crops.
func NewData(cfg model.Config, seed uint64, photos []PhotoCrop, photoShare float64) (*Data, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.BackClasses < len(referee.BackDesigns) {
		return nil, fmt.Errorf("%w: %d back classes cannot hold the %d real designs", ErrNoData, cfg.BackClasses, len(referee.BackDesigns))
	}
	p := synth.DefaultParams()
	p.W, p.H = cfg.Width, cfg.Height
	r, err := synth.New(p, seed)
	if err != nil {
		return nil, err
	}
	if len(photos) == 0 {
		photoShare = 0
	}
	return &Data{cfg: cfg, r: r, rng: rand.New(rand.NewPCG(seed, 0xda7a)), designs: TrainDesigns(cfg.BackClasses),
		photos: photos, photoShare: photoShare, img: image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))}, nil
}

// TrainDesigns lists the back designs of the training classes, in class order.
func TrainDesigns(n int) []string {
	ids := append([]string(nil), referee.BackDesigns[:]...)
	for i := 0; len(ids) < n; i++ {
		ids = append(ids, synth.RandomDesign(TrainDesignSeed+uint64(i)).ID)
	}
	return ids[:n]
}

// Next draws one batch of cfg.BatchSize samples.
func (d *Data) Next() (model.Batch, error) {
	n := d.cfg.BatchSize
	b := model.Batch{X: make([]float32, 0, n*d.cfg.CropLen()),
		Side: make([]int, n), Colour: make([]int, n), Number: make([]int, n), BackClass: make([]int, n)}
	for i := range n {
		if d.photoShare > 0 && d.rng.Float64() < d.photoShare {
			p := d.photos[d.rng.IntN(len(d.photos))]
			jitterInto(d.img, p.Image, d.rng)
			b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = model.SideFace, p.Colour, p.Number, -1
		} else {
			l := d.label()
			if err := d.r.SampleOfInto(d.img, l); err != nil {
				return model.Batch{}, err
			}
			setLabels(&b, i, l, d.designs)
			if d.r.NumeralSeen() < synth.LegibleNumeral {
				b.Number[i] = -1 // its colour shows, its number does not
			}
		}
		c, err := model.CropFromImage(d.img, d.cfg.Width, d.cfg.Height)
		if err != nil {
			return model.Batch{}, err
		}
		b.X = append(b.X, c...)
	}
	return b, nil
}

// SetColourWeights draws the synthetic faces' colours in proportion to
// weights (referee.Colours order), so that the colour whose numerals are
// hardest to read (yellow's white on yellow) can be shown more often.
func (d *Data) SetColourWeights(weights []float64) error {
	if len(weights) != len(referee.Colours) {
		return fmt.Errorf("%w: %d colour weights, want %d", ErrNoData, len(weights), len(referee.Colours))
	}
	sum := 0.0
	for _, w := range weights {
		if w < 0 {
			return fmt.Errorf("%w: negative colour weight %g", ErrNoData, w)
		}
		sum += w
	}
	if sum == 0 {
		return fmt.Errorf("%w: the colour weights are all 0", ErrNoData)
	}
	cum, acc := make([]float64, len(weights)), 0.0
	for i, w := range weights {
		acc += w / sum
		cum[i] = acc
	}
	cum[len(cum)-1] = 1
	d.colourCum = cum
	return nil
}

// SetFaceShare makes share (0 < share < 1) of the synthetic samples faces
// and the rest backs: the number head, the hardest to train, sees more
// faces per step at the same cost.
func (d *Data) SetFaceShare(share float64) error {
	if !(share > 0 && share < 1) {
		return fmt.Errorf("%w: face share %g (want between 0 and 1)", ErrNoData, share)
	}
	d.faceShare = share
	return nil
}

func (d *Data) faceColour() referee.Colour {
	if d.colourCum == nil {
		return referee.Colours[d.rng.IntN(len(referee.Colours))]
	}
	u := d.rng.Float64()
	for i, c := range d.colourCum {
		if u < c {
			return referee.Colours[i]
		}
	}
	return referee.Colours[len(referee.Colours)-1]
}

func (d *Data) label() synth.Label {
	var face bool
	if d.faceShare == 0 {
		face = d.rng.IntN(2) == 0
	} else {
		face = d.rng.Float64() < d.faceShare
	}
	if face {
		return synth.Label{Side: synth.FaceSide, Face: referee.Face{Colour: d.faceColour(), Number: 1 + d.rng.IntN(10)}}
	}
	return synth.Label{Side: synth.BackSide, Back: d.designs[d.rng.IntN(len(d.designs))]}
}

func setLabels(b *model.Batch, i int, l synth.Label, designs []string) {
	if l.Side == synth.BackSide {
		b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = model.SideBack, -1, -1, indexOf(designs, l.Back)
		return
	}
	b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = model.SideFace, colourIndex(l.Face.Colour), l.Face.Number, -1
}

func indexOf(ids []string, id string) int {
	for i, v := range ids {
		if v == id {
			return i
		}
	}
	return -1
}

func colourIndex(c referee.Colour) int {
	for i, v := range referee.Colours {
		if v == c {
			return i
		}
	}
	return -1
}

// jitterInto copies src into dst with a small random shift and a
// brightness and contrast change, so that few photos go a long way.
func jitterInto(dst, src *image.RGBA, rng *rand.Rand) {
	w, h := dst.Bounds().Dx(), dst.Bounds().Dy()
	dx, dy := rng.IntN(5)-2, rng.IntN(5)-2
	gain, bias := 0.8+0.4*rng.Float64(), -20+40*rng.Float64()
	for y := range h {
		for x := range w {
			sx, sy := min(max(x+dx, 0), w-1), min(max(y+dy, 0), h-1)
			so, do := src.PixOffset(sx, sy), dst.PixOffset(x, y)
			for k := range 3 {
				v := float64(src.Pix[so+k])*gain + bias
				dst.Pix[do+k] = uint8(min(max(v, 0), 255))
			}
			dst.Pix[do+3] = 255
		}
	}
}

// PhotoCrops turns one labelled photo into crops of cfg's size, keeping
// the boxes whose class names a coloured number card. UNO's 0 keeps its
// colour and gets Number -1; Ligretto has no 0.
func PhotoCrops(img image.Image, boxes []realphotos.Box, classNames []string, w, h int) []PhotoCrop {
	var out []PhotoCrop
	for _, b := range boxes {
		if b.Class >= len(classNames) {
			continue
		}
		card, ok := realphotos.CardOf(classNames[b.Class])
		if !ok {
			continue
		}
		num := card.Number
		if num == 0 {
			num = -1
		}
		out = append(out, PhotoCrop{Image: realphotos.Crop(img, b, 0.1, w, h), Colour: colourIndex(card.Colour), Number: num})
	}
	return out
}
