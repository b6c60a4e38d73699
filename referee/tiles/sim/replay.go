package sim

import (
	"fmt"
	"reflect"

	"ligretto/referee/tiles"
)

// Replayer folds a timeline back into the full model, checking every
// action against the rules as it goes. It tells a renderer what lies on
// the table at any moment, and proves that a timeline is self-consistent.
type Replayer struct {
	m *tiles.Match
	r *tiles.Round
}

// Round returns the full model as of the last applied event, or nil
// before the first round.
func (p *Replayer) Round() *tiles.Round { return p.r }

// Apply folds one event. An action the rules refuse, or an outcome that
// differs from what the event says, is an error.
func (p *Replayer) Apply(e Event) error {
	if err := p.apply(e); err != nil {
		return fmt.Errorf("timeline at %d ms (%s): %w", e.TimeMS, e.Kind, err)
	}
	return nil
}

func (p *Replayer) apply(e Event) error {
	if e.Kind == EvMatch {
		var s tiles.Settings
		if e.Settings != nil {
			s = *e.Settings
		}
		m, err := tiles.NewMatch(e.Players, s)
		p.m = m
		return err
	}
	if p.m == nil {
		return fmt.Errorf("%w: no match began", tiles.ErrPhase)
	}
	switch e.Kind {
	case EvRound:
		if e.Layout == nil || len(e.Stones) != tiles.Stones {
			return fmt.Errorf("%w: a round without its layout or stones", tiles.ErrInvalid)
		}
		r, err := tiles.NewRound(*e.Layout, [tiles.Stones]tiles.Field(e.Stones), e.Seats, p.m.Settings().StrictOrientation)
		p.r = r
		return err
	case EvMatchEnd:
		if !reflect.DeepEqual(e.Totals, p.m.Totals()) {
			return fmt.Errorf("totals %v, replayed %v", e.Totals, p.m.Totals())
		}
		return nil
	}
	if p.r == nil {
		return fmt.Errorf("%w: no round was dealt", tiles.ErrPhase)
	}
	switch e.Kind {
	case EvRecycle:
		return nil // the next turn recycles
	case EvDiscard:
		if err := p.turn(e); err != nil {
			return err
		}
		return p.r.Discard(e.Player)
	case EvLay:
		return p.lay(e)
	case EvJoker:
		if len(e.Fields) != 1 {
			return fmt.Errorf("%w: a joker on %d fields", tiles.ErrInvalid, len(e.Fields))
		}
		if err := p.r.Joker(e.Player, e.Fields[0], e.Stone); err != nil {
			return err
		}
		return p.r.MoveStone(e.Stone, e.Fields[0])
	case EvStop:
		return p.r.Stop(e.Player)
	case EvNoPlay:
		return p.r.EndInDeadlock()
	case EvRoundEnd:
		got, err := p.r.Result(p.m)
		if err != nil {
			return err
		}
		if e.Result == nil || !reflect.DeepEqual(got, *e.Result) {
			return fmt.Errorf("replayed result %+v differs from the timeline's", got)
		}
		return p.m.Record(got)
	}
	return fmt.Errorf("%w: event kind %q", tiles.ErrInvalid, e.Kind)
}

// turn turns the player's card up unless one is up already (after a
// joker), and checks it is the event's.
func (p *Replayer) turn(e Event) error {
	c, ok := p.r.Up(e.Player)
	if !ok {
		var err error
		if c, _, err = p.r.Turn(e.Player); err != nil {
			return err
		}
	}
	if e.Card == nil || c != *e.Card {
		return fmt.Errorf("%s turned up %v, the timeline says %v", e.Player, c, e.Card)
	}
	return nil
}

// lay replays a card laid, a wrong one included, and its stone's move.
func (p *Replayer) lay(e Event) error {
	if len(e.Fields) != 2 {
		return fmt.Errorf("%w: a card on %d fields", tiles.ErrInvalid, len(e.Fields))
	}
	if err := p.turn(e); err != nil {
		return err
	}
	fs := [2]tiles.Field(e.Fields)
	if e.Violation == nil {
		if _, err := p.r.Lay(e.Player, fs, e.Stone); err != nil {
			return err
		}
		if e.StoneTo == nil {
			return fmt.Errorf("%w: a legal card without its stone's move", tiles.ErrInvalid)
		}
		return p.r.MoveStone(e.Stone, *e.StoneTo)
	}
	j, err := p.r.LayAnyway(e.Player, fs, e.Stone)
	if err != nil {
		return err
	}
	got := j.Violation
	if e.StoneTo != nil {
		mv, err := p.r.MoveStoneAnyway(e.Stone, *e.StoneTo)
		if err != nil {
			return err
		}
		if got == nil {
			got = mv
		}
	}
	if got == nil || got.Rule != e.Violation.Rule {
		return fmt.Errorf("the timeline's wrong play breaks %s, replayed %v", e.Violation.Rule, got)
	}
	return nil
}
