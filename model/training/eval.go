package training

import (
	"fmt"
	"image"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/render/card"
)

// Report is the accuracy of each head on held-out crops.
type Report struct {
	N      int     `json:"n"`
	Side   float64 `json:"side"`
	Colour float64 `json:"colour"` // on faces
	Number float64 `json:"number"` // on faces
	Card   float64 `json:"card"`   // colour and number both right
	// Illegible counts the face crops whose numerals are both mostly
	// hidden (card.LegibleNumeral): their colour is scored, their number
	// and card are not.
	Illegible int `json:"illegible"`
	// Faces is how many faces were scored for card (legible ones), and
	// CardErrors how many of them were misread: a seed's card accuracy
	// hangs on a handful of errors, so they are counted, not only rated.
	Faces      int     `json:"faces"`
	CardErrors int     `json:"card_errors"`
	Backs      int     `json:"backs"`       // backs scored (0 from EvaluateFaces)
	Back       float64 `json:"back"`        // among the 12 real designs, enrolled from EnrolShots crops each
	BackUnseen float64 `json:"back_unseen"` // among 12 designs never seen in training
	// Confusion matrices, rows truth, columns prediction.
	// Misread holds the legible faces read as another card, with the
	// crop the network read, in the order they were rendered.
	Misread []Misread `json:"-"`
	// Readings holds every face's confidences and outcomes, for
	// Calibrate and Reliability.
	Readings        []Reading `json:"-"`
	SideConfusion   [][]int   `json:"side_confusion"`
	ColourConfusion [][]int   `json:"colour_confusion"`
	NumberConfusion [][]int   `json:"number_confusion"`
}

// Misread is a face an evaluation read as another card.
type Misread struct {
	Crop        image.Image
	Truth, Read referee.Face
	Sure        float32 // the reading's face confidence
}

// EnrolShots is how many crops of a back calibration enrols per player.
const EnrolShots = 3

// backStream sets the backs' renderer apart from the faces'.
const backStream = 0xbac6

// Evaluate renders n fresh crops from seed (half faces, half backs of the
// 12 real designs, plus as many backs of 12 unseen designs) and scores p.
// Backs are recognised as calibration will: from both views
// (model.ClassifyBacks), by the nearest of 12 prototypes, each the mean
// embedding of EnrolShots crops.
func Evaluate(p model.Predictor, seed uint64, n int, progress func(done, total int)) (Report, error) {
	return evaluate(p, seed, n, true, 0, progress)
}

// EvaluateFaces scores the faces of Evaluate(seed, n) alone: the very same
// crops (faces and backs are rendered from streams of their own), so its
// side, colour, number and card figures are Evaluate's on the faces, about
// twenty times sooner (a back is read twenty times, a face twice). Side is
// then scored on faces only; Backs is 0 and the back figures mean nothing.
func EvaluateFaces(p model.Predictor, seed uint64, n int, progress func(done, total int)) (Report, error) {
	return evaluate(p, seed, n, false, 0, progress)
}

// EvaluatePrintedFaces is EvaluateFaces with a share (0..1) of the faces
// drawn in the real Ligretto print's style (card.Params.Printed).
func EvaluatePrintedFaces(p model.Predictor, seed uint64, n int, printed float64, progress func(done, total int)) (Report, error) {
	return evaluate(p, seed, n, false, printed, progress)
}

func evaluate(p model.Predictor, seed uint64, n int, withBacks bool, printed float64, progress func(done, total int)) (Report, error) {
	e, err := newEvalRun(p, seed, printed)
	if err != nil {
		return Report{}, err
	}
	rep := Report{N: n, SideConfusion: square(2), ColourConfusion: square(4), NumberConfusion: square(10)}
	real := referee.BackDesigns[:]
	unseen := make([]string, len(real))
	for i := range unseen {
		unseen[i] = card.RandomDesign(UnseenDesignSeed + seed%1_000_000*16 + uint64(i)).ID
	}
	var realProtos, unseenProtos [][]float32
	if withBacks {
		if realProtos, err = e.enrol(real); err != nil {
			return Report{}, err
		}
		if unseenProtos, err = e.enrol(unseen); err != nil {
			return Report{}, err
		}
	}
	var t evalTally
	const chunk = 64
	for done := 0; done < n; done += chunk {
		m := min(chunk, n-done)
		labels := evalLabels(done, m, withBacks, real, unseen)
		preds, err := e.classify(labels)
		if err != nil {
			return Report{}, err
		}
		for i, l := range labels {
			pr := preds[i]
			if i >= m { // unseen design
				if j, _ := model.Nearest(pr.Embedding, unseenProtos); unseen[j] == l.Back {
					t.unseenOK++
				}
				continue
			}
			t.score(&rep, l, pr, e.legible[i], e.images[i], real, realProtos)
		}
		if progress != nil {
			progress(min(done+chunk, n), n)
		}
	}
	if t.faces == 0 || (withBacks && t.backs == 0) {
		return Report{}, fmt.Errorf("%w: evaluate at least 2 crops", ErrNoData)
	}
	t.rates(&rep)
	return rep, nil
}

