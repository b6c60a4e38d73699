package model

import (
	"errors"
	"fmt"
)

// SecondOpinion is a Predictor of two networks: First reads every crop, and
// Second reads again only the faces First is less than RereadBelow sure of
// (after its own re-read; RawFaceConfidence). Each network reads with its
// own temperatures, fitted for its own weights. Such a face takes the mean of the two networks'
// colour and number probabilities; side and embedding are always First's,
// so back prototypes enrolled through a SecondOpinion match those of First
// alone. Two networks trained apart misread different faces: an unsure
// face is where a second opinion is worth its cost, and one face in about
// a hundred is unsure.
type SecondOpinion struct {
	First, Second Predictor
	// More holds further networks, asked with Second: an unsure face then
	// takes the mean of all the networks' probabilities.
	More []Predictor
}

// NewSecondOpinion checks that both networks read crops of one size.
func NewSecondOpinion(first, second Predictor) (*SecondOpinion, error) {
	firstCfg, secondCfg := first.Config(), second.Config()
	if firstCfg.Width != secondCfg.Width || firstCfg.Height != secondCfg.Height {
		return nil, fmt.Errorf("%w: a second opinion on %dx%d crops for a network of %dx%d", ErrShapeMismatch,
			secondCfg.Width, secondCfg.Height, firstCfg.Width, firstCfg.Height)
	}
	return &SecondOpinion{First: first, Second: second}, nil
}

// Add asks another network with Second, checking that it reads crops of
// First's size.
func (s *SecondOpinion) Add(p Predictor) error {
	firstCfg, cfg := s.First.Config(), p.Config()
	if firstCfg.Width != cfg.Width || firstCfg.Height != cfg.Height {
		return fmt.Errorf("%w: another opinion on %dx%d crops for a network of %dx%d", ErrShapeMismatch,
			cfg.Width, cfg.Height, firstCfg.Width, firstCfg.Height)
	}
	s.More = append(s.More, p)
	return nil
}

// Classify reads each crop both ways up with First, and the faces it is
// unsure of with Second too.
func (s *SecondOpinion) Classify(crops []Crop) ([]Prediction, error) {
	return s.classify(crops, Predictor.Classify)
}

// ClassifyAsIs reads each crop once as it is with First, and the faces it
// is unsure of with Second too.
func (s *SecondOpinion) ClassifyAsIs(crops []Crop) ([]Prediction, error) {
	return s.classify(crops, Predictor.ClassifyAsIs)
}

func (s *SecondOpinion) classify(crops []Crop, read func(Predictor, []Crop) ([]Prediction, error)) ([]Prediction, error) {
	preds, err := read(s.First, crops)
	if err != nil {
		return nil, err
	}
	var unsure []int
	var again []Crop
	for i, p := range preds {
		if p.Side == SideFace && p.RawFaceConfidence() < RereadBelow {
			unsure = append(unsure, i)
			again = append(again, crops[i])
		}
	}
	if len(unsure) == 0 {
		return preds, nil
	}
	others := append([]Predictor{s.Second}, s.More...)
	readings := make([][]Prediction, len(others))
	for k, p := range others {
		if readings[k], err = read(p, again); err != nil {
			return nil, fmt.Errorf("second opinion: %w", err)
		}
	}
	opinions := make([]Prediction, len(others))
	for j, i := range unsure {
		for k := range others {
			opinions[k] = readings[k][j]
		}
		preds[i].meanFace(opinions)
	}
	return preds, nil
}

// Config is First's: crops are cut to it, and embeddings are First's.
func (s *SecondOpinion) Config() Config { return s.First.Config() }

// Close closes every network.
func (s *SecondOpinion) Close() error {
	errs := []error{s.First.Close(), s.Second.Close()}
	for _, p := range s.More {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}
