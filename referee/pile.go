package referee

// The pile rules, shared by the full model (Round) and the observed model
// (Referee), so that legality is decided in exactly one place.

// Starts reports whether f may start a new centre pile (C6): CheckStart
// as a predicate.
func Starts(f Face) bool { return f.Number == 1 }

// CheckStart checks a card that starts a new centre pile (C6).
func CheckStart(f Face) *Violation {
	if !Starts(f) {
		return violation(C6, "new pile started with %s: a pile must start with a 1", f)
	}
	return nil
}

// FitsOn is CheckPlace as a predicate, for the hot paths that only ask
// (C7, C8): f is the card a pile topped by top takes next.
func FitsOn(top, f Face) bool {
	n, ok := Next(top)
	return ok && f == n
}

// Next returns the card a pile topped by top takes next (C7), and false
// when it takes none: a 10 closes it (C8).
func Next(top Face) (Face, bool) {
	if top.Number < 1 || top.Number >= 10 {
		return Face{}, false
	}
	return Face{Colour: top.Colour, Number: top.Number + 1}, true
}

// fitsRow is CheckRowLay as a predicate.
func fitsRow(rowTop, f Face) bool {
	return f.Number == rowTop.Number-1 && f.Colour != rowTop.Colour
}

// CheckPlace checks a card laid on a pile whose top is top (C7, C8).
func CheckPlace(top, f Face) *Violation {
	switch {
	case top.Number >= 10:
		return violation(C8, "%s on %s: the pile is closed", f, top)
	case f.Colour != top.Colour:
		return violation(C7, "%s on %s: colour differs", f, top)
	case f.Number != top.Number+1:
		return violation(C7, "%s on %s: number must be %d", f, top, top.Number+1)
	}
	return nil
}

// CheckRowLay checks a card laid onto a row card in the advanced variant
// (C18): one lower and of another colour.
func CheckRowLay(rowTop, f Face) *Violation {
	switch {
	case f.Number != rowTop.Number-1:
		return violation(C18, "%s on row card %s: must be %d, descending", f, rowTop, rowTop.Number-1)
	case f.Colour == rowTop.Colour:
		return violation(C18, "%s on row card %s: colours must alternate", f, rowTop)
	}
	return nil
}

// Pile is a centre pile. Cards lists them bottom first.
type Pile struct {
	ID    int    `json:"id"`
	Cards []Card `json:"cards"`
}

// Top returns the visible card.
func (p Pile) Top() Card { return p.Cards[len(p.Cards)-1] }

// Closed reports whether the pile is complete (C8).
func (p Pile) Closed() bool { return p.Top().Number >= 10 }

// Legal reports whether the pile holds exactly 1..n of one colour (C15).
func (p Pile) Legal() bool {
	for i, c := range p.Cards {
		if c.Number != i+1 || c.Colour != p.Cards[0].Colour {
			return false
		}
	}
	return len(p.Cards) > 0
}
