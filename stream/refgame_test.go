package stream

import (
	"errors"
	"image"
	"slices"
	"testing"

	"ligretto/referee"
)

// TestRefereeGame_Scoreboard: live scores while counting (C14), official
// totals once scored (C16), the leader, and the last round's scores.
func TestRefereeGame_Scoreboard(t *testing.T) {
	g := NewRefereeGame(referee.New(), nil)
	playSomeGame(t, g)
	if err := g.Stop("P1"); err != nil {
		t.Fatal(err)
	}
	for _, o := range []referee.Observation{
		{Kind: referee.ObsCentre, Player: "P1", Count: 2},
		{Kind: referee.ObsStackLeft, Player: "P1", Count: 0},
		{Kind: referee.ObsCentre, Player: "P2", Count: 1},
		{Kind: referee.ObsStackLeft, Player: "P2", Count: 3},
	} {
		if _, err := g.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	st := g.State()
	if st.Players[0].Live == nil || *st.Players[0].Live != 2 || *st.Players[1].Live != 1-6 || st.Players[2].Live != nil {
		t.Fatalf("live scores %+v", st.Players)
	}
	if st.Players[0].Total != 0 || st.Match.Leader != "" {
		t.Fatalf("totals before scoring: %+v, leader %q", st.Players, st.Match.Leader)
	}
	if _, err := g.Apply(referee.Observation{Kind: referee.ObsRoundEnd}); err != nil {
		t.Fatal(err)
	}
	st = g.State()
	if st.Players[0].Total != 2 || st.Players[1].Total != -5 || st.Players[0].Live != nil || *st.Players[0].Last != 2 {
		t.Fatalf("after scoring: %+v", st.Players)
	}
	if st.Match.Leader != "P1" || st.Match.Rounds != 1 || st.Phase != referee.PhaseBetween {
		t.Fatalf("match %+v phase %s", st.Match, st.Phase)
	}
	last := st.Feed[len(st.Feed)-1]
	if last.Kind != referee.ObsRoundEnd || (last.Rule != referee.C14 && last.Rule != referee.C15) {
		t.Fatalf("feed %+v", last)
	}
	// The referee's own state, as the demo draws it, agrees.
	if rs := g.RefereeState(); rs.Phase != referee.PhaseBetween || rs.Match == nil || rs.Match.Totals["P1"] != 2 || rs.Round != st.Round {
		t.Fatalf("referee state %+v", rs)
	}
}

// TestRefereeGame_FeedIsBounded: the feed keeps the newest verdicts across
// rounds, and versions only grow.
func TestRefereeGame_FeedIsBounded(t *testing.T) {
	g := NewRefereeGame(referee.New(), nil)
	playSomeGame(t, g)
	v0 := g.State().Version
	for i := 0; i < DefaultFeedLen+10; i++ {
		if _, err := g.Apply(referee.Observation{Kind: referee.ObsPileShows, Pile: 1, Card: &referee.Face{Colour: referee.Blue, Number: 3}}); err != nil {
			t.Fatal(err)
		}
	}
	st := g.State()
	if len(st.Feed) != DefaultFeedLen || st.Version != v0+uint64(DefaultFeedLen+10) {
		t.Fatalf("feed %d, version %d", len(st.Feed), st.Version)
	}
	if st.Feed[0].Seq >= st.Feed[len(st.Feed)-1].Seq {
		t.Fatal("feed not oldest first")
	}
	// A refused observation changes nothing, not even the version.
	if _, err := g.Apply(referee.Observation{Kind: referee.ObsRound}); !errors.Is(err, referee.ErrPhase) {
		t.Fatalf("err %v", err)
	}
	if g.State().Version != st.Version {
		t.Fatal("a refused observation changed the version")
	}
}

// TestRefereeGame_Roster: enrolment checks (C1: distinct backs), and a
// match from the simulator or the console replaces the roster.
func TestRefereeGame_Roster(t *testing.T) {
	g := NewRefereeGame(referee.New(), referee.DefaultPlayers(2))
	if err := g.EnrolBack("P1", "pyramids"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("duplicate back: %v", err)
	}
	if err := g.EnrolBack("P9", "fish"); !errors.Is(err, referee.ErrUnknownPlayer) {
		t.Fatalf("unknown player: %v", err)
	}
	if err := g.EnrolBack("P1", "fish"); err != nil {
		t.Fatal(err)
	}
	if err := g.NewMatch(MatchSetup{}); err != nil {
		t.Fatal(err)
	}
	if st := g.State(); st.Players[0].Back != "fish" || len(st.Players) != 2 {
		t.Fatalf("players %+v", st.Players)
	}
	if _, err := g.Apply(referee.Observation{Kind: referee.ObsMatch, Players: referee.DefaultPlayers(5)}); err != nil {
		t.Fatal(err)
	}
	if st := g.State(); len(st.Roster) != 5 {
		t.Fatalf("roster %+v", st.Roster)
	}
	select {
	case <-g.Changed():
	default:
		t.Fatal("no change signalled")
	}
}

// TestEncoderSpeed: the reflection that sets libvpx's speed still finds
// mediadevices' codec context, and refuses anything else.
func TestEncoderSpeed(t *testing.T) {
	e, err := newVP8Encoder(64, 48, 200_000, 10, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := setCPUUsed(e.enc, -12); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []any{nil, 3, &struct{ codec int }{}, &struct{ x *int }{}} {
		if err := setCPUUsed(bad, -8); !errors.Is(err, ErrEncoder) {
			t.Fatalf("%T: %v", bad, err)
		}
	}
	// Pictures of other types and sizes.
	if _, key, err := e.Encode(image.NewGray(image.Rect(0, 0, 64, 48))); err != nil || !key {
		t.Fatalf("gray: key %v, %v", key, err)
	}
	if _, _, err := e.Encode(image.NewRGBA(image.Rect(0, 0, 65, 48))); !errors.Is(err, ErrEncoder) {
		t.Fatalf("wrong size: %v", err)
	}
	if _, _, err := e.Encode(image.NewYCbCr(image.Rect(0, 0, 64, 48), image.YCbCrSubsampleRatio420)); err != nil {
		t.Fatal(err)
	}
}

// TestConfigValidate rejects out-of-range settings.
func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{MaxViewers: -1}, {Bitrate: 10}, {EncoderSpeed: 3}, {EncoderSpeed: 17}, {Token: "short"}, {KeyframeEvery: -2}, {NACKHistory: 1<<15 + 1}} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Fatalf("%+v: %v", c, err)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{UDPAddr: "127.0.0.1:0"}, nil, nil); !errors.Is(err, ErrConfig) {
		t.Fatalf("nil source: %v", err)
	}
}

