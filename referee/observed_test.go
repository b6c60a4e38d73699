package referee

import (
	"bytes"
	"errors"
	"testing"
)

// newObserved starts a two-player match and a round.
func newObserved(t *testing.T, s Settings, opts ...Option) *Referee {
	t.Helper()
	r := New(opts...)
	must(t, r, Observation{Kind: ObsMatch, Players: DefaultPlayers(2), Settings: &s})
	must(t, r, Observation{Kind: ObsRound})
	return r
}

func must(t *testing.T, r *Referee, o Observation) Verdict {
	t.Helper()
	v, err := r.Apply(o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	return v
}

func fp(s string) *Face { f := face(s); return &f }

func newPile(id int, s string) Observation {
	return Observation{Kind: ObsPileNew, Pile: id, Card: fp(s)}
}
func shows(id int, s string) Observation {
	return Observation{Kind: ObsPileShows, Pile: id, Card: fp(s)}
}

func TestObserved_LegalGrowthAndInferredJump(t *testing.T) {
	r := newObserved(t, Settings{})
	if v := must(t, r, newPile(1, "red 1")); v.Status != StatusOK {
		t.Fatal(v)
	}
	if v := must(t, r, shows(1, "red 2")); v.Status != StatusOK {
		t.Fatal(v)
	}
	v := must(t, r, shows(1, "red 5")) // red 3 and 4 went down too fast to see
	if v.Status != StatusInferred || v.Inferred != 2 {
		t.Fatalf("a jump is legal and inferred: %+v", v)
	}
	if p := r.State().Piles[0]; p.Cards != 5 || p.Top != face("red 5") {
		t.Fatalf("pile %+v", p)
	}
}

func TestObserved_C6_C7_C8_Violations(t *testing.T) {
	r := newObserved(t, Settings{})
	v := must(t, r, newPile(1, "blue 3"))
	if v.Status != StatusViolation || v.Rule != C6 {
		t.Fatalf("a pile that starts with 3: %+v", v)
	}
	must(t, r, newPile(2, "green 1"))
	if v := must(t, r, shows(2, "red 2")); v.Rule != C7 || v.Reason != "red 2 on green 1: colour differs" {
		t.Fatalf("wrong colour: %+v", v)
	}
	must(t, r, newPile(3, "yellow 1"))
	must(t, r, shows(3, "yellow 4"))
	if v := must(t, r, shows(3, "yellow 2")); v.Rule != C7 || v.Status != StatusViolation {
		t.Fatalf("a number that does not rise: %+v", v)
	}
	must(t, r, newPile(4, "blue 1"))
	must(t, r, shows(4, "blue 10"))
	if v := must(t, r, shows(4, "blue 1")); v.Rule != C8 {
		t.Fatalf("a card on a closed pile: %+v", v)
	}
}

func TestObserved_C13_CardsAfterStopDoNotCount(t *testing.T) {
	r := newObserved(t, Settings{})
	must(t, r, newPile(1, "red 1"))
	must(t, r, Observation{Kind: ObsStop, Player: "P1"})
	v := must(t, r, shows(1, "red 2"))
	if v.Status != StatusLate || v.Rule != C13 {
		t.Fatalf("late card: %+v", v)
	}
	if r.State().Piles[0].Top != face("red 1") {
		t.Fatal("a late card must not change the pile")
	}
}

func TestObserved_C14_C15_ScoringAndCheck(t *testing.T) {
	r := newObserved(t, Settings{})
	must(t, r, newPile(1, "red 1"))
	must(t, r, shows(1, "red 3"))
	must(t, r, Observation{Kind: ObsStop, Player: "P2"})
	if _, err := r.Apply(Observation{Kind: ObsCentre, Back: "hexagons", Count: 1}); !errors.Is(err, ErrUnknownPlayer) {
		t.Fatalf("a back nobody has: %v", err)
	}
	for _, o := range []Observation{
		{Kind: ObsCentre, Back: "spheres", Count: 1}, {Kind: ObsCentre, Player: "P2", Count: 2},
		{Kind: ObsStackLeft, Player: "P1", Count: 4}, {Kind: ObsStackLeft, Player: "P2", Count: 0},
	} {
		must(t, r, o)
	}
	if v := must(t, r, Observation{Kind: ObsRoundEnd}); v.Status != StatusScored {
		t.Fatalf("3 counted, 3 on the pile: %+v", v)
	}
	m := r.Match()
	if m.Totals["P1"] != 1-8 || m.Totals["P2"] != 2 || *m.Rounds[0].StoppedBy != "P2" {
		t.Fatalf("totals %v", m.Totals)
	}
	// Next round: the count disagrees with the piles.
	must(t, r, Observation{Kind: ObsRound})
	must(t, r, newPile(1, "blue 1"))
	must(t, r, Observation{Kind: ObsStop})
	must(t, r, Observation{Kind: ObsCentre, Player: "P1", Count: 2})
	v := must(t, r, Observation{Kind: ObsRoundEnd})
	if v.Status != StatusWarning || v.Rule != C15 {
		t.Fatalf("2 counted, 1 seen: %+v", v)
	}
}

func TestObserved_C17_RestartOnlyUnderRestartRule(t *testing.T) {
	r := newObserved(t, Settings{Deadlock: DeadlockLeader})
	if _, err := r.Apply(Observation{Kind: ObsRestart}); !errors.Is(err, ErrPhase) {
		t.Fatalf("restart under the leader rule: %v", err)
	}
	r2 := newObserved(t, Settings{Deadlock: DeadlockRestart})
	if v := must(t, r2, Observation{Kind: ObsRestart}); v.Rule != C17 {
		t.Fatal(v)
	}
	if r2.State().Phase != PhasePlaying {
		t.Fatal("play resumes after a restart")
	}
}

func TestObserved_OverrideAndUndo(t *testing.T) {
	r := newObserved(t, Settings{})
	must(t, r, newPile(1, "red 1"))
	must(t, r, shows(1, "green 2")) // a misread: C7
	if v := must(t, r, Observation{Kind: ObsUndo}); v.Status != StatusUndone {
		t.Fatal(v)
	}
	if p := r.State().Piles[0]; p.Top != face("red 1") || p.Violations != 0 {
		t.Fatalf("undo must restore the pile: %+v", p)
	}
	vs := r.State().Verdicts
	if last := vs[len(vs)-1]; last.Seq != 5 || vs[len(vs)-2].Seq != 3 {
		t.Fatalf("verdicts keep their log numbers after undo: %+v", vs)
	}
	must(t, r, Observation{Kind: ObsOverride, Pile: 1, Card: fp("red 4")})
	if v := must(t, r, shows(1, "red 5")); v.Status != StatusOK {
		t.Fatalf("after the override red 5 is legal: %+v", v)
	}
	fresh := New()
	if _, err := fresh.Apply(Observation{Kind: ObsUndo}); !errors.Is(err, ErrNothingToUndo) {
		t.Fatal(err)
	}
}

func TestObserved_RejectsMalformedWithoutChange(t *testing.T) {
	var log bytes.Buffer
	r := newObserved(t, Settings{}, WithLog(&log))
	before, lines := r.State(), bytes.Count(log.Bytes(), []byte("\n"))
	bad := []struct {
		o    Observation
		want error
	}{
		{Observation{Kind: "teleport"}, ErrInvalid},
		{Observation{Kind: ObsPileNew, Pile: 1}, ErrInvalid},
		{Observation{Kind: ObsPileNew, Pile: 0, Card: fp("red 1")}, ErrInvalid},
		{Observation{Kind: ObsPileNew, Pile: 1, Card: &Face{Red, 11}}, ErrInvalid},
		{Observation{Kind: ObsPileShows, Pile: 7, Card: fp("red 2")}, ErrUnknownPile},
		{Observation{Kind: ObsStop, Player: "Zed"}, ErrUnknownPlayer},
		{Observation{Kind: ObsCentre, Player: "P1", Count: 3}, ErrPhase},
		{Observation{Kind: ObsRound}, ErrPhase},
	}
	for _, b := range bad {
		if _, err := r.Apply(b.o); !errors.Is(err, b.want) {
			t.Errorf("%+v: got %v, want %v", b.o, err, b.want)
		}
	}
	after := r.State()
	if len(after.Piles) != len(before.Piles) || len(after.Verdicts) != len(before.Verdicts) || bytes.Count(log.Bytes(), []byte("\n")) != lines {
		t.Fatal("a rejected observation changed the state or the log")
	}
}

// failingWriter fails every write, like a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestObserved_LogFailureLosesNothing(t *testing.T) {
	var buf bytes.Buffer
	r := newObserved(t, Settings{}, WithLog(&buf))
	must(t, r, newPile(1, "red 1"))
	r.log = failingWriter{}
	if _, err := r.Apply(shows(1, "red 2")); err == nil {
		t.Fatal("a failed log write must be an error")
	}
	if r.State().Piles[0].Top != face("red 1") {
		t.Fatal("an unlogged observation must not change the state")
	}
}
