package sim

import (
	"ligretto/referee"
)

// turns runs one round's bots against the full model.
type turns struct {
	*sim
	r       *referee.Round
	round   int
	next    []int64 // when each bot acts next
	stopAt  int64   // when the stop will be called; -1 while nobody's stack is empty
	stopper string

	version   int // changes whenever what can be played might have changed
	stuckAt   int // the version at which Stuck was last found false
	fruitless int // restarts since the last play

	playedThisPass map[string]bool // whether a player played since turning the hand over
	landed         map[int]int64   // when each pile's top card landed
}

// seeMS is the least time from a card landing on a pile to the next card
// landing on it: a player sees the new top some 250 ms after it lands and
// needs some 350 ms more to put a card on it. (Without it bots raced a 2
// onto a 1 within a few frames, a 1 that neither they nor a camera could
// have seen.)
const seeMS = 600

// unseen drops the moves onto piles whose top landed too recently to have
// been seen, and says how long until the first of them is seen.
func (t *turns) unseen(moves []referee.Move) ([]referee.Move, int64) {
	kept := moves[:0:0]
	var wait int64
	for _, m := range moves {
		if at, ok := t.landed[m.Pile]; ok && m.Pile != referee.NewPile && t.clock-at < seeMS {
			if w := seeMS - (t.clock - at); wait == 0 || w < wait {
				wait = w
			}
			continue
		}
		kept = append(kept, m)
	}
	return kept, wait
}

// cutsHand: under the leader rule players cut their hand when a whole pass
// gave them nothing (C12), so a deadlock means every fitting card is hidden
// in a stack (rulebooks 000, 001). Under the restart rule they turn it over
// as it is, and the restart's shuffle is what unblocks them (rulebook 003).
func (t *turns) cutsHand() bool { return t.cfg.settings().Deadlock == referee.DeadlockLeader }

// act lets bot i look at the table and do one thing. It reports whether
// the round ended (deadlock).
func (t *turns) act(i int) (bool, error) {
	b := t.bots[i]
	moves := t.r.Moves(b.name)
	centre := moves[:0:0]
	var rowLays []referee.Move
	for _, m := range moves {
		if m.ToRow < 0 {
			centre = append(centre, m)
		} else if m.From.Kind == referee.FromStack {
			rowLays = append(rowLays, m) // digging the stack is worth it; hand lays are not
		}
	}
	wait := t.jitter(b.reactionMS)
	centre, notYet := t.unseen(centre)
	if len(centre) == 0 && notYet > 0 {
		t.next[i] = t.clock + notYet // a play is coming: look again once it is seen
		return false, nil
	}
	switch {
	case t.cfg.ErrorRate > 0 && t.rng.Float64() < t.cfg.ErrorRate && t.blunder(b.name):
	case len(centre) > 0 && t.rng.Float64() < b.attention:
		if err := t.play(b.name, best(centre)); err != nil {
			return false, err
		}
	case len(rowLays) > 0 && t.rng.Float64() < b.attention:
		m := rowLays[t.rng.IntN(len(rowLays))]
		o, err := t.r.LayOnRow(b.name, m.From, m.ToRow)
		if err != nil {
			return false, err
		}
		t.version++
		t.noteStack(b.name, o.StackLeft)
		if err := t.send(Event{Kind: EvRowLay, Round: t.round, Player: b.name, Card: &o.Card, From: &o.From, ToRow: o.RowIndex, StackLeft: o.StackLeft}); err != nil {
			return false, err
		}
	default:
		if len(centre) == 0 && len(rowLays) == 0 && t.stuck() {
			return t.deadlock()
		}
		if len(centre) > 0 {
			// An overlooked hand card gets covered, and may not come up
			// again in the next pass: what can be reached has changed.
			t.version++
		}
		if err := t.turnHand(b.name); err != nil {
			return false, err
		}
		wait /= 2 // counting off is quicker than a play
	}
	t.next[i] = t.clock + wait
	return false, nil
}

// best prefers the stack (emptying it wins the round), then the row, then the hand.
func best(ms []referee.Move) referee.Move {
	b := ms[0]
	for _, m := range ms[1:] {
		if m.From.Kind < b.From.Kind {
			b = m
		}
	}
	return b
}

func (t *turns) play(name string, m referee.Move) error {
	o, err := t.r.Play(name, m.From, m.Pile)
	if err != nil {
		return err
	}
	return t.played(o)
}

func (t *turns) played(o referee.Outcome) error {
	t.version++
	t.landed[o.Pile] = t.clock
	t.playedThisPass[o.Player] = true
	t.plays++
	t.fruitless = 0
	t.noteStack(o.Player, o.StackLeft)
	return t.send(Event{Kind: EvPlay, Round: t.round, Player: o.Player, Card: &o.Card, From: &o.From,
		Pile: o.Pile, NewPile: o.NewPile, Refill: o.Refill, Violation: o.Violation, StackLeft: o.StackLeft})
}

