package model

import (
	"fmt"
	"image"
	"math"

	xdraw "golang.org/x/image/draw"

	"ligretto/referee"
)

// Crop is one card crop: Config.Width x Config.Height RGB pixels, planar
// (all red values row by row, then green, then blue), each in [0,1]. Its
// length is Config.CropLen().
type Crop []float32

// CropFromImage converts an image of exactly width x height pixels.
func CropFromImage(img image.Image, width, height int) (Crop, error) {
	b := img.Bounds()
	if b.Dx() != width || b.Dy() != height {
		return nil, fmt.Errorf("%w: image is %dx%d, want %dx%d", ErrInput, b.Dx(), b.Dy(), width, height)
	}
	c := make(Crop, 3*width*height)
	plane := width * height
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := y*width + x
			c[i] = float32(r) / 65535
			c[plane+i] = float32(g) / 65535
			c[2*plane+i] = float32(bl) / 65535
		}
	}
	return c, nil
}

// CropFromBGR converts packed 8-bit BGR pixels (as an OpenCV Mat of type
// CV_8UC3 holds them, rows without padding).
func CropFromBGR(pix []byte, width, height int) (Crop, error) {
	return cropFromPacked(pix, width, height, 2, 1, 0)
}

// CropFromRGB converts packed 8-bit RGB pixels (rows without padding).
func CropFromRGB(pix []byte, width, height int) (Crop, error) {
	return cropFromPacked(pix, width, height, 0, 1, 2)
}

func cropFromPacked(pix []byte, width, height, ri, gi, bi int) (Crop, error) {
	plane := width * height
	if width <= 0 || height <= 0 || len(pix) != 3*plane {
		return nil, fmt.Errorf("%w: %d bytes for %dx%d packed pixels", ErrInput, len(pix), width, height)
	}
	c := make(Crop, 3*plane)
	for i := 0; i < plane; i++ {
		p := pix[3*i : 3*i+3 : 3*i+3]
		c[i] = float32(p[ri]) / 255
		c[plane+i] = float32(p[gi]) / 255
		c[2*plane+i] = float32(p[bi]) / 255
	}
	return c, nil
}

// Probs are a reading's probabilities, head by head.
type Probs struct {
	Side   [NumSides]float32
	Colour [NumColours]float32
	Number [NumNumbers]float32 // Number[i] is for number i+1
}

// Prediction is what the network says about one crop. For a back, the face
// fields are still filled but mean nothing; for a face, Embedding is filled
// but means little.
//
// The probabilities (SideProbs, ColourProbs, NumberProbs, the *Prob fields
// and FaceConfidence) are calibrated: each reading's logits are divided by
// the network's Temperatures before the softmax, so that a face read p
// sure is read right about a share p of the time. Raw holds the same
// readings without temperatures. Side, Colour and Number are the argmax of
// Raw, and whether a face is read again (rereadUnsure, SecondOpinion)
// hangs on RawFaceConfidence: temperatures change what a reading says of
// itself, not which card it reads or which faces are looked at twice.
type Prediction struct {
	Side       int     // SideFace or SideBack
	SideProb   float32 // probability of Side
	Colour     int     // 0..3, index into ColourNames and referee.Colours
	ColourProb float32
	Number     int // 1..10
	NumberProb float32

	SideProbs   [NumSides]float32
	ColourProbs [NumColours]float32
	NumberProbs [NumNumbers]float32 // NumberProbs[i] is for number i+1

	// Raw are the probabilities without temperatures.
	Raw Probs

	// Embedding is the L2-normalised back embedding: Config.EmbedDim values
	// from Classify, Config.BackEmbeddingLen from ClassifyBacks.
	// Compare it with enrolled prototypes (Nearest).
	Embedding []float32
}

// IsBack reports whether the back is up.
func (p Prediction) IsBack() bool { return p.Side == SideBack }