// evalRun renders the crops of one evaluation and classifies them: faces
// at the crop's size, backs at the detail view's, as vision warps them.
type evalRun struct {
	p     model.Predictor
	cfg   model.Config
	r, rb *card.Renderer // faces, backs
	// Of the crops of the last classify call: which are legible, and the
	// faces' images (nil for backs).
	legible []bool
	images  []image.Image
}

func newEvalRun(p model.Predictor, seed uint64, printed float64) (*evalRun, error) {
	cfg := p.Config()
	sp := card.DefaultParams()
	sp.W, sp.H = cfg.Width, cfg.Height
	sp.Printed = printed
	r, err := card.New(sp, seed)
	if err != nil {
		return nil, err
	}
	// Backs are rendered at the detail view's size, as vision warps them.
	bp := sp
	bp.W, bp.H = cfg.DetailSize()
	rb, err := card.New(bp, seed^backStream)
	if err != nil {
		return nil, err
	}
	return &evalRun{p: p, cfg: cfg, r: r, rb: rb}, nil
}

// classify renders the labels' crops and classifies them, in order.
func (e *evalRun) classify(labels []card.Label) ([]model.Prediction, error) {
	var faces []model.Crop
	var backs []model.BackViews
	e.legible, e.images = e.legible[:0], e.images[:0]
	for _, l := range labels {
		if l.Side == card.BackSide {
			img, err := e.rb.SampleOf(l)
			if err != nil {
				return nil, err
			}
			v, err := model.BackViewsFromImage(img, e.cfg)
			if err != nil {
				return nil, err
			}
			backs = append(backs, v)
			e.legible, e.images = append(e.legible, true), append(e.images, nil)
			continue
		}
		img, err := e.r.SampleOf(l)
		if err != nil {
			return nil, err
		}
		e.legible, e.images = append(e.legible, e.r.NumeralSeen() >= card.LegibleNumeral), append(e.images, img)
		c, err := model.CropFromImage(img, e.cfg.Width, e.cfg.Height)
		if err != nil {
			return nil, err
		}
		faces = append(faces, c)
	}
	fp, err := e.p.Classify(faces)
	if err != nil {
		return nil, err
	}
	bpreds, err := model.ClassifyBacks(e.p, backs) // as calibration and the count read backs
	if err != nil {
		return nil, err
	}
	out := make([]model.Prediction, 0, len(labels))
	for _, l := range labels {
		if l.Side == card.BackSide {
			out, bpreds = append(out, bpreds[0]), bpreds[1:]
		} else {
			out, fp = append(out, fp[0]), fp[1:]
		}
	}
	return out, nil
}

// enrol is each back design's prototype: the mean embedding of
// EnrolShots crops of it.
func (e *evalRun) enrol(ids []string) ([][]float32, error) {
	protos := make([][]float32, len(ids))
	for i, id := range ids {
		ls := make([]card.Label, EnrolShots)
		for k := range ls {
			ls[k] = card.Label{Side: card.BackSide, Back: id}
		}
		preds, err := e.classify(ls)
		if err != nil {
			return nil, err
		}
		embs := make([][]float32, len(preds))
		for k, pr := range preds {
			embs[k] = pr.Embedding
		}
		protos[i] = model.MeanEmbedding(embs...)
	}
	return protos, nil
}

// evalLabels are the crops done..done+m of an evaluation: faces and
// backs of the real designs in turn, then the unseen designs' backs,
// scored on their own.
func evalLabels(done, m int, withBacks bool, real, unseen []string) []card.Label {
	labels := make([]card.Label, 0, 2*m)
	for i := range m {
		k := done + i
		if k%2 == 0 {
			labels = append(labels, card.Label{Side: card.FaceSide, Face: referee.Face{Colour: referee.Colours[k/2%4], Number: 1 + k/8%10}})
		} else if withBacks {
			labels = append(labels, card.Label{Side: card.BackSide, Back: real[k/2%len(real)]})
		}
	}
	for i := range m { // the unseen designs' backs, scored on their own
		if withBacks && (done+i)%2 == 1 {
			labels = append(labels, card.Label{Side: card.BackSide, Back: unseen[(done+i)/2%len(unseen)]})
		}
	}
	return labels
}

