package tiles

import (
	"fmt"
	"slices"
)

// CheckStone judges stone (1..4) moved onto to: onto the farther field of
// the card just laid at it (T3a), either field of a relocating card
// (T3b), or the joker just laid (T4c). It returns the player who moved it.
func (t *Table) CheckStone(stone int, to Field) (string, *Violation, error) {
	if stone < 1 || stone > Stones {
		return "", nil, fmt.Errorf("%w: stone %d (want 1..4)", ErrInvalid, stone)
	}
	if !t.board.On(to) {
		return "", nil, fmt.Errorf("%w: stone %d moved off the board to %v", ErrInvalid, stone, to)
	}
	p := t.pending[stone-1]
	if p == nil {
		if k := t.relocatedBy(stone, to); k > 0 {
			return t.pending[k-1].player, nil, nil
		}
		if k := t.takenFrom(stone, to); k > 0 {
			return t.pending[k-1].player, nil, nil
		}
		if r := t.turned(stone, to); r != nil {
			return r.player, nil, nil
		}
	}
	switch {
	case p == nil:
		return "", violation(T3a, "stone %d moved to %v with no card laid at it", stone, to), nil
	case p.joker && to != p.to:
		return p.player, violation(T4c, "stone %d goes onto %s's joker at %v, not to %v", stone, p.player, p.to, to), nil
	case p.relocates && !slices.Contains(p.fields, to):
		return p.player, violation(T3b, "blocked stone %d goes onto %s's new card, not to %v", stone, p.player, to), nil
	case !p.relocates && !p.joker && to != p.to:
		return p.player, violation(T3a, "stone %d goes onto the farther colour at %v, not to %v", stone, p.to, to), nil
	}
	return p.player, nil, nil
}

// Awaited reports whether a card was laid at stone (1..4) and the stone
// has not moved onto it yet.
func (t *Table) Awaited(stone int) bool {
	return stone >= 1 && stone <= Stones && t.pending[stone-1] != nil
}

// ApplyStone moves the stone and settles the duties on it.
func (t *Table) ApplyStone(stone int, to Field, player string, v *Violation) {
	s := &t.stones[stone-1]
	p := t.pending[stone-1]
	if k := t.relocatedBy(stone, to); p == nil && k > 0 {
		// The card was taken for one laid at stone k; it relocated this one.
		p, t.pending[k-1] = t.pending[k-1], nil
		p.relocates = true
	} else if k := t.takenFrom(stone, to); k > 0 {
		p, t.pending[k-1] = t.pending[k-1], nil // laid at this one
	}
	t.pending[stone-1] = nil
	switch {
	case p != nil && p.relocates && slices.Contains(p.fields, to):
		t.relocatedOnto[stone-1] = p
	case p != nil || t.turned(stone, to) == nil:
		t.relocatedOnto[stone-1] = nil
	}
	if v != nil && player != "" {
		t.faults[player] = append(t.faults[player], *v)
	}
	s.Owed = "" // block judges the new place afresh
	s.At = to
	s.Reserved = ""
	if p != nil && p.joker {
		s.Reserved = p.player
	}
	t.block(player)
}

// turned returns the relocating card stone stands on if to is its other
// field (T3b: either field takes the stone; a camera may see it on one,
// then the other).
func (t *Table) turned(stone int, to Field) *pending {
	r := t.relocatedOnto[stone-1]
	if r == nil || t.pending[stone-1] != nil || to == t.stones[stone-1].At || !slices.Contains(r.fields, to) {
		return nil
	}
	return r
}

// relocatedBy finds the stone k whose pending card was in truth laid to
// relocate blocked stone: a card laid without naming its stone, beside
// stone k, by the player who owes this one, which now moves onto it. A
// camera that cannot tell which stone a card is for learns it here.
func (t *Table) relocatedBy(stone int, to Field) int {
	owed := t.stones[stone-1].Owed
	if owed == "" {
		return 0
	}
	for k, p := range t.pending {
		if p != nil && p.player == owed && !p.joker && !p.relocates && slices.Contains(p.fields, to) {
			return k + 1
		}
	}
	return 0
}

// takenFrom finds the stone k that awaits the card stone (1..4), which
// awaits none, moves onto by the rules: a legal card that named no
// stone, given to stone k as one beside it (by rank, or as the only one
// the camera had seen there yet), that stone stands beside too; or a
// wrong one meeting stone k's field at a corner alone (T2d) that meets
// this stone's so too (the call stands); either onto its field farther
// from this stone (T3a). The stone that moves onto the card says which
// one it was laid at. Not a card at stone k standing on its player's
// joker: that card was due there (T4b); nor when a relocation explains
// the move (relocatedBy).
func (t *Table) takenFrom(stone int, to Field) int {
	s := t.stones[stone-1]
	if t.pending[stone-1] != nil || t.relocatedBy(stone, to) > 0 {
		return 0
	}
	for k, p := range t.pending {
		if p == nil || k == stone-1 || p.named || p.joker || p.relocates || len(p.fields) != 2 ||
			s.Reserved != "" && s.Reserved != p.player || t.stones[k].Reserved == p.player {
			continue
		}
		fs := [2]Field(p.fields)
		far, near := farther(fs, s.At)
		if far != to {
			continue
		}
		if !p.wrong && s.At.Adjacent(near) || p.wrong && t.atCornerOf(k+1, fs) && t.atCornerOf(stone, fs) {
			return k + 1
		}
	}
	return 0
}

// atCornerOf reports whether a card on fs meets stone's field at a
// corner alone (T2d).
func (t *Table) atCornerOf(stone int, fs [2]Field) bool {
	at := t.stones[stone-1].At
	return !at.Adjacent(fs[0]) && !at.Adjacent(fs[1]) && (at.Diagonal(fs[0]) || at.Diagonal(fs[1]))
}

// block gives every newly blocked stone to player, who blocked it (T3b:
// their own dead end; T3c: someone else's stone). Stones still waiting to
// move are judged once they have moved.
func (t *Table) block(player string) {
	if player == "" {
		return
	}
	for i := range t.stones {
		if t.pending[i] == nil && t.stones[i].Owed == "" && t.Blocked(i+1) {
			t.stones[i].Owed = player
		}
	}
}

// Blocked reports whether no card can be laid at stone (1..4): no free
// field next to it with a free neighbour of another colour (every card
// shows two colours).
func (t *Table) Blocked(stone int) bool {
	at := t.stones[stone-1].At
	for _, a := range at.Neighbours() {
		if !t.free(a) {
			continue
		}
		for _, b := range a.Neighbours() {
			if t.free(b) && t.board.Colour(a) != t.board.Colour(b) {
				return false
			}
		}
	}
	return true
}
