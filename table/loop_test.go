package table

import (
	"testing"

	"ligretto/model"
	"ligretto/referee"
)

// TestLoop_C16_NextMatchFollowsWhenTheTableDealsAgain: once a match has
// reached its end (C16, here a match of one round) the pipeline's next
// round opens a new match with the same players and settings, so that a
// table of real people plays match after match with nobody at the console.
func TestLoop_C16_NextMatchFollowsWhenTheTableDealsAgain(t *testing.T) {
	w, pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	ref := referee.New()
	var verdicts []Verdict
	l, err := New(Config{Players: 2, OnVerdict: func(v Verdict) { verdicts = append(verdicts, v) }}, pred, w.Config, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	players := referee.DefaultPlayers(2)
	settings := referee.Settings{Rounds: 1}
	red1 := referee.Face{Colour: referee.Red, Number: 1}
	round := []referee.Observation{
		{Kind: referee.ObsRound, TimeMS: 10, By: "camera"},
		{Kind: referee.ObsPileNew, TimeMS: 20, Pile: 1, Card: &red1, By: "camera"},
		{Kind: referee.ObsStop, TimeMS: 30, Player: players[0].Name, By: "camera"},
		{Kind: referee.ObsCentre, TimeMS: 40, Player: players[0].Name, Count: 1, By: "camera"},
		{Kind: referee.ObsStackLeft, TimeMS: 40, Player: players[0].Name, Count: 0, By: "camera"},
		{Kind: referee.ObsCentre, TimeMS: 40, Player: players[1].Name, Count: 0, By: "camera"},
		{Kind: referee.ObsStackLeft, TimeMS: 40, Player: players[1].Name, Count: 3, By: "camera"},
		{Kind: referee.ObsRoundEnd, TimeMS: 40, By: "camera"},
	}
	l.apply(append([]referee.Observation{{Kind: referee.ObsMatch, TimeMS: 0, Players: players, Settings: &settings, By: "camera"}}, round...))
	if st := ref.State(); st.Phase != referee.PhaseOver {
		t.Fatalf("after one round of a one-round match: %s", st.Phase)
	}
	verdicts = nil
	l.apply([]referee.Observation{{Kind: referee.ObsRound, TimeMS: 100, By: "camera"}})
	if len(verdicts) != 2 || verdicts[0].Obs.Kind != referee.ObsMatch || verdicts[0].Err != nil || verdicts[1].Err != nil {
		t.Fatalf("verdicts when the table dealt again: %+v", verdicts)
	}
	st := ref.State()
	if st.Phase != referee.PhasePlaying || st.Round != 1 || st.Match == nil || st.Match.Settings.Rounds != 1 || len(st.Match.Players) != 2 {
		t.Fatalf("the next match: phase %s round %d match %+v", st.Phase, st.Round, st.Match)
	}
	// Within a match, a round does not start a match.
	verdicts = nil
	l.apply(round[1:])
	if st := ref.State(); st.Phase != referee.PhaseOver || len(st.Match.Rounds) != 1 {
		t.Fatalf("after the next match's round: %s, %d rounds", st.Phase, len(st.Match.Rounds))
	}
	for _, v := range verdicts {
		if v.Obs.Kind == referee.ObsMatch {
			t.Fatal("a match opened inside a match")
		}
	}
}
