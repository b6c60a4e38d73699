package tiles

import (
	"fmt"
	"slices"
)

// decideStayed judges stone o.Stone seen standing where it stood, in
// plain sight, long after the legal card on o.Fields was laid at it: it
// never moved onto that card from there. If the card fits before the
// stone's latest cards (the stone back where it stood before them, each
// taking it where it went), it was laid first and the stone went over it
// unseen: legal, as a card overtaken is. Else, seen within TogetherMS of
// the card that brought the stone beside it, it may have come first,
// when the stone was not there yet: if it is wrong where it lies on the
// table before that card (beside no stone, T2b, or at a stone's corner,
// T2d), that is the call; else its player left the stone where it stood
// (T3a). A move of the stone onto a card called, seen after all,
// withdraws the call (decideReclaim).
func (g *game) decideStayed(o Observation) (Verdict, func(), error) {
	if late, err := g.playing(o); late != nil || err != nil {
		return deref(late), func() {}, err
	}
	if o.Stone < 1 || o.Stone > Stones || len(o.Fields) != 2 {
		return Verdict{}, nil, fmt.Errorf("%w: a stone that stayed names the stone (1..4) and its card's 2 fields", ErrInvalid)
	}
	s := o.Stone
	p := g.table.pending[s-1]
	way := g.ways[s-1]
	n := len(way)
	if p == nil || p.joker || !sameFields([2]Field(p.fields), o.Fields) || n == 0 || way[n-1].moved || !sameFields(way[n-1].lay.Fields, o.Fields) {
		return Verdict{}, nil, fmt.Errorf("%w: stone %d awaits no legal card on %v", ErrInvalid, s, o.Fields)
	}
	b := way[n-1]
	l := b.lay
	p0, _ := g.table.Piece(l.Fields[0])
	if p1, _ := g.table.Piece(l.Fields[1]); p0.Seq != p1.Seq {
		return Verdict{}, nil, fmt.Errorf("%w: the card stone %d awaits on %v is covered since", ErrInvalid, s, o.Fields)
	}
	l.Player = p0.Owner // read since, perhaps
	at := g.table.stones[s-1].At
	x := violation(T3a, "stone %d stayed on %v long after %s's card at %v-%v was laid at it: it never moved onto it",
		s, at, owner(l.Player), l.Fields[0], l.Fields[1])
	if n >= 2 {
		if next, ok := g.wentOver(b.lay, s, way[:n-1]); ok {
			v := Verdict{Status: StatusOK, Rule: T3a, Player: l.Player, Stone: s,
				Reason: fmt.Sprintf("stone %d stayed on %v: %s's card at %v-%v was laid at it before %s's card at %v-%v, and it went over it unseen",
					s, at, owner(l.Player), l.Fields[0], l.Fields[1], owner(next.Player), next.Fields[0], next.Fields[1])}
			return v, func() {
				g.table.pending[s-1] = nil
				g.ways[s-1] = nil
				st := &stray{verdict: len(g.verdicts), lay: l, timeMS: o.TimeMS, late: true}
				g.strays[l.Fields[0]], g.strays[l.Fields[1]] = st, st
			}, nil
		}
		prev := way[n-2]
		if y := g.laidBeforeStep(b.lay, s, b.seen, prev); y != nil {
			x = violation(y.Rule, "%s, laid before %s's card at %v-%v brought stone %d beside it (seen with it; the stone stayed on %v)",
				y.Reason, owner(prev.lay.Player), prev.lay.Fields[0], prev.lay.Fields[1], s, at)
		}
	}
	v := Verdict{Status: StatusViolation, Rule: x.Rule, Player: l.Player, Stone: s, Reason: x.Reason}
	return v, func() {
		g.table.pending[s-1] = nil
		g.ways[s-1] = nil
		g.table.charge(l, *x)
		st := &stray{verdict: len(g.verdicts), lay: l, timeMS: o.TimeMS, fault: *x, stayed: true}
		g.strays[l.Fields[0]], g.strays[l.Fields[1]] = st, st
	}, nil
}

// wentOver finds the earliest of the cards of done, stone s's latest
// moved onto, that l, lying on the table now, fits before (fitsBefore),
// and returns it. However far apart they were seen: the stone never
// moved onto l after them, so it went over it before.
func (g *game) wentOver(l Lay, s int, done []step) (Lay, bool) {
	t := g.table.Clone()
	for _, f := range l.Fields {
		t.pieces[t.board.index(f)] = Piece{}
	}
	t.pending[s-1] = nil
	for i, st := range done {
		if st.moved && fitsBefore(t, l, s, done[i:]) {
			return st.lay, true
		}
	}
	return Lay{}, false
}

// laidBeforeStep returns what is wrong with l, seen at seen, laid at
// stone s before the card of step prev: the two were seen within
// TogetherMS, and on the table before prev's card l lies beside no stone
// (T2b) or at a corner of one (T2d). nil when it is not so.
func (g *game) laidBeforeStep(l Lay, s int, seen int64, prev step) *Violation {
	if !prev.moved || seen <= 0 || prev.seen <= 0 || max(seen-prev.seen, prev.seen-seen) > TogetherMS {
		return nil
	}
	t := g.table.Clone()
	for _, f := range append(prev.lay.Fields[:], l.Fields[:]...) {
		t.pieces[t.board.index(f)] = Piece{}
	}
	t.stones[s-1] = prev.at
	t.pending[s-1] = nil
	l.Stone = 0
	j, err := t.CheckLay(l)
	if err != nil || !wrongWhereItLies(j) {
		return nil
	}
	return j.Violation
}

// charge adds fault x to the player of card l, which lies on the board
// whole; a card laid for nobody keeps it until its owner is known (own).
func (t *Table) charge(l Lay, x Violation) {
	if l.Player != "" {
		t.faults[l.Player] = append(t.faults[l.Player], x)
		return
	}
	if p, ok := t.Piece(l.Fields[0]); ok {
		t.unownedFaults[p.Seq] = x
	}
}

// sameFields reports whether a card lies on fs (either way round).
func sameFields(a [2]Field, fs []Field) bool {
	return len(fs) == 2 && slices.Contains(fs, a[0]) && slices.Contains(fs, a[1]) && a[0] != a[1]
}
