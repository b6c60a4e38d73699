package tiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// script is a short round of 2 players with one legal card, a stone
// moved wrongly, a card away from every stone, a false stop and a late card.
func script(t *testing.T) ([]Observation, *Board) {
	t.Helper()
	l, _ := DefaultLayout(2)
	b, _ := NewBoard(l)
	s := b.MarkedStarts()
	c := func(f ...Field) []Colour {
		out := make([]Colour, len(f))
		for i, x := range f {
			out[i] = b.Colour(x)
		}
		return out
	}
	a1, a2 := Field{3, 2}, Field{4, 2}
	return []Observation{
		{Kind: ObsMatch, Players: DefaultPlayers(2), Settings: &Settings{Rounds: 2}},
		{Kind: ObsRound, Layout: &l, Stones: s[:]},
		{Kind: ObsLay, Player: "P1", Fields: []Field{a1, a2}, Colours: c(a1, a2)},
		{Kind: ObsStone, Stone: 1, Fields: []Field{a1}},
		{Kind: ObsLay, Player: "P2", Fields: []Field{{6, 6}, {7, 6}}, Colours: c(Field{6, 6}, Field{7, 6})},
		{Kind: ObsStop, Player: "P2"},
		{Kind: ObsLay, Player: "P1", Fields: []Field{{5, 3}, {5, 4}}, Colours: c(Field{5, 3}, Field{5, 4})},
		{Kind: ObsCardsLeft, Player: "P1", Count: 14},
		{Kind: ObsCardsLeft, Player: "P2", Count: 13},
		{Kind: ObsRoundEnd},
	}, b
}

func TestTiles_Observed_VerdictsNameTheRule(t *testing.T) {
	obs, _ := script(t)
	r := New()
	var got []string
	for _, o := range obs {
		v, err := r.Apply(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
		got = append(got, string(v.Status)+" "+string(v.Rule))
	}
	want := []string{"info T6b", "info ", "ok ", "violation T3a", "violation T2b", "violation T5a", "late T5a", "info ", "info ", "warning T1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("verdicts\n got %q\nwant %q", got, want)
	}
	m := r.Match()
	rd := m.Rounds[0]
	// Both laid wrongly: nobody scores, nobody puts cards aside (T5b); the
	// late card does not count (P1 laid 1).
	if p := rd.Players["P1"]; p.Points != 0 || p.Aside != 0 || !p.Fault || p.Laid != 1 || p.CardsLeft != 14 {
		t.Errorf("P1: %+v", p)
	}
	if p := rd.Players["P2"]; p.Points != 0 || p.Aside != 0 || !p.Fault || p.CardsLeft != 13 {
		t.Errorf("P2: %+v", p)
	}
	if len(rd.Checks) != 1 || !strings.Contains(rd.Checks[0].Reason, "P2 counts 13") {
		t.Errorf("checks %+v: P2 laid 1 of 15 but counts 13 left", rd.Checks)
	}
	if st := r.State(); st.Phase != PhaseBetween || st.Round != 1 {
		t.Errorf("state %s round %d", st.Phase, st.Round)
	}
}

func TestTiles_Observed_LogReplaysToTheSameState(t *testing.T) {
	obs, _ := script(t)
	var log bytes.Buffer
	r := New(WithLog(&log))
	for _, o := range obs {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	got, warns, err := Replay(bytes.NewReader(log.Bytes()))
	if err != nil || len(warns) != 0 {
		t.Fatalf("replay: %v %v", err, warns)
	}
	a, _ := json.Marshal(r.State())
	b, _ := json.Marshal(got.State())
	if !bytes.Equal(a, b) {
		t.Fatalf("replayed state differs:\n%s\n%s", a, b)
	}
	// A torn last line is skipped with a warning; the rest stands.
	torn := log.Bytes()[:log.Len()-10]
	got, warns, err = Replay(bytes.NewReader(torn))
	if err != nil || len(warns) != 1 || got.State().Phase != PhaseCounting {
		t.Fatalf("torn log: %v %v %s", err, warns, got.State().Phase)
	}
	// A broken line in the middle is an error naming the line.
	lines := strings.SplitAfter(log.String(), "\n")
	lines[3] = "{nonsense}\n"
	_, _, err = Replay(strings.NewReader(strings.Join(lines, "")))
	var le *LogError
	if !errors.Is(err, ErrMalformedLog) || !errors.As(err, &le) || le.Line != 4 {
		t.Fatalf("broken line 4: %v", err)
	}
}

func TestTiles_Observed_RefusesWhatDoesNotFit(t *testing.T) {
	obs, _ := script(t)
	r := New()
	if _, err := r.Apply(obs[2]); !errors.Is(err, ErrPhase) {
		t.Errorf("a card before the match: %v", err)
	}
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	bad := []struct {
		o    Observation
		want error
	}{
		{Observation{Kind: ObsLay, Player: "Zed", Fields: obs[2].Fields, Colours: obs[2].Colours}, ErrUnknownPlayer},
		{Observation{Kind: ObsLay, Player: "P1", Fields: obs[2].Fields[:1], Colours: obs[2].Colours}, ErrInvalid},
		{Observation{Kind: ObsLay, Player: "P1", Fields: []Field{{0, 0}, {2, 0}}, Colours: obs[2].Colours}, ErrInvalid},
		{Observation{Kind: ObsStone, Stone: 5, Fields: []Field{{0, 0}}}, ErrInvalid},
		{Observation{Kind: ObsCardsLeft, Player: "P1", Count: 3}, ErrPhase},
		{Observation{Kind: ObsRound}, ErrPhase},
		{Observation{Kind: "wave"}, ErrInvalid},
	}
	for _, c := range bad {
		if _, err := r.Apply(c.o); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.o, err, c.want)
		}
	}
	if st := r.State(); len(st.Verdicts) != 1 || st.Laid["P1"] != 0 {
		t.Errorf("refused observations changed the state: %+v", st)
	}
}