// Face returns the predicted face as the referee knows it.
func (p Prediction) Face() referee.Face {
	return referee.Face{Colour: referee.Colours[p.Colour], Number: p.Number}
}

// FaceConfidence is the calibrated probability of the predicted face:
// face side times colour times number. Under SureAt the face is unsure.
func (p Prediction) FaceConfidence() float32 {
	return p.SideProbs[SideFace] * p.ColourProb * p.NumberProb
}

// RawFaceConfidence is FaceConfidence without temperatures: what the
// re-read of unsure faces (RereadBelow) and the second opinion compare.
func (p Prediction) RawFaceConfidence() float32 {
	if p.Colour < 0 || p.Colour >= NumColours || p.Number < 1 || p.Number > NumNumbers {
		return 0 // no reading
	}
	return p.Raw.Side[SideFace] * p.Raw.Colour[p.Colour] * p.Raw.Number[p.Number-1]
}

// Unsure reports whether the prediction is a face read less than SureAt
// sure (calibrated).
func (p Prediction) Unsure() bool {
	return p.Side == SideFace && p.FaceConfidence() < SureAt
}

// SureAt is the calibrated face confidence from which a face reading is
// sure: a reading under it is reported unsure (identify), and the vision
// pipeline calls no foul on it (docs/model.md, "Confidence", for the seed
// it was chosen on and how rare misreads are above it).
const SureAt = 0.9

// rawOutputs holds the network outputs for a batch, row-major (N,k).
type rawOutputs struct {
	side, colour, number, emb []float32
}

// softmax writes the softmax of logits into dst and returns the argmax.
func softmax(dst, logits []float32) int {
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	m := float64(logits[best])
	var sum float64
	for i, v := range logits {
		e := math.Exp(float64(v) - m)
		dst[i] = float32(e)
		sum += e
	}
	for i := range dst {
		dst[i] = float32(float64(dst[i]) / sum)
	}
	return best
}

// softmaxT writes the softmax of logits / t into dst (t 0 or 1: none).
func softmaxT(dst, logits []float32, t float64) {
	if t == 0 || t == 1 {
		softmax(dst, logits)
		return
	}
	var scaled [NumNumbers]float32
	var s []float32
	if len(logits) > len(scaled) {
		s = make([]float32, len(logits))
	} else {
		s = scaled[:len(logits)]
	}
	for i, v := range logits {
		s[i] = float32(float64(v) / t)
	}
	softmax(dst, s)
}

// withTurned returns the crops followed by each crop turned half a turn.
//
// Both inference paths read every crop both ways and average the two
// readings (twoWayPredictions). A Ligretto card reads the same either way
// up (its numeral is printed at both ends, one copy turned), and the
// network learned both orientations, so the second reading is a second
// opinion for free: on held-out crops it halved the card errors of the
// same weights (29 to 15 in 10,000).
func withTurned(crops []Crop, width, height int) []Crop {
	out := make([]Crop, 2*len(crops))
	copy(out, crops)
	plane := width * height
	for i, c := range crops {
		t := make(Crop, len(c))
		for ch := range 3 {
			src, dst := c[ch*plane:(ch+1)*plane], t[ch*plane:(ch+1)*plane]
			for j, v := range src {
				dst[plane-1-j] = v
			}
		}
		out[len(crops)+i] = t
	}
	return out
}

// twoWayPredictions turns the raw outputs of n crops followed by the same
// crops turned (withTurned) into n predictions: probabilities are the mean
// of the two readings', the embedding the normalised mean of the two.
func twoWayPredictions(r rawOutputs, n, embDim int, t Temperatures) []Prediction {
	both := predictions(r, 2*n, embDim, t)
	out := both[:n]
	for i := range out {
		p, q := &out[i], &both[n+i]
		for k := range p.SideProbs {
			p.SideProbs[k] = (p.SideProbs[k] + q.SideProbs[k]) / 2
			p.Raw.Side[k] = (p.Raw.Side[k] + q.Raw.Side[k]) / 2
		}
		p.Side = argmax(p.Raw.Side[:])
		p.SideProb = p.SideProbs[p.Side]
		p.meanFace(both[n+i : n+i+1])
		p.Embedding = MeanEmbedding(p.Embedding, q.Embedding)
	}
	return out
}