// evalTally counts what an evaluation read right.
type evalTally struct {
	sideOK, faces, colourOK, numberOK, cardOK, backs, backOK, unseenOK int
}

// score scores one crop of a face or a real design's back into t and
// rep's confusions, readings and misreads.
func (t *evalTally) score(rep *Report, l card.Label, pr model.Prediction, legible bool, img image.Image, real []string, realProtos [][]float32) {
	truth := model.SideFace
	if l.Side == card.BackSide {
		truth = model.SideBack
	}
	rep.SideConfusion[truth][pr.Side]++
	if pr.Side == truth {
		t.sideOK++
	}
	if l.Side == card.BackSide {
		t.backs++
		if j, _ := model.Nearest(pr.Embedding, realProtos); real[j] == l.Back {
			t.backOK++
		}
		return
	}
	t.faces++
	ci := colourIndex(l.Face.Colour)
	rep.ColourConfusion[ci][pr.Colour]++
	c, num := pr.Colour == ci, pr.Number == l.Face.Number
	rep.Readings = append(rep.Readings, readingOf(pr, c, num, legible))
	if c {
		t.colourOK++
	}
	if !legible {
		rep.Illegible++
		return
	}
	rep.NumberConfusion[l.Face.Number-1][pr.Number-1]++
	if num {
		t.numberOK++
	}
	if c && num {
		t.cardOK++
	} else {
		rep.Misread = append(rep.Misread, Misread{Crop: img, Truth: l.Face, Read: pr.Face(), Sure: pr.FaceConfidence()})
	}
}

// rates fills in rep's counts and rates from t.
func (t evalTally) rates(rep *Report) {
	rep.Faces, rep.CardErrors, rep.Backs = t.faces-rep.Illegible, t.faces-rep.Illegible-t.cardOK, t.backs
	rep.Side = frac(t.sideOK, t.faces+t.backs)
	rep.Colour, rep.Number, rep.Card = frac(t.colourOK, t.faces), frac(t.numberOK, t.faces-rep.Illegible), frac(t.cardOK, t.faces-rep.Illegible)
	rep.Back, rep.BackUnseen = frac(t.backOK, t.backs), frac(t.unseenOK, t.backs)
}

// PhotoReport is the accuracy on real photo crops.
type PhotoReport struct {
	N               int     `json:"n"`
	Colour          float64 `json:"colour"`
	NumberN         int     `json:"number_n"` // crops with a number 1..9
	Number          float64 `json:"number"`
	ColourConfusion [][]int `json:"colour_confusion"`
	// Readings: every crop's confidences and outcomes; a crop with no
	// number is not Legible.
	Readings []Reading `json:"-"`
}

// EvaluatePhotos scores colour on every crop and number on those with a number.
func EvaluatePhotos(p model.Predictor, photos []PhotoCrop) (PhotoReport, error) {
	cfg := p.Config()
	rep := PhotoReport{N: len(photos), ColourConfusion: square(4)}
	if len(photos) == 0 {
		return rep, fmt.Errorf("%w: no photos", ErrNoData)
	}
	crops := make([]model.Crop, len(photos))
	for i, ph := range photos {
		c, err := model.CropFromImage(ph.Image, cfg.Width, cfg.Height)
		if err != nil {
			return rep, err
		}
		crops[i] = c
	}
	// A photo's labelled box holds one corner index, which does not read
	// the same turned: read it once.
	preds, err := p.ClassifyAsIs(crops)
	if err != nil {
		return rep, err
	}
	colourOK, numberOK := 0, 0
	for i, ph := range photos {
		rep.Readings = append(rep.Readings, readingOf(preds[i], preds[i].Colour == ph.Colour, preds[i].Number == ph.Number, ph.Number >= 1))
		rep.ColourConfusion[ph.Colour][preds[i].Colour]++
		if preds[i].Colour == ph.Colour {
			colourOK++
		}
		if ph.Number >= 1 {
			rep.NumberN++
			if preds[i].Number == ph.Number {
				numberOK++
			}
		}
	}
	rep.Colour = frac(colourOK, len(photos))
	if rep.NumberN > 0 {
		rep.Number = frac(numberOK, rep.NumberN)
	}
	return rep, nil
}

