package stream

import "errors"

// Sentinel errors, matched with errors.Is.
var (
	// ErrEncoder: the video encoder could not be set up or failed.
	ErrEncoder = errors.New("video encoder")
	// ErrDecoder: a camera's video frame could not be decoded.
	ErrDecoder = errors.New("video decoder")
	// ErrConfig: a Config value is out of range.
	ErrConfig = errors.New("invalid stream config")
	// ErrUnsupported: the Controller cannot do this action (the API answers 501).
	ErrUnsupported = errors.New("not supported")
	// ErrConflict: the action does not fit the game's state now (the API answers 409).
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the action's arguments are wrong (the API answers 422).
	ErrInvalid = errors.New("invalid argument")
)