// meanFace makes p's colour and number probabilities, calibrated and raw,
// the mean of its own and those of the other readings of the same crop,
// and its colour and number the likeliest by the raw mean.
func (p *Prediction) meanFace(others []Prediction) {
	for _, q := range others {
		for k := range p.ColourProbs {
			p.ColourProbs[k] += q.ColourProbs[k]
			p.Raw.Colour[k] += q.Raw.Colour[k]
		}
		for k := range p.NumberProbs {
			p.NumberProbs[k] += q.NumberProbs[k]
			p.Raw.Number[k] += q.Raw.Number[k]
		}
	}
	readings := float32(len(others) + 1)
	for k := range p.ColourProbs {
		p.ColourProbs[k] /= readings
		p.Raw.Colour[k] /= readings
	}
	for k := range p.NumberProbs {
		p.NumberProbs[k] /= readings
		p.Raw.Number[k] /= readings
	}
	p.Colour = argmax(p.Raw.Colour[:])
	p.ColourProb = p.ColourProbs[p.Colour]
	p.Number = argmax(p.Raw.Number[:]) + 1
	p.NumberProb = p.NumberProbs[p.Number-1]
}

// classifyWith runs forward (a path's raw forward pass) on the crops, each
// read both ways up or once as it is, with the network's temperatures t.
func classifyWith(cfg Config, t Temperatures, forward func([]Crop) (rawOutputs, error), crops []Crop, bothWays bool) ([]Prediction, error) {
	if err := checkCrops(cfg, crops); err != nil {
		return nil, err
	}
	if len(crops) == 0 {
		return nil, nil
	}
	if !bothWays {
		r, err := forward(crops)
		if err != nil {
			return nil, err
		}
		return predictions(r, len(crops), cfg.EmbedDim, t), nil
	}
	r, err := forward(withTurned(crops, cfg.Width, cfg.Height))
	if err != nil {
		return nil, err
	}
	preds := twoWayPredictions(r, len(crops), cfg.EmbedDim, t)
	if err := rereadUnsure(cfg, t, forward, crops, preds); err != nil {
		return nil, err
	}
	return preds, nil
}

// RawOutputs are a network's outputs for n crops, row-major: n x NumSides
// side logits, n x NumColours colour logits, n x NumNumbers number logits
// and n x Config.EmbedDim embedding values (not normalised).
type RawOutputs struct {
	Side, Colour, Number, Embedding []float32
}

// ClassifyWith reads crops as Fast does with another engine's forward pass
// (the gorgonia graph of package training): with bothWays as Classify,
// each crop both ways up and the unsure faces again, else as ClassifyAsIs,
// each crop once as it is; the probabilities calibrated by t.
func ClassifyWith(cfg Config, t Temperatures, forward func([]Crop) (RawOutputs, error), crops []Crop, bothWays bool) ([]Prediction, error) {
	raw := func(c []Crop) (rawOutputs, error) {
		r, err := forward(c)
		return rawOutputs{side: r.Side, colour: r.Colour, number: r.Number, emb: r.Embedding}, err
	}
	return classifyWith(cfg, t, raw, crops, bothWays)
}

// CheckCrops reports a crop whose length is not c.CropLen(), wrapping
// ErrInput.
func (c Config) CheckCrops(crops []Crop) error { return checkCrops(c, crops) }

// RereadBelow is the raw face confidence (RawFaceConfidence, without
// temperatures) under which a face is read again (rereadUnsure). Most card misreads are less sure than this (10 of 11 in
// a sample), and one rendered face in about 130 is.
const RereadBelow = 0.9

