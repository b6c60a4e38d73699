// Package training feeds the card classifier: batches of synthetic crops
// from vision/synth, optionally mixed with real photo crops, and the
// held-out evaluation that says how good a network is.
package training

import (
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"sync"

	"ligretto/dataset/realphotos"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/render/card"
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
//
// A batch is rendered by RenderLanes goroutines at once, each with its own
// renderer and random numbers drawing every RenderLanes-th sample, so the
// batches are the same whatever the machine's cores and scheduling.
type Data struct {
	cfg        model.Config
	lanes      [RenderLanes]*lane
	designs    []string
	photos     []PhotoCrop
	photoShare float64
	// colourCum is the cumulative share of each face colour (referee.Colours
	// order), 1 at the end; nil draws the four colours equally.
	colourCum []float64
	// faceShare is the share of synthetic samples that are faces; 0 means
	// half, drawn by a coin (as before SetFaceShare existed).
	faceShare float64
	seed      uint64 // the lanes' renderers are made again from it by SetPrinted
}

// RenderLanes is how many goroutines render a batch. It fixes which
// random numbers draw which sample, so it is part of the data, not a
// machine setting: 2, the cores training was measured on (rendering on
// the goroutine the steps wait for, not beside them, keeps both cores
// busy: a renderer running beside the step's two workers held one of
// them back while the other waited).
const RenderLanes = 2

// lane renders its share of each batch.
type lane struct {
	r   *card.Renderer
	rng *rand.Rand
	img *image.RGBA
}

// laneSeed sets lane k's random numbers apart from the other lanes' and
// from an evaluation's renderer seeded with a small number.
func laneSeed(seed uint64, k int) uint64 {
	return seed ^ uint64(k)*0x9e3779b97f4a7c15
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
	p := card.DefaultParams()
	p.W, p.H = cfg.Width, cfg.Height
	if len(photos) == 0 {
		photoShare = 0
	}
	d := &Data{cfg: cfg, designs: TrainDesigns(cfg.BackClasses), photos: photos, photoShare: photoShare, seed: seed}
	for k := range d.lanes {
		s := laneSeed(seed, k)
		r, err := card.New(p, s)
		if err != nil {
			return nil, err
		}
		d.lanes[k] = &lane{r: r, rng: rand.New(rand.NewPCG(s, 0xda7a)), img: image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))}
	}
	return d, nil
}

// TrainDesigns lists the back designs of the training classes, in class order.
func TrainDesigns(n int) []string {
	ids := append([]string(nil), referee.BackDesigns[:]...)
	for i := 0; len(ids) < n; i++ {
		ids = append(ids, card.RandomDesign(TrainDesignSeed+uint64(i)).ID)
	}
	return ids[:n]
}

// Next draws one batch of cfg.BatchSize samples, its lanes rendering at
// once.
func (d *Data) Next() (Batch, error) {
	n, cl := d.cfg.BatchSize, d.cfg.CropLen()
	b := Batch{X: make([]float32, n*cl),
		Side: make([]int, n), Colour: make([]int, n), Number: make([]int, n), BackClass: make([]int, n)}
	var errs [RenderLanes]error
	var wg sync.WaitGroup
	for k, ln := range d.lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += len(d.lanes) {
				if errs[k] = d.draw(ln, &b, i); errs[k] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return Batch{}, err
	}
	return b, nil
}

// draw renders sample i of b with ln.
func (d *Data) draw(ln *lane, b *Batch, i int) error {
	if d.photoShare > 0 && ln.rng.Float64() < d.photoShare {
		p := d.photos[ln.rng.IntN(len(d.photos))]
		jitterInto(ln.img, p.Image, ln.rng)
		b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = model.SideFace, p.Colour, p.Number, -1
	} else {
		l := d.label(ln.rng)
		if err := ln.r.SampleOfInto(ln.img, l); err != nil {
			return err
		}
		setLabels(b, i, l, d.designs)
		if ln.r.NumeralSeen() < card.LegibleNumeral {
			b.Number[i] = -1 // its colour shows, its number does not
		}
	}
	c, err := model.CropFromImage(ln.img, d.cfg.Width, d.cfg.Height)
	if err != nil {
		return err
	}
	copy(b.X[i*len(c):], c)
	return nil
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

// SetPrinted draws share (0..1) of the synthetic faces in the real
// Ligretto print's style (card.Params.Printed), the rest as before. Call
// it before the first batch: the renderers start again from the seed.
func (d *Data) SetPrinted(share float64) error {
	for k, ln := range d.lanes {
		p := ln.r.Params()
		p.Printed = share
		r, err := card.New(p, laneSeed(d.seed, k))
		if err != nil {
			return err
		}
		ln.r = r
	}
	return nil
}

func (d *Data) faceColour(rng *rand.Rand) referee.Colour {
	if d.colourCum == nil {
		return referee.Colours[rng.IntN(len(referee.Colours))]
	}
	u := rng.Float64()
	for i, c := range d.colourCum {
		if u < c {
			return referee.Colours[i]
		}
	}
	return referee.Colours[len(referee.Colours)-1]
}

func (d *Data) label(rng *rand.Rand) card.Label {
	var face bool
	if d.faceShare == 0 {
		face = rng.IntN(2) == 0
	} else {
		face = rng.Float64() < d.faceShare
	}
	if face {
		return card.Label{Side: card.FaceSide, Face: referee.Face{Colour: d.faceColour(rng), Number: 1 + rng.IntN(10)}}
	}
	return card.Label{Side: card.BackSide, Back: d.designs[rng.IntN(len(d.designs))]}
}

func setLabels(b *Batch, i int, l card.Label, designs []string) {
	if l.Side == card.BackSide {
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
