package tiles

// Bridge is a joker laid next to a stone to reach two fields one step
// further (T4): the joker on Joker, the stone onto it, then the card.
type Bridge struct {
	Stone int   `json:"stone"`
	Joker Field `json:"joker"`
	Lay   Lay   `json:"lay"`
}

// Usable reports whether player may lay a card at stone (1..4) now.
func (t *Table) Usable(player string, stone int) bool { return t.usable(player, stone) }

// usable reports whether player may lay a card at stone now (T4a, T4b);
// stones still waiting to move are not where they will be.
func (t *Table) usable(player string, stone int) bool {
	s := t.stones[stone-1]
	if t.pending[stone-1] != nil || (s.Reserved != "" && s.Reserved != player) {
		return false
	}
	own := t.joker[player]
	return own == 0 || own == stone
}

// fit orders a and b so that the card's colours lie on their own colours,
// and reports whether they can.
func (t *Table) fit(a, b Field, c [2]Colour) ([2]Field, bool) {
	ca, cb := t.board.Colour(a), t.board.Colour(b)
	switch {
	case ca == c[0] && cb == c[1]:
		return [2]Field{a, b}, true
	case ca == c[1] && cb == c[0]:
		return [2]Field{b, a}, true
	}
	return [2]Field{}, false
}

// Lays lists every legal place for player's card of colours c (T2, T3b,
// T4), each laid the right way round.
func (t *Table) Lays(player string, card int, c [2]Colour) []Lay {
	var out []Lay
	try := func(l Lay) {
		if j, err := t.CheckLay(l); err == nil && j.Violation == nil {
			out = append(out, l)
		}
	}
	for s := 1; s <= Stones; s++ {
		if !t.usable(player, s) {
			continue
		}
		at := t.stones[s-1].At
		for _, a := range at.Neighbours() {
			if !t.free(a) {
				continue
			}
			for _, b := range a.Neighbours() {
				if fs, ok := t.fit(a, b, c); ok && t.free(b) {
					try(Lay{Player: player, Card: card, Fields: fs, Colours: c, Stone: s})
				}
			}
		}
	}
	owed := t.owedBy(player, 0)
	if owed == 0 || t.joker[player] != 0 {
		return out
	}
	for y := range t.board.h {
		for x := range t.board.w {
			a := Field{x, y}
			for _, b := range []Field{{x + 1, y}, {x, y + 1}} {
				if fs, ok := t.fit(a, b, c); ok && t.free(a) && t.free(b) {
					try(Lay{Player: player, Card: card, Fields: fs, Colours: c, Stone: owed})
				}
			}
		}
	}
	return out
}

// Bridges lists the ways player can reach a place for the card with one
// of their jokers (T4): none once both are laid.
func (t *Table) Bridges(player string, card int, c [2]Colour) []Bridge {
	if t.jokers[player] >= JokersPerPlayer || t.joker[player] != 0 {
		return nil
	}
	var out []Bridge
	for s := 1; s <= Stones; s++ {
		if !t.usable(player, s) {
			continue
		}
		for _, j := range t.stones[s-1].At.Neighbours() {
			if !t.free(j) {
				continue
			}
			for _, a := range j.Neighbours() {
				if !t.free(a) {
					continue
				}
				for _, b := range a.Neighbours() {
					if fs, ok := t.fit(a, b, c); ok && b != j && t.free(b) {
						out = append(out, Bridge{Stone: s, Joker: j, Lay: Lay{Player: player, Card: card, Fields: fs, Colours: c, Stone: s}})
					}
				}
			}
		}
	}
	return out
}