func square(n int) [][]int {
	m := make([][]int, n)
	for i := range m {
		m[i] = make([]int, n)
	}
	return m
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// The accuracy targets a seed's report is held to (issue 3).
const (
	SideTarget = 0.999 // side, and card: colour and number both right
	CardTarget = 0.999
	BackTarget = 0.995 // backs among 12 enrolled, seen in training or not
)

// Summary is what the reports of many seeds say together. A seed's card
// figure hangs on a few errors in about 5,000 faces (5 is one too many),
// so how many seeds fall under a target says more than the mean.
type Summary struct {
	Seeds      int     `json:"seeds"`
	Faces      int     `json:"faces"`       // faces scored for card, all seeds
	CardErrors int     `json:"card_errors"` // all seeds
	Card       float64 `json:"card"`        // over all faces
	WorstCard  float64 `json:"worst_card"`
	CardUnder  int     `json:"card_under"` // seeds under CardTarget
	SideUnder  int     `json:"side_under"`
	// Back figures, from the reports that scored backs (Backs > 0).
	BackSeeds   int     `json:"back_seeds"`
	MeanUnseen  float64 `json:"mean_back_unseen"`
	WorstUnseen float64 `json:"worst_back_unseen"`
	BackUnder   int     `json:"back_under"` // seeds under BackTarget, seen or unseen designs
}

// Summarise sums up reports of several seeds.
func Summarise(reps []Report) Summary {
	s := Summary{Seeds: len(reps), WorstCard: 1, WorstUnseen: 1}
	for _, r := range reps {
		s.Faces += r.Faces
		s.CardErrors += r.CardErrors
		s.WorstCard = min(s.WorstCard, r.Card)
		if r.Card < CardTarget {
			s.CardUnder++
		}
		if r.Side < SideTarget {
			s.SideUnder++
		}
		if r.Backs == 0 {
			continue
		}
		s.BackSeeds++
		s.MeanUnseen += r.BackUnseen
		s.WorstUnseen = min(s.WorstUnseen, r.BackUnseen)
		if r.Back < BackTarget || r.BackUnseen < BackTarget {
			s.BackUnder++
		}
	}
	s.Card = frac(s.Faces-s.CardErrors, s.Faces)
	if s.BackSeeds > 0 {
		s.MeanUnseen /= float64(s.BackSeeds)
	} else {
		s.WorstUnseen = 0
	}
	return s
}

// LabelledCrops renders n fresh crops from seed, as Evaluate does (half
// faces of every card in turn, half backs of the 12 real designs, as the
// whole view), labelled, to fit temperatures on (model.FitTemperatures).
// A face whose numerals are both mostly hidden has Number 0.
func LabelledCrops(cfg model.Config, seed uint64, n int) ([]model.LabelledCrop, error) {
	sp := card.DefaultParams()
	sp.W, sp.H = cfg.Width, cfg.Height
	r, err := card.New(sp, seed)
	if err != nil {
		return nil, err
	}
	bp := sp
	bp.W, bp.H = cfg.DetailSize()
	rb, err := card.New(bp, seed^backStream)
	if err != nil {
		return nil, err
	}
	real := referee.BackDesigns[:]
	out := make([]model.LabelledCrop, 0, n)
	for k := range n {
		if k%2 == 1 {
			img, err := rb.SampleOf(card.Label{Side: card.BackSide, Back: real[k/2%len(real)]})
			if err != nil {
				return nil, err
			}
			v, err := model.BackViewsFromImage(img, cfg)
			if err != nil {
				return nil, err
			}
			out = append(out, model.LabelledCrop{Crop: v.Whole, Side: model.SideBack})
			continue
		}
		f := referee.Face{Colour: referee.Colours[k/2%4], Number: 1 + k/8%10}
		img, err := r.SampleOf(card.Label{Side: card.FaceSide, Face: f})
		if err != nil {
			return nil, err
		}
		c, err := model.CropFromImage(img, cfg.Width, cfg.Height)
		if err != nil {
			return nil, err
		}
		l := model.LabelledCrop{Crop: c, Side: model.SideFace, Colour: colourIndex(f.Colour), Number: f.Number}
		if r.NumeralSeen() < card.LegibleNumeral {
			l.Number = 0
		}
		out = append(out, l)
	}
	return out, nil
}
