package table

import (
	"errors"
	"strings"
	"testing"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
)

// TestLoop_C16_NextMatchFollowsWhenTheTableDealsAgain: once a match has
// reached its end (C16, here a match of one round) the pipeline's next
// round opens a new match with the same players and settings, so that a
// table of real people plays match after match with nobody at the console.
func TestLoop_C16_NextMatchFollowsWhenTheTableDealsAgain(t *testing.T) {
	pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	ref := referee.New()
	var verdicts []Verdict
	l, err := New(Config{Players: 2, OnVerdict: func(v Verdict) { verdicts = append(verdicts, v) }}, pred, ref)
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

// TestLoop_C1_BackNamedFromTheConsole: a back named from the console
// renames the seat's back in the calibration and in the next match the
// table opens (C16), not in the match being played; a name another seat's
// back has is refused (C1: backs differ), and a player with no seat says
// so (ErrNoSeat).
func TestLoop_C1_BackNamedFromTheConsole(t *testing.T) {
	pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	cal := &calibration.File{Seats: []calibration.Seat{{Player: "Ann", Back: "back-1"}, {Player: "Ben", Back: "back-2"}}}
	l, err := New(Config{Calibration: cal}, pred, referee.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	players := []referee.Player{{Name: "Ann", Back: "back-1"}, {Name: "Ben", Back: "back-2"}}
	l.apply([]referee.Observation{{Kind: referee.ObsMatch, Players: players, By: "camera"}})
	if err := l.RelabelBack("Ann", "back-2"); !errors.Is(err, calibration.ErrZone) {
		t.Fatalf("Ben's back for Ann: %v", err)
	}
	if err := l.RelabelBack("Cleo", "cubes"); !errors.Is(err, ErrNoSeat) {
		t.Fatalf("a player with no seat: %v", err)
	}
	if err := l.RelabelBack("Ann", "cubes"); err != nil {
		t.Fatal(err)
	}
	if got := l.Calibration().Seats[0].Back; got != "back-1" {
		t.Fatalf("renamed before the next frame: %q", got)
	}
	l.takeRequest()
	if got := l.Calibration().Seats[0].Back; got != "cubes" {
		t.Errorf("the calibration names Ann's back %q", got)
	}
	if cal.Seats[0].Back != "back-1" {
		t.Error("the caller's calibration was changed in place")
	}
	if got := l.match.Players[0].Back; got != "cubes" {
		t.Errorf("the next match names Ann's back %q", got)
	}
}

// A deck learnt for the cards (ligretto deck) outlives the calibration it
// came with: a calibration made live after it gets it, one with a deck
// of its own keeps that; and a calibration the reader refuses (a deck of
// other weights) is refused from the console.
func TestLoop_DeckOutlivesARecalibration(t *testing.T) {
	pred, err := model.DefaultPredictor()
	if err != nil {
		t.Fatal(err)
	}
	defer pred.Close()
	refused := errors.New("a deck of other weights")
	other := testDeck("0")
	reader := func(f *calibration.File) (model.Predictor, error) {
		if f.Deck != nil && f.Deck.WeightsSHA256 == other.WeightsSHA256 {
			return nil, refused
		}
		return pred, nil
	}
	deck := testDeck("1")
	l, err := New(Config{Calibration: tableFile(pred.Config(), deck), Reader: reader}, pred, referee.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	live := tableFile(pred.Config(), nil)
	l.keepDeck(live)
	if live.Deck != deck {
		t.Errorf("a live calibration after one with a deck has deck %+v", live.Deck)
	}
	own := testDeck("2")
	withOwn := tableFile(pred.Config(), own)
	l.keepDeck(withOwn)
	if withOwn.Deck != own {
		t.Errorf("a calibration's own deck was replaced by %+v", withOwn.Deck)
	}
	if err := l.UseCalibration(tableFile(pred.Config(), other)); !errors.Is(err, refused) {
		t.Errorf("a calibration whose deck the reader refuses: %v", err)
	}
	if err := l.UseCalibration(tableFile(pred.Config(), nil)); err != nil {
		t.Errorf("a calibration without a deck: %v", err)
	}
}

// tableFile is a valid two-seat calibration with enrolled backs of the
// classifier's embedding length, and deck.
func tableFile(mcfg model.Config, deck *calibration.Deck) *calibration.File {
	centre, zones := calibration.Layout(2, 1000, 700)
	f := &calibration.File{Version: calibration.Version, ImageW: 1280, ImageH: 800, TableW: 1000, TableH: 700,
		Homography: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, Centre: centre, WhiteBalance: [3]float64{1, 1, 1}, Source: "manual", Deck: deck}
	for i, z := range zones {
		proto := make([]float32, mcfg.BackEmbeddingLen())
		proto[i] = 1
		f.Seats = append(f.Seats, calibration.Seat{Player: []string{"Ann", "Ben"}[i], Back: []string{"back-1", "back-2"}[i], Zone: z, Prototype: proto})
	}
	return f
}

// testDeck is a valid deck section of one card, for weights whose hash is
// the digit repeated.
func testDeck(digit string) *calibration.Deck {
	return &calibration.Deck{Version: calibration.DeckVersion, WeightsSHA256: strings.Repeat(digit, 64), Layer: "hidden", Scale: 40, Floor: 0.9,
		Cards: []calibration.DeckCard{{Colour: "red", Number: 1, Shots: 1, Prototype: []float32{1, 0}}}}
}
