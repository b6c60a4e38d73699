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

// unowned finds the card laid for nobody on fs, by its Seq: the one
// that shows nowhere else. One half may lie under a later card, laid for
// nobody too or not, which shows beyond fs.
func (t *Table) unowned(fs [2]Field) (int, error) {
	seq := 0
	for _, f := range fs {
		p, ok := t.Piece(f)
		if !ok || p.Kind != PieceCard || p.Owner != "" || p.Seq == seq || !t.showsWithin(p.Seq, fs) {
			continue
		}
		if seq != 0 {
			seq = -1 // two cards laid for nobody, each on fs alone: cannot be
			break
		}
		seq = p.Seq
	}
	if seq <= 0 {
		return 0, fmt.Errorf("%w: no card laid for nobody on %v-%v", ErrInvalid, fs[0], fs[1])
	}
	return seq, nil
}

// showsWithin reports whether the piece seq shows on no field but fs.
func (t *Table) showsWithin(seq int, fs [2]Field) bool {
	for i, p := range t.pieces {
		if f := (Field{X: i % t.board.w, Y: i / t.board.w}); p.Seq == seq && f != fs[0] && f != fs[1] {
			return false
		}
	}
	return true
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