// The piles whose tops the camera reads unsure reach the viewers'
// state (the page shows "?" for them), only while the referee knows
// them, and a change of the list is a change of the state.
func TestRefereeGame_SetUnsureShowsInState(t *testing.T) {
	g := NewRefereeGame(referee.New(), nil)
	if err := g.NewMatch(MatchSetup{}); err != nil {
		t.Fatal(err)
	}
	if err := g.StartRound(); err != nil {
		t.Fatal(err)
	}
	one := referee.Face{Colour: referee.Red, Number: 1}
	if _, err := g.Apply(referee.Observation{Kind: referee.ObsPileNew, Pile: 1, Card: &one, By: "camera"}); err != nil {
		t.Fatal(err)
	}
	v := g.State().Version
	g.SetUnsure([]int{1, 7})
	st := g.State()
	if !slices.Equal(st.Unsure, []int{1}) || st.Version == v {
		t.Errorf("unsure %v (version %d after %d), want [1] (pile 7 is unknown) and a new version", st.Unsure, st.Version, v)
	}
	v = st.Version
	g.SetUnsure([]int{1, 7})
	if g.State().Version != v {
		t.Error("the same list again changed the version")
	}
	g.SetUnsure(nil)
	if st := g.State(); len(st.Unsure) != 0 {
		t.Errorf("unsure %v after none, want none", st.Unsure)
	}
}
