package model

import (
	_ "embed"
	"fmt"
)

// The committed weights, reproduced by the commands in docs/model.md
// ("Reproducing the weights"): the network every crop is read with, and a
// second one, trained on from it, asked about the faces the first is
// unsure of (SecondOpinion).
var (
	//go:embed weights/card.weights
	embeddedWeights []byte
	//go:embed weights/second.weights
	embeddedSecond []byte
)

// Default returns the committed weights, embedded in the binary, with
// their committed temperatures (weights/temperature.json). Temperatures
// fitted for other weights (the weights trained again, the temperatures
// not fitted again) are an error: a confidence that means nothing would
// pass for one that does.
func Default() (*Weights, error) {
	return decodeEmbedded("card.weights", embeddedWeights)
}

func decodeEmbedded(name string, b []byte) (*Weights, error) {
	w, err := DecodeWeights(b)
	if err != nil {
		return nil, fmt.Errorf("embedded %s: %w", name, err)
	}
	if w.Temperatures, err = embeddedTemperaturesFor(name, b); err != nil {
		return nil, err
	}
	return w, nil
}

// DefaultSecond returns the committed second network's weights, embedded
// in the binary.
func DefaultSecond() (*Weights, error) {
	return decodeEmbedded("second.weights", embeddedSecond)
}

// DefaultPredictor returns the committed networks on the fast path, as the
// program reads cards by default: the first network, with the second's
// opinion on the faces it is unsure of. Its Config, the one crops are cut
// to, is the first's (back embeddings are the first's alone).
func DefaultPredictor() (Predictor, error) {
	w, err := Default()
	if err != nil {
		return nil, err
	}
	w2, err := DefaultSecond()
	if err != nil {
		return nil, err
	}
	first, err := NewFast(w)
	if err != nil {
		return nil, err
	}
	second, err := NewFast(w2)
	if err != nil {
		return nil, err
	}
	return NewSecondOpinion(first, second)
}

// EmbeddedWeightsFiles returns copies of the committed weights files as
// embedded: the network's and the second network's.
func EmbeddedWeightsFiles() (first, second []byte) {
	return append([]byte(nil), embeddedWeights...), append([]byte(nil), embeddedSecond...)
}
