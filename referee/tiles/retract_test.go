package tiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestTiles_T3a_RetractTakesBackACardToJudgeItAgain: a camera that saw
// two cards in another order than they were laid learns the order from
// the stone's way after the referee judged them (T3a: a stone moves onto
// each card laid at it). A card whose stone has not moved yet is taken
// back: the table stands as if it had not been laid, a call on it is
// withdrawn, it is judged again when given again, and a log with the
// retract replays to the same state. A card whose stone's move was
// judged since, or one taken back already, cannot be: nothing changes.
func TestTiles_T3a_RetractTakesBackACardToJudgeItAgain(t *testing.T) {
	obs, _ := script(t)
	var log bytes.Buffer
	r := New(WithLog(&log))
	apply := func(o Observation) Verdict {
		t.Helper()
		v, err := r.Apply(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
		return v
	}
	for _, o := range obs[:3] { // the match, the round, P1's card (#3), its stone not moved
		apply(o)
	}
	p1, move, p2 := obs[2], obs[3], obs[4]
	if v := apply(p2); v.Status != StatusViolation || v.Rule != T2b { // #4
		t.Fatalf("P2's card: %s %s, want a T2b call", v.Status, v.Rule)
	}
	state := func() string {
		b, _ := json.Marshal(r.State())
		return string(b)
	}

	// P1's card back: stone 1 stays, its fields are free, P2's call stands
	v := apply(Observation{Kind: ObsRetract, Retracts: 3})
	if v.Status != StatusInfo || v.Withdraws != 0 {
		t.Errorf("retract of a legal card: %s, withdraws #%d; want info, nothing withdrawn", v.Status, v.Withdraws)
	}
	st := r.State()
	if !r.Table().Free(p1.Fields[0]) || !r.Table().Free(p1.Fields[1]) || st.Laid["P1"] != 0 || len(st.Faults["P2"]) != 1 {
		t.Errorf("after the retract: P1's fields free %v %v, P1 laid %d, P2's faults %v; want free, 0, one", r.Table().Free(p1.Fields[0]), r.Table().Free(p1.Fields[1]), st.Laid["P1"], st.Faults["P2"])
	}
	before := state()
	for _, seq := range []int{3, 4 + 1, 99} { // taken back already; the retract itself; none
		if _, err := r.Apply(Observation{Kind: ObsRetract, Retracts: seq}); !errors.Is(err, ErrNotRetractable) {
			t.Errorf("retract #%d: %v, want ErrNotRetractable", seq, err)
		}
	}
	if state() != before {
		t.Errorf("a refused retract changed the state")
	}

	// P2's card back: its call is withdrawn
	if v := apply(Observation{Kind: ObsRetract, Retracts: 4}); v.Withdraws != 4 {
		t.Errorf("retract of the called card withdraws #%d, want #4", v.Withdraws)
	}
	if f := r.State().Faults["P2"]; len(f) != 0 {
		t.Errorf("P2's faults after the retract: %v, want none", f)
	}

	// P1's card again, and its stone's move: judged as before; now the
	// card cannot be taken back (the move judged since depends on it)
	if v := apply(p1); v.Status != StatusOK {
		t.Errorf("P1's card given again: %s %s", v.Status, v.Reason)
	}
	seq := r.State().Verdicts[len(r.State().Verdicts)-1].Seq
	apply(move)
	before = state()
	if _, err := r.Apply(Observation{Kind: ObsRetract, Retracts: seq}); !errors.Is(err, ErrNotRetractable) {
		t.Errorf("retract of a card its stone moved onto since: %v, want ErrNotRetractable", err)
	}
	if state() != before {
		t.Errorf("a refused retract changed the state")
	}
	if r.State().Stones[0].At != move.Fields[0] {
		t.Errorf("stone 1 on %v, want %v", r.State().Stones[0].At, move.Fields[0])
	}

	// the round's verdicts: the two cards taken back are gone, the two
	// retracts stay
	var seqs []int
	for _, v := range r.State().Verdicts {
		seqs = append(seqs, v.Seq)
	}
	if want := []int{2, 5, 6, 7, 8}; !slices.Equal(seqs, want) {
		t.Errorf("the round's verdicts %v, want %v", seqs, want)
	}

	// after the stop, and in the next round, nothing is taken back
	late := 0
	for _, o := range obs[5:] { // the stop, a card after it, the counts
		v := apply(o)
		if o.Kind == ObsLay {
			late = v.Seq
			if _, err := r.Apply(Observation{Kind: ObsRetract, Retracts: v.Seq}); !errors.Is(err, ErrNotRetractable) {
				t.Errorf("retract while counting: %v, want ErrNotRetractable", err)
			}
		}
	}
	apply(obs[1]) // round 2
	if _, err := r.Apply(Observation{Kind: ObsRetract, Retracts: late}); !errors.Is(err, ErrNotRetractable) {
		t.Errorf("retract of round 1's late card in round 2: %v, want ErrNotRetractable", err)
	}

	got, warns, err := Replay(bytes.NewReader(log.Bytes()))
	if err != nil || len(warns) != 0 {
		t.Fatalf("replay: %v %v", err, warns)
	}
	if b, _ := json.Marshal(got.State()); string(b) != state() {
		t.Errorf("replayed state differs:\n%s\n%s", b, state())
	}
}

// TestTiles_T3a_ReplayGetsPastARetractRefusedToday: a log holds a
// retract that today's rules refuse (the card's stone moved onto it
// since, so a verdict would change). Replay warns, naming the line,
// leaves the card as judged and goes on: the entries after it keep
// their numbers and the state is as without the retract.
func TestTiles_T3a_ReplayGetsPastARetractRefusedToday(t *testing.T) {
	obs, _ := script(t)
	var log bytes.Buffer
	r := New(WithLog(&log))
	for _, o := range obs[:4] { // the match, the round, P1's card (#3), its stone's move (#4)
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	retract := Observation{Kind: ObsRetract, Retracts: 3}
	line, err := encodeEntry(Entry{Seq: 5, Obs: retract, Verdict: Verdict{Seq: 5, Status: StatusInfo, Reason: "taken back"}})
	if err != nil {
		t.Fatal(err)
	}
	log.Write(line)
	want := New()
	for _, o := range obs[:4] {
		if _, err := want.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	want.keepRefused(retract, "")
	v, err := want.Apply(obs[4]) // P2's card, #6
	if err != nil {
		t.Fatal(err)
	}
	line, err = encodeEntry(Entry{Seq: 6, Obs: obs[4], Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	log.Write(line)

	got, warns, err := Replay(bytes.NewReader(log.Bytes()))
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if len(warns) != 1 || warns[0].Line != 5 || !strings.Contains(warns[0].Reason, "refused") {
		t.Errorf("warnings %v, want one for line 5, the refused retract", warns)
	}
	st := got.State()
	if n := len(st.Verdicts); n < 2 || st.Verdicts[n-2].Seq != 5 || st.Verdicts[n-2].Status != StatusInfo || st.Verdicts[n-1] != v {
		t.Errorf("verdicts %+v, want the retract's as info (#5), then P2's card as #6", st.Verdicts)
	}
	if st.Laid["P1"] != 1 || st.Stones[0].At != obs[3].Fields[0] {
		t.Errorf("P1 laid %d, stone 1 on %v; want 1, on %v (the card left as judged)", st.Laid["P1"], st.Stones[0].At, obs[3].Fields[0])
	}
}
