package vision

import (
	"fmt"
	"image"
	"image/color"
	"maps"
	"slices"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// BackPrototype is an enrolled card back: a name and the classifier's mean
// embedding of a few crops of it.
type BackPrototype struct {
	Name      string    `json:"name"`
	Embedding []float32 `json:"embedding"`
}

// MinBackSimilarity is the cosine similarity below which a back matches no
// enrolled prototype.
const MinBackSimilarity = 0.5

// Found is one card found in an image.
type Found struct {
	Corners    Quad    `json:"corners"`
	Side       string  `json:"side"` // "face" or "back"
	Colour     string  `json:"colour,omitempty"`
	Number     int     `json:"number,omitempty"`
	Back       string  `json:"back,omitempty"` // the nearest enrolled back, or "unknown"
	Confidence float64 `json:"confidence"`
	// Unsure: a face read less than model.SureAt sure (Confidence, the
	// calibrated face confidence): the colour and number are a guess.
	Unsure bool         `json:"unsure,omitempty"`
	Face   referee.Face `json:"-"`
}

// Identifier finds and reads cards in images. It is not safe for
// concurrent use when its predictor is not.
type Identifier struct {
	pred  model.Predictor
	cfg   model.Config
	backs []BackPrototype
	gains [3]float64 // white balance of the crops
}

// NewIdentifier reads cards with pred, cut to its Config, and names backs
// by the nearest of backs.
func NewIdentifier(pred model.Predictor, backs []BackPrototype) *Identifier {
	return &Identifier{pred: pred, cfg: pred.Config(), backs: backs, gains: [3]float64{1, 1, 1}}
}

// UseWhiteBalance corrects the crops by a calibration's white balance
// gains, as the pipeline does: the camera the calibration was made with,
// and a deck learnt from crops so corrected (ligretto deck), read alike.
// A photo taken otherwise has none (the default: 1, 1, 1).
func (id *Identifier) UseWhiteBalance(gains [3]float64) { id.gains = gains }

// EnrolBacks makes a prototype of each named back from its sample crops
// (card.StandardBackSamples renders the twelve standard designs), for
// reading backs without a calibration. The standard designs come first,
// in their order, then other names sorted.
func EnrolBacks(pred model.Predictor, samples map[string][]*image.RGBA) ([]BackPrototype, error) {
	cfg := pred.Config()
	var names []string
	for _, n := range referee.BackDesigns {
		if _, ok := samples[n]; ok {
			names = append(names, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(samples)) {
		if !slices.Contains(referee.BackDesigns[:], n) {
			names = append(names, n)
		}
	}
	out := make([]BackPrototype, 0, len(names))
	for _, name := range names {
		var views []model.BackViews
		for _, img := range samples[name] {
			v, err := model.BackViewsFromImage(img, cfg)
			if err != nil {
				return nil, err
			}
			views = append(views, v)
		}
		preds, err := model.ClassifyBacks(pred, views)
		if err != nil {
			return nil, fmt.Errorf("enrol back %s: %w", name, err)
		}
		embs := make([][]float32, len(preds))
		for i, p := range preds {
			embs[i] = p.Embedding
		}
		out = append(out, BackPrototype{Name: name, Embedding: model.MeanEmbedding(embs...)})
	}
	return out, nil
}

// Identify finds the cards in a BGR image and reads each.
func (id *Identifier) Identify(img gocv.Mat) ([]Found, error) {
	if img.Empty() || img.Channels() != 3 {
		return nil, fmt.Errorf("identify: want a 3-channel BGR image, got %dx%d with %d channels", img.Cols(), img.Rows(), img.Channels())
	}
	quads := find.Cards(img, find.PhotoOptions(img.Cols(), img.Rows()))
	if len(quads) == 0 {
		return nil, nil
	}
	views := make([]model.BackViews, len(quads))
	for i, q := range quads {
		var err error
		if views[i], err = backViewsFromCamera(img, q, id.gains, id.cfg); err != nil {
			return nil, fmt.Errorf("identify: crop %d: %w", i, err)
		}
	}
	preds, err := model.ClassifyBacks(id.pred, views) // backs are compared with prototypes made so
	if err != nil {
		return nil, fmt.Errorf("identify: %w", err)
	}
	out := make([]Found, len(quads))
	for i, p := range preds {
		f := Found{Corners: quads[i]}
		if p.IsBack() {
			f.Side, f.Back, f.Confidence = "back", "unknown", float64(p.SideProb)
			if len(id.backs) > 0 {
				protos := make([][]float32, len(id.backs))
				for k, b := range id.backs {
					protos[k] = b.Embedding
				}
				if k, sim := model.Nearest(p.Embedding, protos); sim >= MinBackSimilarity {
					f.Back, f.Confidence = id.backs[k].Name, float64(sim)*float64(p.SideProb)
				}
			}
		} else {
			f.Face = p.Face()
			f.Side, f.Colour, f.Number, f.Confidence = "face", f.Face.Colour.String(), f.Face.Number, float64(p.FaceConfidence())
			f.Unsure = p.Unsure()
		}
		out[i] = f
	}
	return out, nil
}

// Annotate draws each found card's outline and reading onto img; an
// unsure face thin and grey, its reading with a question mark.
func Annotate(img *gocv.Mat, found []Found) {
	for _, f := range found {
		c, w := color.RGBA{0, 220, 0, 0}, 2
		label := fmt.Sprintf("%s %d %.2f", f.Colour, f.Number, f.Confidence)
		switch {
		case f.Side == "back":
			c, label = color.RGBA{255, 160, 0, 0}, fmt.Sprintf("back %s %.2f", f.Back, f.Confidence)
		case f.Unsure:
			// Thin and grey, the reading a guess: "unsure (green 4?) 0.62".
			c, w, label = color.RGBA{170, 170, 170, 0}, 1, fmt.Sprintf("unsure (%s %d?) %.2f", f.Colour, f.Number, f.Confidence)
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{f.Corners[:]})
		gocv.Polylines(img, pv, true, c, w)
		pv.Close()
		gocv.PutText(img, label, image.Pt(f.Corners[0].X, f.Corners[0].Y-6), gocv.FontHersheySimplex, 0.5, c, 2)
	}
}
