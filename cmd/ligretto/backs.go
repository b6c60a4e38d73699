package main

import (
	"ligretto/model"
	"ligretto/render/card"
	"ligretto/vision"
)

// standardBacks enrols the twelve standard back designs from rendered
// crops, for naming backs without a calibration.
func standardBacks(pred model.Predictor) ([]vision.BackPrototype, error) {
	w, h := pred.Config().DetailSize()
	samples, err := card.StandardBackSamples(w, h, 4)
	if err != nil {
		return nil, err
	}
	return vision.EnrolBacks(pred, samples)
}
