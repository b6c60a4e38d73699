package sim

import (
	"testing"

	"ligretto/referee"
)

// C6, C7: calls are paired with the illegal play just before them, so a
// false call cannot hide a missed play of the same rule.
func TestScoreCalls(t *testing.T) {
	inj := []Injected{
		{TimeMS: 1000, Rule: referee.C7},
		{TimeMS: 2000, Rule: referee.C7},
		{TimeMS: 5000, Rule: referee.C6},
	}
	for _, c := range []struct {
		name               string
		inj                []Injected
		calls              []Call
		right, wrong, fals int
	}{
		// Three C7 plays, the first called C6: pairing each C7 call with the
		// earliest play would leave the C6 call with none.
		{"the latest earlier play, not the earliest", []Injected{{TimeMS: 1000, Rule: referee.C7}, {TimeMS: 2000, Rule: referee.C7}, {TimeMS: 3000, Rule: referee.C7}},
			[]Call{{1300, referee.C6}, {2300, referee.C7}, {3300, referee.C7}}, 2, 1, 0},
		{"each called with its rule", inj, []Call{{1400, referee.C7}, {2600, referee.C7}, {5500, referee.C6}}, 3, 0, 0},
		{"another rule", inj, []Call{{5300, referee.C7}}, 1, 0, 0},
		{"a C6 for a C7", inj, []Call{{1200, referee.C6}}, 0, 1, 0},
		{"a call long before any play is false", inj, []Call{{100, referee.C7}}, 0, 0, 1},
		{"a call long after is false", inj, []Call{{20000, referee.C6}}, 0, 0, 1},
		{"a false C7 does not make up for a missed one", inj, []Call{{1500, referee.C7}, {1600, referee.C7}, {1700, referee.C7}}, 2, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := ScoreCalls(c.inj, c.calls)
			if s.Right != c.right || s.Wrong != c.wrong || len(s.False) != c.fals {
				t.Fatalf("right %d wrong %d false %v; want %d %d %d", s.Right, s.Wrong, s.False, c.right, c.wrong, c.fals)
			}
		})
	}
}