// rereadShifts are the views an unsure face is read again from: the crop
// moved one pixel to each of its eight neighbours and two pixels each way
// along its sides. More views than the four one-pixel moves of before make
// more nearly independent opinions of a blurred numeral: on 65 held-out
// seeds of about 5,000 faces the committed weights misread 148 cards with
// the four and 134 with these twelve (`ligretto model eval --seeds ...
// --faces-only`, docs/model.md). Zooms and turns of a few
// degrees were tried too and did no better than the moves.
var rereadShifts = [12][2]int{
	{-1, 0}, {1, 0}, {0, -1}, {0, 1},
	{-1, -1}, {1, 1}, {-1, 1}, {1, -1},
	{-2, 0}, {2, 0}, {0, -2}, {0, 2},
}

// rereadUnsure reads each face less than RereadBelow sure again from the
// crop moved a pixel or two (rereadShifts, each view both ways up), and
// gives it the mean colour and number probabilities of its thirteen
// readings; side and embedding stay. Backs and sure faces cost nothing
// more; an unsure face costs 26 readings more.
func rereadUnsure(cfg Config, t Temperatures, forward func([]Crop) (rawOutputs, error), crops []Crop, preds []Prediction) error {
	var unsure []int
	for i, p := range preds {
		if p.Side == SideFace && p.RawFaceConfidence() < RereadBelow {
			unsure = append(unsure, i)
		}
	}
	if len(unsure) == 0 {
		return nil
	}
	k := len(rereadShifts)
	views := make([]Crop, 0, k*len(unsure))
	for _, i := range unsure {
		for _, d := range rereadShifts {
			views = append(views, shifted(crops[i], cfg.Width, cfg.Height, d[0], d[1]))
		}
	}
	r, err := forward(withTurned(views, cfg.Width, cfg.Height))
	if err != nil {
		return err
	}
	again := twoWayPredictions(r, len(views), cfg.EmbedDim, t)
	for j, i := range unsure {
		preds[i].meanFace(again[j*k : (j+1)*k])
	}
	return nil
}

// shifted is crop c (planar RGB, width x height) moved dx pixels right and
// dy down, the edge pixels repeated into the space left.
func shifted(c Crop, width, height, dx, dy int) Crop {
	out := make(Crop, len(c))
	plane := width * height
	for ch := range 3 {
		for y := range height {
			sy := min(max(y-dy, 0), height-1)
			for x := range width {
				sx := min(max(x-dx, 0), width-1)
				out[ch*plane+y*width+x] = c[ch*plane+sy*width+sx]
			}
		}
	}
	return out
}

// predictions turns raw outputs of n samples into predictions, the
// calibrated probabilities with temperatures t.
func predictions(r rawOutputs, n, embDim int, t Temperatures) []Prediction {
	out := make([]Prediction, n)
	for i := range out {
		p := &out[i]
		side, colour, number := r.side[i*NumSides:(i+1)*NumSides], r.colour[i*NumColours:(i+1)*NumColours], r.number[i*NumNumbers:(i+1)*NumNumbers]
		p.Side = softmax(p.Raw.Side[:], side)
		softmaxT(p.SideProbs[:], side, t.Side)
		p.SideProb = p.SideProbs[p.Side]
		p.Colour = softmax(p.Raw.Colour[:], colour)
		softmaxT(p.ColourProbs[:], colour, t.Colour)
		p.ColourProb = p.ColourProbs[p.Colour]
		k := softmax(p.Raw.Number[:], number)
		softmaxT(p.NumberProbs[:], number, t.Number)
		p.Number = k + 1
		p.NumberProb = p.NumberProbs[k]
		p.Embedding = normalized(r.emb[i*embDim : (i+1)*embDim])
	}
	return out
}

