package sim

import (
	"fmt"
	"reflect"

	"ligretto/referee"
)

// Replayer folds a timeline back into the full model, checking every
// action against the rules as it goes. It tells a renderer what lies on
// the table at any moment, and proves that a timeline is self-consistent.
type Replayer struct {
	advanced bool
	round    *referee.Round
}

// Round returns the full model as of the last applied event, or nil before
// the first deal.
func (p *Replayer) Round() *referee.Round { return p.round }

// Apply folds one event. An action the rules refuse, or an outcome that
// differs from what the event says, is an error.
func (p *Replayer) Apply(e Event) error {
	if err := p.apply(e); err != nil {
		return fmt.Errorf("timeline at %d ms (%s): %w", e.TimeMS, e.Kind, err)
	}
	return nil
}

func (p *Replayer) apply(e Event) error {
	switch e.Kind {
	case EvMatch:
		if e.Settings != nil {
			p.advanced = e.Settings.Advanced
		}
		return nil
	case EvRound:
		r, err := referee.Restore(e.Seats, p.advanced)
		p.round = r
		return err
	case EvMatchEnd:
		return nil
	}
	if p.round == nil {
		return fmt.Errorf("%w: no round was dealt", referee.ErrPhase)
	}
	switch e.Kind {
	case EvPlay:
		return p.play(e)
	case EvRowLay:
		if e.From == nil {
			return fmt.Errorf("%w: row lay without source", referee.ErrInvalid)
		}
		_, err := p.round.LayOnRow(e.Player, *e.From, e.ToRow-1)
		return err
	case EvCountOff:
		c, err := p.round.CountOff(e.Player)
		if err == nil && e.Card != nil && c != *e.Card {
			err = fmt.Errorf("counted off to %v, timeline says %v", c, *e.Card)
		}
		return err
	case EvRecycle:
		if err := p.round.Recycle(e.Player); err != nil || e.Hand == nil {
			return err
		}
		return p.round.SetHand(e.Player, e.Hand)
	case EvStop:
		return p.round.Stop(e.Player)
	case EvRestart:
		for _, name := range p.round.Players() {
			if err := p.round.SetHand(name, e.Hands[name]); err != nil {
				return err
			}
		}
		return nil
	case EvDeadlock:
		return p.round.EndInDeadlock()
	case EvRoundEnd:
		got := p.round.Result()
		if e.Result == nil || !reflect.DeepEqual(got, *e.Result) {
			return fmt.Errorf("replayed result %+v differs from the timeline's", got)
		}
		return nil
	}
	return fmt.Errorf("%w: event kind %q", referee.ErrInvalid, e.Kind)
}

// play replays a card laid on a centre pile, a foul included, and checks
// that it lands as the timeline says.
func (p *Replayer) play(e Event) error {
	if e.Card == nil || e.From == nil {
		return fmt.Errorf("%w: play without card or source", referee.ErrInvalid)
	}
	pile := e.Pile
	if e.NewPile {
		pile = referee.NewPile
	}
	var o referee.Outcome
	var err error
	if e.Violation != nil {
		o, err = p.round.PlayAnyway(e.Player, *e.From, pile)
		if err == nil && (o.Violation == nil || o.Violation.Rule != e.Violation.Rule) {
			err = fmt.Errorf("logged violation %v, replayed %v", e.Violation, o.Violation)
		}
	} else {
		o, err = p.round.Play(e.Player, *e.From, pile)
	}
	if err != nil {
		return err
	}
	if o.Card != *e.Card || o.Pile != e.Pile || !reflect.DeepEqual(o.Refill, e.Refill) {
		return fmt.Errorf("replayed %v onto pile %d, timeline says %v onto pile %d", o.Card, o.Pile, *e.Card, e.Pile)
	}
	return nil
}
