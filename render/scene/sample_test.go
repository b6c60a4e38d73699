package scene

import (
	"fmt"
	"testing"

	"ligretto/referee"
	"ligretto/referee/sim"
)

// The preamble shows the empty table, then each player's back in turn,
// lying alone in their seat zone for a while.
func TestCalibrationPreamble(t *testing.T) {
	for _, n := range []int{4, 12} {
		evs := timeline(t, n, 7, 1)
		s := newScene(t, DefaultConfig(), n, 7, evs)
		if s.Start() != -preambleMS(n) {
			t.Fatalf("%d players: preamble starts at %d", n, s.Start())
		}
		img, truth := render(t, s, s.Start()+500)
		savePNG(t, fmt.Sprintf("p%d_empty.png", n), img)
		if len(truth) != 0 {
			t.Errorf("%d players: the empty table has truth %+v", n, truth)
		}
		geo := s.Geometry()
		for i, p := range referee.DefaultPlayers(n) {
			base := s.Start() + calEmpty + int64(i)*calTurn
			img, truth := render(t, s, base+1000) // lying alone
			if i == 1 {
				savePNG(t, fmt.Sprintf("p%d_calib.png", n), img)
			}
			if len(truth) != 1 || truth[0].Role != RoleCalibration || truth[0].Back != p.Back || truth[0].Card.Owner != p.Name || truth[0].Hand || truth[0].Occluded != 0 {
				t.Fatalf("%d players, %s's turn: truth %+v", n, p.Name, truth)
			}
			for _, c := range truth[0].Table {
				if !geo.Seats[i].Zone.Contains(c) {
					t.Errorf("%s's back at %v, outside the seat zone %v", p.Name, truth[0].Table, geo.Seats[i].Zone)
					break
				}
			}
			img, truth = render(t, s, base+200) // brought in by hand
			if i == 0 {
				savePNG(t, fmt.Sprintf("p%d_calib_in.png", n), img)
			}
			if len(truth) != 1 || !truth[0].Hand {
				t.Errorf("%s's back coming in: truth %+v, want it in a hand", p.Name, truth)
			}
		}
	}
}

// After the stop the count shows every player's centre cards face down in
// a group, and their stack left, as many as the round's result says.
func TestCountScene(t *testing.T) {
	for _, n := range []int{4, 12} {
		evs := timeline(t, n, 7, 2)
		s := newScene(t, DefaultConfig(), n, 7, evs)
		geo := s.Geometry()
		rounds := 0
		for _, e := range evs {
			if e.Kind != sim.EvRoundEnd {
				continue
			}
			rounds++
			img, truth := render(t, s, e.TimeMS+s.cfg.CountDelay+500)
			if rounds == 1 {
				savePNG(t, fmt.Sprintf("p%d_count.png", n), img)
			}
			centre, stack := map[string]int{}, map[string]int{}
			for _, ct := range truth {
				switch ct.Role {
				case RoleCentreBack:
					centre[ct.Card.Owner]++
					if !geo.Centre.Contains(ct.Table.Centre()) {
						t.Errorf("a centre back of %s lies outside the centre area", ct.Card.Owner)
					}
				case RoleStackBack:
					stack[ct.Card.Owner]++
				default:
					t.Errorf("round %d count: a %v in the truth", e.Round, ct.Role)
				}
				if ct.Back != s.backOf(ct.Card.Owner) {
					t.Errorf("a card of %s shows back %s", ct.Card.Owner, ct.Back)
				}
			}
			for name, p := range e.Result.Players {
				if centre[name] != p.Centre || stack[name] != p.StackLeft {
					t.Errorf("%d players, round %d, %s: count shows %d centre and %d stack cards, result says %d and %d",
						n, e.Round, name, centre[name], stack[name], p.Centre, p.StackLeft)
				}
			}
			// Before the count delay the piles still lie as played.
			_, truth = render(t, s, e.TimeMS+s.cfg.CountDelay/2)
			for _, ct := range truth {
				if ct.Role != RolePile {
					t.Errorf("round %d just after the stop: a %v in the truth", e.Round, ct.Role)
				}
			}
		}
		if rounds != 2 {
			t.Fatalf("%d rounds", rounds)
		}
	}
}

// Frames in the middle of a round, for looking at (with -png DIR): they
// show piles and hands, and a placement shows the hand over the pile.
func TestMidRoundFrames(t *testing.T) {
	for _, n := range []int{4, 12} {
		evs := timeline(t, n, 7, 1)
		s := newScene(t, DefaultConfig(), n, 7, evs)
		var stop int64
		for _, e := range evs {
			if e.Kind == sim.EvStop || e.Kind == sim.EvDeadlock {
				stop = e.TimeMS
			}
		}
		img, truth := render(t, s, stop*2/3)
		savePNG(t, fmt.Sprintf("p%d_mid.png", n), img)
		if len(truth) < 3 {
			t.Errorf("%d players: %d piles two thirds into the round", n, len(truth))
		}
		for _, e := range evs {
			if e.Kind == sim.EvPlay && !e.NewPile && e.TimeMS > stop/2 {
				img, truth := render(t, s, e.TimeMS)
				savePNG(t, fmt.Sprintf("p%d_place.png", n), img)
				for _, ct := range truth {
					if ct.Pile == e.Pile && !ct.Hand {
						t.Errorf("%d players: pile %d at its placement: %+v", n, e.Pile, ct)
					}
				}
				break
			}
		}
	}
}