// normalized returns a copy of v with unit L2 norm (v itself if zero).
func normalized(v []float32) []float32 {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(ss+1e-12)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

// Cosine is the cosine similarity of two embeddings (their dot product when
// both are normalised, as Prediction.Embedding is).
func Cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// MeanEmbedding is the prototype of a back design: the normalised mean of
// the embeddings of several crops of it (for example the ones taken when a
// player's back is enrolled). It returns nil for no embeddings.
func MeanEmbedding(embs ...[]float32) []float32 {
	if len(embs) == 0 {
		return nil
	}
	sum := make([]float32, len(embs[0]))
	for _, e := range embs {
		for i := range min(len(e), len(sum)) {
			sum[i] += e[i]
		}
	}
	return normalized(sum)
}

// Nearest returns the index of the prototype most similar (cosine) to emb
// and that similarity, or -1 and 0 when there are no prototypes. Callers
// should also require a minimum similarity, so that a back of a design not
// enrolled is not forced onto one that is.
func Nearest(emb []float32, protos [][]float32) (int, float32) {
	best, bestSim := -1, float32(0)
	for i, p := range protos {
		if s := Cosine(emb, p); best < 0 || s > bestSim {
			best, bestSim = i, s
		}
	}
	return best, bestSim
}

// Predictor is what the inference paths (Fast, and the gorgonia graph of
// package training) and the readers built on them (SecondOpinion,
// DeckReader) offer. Config is the configuration of the network the crops
// are read with: crops must be Config().CropLen() long, and embeddings are
// Config().EmbedDim (Classify) or Config().BackEmbeddingLen (ClassifyBacks)
// long. A predictor carries it, so that no caller has to carry it beside.
//
// Classify reads each crop both ways up (withTurned), which is right for a
// whole Ligretto card, and a face read less than RereadBelow sure again
// from twelve views moved a pixel or two (rereadUnsure). ClassifyAsIs reads each
// crop once, as it is: for crops that do not read the same turned, such as
// a photo's corner index (one numeral, which turned is another number).
type Predictor interface {
	Classify(crops []Crop) ([]Prediction, error)
	ClassifyAsIs(crops []Crop) ([]Prediction, error)
	Config() Config
	Close() error
}

// checkCrops checks that every crop has the length cfg needs.
func checkCrops(cfg Config, crops []Crop) error {
	for i, c := range crops {
		if len(c) != cfg.CropLen() {
			return fmt.Errorf("%w: crop %d has %d values, want %d (3x%dx%d)", ErrInput, i, len(c), cfg.CropLen(), cfg.Height, cfg.Width)
		}
	}
	return nil
}

// BackDetailZoom is how much nearer a back's detail view looks than its
// whole view: the detail view is the card's centre, 1/BackDetailZoom of it
// each way, at the crop's size. A back's motifs are a few pixels across in
// a whole-card crop, too small to tell close designs apart; at 1.5 times
// the scale they are not.
const BackDetailZoom = 1.5

// BackViews is a card back as ClassifyBacks reads it: the whole card, as
// Classify reads a face, and the detail view of its centre. A card warped
// to Config.DetailSize has the detail view as its centre
// Width x Height pixels (BackViewsFromImage).
type BackViews struct {
	Whole, Detail Crop
}

// DetailSize is the size a card is warped to for its detail view.
func (c Config) DetailSize() (w, h int) {
	return int(math.Round(float64(c.Width) * BackDetailZoom)), int(math.Round(float64(c.Height) * BackDetailZoom))
}

// DetailRect is where the detail view lies in a card warped to
// DetailSize: its centre, Width x Height.
func (c Config) DetailRect() image.Rectangle {
	dw, dh := c.DetailSize()
	x0, y0 := (dw-c.Width)/2, (dh-c.Height)/2
	return image.Rect(x0, y0, x0+c.Width, y0+c.Height)
}

// BackEmbeddingLen is the length of ClassifyBacks' embeddings, and so of
// every back prototype compared with them.
func (c Config) BackEmbeddingLen() int { return 2 * c.EmbedDim }

// BackViewsFromImage makes both views of a card from an image of it at
// cfg.DetailSize: the whole view is the image scaled down (bilinear), the
// detail view its centre.
func BackViewsFromImage(img image.Image, cfg Config) (BackViews, error) {
	dw, dh := cfg.DetailSize()
	b := img.Bounds()
	if b.Dx() != dw || b.Dy() != dh {
		return BackViews{}, fmt.Errorf("%w: image is %dx%d, want %dx%d (Config.DetailSize)", ErrInput, b.Dx(), b.Dy(), dw, dh)
	}
	small := image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
	xdraw.ApproxBiLinear.Scale(small, small.Bounds(), img, b, xdraw.Src, nil)
	whole, err := CropFromImage(small, cfg.Width, cfg.Height)
	if err != nil {
		return BackViews{}, err
	}
	centre := image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height))
	xdraw.Copy(centre, image.Point{}, img, cfg.DetailRect().Add(b.Min), xdraw.Src, nil)
	detail, err := CropFromImage(centre, cfg.Width, cfg.Height)
	if err != nil {
		return BackViews{}, err
	}
	return BackViews{Whole: whole, Detail: detail}, nil
}

