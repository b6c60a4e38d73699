package model

import (
	_ "embed"
	"fmt"
)

// The committed weights, reproduced by the command in the README
// ("Reproducing the weights").
//
//go:embed weights/card.weights
var embeddedWeights []byte

// Default returns the committed weights, embedded in the binary.
func Default() (*Weights, error) {
	w, err := DecodeWeights(embeddedWeights)
	if err != nil {
		return nil, fmt.Errorf("embedded weights: %w", err)
	}
	return w, nil
}
