package sim

import (
	"ligretto/referee/tiles"
)

// turns runs one round's bots against the full model.
type turns struct {
	*sim
	r      *tiles.Round
	round  int
	next   []int64 // when each bot acts next
	misses []int   // cards each bot turned without laying since the board last changed

	version   int // counts board changes
	checkedAt int // the version at which a deadlock was last ruled out; -1 for none
}

func (t *turns) table() *tiles.Table { return t.r.Table() }

// changed notes that the board changed: every bot looks afresh.
func (t *turns) changed() {
	t.version++
	clear(t.misses)
}

// act lets bot i take its card up (or turn the next) and do one thing
// with it: lay it, bridge to it with a joker, or discard it.
func (t *turns) act(i int) error {
	b := t.bots[i]
	c, held := t.r.Up(b.name)
	if !held {
		var recycled bool
		var err error
		if c, recycled, err = t.r.Turn(b.name); err != nil {
			return err
		}
		if recycled {
			if err := t.send(Event{Kind: EvRecycle, Round: t.round, Player: b.name}); err != nil {
				return err
			}
		}
	}
	if t.cfg.ErrorRate > 0 && t.rng.Float64() < t.cfg.ErrorRate {
		if done, err := t.blunder(i, c); done || err != nil {
			return err
		}
	}
	tb := t.table()
	if lays := tb.Lays(b.name, c.ID, c.Colours); len(lays) > 0 && t.rng.Float64() < b.attention {
		return t.lay(i, c, t.choose(lays))
	}
	// Jokers are scarce: a bot bridges only after a whole pass through its
	// cards found no place ("möglichst sparsam").
	if t.misses[i] >= t.r.Left(b.name) && t.rng.Float64() < b.attention {
		if br := tb.Bridges(b.name, c.ID, c.Colours); len(br) > 0 {
			return t.bridge(i, br[t.rng.IntN(len(br))])
		}
	}
	if err := t.r.Discard(b.name); err != nil {
		return err
	}
	t.misses[i]++
	t.next[i] = t.clock + 400 + t.jitter(0.6*b.judgeMS) // turn the next card and take it in
	if err := t.send(Event{Kind: EvDiscard, Round: t.round, Player: b.name, Card: &c}); err != nil {
		return err
	}
	return t.deadlock()
}

// choose picks a place, relocating an owed stone first (T3b: the next
// card goes to a free place).
func (t *turns) choose(lays []tiles.Lay) tiles.Lay {
	var reloc []tiles.Lay
	for _, l := range lays {
		if j, err := t.table().CheckLay(l); err == nil && j.Relocates {
			reloc = append(reloc, l)
		}
	}
	if len(reloc) > 0 {
		return reloc[t.rng.IntN(len(reloc))]
	}
	return lays[t.rng.IntN(len(lays))]
}

// lay lays bot i's card at l, legally, and moves the stone (T3).
func (t *turns) lay(i int, c tiles.Card, l tiles.Lay) error {
	b := t.bots[i]
	j, err := t.r.Lay(b.name, l.Fields, l.Stone)
	if err != nil {
		return err
	}
	to := j.StoneTo
	if j.Relocates {
		to = l.Fields[t.rng.IntN(2)] // either field will do
	}
	if err := t.r.MoveStone(j.Stone, to); err != nil {
		return err
	}
	return t.laid(i, Event{Kind: EvLay, Round: t.round, Player: b.name, Card: &c, Fields: l.Fields[:], Stone: j.Stone, StoneTo: &to})
}

// laid records a card on the board and calls the stop after the last one.
func (t *turns) laid(i int, e Event) error {
	b := t.bots[i]
	t.lays++
	t.changed()
	t.next[i] = t.clock + t.jitter(0.5*b.layMS) + t.jitter(b.judgeMS)
	if err := t.send(e); err != nil {
		return err
	}
	if t.r.Left(b.name) > 0 {
		return nil
	}
	if err := t.r.Stop(b.name); err != nil {
		return err
	}
	t.clock += 300
	return t.send(Event{Kind: EvStop, Round: t.round, Player: b.name})
}

// bridge lays a joker and moves the stone onto it; the card follows on
// the bot's next act, unless someone has taken its place by then (T4b:
// it must still go at that stone, so the bot looks again).
func (t *turns) bridge(i int, br tiles.Bridge) error {
	b := t.bots[i]
	if err := t.r.Joker(b.name, br.Joker, br.Stone); err != nil {
		return err
	}
	if err := t.r.MoveStone(br.Stone, br.Joker); err != nil {
		return err
	}
	t.jokers++
	t.changed()
	t.next[i] = t.clock + t.jitter(0.7*b.layMS)
	return t.send(Event{Kind: EvJoker, Round: t.round, Player: b.name, Fields: []tiles.Field{br.Joker}, Stone: br.Stone})
}

// deadlock ends the round when every bot has been through all its cards
// since the board last changed and nobody can lay any (T6a). The exact
// check runs once per board.
func (t *turns) deadlock() error {
	if t.checkedAt == t.version+1 {
		return nil
	}
	for i, b := range t.bots {
		if t.misses[i] < t.r.Left(b.name) {
			return nil
		}
	}
	for _, b := range t.bots {
		if t.r.CanPlay(b.name) {
			t.checkedAt = t.version + 1
			return nil
		}
	}
	if err := t.r.EndInDeadlock(); err != nil {
		return err
	}
	return t.send(Event{Kind: EvNoPlay, Round: t.round})
}
