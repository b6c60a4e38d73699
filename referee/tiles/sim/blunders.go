package sim

import (
	"fmt"

	"ligretto/referee/tiles"
)

// blunders are the wrong plays a bot makes on purpose, each breaking
// exactly one rule so that the referee must name that one.
var blunders = []tiles.Rule{tiles.T2a, tiles.T2b, tiles.T2c, tiles.T2d, tiles.T3a}

// blunder tries the wrong plays in a random order and makes the first
// that the table allows. It reports whether one was made.
func (t *turns) blunder(i int, c tiles.Card) (bool, error) {
	order := t.rng.Perm(len(blunders))
	for _, k := range order {
		rule := blunders[k]
		l, ok := t.findBlunder(rule, t.bots[i].name, c)
		if !ok {
			continue
		}
		return true, t.makeBlunder(i, c, l, rule)
	}
	return false, nil
}

// findBlunder finds a place for c that breaks rule and no rule before it.
func (t *turns) findBlunder(rule tiles.Rule, name string, c tiles.Card) (tiles.Lay, bool) {
	tb := t.table()
	want := func(l tiles.Lay, r tiles.Rule) bool {
		j, err := tb.CheckLay(l)
		return err == nil && j.Violation != nil && j.Violation.Rule == r
	}
	lay := func(s int, a, b tiles.Field) tiles.Lay {
		return tiles.Lay{Player: name, Card: c.ID, Fields: [2]tiles.Field{a, b}, Colours: c.Colours, Stone: s}
	}
	stones := tb.Stones()
	start := t.rng.IntN(tiles.Stones)
	for k := range tiles.Stones {
		s := (start+k)%tiles.Stones + 1
		at := stones[s-1].At
		switch rule {
		case tiles.T3a: // a fitting card, and the stone onto its nearer colour
			if ls := tb.Lays(name, c.ID, c.Colours); len(ls) > 0 {
				l := ls[t.rng.IntN(len(ls))]
				if j, err := tb.CheckLay(l); err == nil && !j.Relocates {
					return l, true
				}
			}
			return tiles.Lay{}, false
		case tiles.T2b: // a fitting place away from every stone
			return t.awayFromStones(name, c)
		case tiles.T2a, tiles.T2c: // beside the stone, on fields of other colours or over a card
			if !tb.Usable(name, s) {
				continue
			}
			for _, a := range at.Neighbours() {
				for _, b := range a.Neighbours() {
					if b == at || tb.Board().Colour(a) == 0 || tb.Board().Colour(b) == 0 || stoneOn(stones, a) || stoneOn(stones, b) {
						continue // a card over a stone could not lie flat
					}
					if l := lay(s, a, b); want(l, rule) {
						return l, true
					}
				}
			}
		case tiles.T2d: // meeting the stone's field at a corner alone
			for _, d := range []tiles.Field{{X: at.X - 1, Y: at.Y - 1}, {X: at.X + 1, Y: at.Y - 1}, {X: at.X - 1, Y: at.Y + 1}, {X: at.X + 1, Y: at.Y + 1}} {
				for _, b := range d.Neighbours() {
					if l := lay(s, d, b); tb.Board().On(d) && tb.Board().On(b) && want(l, rule) {
						return l, true
					}
				}
			}
		}
	}
	return tiles.Lay{}, false
}

// awayFromStones samples free places where c fits, touching no stone.
func (t *turns) awayFromStones(name string, c tiles.Card) (tiles.Lay, bool) {
	tb := t.table()
	w, h := tb.Board().Size()
	for range 40 {
		a := tiles.Field{X: t.rng.IntN(w), Y: t.rng.IntN(h)}
		b := a.Neighbours()[t.rng.IntN(4)]
		if tb.Board().Colour(b) == 0 {
			continue
		}
		fs := [2]tiles.Field{a, b}
		if tb.Board().Colour(a) != c.Colours[0] {
			fs = [2]tiles.Field{b, a}
		}
		l := tiles.Lay{Player: name, Card: c.ID, Fields: fs, Colours: c.Colours}
		if j, err := tb.CheckLay(l); err == nil && j.Violation != nil && j.Violation.Rule == tiles.T2b {
			return l, true
		}
	}
	return tiles.Lay{}, false
}

// makeBlunder lays the card anyway, moves the stone as a hurried player
// would, and marks the play with its rule.
func (t *turns) makeBlunder(i int, c tiles.Card, l tiles.Lay, rule tiles.Rule) error {
	b := t.bots[i]
	j, err := t.r.LayAnyway(b.name, l.Fields, l.Stone)
	if err != nil {
		return err
	}
	v := j.Violation
	var to *tiles.Field
	if j.Stone > 0 {
		dest := j.StoneTo
		if rule == tiles.T3a {
			dest = l.Fields[0]
			if dest == j.StoneTo {
				dest = l.Fields[1]
			}
		}
		mv, err := t.r.MoveStoneAnyway(j.Stone, dest)
		if err != nil {
			return err
		}
		to = &dest
		if v == nil {
			v = mv
		} else if mv != nil {
			return fmt.Errorf("a wrong card (%v) and a wrong stone move (%v) at once", v, mv)
		}
	}
	if v == nil || v.Rule != rule {
		return fmt.Errorf("a wrong play meant to break %s was judged %v", rule, v)
	}
	t.injected = append(t.injected, Injected{Round: t.round, TimeMS: t.clock, Player: b.name, Rule: rule, Fields: l.Fields[:]})
	return t.laid(i, Event{Kind: EvLay, Round: t.round, Player: b.name, Card: &c, Fields: l.Fields[:], Stone: j.Stone, StoneTo: to, Violation: v})
}

func stoneOn(stones [tiles.Stones]tiles.StoneView, f tiles.Field) bool {
	for _, s := range stones {
		if s.At == f {
			return true
		}
	}
	return false
}
