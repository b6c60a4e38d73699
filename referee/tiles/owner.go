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
	seq, err := g.table.unowned(fs)
	if err != nil {
		return Verdict{}, nil, err
	}
	v := Verdict{Status: StatusInfo, Player: o.Player, Reason: fmt.Sprintf("the card at %v-%v, laid for nobody, is %s's", fs[0], fs[1], o.Player)}
	return v, func() {
		g.table.own(fs, seq, o.Player)
		for _, f := range fs {
			if s := g.strays[f]; s != nil && s.lay.Player == "" {
				s.lay.Player = o.Player // so a reclaim withdraws the call from its owner's faults
			}
		}
	}, nil
}

// unowned finds the card laid for nobody on fs (one half may lie under
// a later card), by its Seq.
func (t *Table) unowned(fs [2]Field) (int, error) {
	seq := 0
	for _, f := range fs {
		p, ok := t.Piece(f)
		if !ok || p.Kind != PieceCard || p.Owner != "" {
			continue
		}
		if seq != 0 && p.Seq != seq {
			seq = -1
		} else {
			seq = p.Seq
		}
	}
	if seq <= 0 {
		return 0, fmt.Errorf("%w: no card laid for nobody on %v-%v", ErrInvalid, fs[0], fs[1])
	}
	return seq, nil
}

// own makes the unowned card seq on fs player's: it counts for them, and
// its fault, if it was called wrong, is theirs.
func (t *Table) own(fs [2]Field, seq int, player string) {
	for _, f := range fs {
		if p := &t.pieces[t.board.index(f)]; p.Seq == seq {
			p.Owner = player
		}
	}
	t.laid[player]++
	if v, ok := t.unownedFaults[seq]; ok {
		t.faults[player] = append(t.faults[player], v)
		delete(t.unownedFaults, seq)
	}
}
