package card

import "errors"

// Errors returned by the renderer; test with errors.Is.
var (
	// ErrParams means a Params field is out of range.
	ErrParams = errors.New("synth: invalid params")
	// ErrUnknownDesign means a back design ID is neither one of the twelve
	// nor a random design's ID.
	ErrUnknownDesign = errors.New("synth: unknown back design")
	// ErrLabel means a label names no card.
	ErrLabel = errors.New("synth: invalid label")
)