// ClassifyBacks reads cards that may show their backs, cut to p.Config()
// (BackViewsFromImage). Side, colour and
// number are p.Classify's reading of the whole view. Embedding
// (Config.BackEmbeddingLen values, normalised) joins two: the whole
// view's and the detail view's, each the mean of the embeddings of the
// view, its mirror image, and both of those moved backShift pixels each
// way (backShifts), so that a back is compared both at a glance and close
// up, and its prototype does not hang on where one crop's edges fell. It
// costs twenty readings a card: for enrolment, the count and identify,
// where backs are compared, not for the live pipeline's faces. Prototypes
// and the embeddings compared with them must come the same way.
func ClassifyBacks(p Predictor, views []BackViews) ([]Prediction, error) {
	cfg := p.Config()
	n, k := len(views), len(backShifts)
	per := 4 * k // readings of one card
	all := make([]Crop, 0, per*n)
	for i, v := range views {
		if err := checkCrops(cfg, []Crop{v.Whole, v.Detail}); err != nil {
			return nil, fmt.Errorf("back %d: %w", i, err)
		}
		for _, c := range []Crop{v.Whole, mirrored(v.Whole, cfg.Width, cfg.Height), v.Detail, mirrored(v.Detail, cfg.Width, cfg.Height)} {
			for _, d := range backShifts {
				all = append(all, shifted(c, cfg.Width, cfg.Height, d[0], d[1]))
			}
		}
	}
	preds, err := p.Classify(all)
	if err != nil {
		return nil, err
	}
	out := make([]Prediction, n)
	embs := make([][]float32, 2*k)
	for i := range out {
		r := preds[i*per : (i+1)*per]
		out[i] = r[0] // the whole view as it is
		for j := range embs {
			embs[j] = r[j].Embedding
		}
		whole := MeanEmbedding(embs[:2*k]...)
		for j := range embs {
			embs[j] = r[2*k+j].Embedding
		}
		detail := MeanEmbedding(embs...)
		out[i].Embedding = normalized(append(whole, detail...))
	}
	return out, nil
}

// backShift is how far (crop pixels) ClassifyBacks moves each view.
const backShift = 3

// backShifts are the moves of each view ClassifyBacks reads, the first
// none.
var backShifts = [5][2]int{{0, 0}, {-backShift, 0}, {backShift, 0}, {0, -backShift}, {0, backShift}}

// mirrored is crop c (planar RGB, width x height) flipped left to right.
func mirrored(c Crop, width, height int) Crop {
	m := make(Crop, len(c))
	for row := range 3 * height { // every row of every plane
		src, dst := c[row*width:(row+1)*width], m[row*width:(row+1)*width]
		for x, v := range src {
			dst[width-1-x] = v
		}
	}
	return m
}

// argmax is the index of v's largest value, the first of equals.
func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
