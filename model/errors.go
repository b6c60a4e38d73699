package model

import "errors"

// Sentinel errors that callers tell apart with errors.Is.
var (
	// ErrConfig: a Config with a field out of range.
	ErrConfig = errors.New("invalid model config")
	// ErrCorruptWeights: a weights file that is not one (wrong magic), is
	// truncated, fails its checksum, has an unknown version or cannot be
	// decoded.
	ErrCorruptWeights = errors.New("corrupt weights")
	// ErrShapeMismatch: weights whose tensors or architecture do not fit the
	// network they are loaded into (another input size, other channels, a
	// tensor missing or of another shape).
	ErrShapeMismatch = errors.New("weights do not match the network")
	// ErrInput: a crop or batch of the wrong size, or labels out of range.
	ErrInput = errors.New("invalid model input")
	// ErrClosed: the classifier or trainer was closed.
	ErrClosed = errors.New("model closed")
)
