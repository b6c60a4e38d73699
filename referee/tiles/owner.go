package tiles

import "fmt"

// decideOwner gives the card on o.Fields, laid for nobody (its frame not
// read), to o.Player: read later, or inferred from the counts. It counts
// for them from now on.
func (g *game) decideOwner(o Observation) (Verdict, func(), error) {
	if late, err := g.playing(o); late != nil || err != nil {
		return deref(late), func() {}, err
	}
	if o.Player == "" || len(o.Fields) != 2 {
		return Verdict{}, nil, fmt.Errorf("%w: an owner names a player and the card's 2 fields", ErrInvalid)
	}
	fs := [2]Field(o.Fields)
	if err := g.table.unowned(fs); err != nil {
		return Verdict{}, nil, err
	}
	v := Verdict{Status: StatusInfo, Player: o.Player, Reason: fmt.Sprintf("the card at %v-%v, laid for nobody, is %s's", fs[0], fs[1], o.Player)}
	return v, func() { g.table.own(fs, o.Player) }, nil
}

// unowned checks that one card laid for nobody covers fs.
func (t *Table) unowned(fs [2]Field) error {
	a, okA := t.Piece(fs[0])
	b, okB := t.Piece(fs[1])
	if !okA || !okB || a.Kind != PieceCard || a.Seq != b.Seq || a.Owner != "" {
		return fmt.Errorf("%w: no card laid for nobody on %v-%v", ErrInvalid, fs[0], fs[1])
	}
	return nil
}

// own makes the unowned card on fs player's, and counts it.
func (t *Table) own(fs [2]Field, player string) {
	for _, f := range fs {
		t.pieces[t.board.index(f)].Owner = player
	}
	t.laid[player]++
}
