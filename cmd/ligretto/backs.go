package main

import (
	"ligretto/model"
	"ligretto/render/card"
	"ligretto/vision"
)

// standardBacks enrols the twelve standard back designs from rendered
// crops, for naming backs without a calibration.
func standardBacks(pred model.Predictor, cfg model.Config) ([]vision.BackPrototype, error) {
	w, h := cfg.DetailSize()
	samples, err := card.StandardBackSamples(w, h, 4)
	if err != nil {
		return nil, err
	}
	return vision.EnrolBacks(pred, cfg, samples)
}
