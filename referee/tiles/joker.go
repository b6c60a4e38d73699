package tiles

import "fmt"

// CheckJoker judges a joker laid on f at stone (1..4) by player (T4c, T4a, T4b).
func (t *Table) CheckJoker(player string, f Field, stone int) (*Violation, error) {
	switch {
	case player == "":
		return nil, fmt.Errorf("%w: a joker without a player", ErrInvalid)
	case !t.board.On(f):
		return nil, fmt.Errorf("%w: a joker at %v lies off the board", ErrInvalid, f)
	case stone < 1 || stone > Stones:
		return nil, fmt.Errorf("%w: a joker at stone %d (want 1..4)", ErrInvalid, stone)
	case t.jokers[player] >= JokersPerPlayer:
		return violation(T1, "%s has only %d jokers", player, JokersPerPlayer), nil
	case !t.free(f):
		return violation(T4c, "%s's joker on %v covers a card, joker or stone", player, f), nil
	case !t.stones[stone-1].At.Adjacent(f):
		return violation(T4c, "%s's joker on %v is not next to stone %d at %v", player, f, stone, t.stones[stone-1].At), nil
	}
	return t.checkJoker(player, stone, false, "joker"), nil
}

// ApplyJoker lays the joker and reserves its stone for player (T4a).
func (t *Table) ApplyJoker(player string, f Field, stone int, v *Violation) {
	t.seq++
	t.pieces[t.board.index(f)] = Piece{Kind: PieceJoker, Owner: player, Seq: t.seq}
	t.jokers[player]++
	if v != nil {
		t.faults[player] = append(t.faults[player], *v)
		t.block(player)
		return
	}
	t.pending[stone-1] = &pending{player: player, fields: []Field{f}, to: f, joker: true}
	t.joker[player] = stone
	t.block(player)
}

// checkJoker applies T4a and T4b to a card or joker laid at stone by player.
func (t *Table) checkJoker(player string, stone int, relocates bool, what string) *Violation {
	if stone > 0 && !relocates {
		if r := t.stones[stone-1].Reserved; r != "" && r != player {
			return violation(T4a, "%s laid a %s at stone %d, on %s's joker: only %s may", player, what, stone, r, r)
		}
	}
	if own := t.joker[player]; own > 0 && (own != stone || relocates) {
		return violation(T4b, "%s laid a %s elsewhere before laying a card on their joker at stone %d", player, what, own)
	}
	return nil
}
