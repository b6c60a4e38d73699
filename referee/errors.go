package referee

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers tell apart with errors.Is.
var (
	// ErrInvalid: the input is malformed (an unknown colour, a number out of
	// range, a missing field). Nothing was changed.
	ErrInvalid = errors.New("invalid input")
	// ErrIllegal: a play breaks a rule. Errors wrapping it are *Violation.
	ErrIllegal = errors.New("illegal play")
	// ErrPhase: the observation or action does not fit the moment (a card
	// after the round ended, a count before the stop).
	ErrPhase = errors.New("wrong phase")
	// ErrUnknownPile: a pile ID the referee has never seen.
	ErrUnknownPile = errors.New("unknown pile")
	// ErrUnknownPlayer: a player the match does not have.
	ErrUnknownPlayer = errors.New("unknown player")
	// ErrMalformedLog: a log line that cannot be decoded. Errors wrapping it are *LogError.
	ErrMalformedLog = errors.New("malformed log")
	// ErrNothingToUndo: undo with no observation left to take back.
	ErrNothingToUndo = errors.New("nothing to undo")
)

// Violation says which rule a play breaks, and why in words.
type Violation struct {
	Rule   Rule   `json:"rule"`
	Reason string `json:"reason"`
}

func (v *Violation) Error() string { return fmt.Sprintf("%s (%s)", v.Reason, v.Rule) }

// Unwrap lets errors.Is(err, ErrIllegal) match any violation.
func (v *Violation) Unwrap() error { return ErrIllegal }

func violation(r Rule, format string, args ...any) *Violation {
	return &Violation{Rule: r, Reason: fmt.Sprintf(format, args...)}
}

// LogError locates a malformed line of a referee log.
type LogError struct {
	Line int
	Err  error
}

func (e *LogError) Error() string { return fmt.Sprintf("log line %d: %v", e.Line, e.Err) }

// Unwrap returns ErrMalformedLog and the cause, so both match errors.Is.
func (e *LogError) Unwrap() []error { return []error{ErrMalformedLog, e.Err} }
