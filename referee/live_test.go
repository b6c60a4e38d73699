package referee

import (
	"bytes"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"
)

func laid(o Observation, player string) Observation { o.Player = player; return o }

// Pile observations that name who laid the card keep an unofficial live
// score (C14: +1 per centre card, the seen card only); cards after the stop
// do not count (C13); the count after the stop stays the official score.
func TestObserved_C14_C13_LiveScoreFromLaidBy(t *testing.T) {
	var log bytes.Buffer
	r := newObserved(t, Settings{}, WithLog(&log))
	if v := must(t, r, laid(newPile(1, "red 1"), "P1")); !strings.HasSuffix(v.Reason, "laid by P1") {
		t.Fatalf("the verdict names who laid it: %+v", v)
	}
	must(t, r, laid(shows(1, "red 2"), "P2"))
	must(t, r, laid(shows(1, "red 5"), "P2"))    // red 3 and 4 inferred: nobody saw who laid them
	must(t, r, shows(1, "red 6"))                // seen, player unknown
	must(t, r, laid(shows(1, "red 6"), "P1"))    // the same top again: no new card
	must(t, r, laid(newPile(2, "blue 4"), "P1")) // C6 violation: the card still lies in the centre
	if _, err := r.Apply(laid(shows(1, "red 7"), "Zed")); !errors.Is(err, ErrUnknownPlayer) {
		t.Fatalf("a player not in the match: %v", err)
	}
	want := map[string]int{"P1": 2, "P2": 2}
	if got := r.State().Live; !maps.Equal(got, want) {
		t.Fatalf("live %v, want %v", got, want)
	}
	must(t, r, Observation{Kind: ObsStop, Player: "P1"})
	if v := must(t, r, laid(shows(1, "red 7"), "P2")); v.Status != StatusLate {
		t.Fatalf("after the stop: %+v", v)
	}
	if got := r.State().Live; !maps.Equal(got, want) {
		t.Fatalf("a late card changed the live score: %v", got)
	}
	for _, o := range []Observation{{Kind: ObsCentre, Player: "P1", Count: 1}, {Kind: ObsCentre, Player: "P2", Count: 6}, {Kind: ObsRoundEnd}} {
		must(t, r, o)
	}
	if m := r.Match(); m.Rounds[0].Players["P1"].Centre != 1 || m.Rounds[0].Players["P2"].Centre != 6 {
		t.Fatalf("the count, not the live score, is the official one: %+v", m.Rounds[0].Players)
	}
	// The log replays to the same state, live score included; undo takes a card back.
	got, warns, err := Replay(bytes.NewReader(log.Bytes()))
	if err != nil || len(warns) > 0 || !reflect.DeepEqual(got.State(), r.State()) {
		t.Fatalf("replay: %v %v\n%+v\n%+v", err, warns, got.State(), r.State())
	}
	must(t, r, Observation{Kind: ObsRound})
	must(t, r, laid(newPile(1, "green 1"), "P2"))
	must(t, r, laid(shows(1, "green 2"), "P2"))
	if got := r.State().Live; !maps.Equal(got, map[string]int{"P2": 2}) {
		t.Fatalf("a new round starts the live score afresh: %v", got)
	}
	must(t, r, Observation{Kind: ObsUndo})
	if got := r.State().Live; !maps.Equal(got, map[string]int{"P2": 1}) {
		t.Fatalf("after undo: %v", got)
	}
}

// A log written before pile observations could name a player replays as
// before, with no live score.
func TestLog_OldLinesWithoutPlayerReplay(t *testing.T) {
	old := `{"seq":1,"obs":{"kind":"match","players":[{"name":"P1","back":"spheres"},{"name":"P2","back":"pyramids"}],"settings":{"target":99,"deadlock":"leader"}},"verdict":{"seq":1,"status":"info","reason":"match of 2 players, target 99"}}
{"seq":2,"obs":{"kind":"round"},"verdict":{"seq":2,"status":"info","reason":"round 1 begins"}}
{"seq":3,"obs":{"kind":"pile_new","pile":1,"card":{"colour":"red","number":1}},"verdict":{"seq":3,"status":"ok","reason":"new pile 1: red 1","pile":1}}
`
	r, warns, err := Replay(strings.NewReader(old))
	if err != nil || len(warns) > 0 {
		t.Fatalf("replay: %v %v", err, warns)
	}
	if st := r.State(); len(st.Live) != 0 || len(st.Piles) != 1 {
		t.Fatalf("state %+v", st)
	}
}
