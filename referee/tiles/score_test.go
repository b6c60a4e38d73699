package tiles

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func points(r RoundResult) map[string]int {
	out := map[string]int{}
	for n, p := range r.Players {
		out[n] = p.Points
	}
	return out
}

// TestTiles_T5c_TheRulebooksExample: Rudi finishes, Lena and Fabian have
// 2 cards left, Alex 4: Rudi 2, Lena and Fabian 1, Alex 0 and 2 aside.
func TestTiles_T5c_TheRulebooksExample(t *testing.T) {
	names := []string{"Rudi", "Lena", "Fabian", "Alex"}
	res := Score(names, map[string]int{}, "Rudi", false, map[string]Tally{
		"Rudi": {Laid: 15}, "Lena": {Laid: 13, CardsLeft: 2}, "Fabian": {Laid: 13, CardsLeft: 2}, "Alex": {Laid: 11, CardsLeft: 4}})
	want := map[string]int{"Rudi": 2, "Lena": 1, "Fabian": 1, "Alex": 0}
	for n, p := range want {
		if got := res.Players[n].Points; got != p {
			t.Errorf("%s: %d points, want %d", n, got, p)
		}
	}
	if a := res.Players["Alex"]; a.Aside != 2 || a.Board != 2 {
		t.Errorf("Alex: %+v, want 2 cards aside", a)
	}
	if res.Players["Lena"].Aside != 0 || *res.StoppedBy != "Rudi" || len(res.Winners) != 1 {
		t.Errorf("result: %+v", res)
	}
}

func TestTiles_T5b_AWrongPlayerScoresNothingAndPutsNothingAside(t *testing.T) {
	names := []string{"A", "B", "C", "D"}
	res := Score(names, map[string]int{}, "A", false, map[string]Tally{
		"A": {Laid: 15}, "B": {CardsLeft: 1, Fault: true}, "C": {CardsLeft: 3}, "D": {CardsLeft: 5}})
	if got := points(res); got["B"] != 0 || got["C"] != 1 || got["D"] != 0 || got["A"] != 2 {
		t.Errorf("points %v: B laid wrongly, so C's 3 is the fewest", got)
	}
	if b := res.Players["B"]; b.Aside != 0 || !b.Fault {
		t.Errorf("B: %+v", b)
	}
	// A finisher who laid wrongly takes nothing either.
	res = Score(names, map[string]int{}, "A", false, map[string]Tally{
		"A": {Laid: 15, Fault: true}, "B": {CardsLeft: 1}, "C": {CardsLeft: 3}, "D": {CardsLeft: 5}})
	if got := points(res); got["A"] != 0 || got["B"] != 1 || len(res.Winners) != 0 {
		t.Errorf("points %v winners %v", got, res.Winners)
	}
}

func TestTiles_T5c_TiesForFewestAllScore(t *testing.T) {
	res := Score([]string{"A", "B", "C"}, map[string]int{}, "A", false, map[string]Tally{
		"A": {Laid: 15}, "B": {CardsLeft: 4}, "C": {CardsLeft: 4}})
	if got := points(res); got["B"] != 1 || got["C"] != 1 {
		t.Errorf("points %v", got)
	}
}

func TestTiles_T5d_TwoPlayersOnlyTheFinisherScores(t *testing.T) {
	res := Score([]string{"A", "B"}, map[string]int{}, "A", false, map[string]Tally{"A": {Laid: 15}, "B": {CardsLeft: 1}})
	if got := points(res); got["A"] != 2 || got["B"] != 0 || res.Players["B"].Aside != 2 {
		t.Errorf("points %v, B %+v", got, res.Players["B"])
	}
}

func TestTiles_T5e_EveryoneTakesTwoBackWhenAllBoardsHoldCards(t *testing.T) {
	names := []string{"A", "B", "C"}
	tallies := map[string]Tally{"A": {Laid: 13}, "B": {CardsLeft: 1}, "C": {CardsLeft: 5}}
	// A and B have cards aside already, C puts 2 there now: all take 2 back.
	res := Score(names, map[string]int{"A": 2, "B": 4}, "A", false, tallies)
	want := map[string]int{"A": 0, "B": 2, "C": 0}
	for n, b := range want {
		if p := res.Players[n]; p.Board != b || p.TakenBack != 2 {
			t.Errorf("%s: %+v, want board %d after taking 2 back", n, p, b)
		}
	}
	// Without C's board nobody takes any back.
	res = Score(names, map[string]int{"A": 2, "B": 4}, "A", false, map[string]Tally{"A": {Laid: 13}, "B": {CardsLeft: 1}, "C": {CardsLeft: 1}})
	if p := res.Players["B"]; p.TakenBack != 0 || p.Board != 4 {
		t.Errorf("B: %+v", p)
	}
}

func TestTiles_T6a_NobodyCanLayTheMostCardsLaidWins(t *testing.T) {
	names := []string{"A", "B", "C", "D"}
	res := Score(names, map[string]int{}, "", true, map[string]Tally{
		"A": {Laid: 9, CardsLeft: 6}, "B": {Laid: 11, CardsLeft: 4, Fault: true}, "C": {Laid: 10, CardsLeft: 5}, "D": {Laid: 10, CardsLeft: 5}})
	if got := points(res); got["C"] != 2 || got["D"] != 2 || got["A"] != 1 || got["B"] != 0 {
		t.Errorf("points %v: B laid wrongly, C and D tie for the most", got)
	}
	if res.StoppedBy != nil || !res.Deadlock {
		t.Errorf("result %+v", res)
	}
}

func TestTiles_T6b_MatchOverTheAgreedRounds(t *testing.T) {
	m, err := NewMatch(DefaultPlayers(2), Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Settings().Rounds != 6 {
		t.Fatalf("default rounds %d, want 6", m.Settings().Rounds)
	}
	for i := range 6 {
		if m.Over() {
			t.Fatalf("over after %d rounds", i)
		}
		stopper := []string{"P1", "P2"}[min(i, 1)] // P1 wins the first, P2 the rest
		res := m.Score(stopper, false, map[string]Tally{stopper: {Laid: m.InPlay(stopper)}, "P1": {CardsLeft: 3}})
		if err := m.Record(res); err != nil {
			t.Fatal(err)
		}
	}
	if !m.Over() || m.Winner() != "P2" || m.Totals()["P2"] != 10 {
		t.Fatalf("over %v winner %q totals %v", m.Over(), m.Winner(), m.Totals())
	}
	if err := m.Record(RoundResult{}); !errors.Is(err, ErrPhase) {
		t.Fatalf("a seventh round: %v", err)
	}
	// P2 puts 2 aside after round 1, P1 after round 2: both boards hold
	// cards, so both take them back (T5e); P1 then loses 4 more.
	if m.Boards()["P1"] != 8 || m.Boards()["P2"] != 0 {
		t.Errorf("boards %v, want P1 8 and P2 0", m.Boards())
	}
}

func TestTiles_T5a_StopNeedsEveryCardLaid(t *testing.T) {
	m, _ := NewMatch(DefaultPlayers(2), Settings{Rounds: 1})
	l, _ := DefaultLayout(2)
	b, _ := NewBoard(l)
	r, err := Deal(m, l, b.MarkedStarts(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	var v *Violation
	if err := r.Stop("P1"); !errors.As(err, &v) || v.Rule != T5a {
		t.Fatalf("a stop with 15 cards: %v", err)
	}
	if r.Ended() {
		t.Fatal("a refused stop ended the round")
	}
}
