package referee

import "errors"

// PlayerScore is one player's round: cards in the centre, cards left in the
// Ligretto stack, and the score they give (C14).
type PlayerScore struct {
	Centre    int `json:"centre"`
	StackLeft int `json:"stack_left"`
	Score     int `json:"score"`
}

// Score applies C14: +1 per centre card, -2 per card left in the stack.
func Score(centre, stackLeft int) PlayerScore {
	return PlayerScore{Centre: centre, StackLeft: stackLeft, Score: centre - 2*stackLeft}
}

// PileSummary is a pile as the result reports it.
type PileSummary struct {
	ID     int    `json:"id"`
	Colour Colour `json:"colour"`
	Top    int    `json:"top"`
	Cards  int    `json:"cards"` // cards seen or inferred on the pile
}

// RoundResult is a scored round, in the shape of result.json.
type RoundResult struct {
	StoppedBy *string                `json:"stopped_by"`
	Deadlock  bool                   `json:"deadlock"`
	Piles     []PileSummary          `json:"piles"`
	Players   map[string]PlayerScore `json:"players"`
	Checks    []Violation            `json:"checks,omitempty"` // failed consistency checks (C15)
}

// CheckConsistency applies C15: the cards counted in the centre must equal
// the cards the piles hold (for legal piles, the sum of their tops).
func (r RoundResult) CheckConsistency() *Violation {
	counted, held := 0, 0
	for _, p := range r.Players {
		counted += p.Centre
	}
	for _, p := range r.Piles {
		held += p.Cards
	}
	if counted != held {
		return violation(C15, "%d cards counted in the centre, but the piles hold %d", counted, held)
	}
	return nil
}

func asViolation(err error, v **Violation) bool { return errors.As(err, v) }
