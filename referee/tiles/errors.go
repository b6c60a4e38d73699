package tiles

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers tell apart with errors.Is.
var (
	// ErrInvalid: malformed input (an unknown colour, fields that are not
	// edge-adjacent, a field off the board). Nothing was changed.
	ErrInvalid = errors.New("invalid input")
	// ErrIllegal: a play breaks a rule. Errors wrapping it are *Violation.
	ErrIllegal = errors.New("illegal play")
	// ErrPhase: the action does not fit the moment (a card after the stop,
	// a count before it).
	ErrPhase = errors.New("wrong phase")
	// ErrUnknownPlayer: a player the match does not have.
	ErrUnknownPlayer = errors.New("unknown player")
	// ErrMalformedLog: a log line that cannot be decoded. Errors wrapping
	// it are *LogError.
	ErrMalformedLog = errors.New("malformed log")
	// ErrNotRetractable: a card that cannot be taken back (not this
	// round's, not a card, or judging the rest without it changes a
	// verdict). Nothing was changed.
	ErrNotRetractable = errors.New("not retractable")
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