// noteStack schedules the stop call when a player's stack runs out (C13):
// they call it after a moment, and others may still play meanwhile.
func (t *turns) noteStack(name string, left int) {
	if left == 0 && t.stopAt < 0 {
		t.stopAt, t.stopper = t.clock+150+t.rng.Int64N(350), name
	}
}

// blunder makes an illegal play that a camera can see: a wrong colour, a
// number that does not rise, a new pile without a 1, a card on a closed
// pile, on a top that landed at least seeMS before (as legal plays wait
// for). It reports false when no such play is open.
func (t *turns) blunder(name string) bool {
	seat, _ := t.r.Seat(name)
	var srcs []referee.Source
	if len(seat.Stack) > 0 {
		srcs = append(srcs, referee.Source{Kind: referee.FromStack})
	}
	for i, slot := range seat.Row {
		if len(slot) > 0 {
			srcs = append(srcs, referee.Source{Kind: referee.FromRow, Index: i})
		}
	}
	if len(seat.Counted) > 0 {
		srcs = append(srcs, referee.Source{Kind: referee.FromHand})
	}
	if len(srcs) == 0 {
		return false
	}
	src := srcs[t.rng.IntN(len(srcs))]
	card, _ := top(seat, src)
	var targets []int
	if card.Number != 1 {
		targets = append(targets, referee.NewPile)
	}
	for _, p := range t.r.Piles() {
		if at, ok := t.landed[p.ID]; ok && t.clock-at < seeMS {
			// A blunder misjudges a top the player saw, like any play:
			// one raced onto a card landed a moment ago is a play that
			// neither they nor a camera could have seen it land on.
			continue
		}
		top := p.Top().Face
		v := referee.CheckPlace(top, card.Face)
		skip := v != nil && v.Rule == referee.C7 && top.Colour == card.Colour && card.Number > top.Number+1 && top.Number < 10
		same := top == card.Face
		if v != nil && !skip && !same { // a skipped number looks like fast legal play, a twin like no change: not visible
			targets = append(targets, p.ID)
		}
	}
	if len(targets) == 0 {
		return false
	}
	o, err := t.r.PlayAnyway(name, src, targets[t.rng.IntN(len(targets))])
	if err != nil || o.Violation == nil {
		return false
	}
	t.injected = append(t.injected, Injected{Round: t.round, TimeMS: t.clock, Player: name, Card: o.Card.Face, Pile: o.Pile, Rule: o.Violation.Rule})
	return t.played(o) == nil
}

func top(s referee.Seat, src referee.Source) (referee.Card, bool) {
	var from []referee.Card
	switch src.Kind {
	case referee.FromStack:
		from = s.Stack
	case referee.FromHand:
		from = s.Counted
	default:
		from = s.Row[src.Index]
	}
	if len(from) == 0 {
		return referee.Card{}, false
	}
	return from[len(from)-1], true
}

// turnHand counts off three hand cards, or recycles a used-up hand (C10, C12).
func (t *turns) turnHand(name string) error {
	seat, _ := t.r.Seat(name)
	switch {
	case len(seat.Hand) > 0:
		c, err := t.r.CountOff(name)
		if err != nil {
			return err
		}
		return t.send(Event{Kind: EvCountOff, Round: t.round, Player: name, Card: &c})
	case len(seat.Counted) > 0:
		if err := t.r.Recycle(name); err != nil {
			return err
		}
		var cut []referee.Card
		if t.cutsHand() && !t.playedThisPass[name] {
			// Nothing came up all pass: cut the hand so that other cards do (C12).
			h, err := t.r.Shuffle(name, t.rng)
			if err != nil {
				return err
			}
			cut = h
		}
		t.playedThisPass[name] = false
		return t.send(Event{Kind: EvRecycle, Round: t.round, Player: name, Hand: cut})
	}
	return nil // no hand at all: nothing to turn
}

// stuck asks the full model whether anyone can still play (C17); the answer
// only changes when the table does, so it is asked once per table version.
func (t *turns) stuck() bool {
	if t.stuckAt == t.version+1 {
		return false
	}
	reach := referee.ReachPasses
	if t.cutsHand() {
		reach = referee.ReachWholeHand
	}
	if t.r.Stuck(reach) {
		return true
	}
	t.stuckAt = t.version + 1
	return false
}

// deadlock applies the match's deadlock rule (C17).
func (t *turns) deadlock() (bool, error) {
	if t.cfg.settings().Deadlock == referee.DeadlockRestart && t.fruitless < t.cfg.MaxRestarts {
		t.fruitless++
		t.restarts++
		hands := make(map[string][]referee.Card, len(t.names))
		for _, name := range t.names {
			h, err := t.r.Shuffle(name, t.rng)
			if err != nil {
				return false, err
			}
			hands[name] = h
		}
		t.version++ // the hands changed
		resume := t.clock + 3000
		for i, b := range t.bots {
			t.next[i] = resume + t.jitter(b.reactionMS)
		}
		return false, t.send(Event{Kind: EvRestart, Round: t.round, Hands: hands})
	}
	if err := t.r.EndInDeadlock(); err != nil {
		return false, err
	}
	return true, t.send(Event{Kind: EvDeadlock, Round: t.round})
}
