package model

import "fmt"

// SecondOpinion is a Predictor of two networks: First reads every crop, and
// Second reads again only the faces First is less than RereadBelow sure of
// (after its own re-read). Such a face takes the mean of the two networks'
// colour and number probabilities; side and embedding are always First's,
// so back prototypes enrolled through a SecondOpinion match those of First
// alone. Two networks trained apart misread different faces: an unsure
// face is where a second opinion is worth its cost, and one face in about
// a hundred is unsure.
type SecondOpinion struct {
	First, Second Predictor
}

// NewSecondOpinion checks that both networks read crops of one size.
func NewSecondOpinion(first, second Predictor, firstCfg, secondCfg Config) (*SecondOpinion, error) {
	if firstCfg.Width != secondCfg.Width || firstCfg.Height != secondCfg.Height {
		return nil, fmt.Errorf("%w: a second opinion on %dx%d crops for a network of %dx%d", ErrShapeMismatch,
			secondCfg.Width, secondCfg.Height, firstCfg.Width, firstCfg.Height)
	}
	return &SecondOpinion{First: first, Second: second}, nil
}

// Classify reads each crop both ways up with First, and the faces it is
// unsure of with Second too.
func (s *SecondOpinion) Classify(crops []Crop) ([]Prediction, error) {
	return s.classify(crops, s.First.Classify, s.Second.Classify)
}

// ClassifyAsIs reads each crop once as it is with First, and the faces it
// is unsure of with Second too.
func (s *SecondOpinion) ClassifyAsIs(crops []Crop) ([]Prediction, error) {
	return s.classify(crops, s.First.ClassifyAsIs, s.Second.ClassifyAsIs)
}

func (s *SecondOpinion) classify(crops []Crop, first, second func([]Crop) ([]Prediction, error)) ([]Prediction, error) {
	preds, err := first(crops)
	if err != nil {
		return nil, err
	}
	var unsure []int
	var again []Crop
	for i, p := range preds {
		if p.Side == SideFace && p.FaceConfidence() < RereadBelow {
			unsure = append(unsure, i)
			again = append(again, crops[i])
		}
	}
	if len(unsure) == 0 {
		return preds, nil
	}
	other, err := second(again)
	if err != nil {
		return nil, fmt.Errorf("second opinion: %w", err)
	}
	for j, i := range unsure {
		preds[i].meanFace(other[j : j+1])
	}
	return preds, nil
}

// Close closes both networks.
func (s *SecondOpinion) Close() error {
	err1, err2 := s.First.Close(), s.Second.Close()
	if err1 != nil {
		return err1
	}
	return err2
}
