package stream

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"ligretto/referee"
	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
)

// playTiles feeds a simulated tile match to g, event by event, calling
// check after each event's observations. It returns the simulator's result
// and every verdict the game gave.
func playTiles(t testing.TB, g *TilesGame, cfg tilesim.Config, check func(tilesim.Event)) (tilesim.Result, []tiles.Verdict) {
	t.Helper()
	var verdicts []tiles.Verdict
	res, err := tilesim.Run(cfg, func(e tilesim.Event) error {
		for _, o := range e.Observations() {
			v, err := g.Referee().Apply(o)
			if err != nil {
				return err
			}
			verdicts = append(verdicts, v)
		}
		if check != nil {
			check(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, verdicts
}

// TestTilesGame_SimulatedMatch: a 3-player tile match with wrong plays
// (bots erring 4%), fed as the camera would: while a round is counted
// the live points are the ones the round is then scored with (T5c); after
// each round the totals, points, player boards, lays and winners are the
// simulator's; every wrong play shows in the feed with its rule; the
// version grows with every observation and Changed fires.
func TestTilesGame_SimulatedMatch(t *testing.T) {
	g := NewTilesGame(tiles.New(), nil)
	if st := g.State(); st.Game != GameTiles || st.Tiles != nil || st.Match.Active || len(st.Roster) != 4 || st.Roster[3].Back != "dotted" {
		t.Fatalf("before a match: %+v", st)
	}
	var live map[string]int
	rounds, faults := 0, 0
	seen := map[referee.Rule]int{}
	var lastVersion uint64
	lastSeq := 0
	res, verdicts := playTiles(t, g, tilesim.Config{Players: 3, Seed: 11, Rounds: 3, ErrorRate: 0.04}, func(e tilesim.Event) {
		st := g.State()
		if st.Version <= lastVersion && len(e.Observations()) > 0 {
			t.Fatalf("%s: version %d after %d", e.Kind, st.Version, lastVersion)
		}
		lastVersion = st.Version
		for _, f := range st.Feed {
			if f.Seq <= lastSeq {
				continue
			}
			lastSeq = f.Seq
			if f.Status == referee.StatusViolation {
				seen[f.Rule]++
				if f.Player == "" || !strings.HasPrefix(string(f.Rule), "T") || f.Round != st.Round {
					t.Fatalf("a violation without its player, tile rule or round: %+v", f)
				}
			}
		}
		switch e.Kind {
		case tilesim.EvStop, tilesim.EvNoPlay:
			if st.Phase != referee.PhaseCounting || st.StoppedBy != e.Player || st.Deadlock != (e.Kind == tilesim.EvNoPlay) {
				t.Fatalf("after %s: phase %s, stopped by %q, deadlock %v", e.Kind, st.Phase, st.StoppedBy, st.Deadlock)
			}
			live = map[string]int{}
			for _, p := range st.Players {
				if p.Live == nil {
					t.Fatalf("no live points for %s while counting", p.Name)
				}
				live[p.Name] = *p.Live
			}
		case tilesim.EvRoundEnd:
			rounds++
			r := e.Result
			if st.Phase != referee.PhaseBetween && st.Phase != referee.PhaseOver {
				t.Fatalf("round %d scored, phase %s", rounds, st.Phase)
			}
			if st.Match.Rounds != rounds || st.Round != rounds || st.Tiles.Rounds != 3 || st.Match.Settings.Rounds != 3 {
				t.Fatalf("round %d: match %+v, round %d, tiles rounds %d", rounds, st.Match, st.Round, st.Tiles.Rounds)
			}
			if !slices.Equal(st.Tiles.Winners, r.Winners) {
				t.Errorf("round %d: winners %v, the simulator's %v", rounds, st.Tiles.Winners, r.Winners)
			}
			for i, p := range st.Tiles.Players {
				want := r.Players[p.Name]
				if p.Points == nil || *p.Points != want.Points || p.Laid != want.Laid || p.Left == nil || *p.Left != want.CardsLeft ||
					p.Board != want.Board || p.InPlay != want.Laid+want.CardsLeft || (len(p.Faults) > 0) != want.Fault {
					t.Errorf("round %d: %s %+v, the simulator's %+v", rounds, p.Name, p, want)
				}
				if live[p.Name] != want.Points {
					t.Errorf("round %d: %s's live points were %d, scored %d", rounds, p.Name, live[p.Name], want.Points)
				}
				if pv := st.Players[i]; pv.Name != p.Name || pv.Last == nil || *pv.Last != want.Points || pv.Live != nil || pv.Total != p.Total || pv.Back != string(p.Frame) {
					t.Errorf("round %d: scoreboard line %+v against %+v", rounds, pv, p)
				}
				faults += len(p.Faults)
			}
		case tilesim.EvLay:
			var p TilesPlayer
			for _, q := range st.Tiles.Players {
				if q.Name == e.Player {
					p = q
				}
			}
			if st.Phase == referee.PhasePlaying && (p.Laid < 1 || p.InPlay != tiles.CardsPerPlayer-p.Board || p.Points != nil && st.Match.Rounds == 0) {
				t.Fatalf("after %s's lay: %+v", e.Player, p)
			}
			if len(st.Tiles.Stones) != tiles.Stones {
				t.Fatalf("stones %+v", st.Tiles.Stones)
			}
		}
		select {
		case <-g.Changed():
		default:
			if len(e.Observations()) > 0 {
				t.Fatalf("%s: Changed did not fire", e.Kind)
			}
		}
	})
	st := g.State()
	if rounds != 3 || !st.Match.Over || st.Phase != referee.PhaseOver {
		t.Fatalf("%d rounds, match %+v, phase %s", rounds, st.Match, st.Phase)
	}
	totals := map[string]int{}
	for _, p := range st.Players {
		totals[p.Name] = p.Total
	}
	if !maps.Equal(totals, res.Totals) {
		t.Fatalf("totals %v, the simulator's %v", totals, res.Totals)
	}
	if (res.Winner == nil) != (st.Match.Winner == "") || res.Winner != nil && *res.Winner != st.Match.Winner {
		t.Fatalf("winner %q, the simulator's %v", st.Match.Winner, res.Winner)
	}
	injected := map[referee.Rule]int{}
	for _, x := range res.Injected {
		injected[referee.Rule(x.Rule)]++
	}
	called := 0
	for _, v := range verdicts {
		if v.Status == tiles.StatusViolation {
			called++
		}
	}
	if len(res.Injected) == 0 || called != len(res.Injected) || !maps.Equal(seen, injected) {
		t.Fatalf("wrong plays: %d injected %v, %d called, the feed showed %v", len(res.Injected), injected, called, seen)
	}
	if len(st.Feed) != DefaultFeedLen || st.Feed[len(st.Feed)-1].Status != referee.StatusScored && st.Feed[len(st.Feed)-1].Status != referee.StatusWarning {
		t.Fatalf("feed of %d, last %+v", len(st.Feed), st.Feed[len(st.Feed)-1])
	}
	t.Logf("3 rounds, %d verdicts, %d wrong plays called (%v), faults on the scoreboard %d; totals %v", len(verdicts), called, seen, faults, totals)
}

// TestTilesGame_Controls: what the console can do in the tile game. A
// match from the roster or from players whose back names their frame;
// StartRound, OverridePile, Undo and EnrolBack are not the tile game's
// (501); a stop needs a known player in a round (422, 409); a refused
// action changes nothing, not even the version.
func TestTilesGame_Controls(t *testing.T) {
	g := NewTilesGame(tiles.New(), tiles.DefaultPlayers(2))
	for name, err := range map[string]error{
		"start round": g.StartRound(), "override": g.OverridePile(1, referee.Face{Colour: referee.Red, Number: 1}),
		"undo": g.Undo(), "enrol": g.EnrolBack("P1", "cubes"),
	} {
		if statusFor(err) != http.StatusNotImplemented {
			t.Errorf("%s: %v (%d), want 501", name, err, statusFor(err))
		}
	}
	if err := g.Stop("P1"); statusFor(err) != http.StatusConflict {
		t.Fatalf("stop before a match: %v", err)
	}
	bad := MatchSetup{Players: []referee.Player{{Name: "Ann", Back: "plain"}, {Name: "Ben", Back: "cubes"}}}
	v0 := g.State().Version
	if err := g.NewMatch(bad); statusFor(err) != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), "T1") {
		t.Fatalf("a match with a back for a frame: %v", err)
	}
	if g.State().Version != v0 {
		t.Fatal("a refused match changed the version")
	}
	if err := g.NewMatch(MatchSetup{Settings: referee.Settings{Target: 99, Rounds: 2}}); err != nil {
		t.Fatal(err)
	}
	st := g.State()
	if len(st.Players) != 2 || st.Players[1].Back != "double" || st.Tiles.Rounds != 2 || st.Phase != referee.PhaseBetween || st.Feed[0].Rule != "T6b" {
		t.Fatalf("match from the roster: %+v", st)
	}
	ok := MatchSetup{Players: []referee.Player{{Name: "Ann", Back: "dotted"}, {Name: "Ben", Back: "dashed"}}}
	if err := g.NewMatch(ok); err != nil {
		t.Fatal(err)
	}
	if st = g.State(); st.Tiles.Players[0].Frame != tiles.Dotted || st.Roster[1] != (referee.Player{Name: "Ben", Back: "dashed"}) || st.Tiles.Rounds != tiles.DefaultRounds {
		t.Fatalf("match with frames: %+v", st.Tiles)
	}
	if err := g.Stop("Ann"); statusFor(err) != http.StatusConflict {
		t.Fatalf("stop between rounds: %v", err)
	}
	layout := tiles.Layout{Cols: 3, Parts: tiles.DefaultParts[:6]}
	if _, err := g.Apply(tiles.Observation{Kind: tiles.ObsRound, Layout: &layout, Stones: []tiles.Field{{X: 1, Y: 1}, {X: 10, Y: 1}, {X: 1, Y: 6}, {X: 10, Y: 6}}}); err != nil {
		t.Fatal(err)
	}
	v0 = g.State().Version
	for _, p := range []string{"", "Cid"} {
		if err := g.Stop(p); statusFor(err) != http.StatusUnprocessableEntity {
			t.Fatalf("stop by %q: %v", p, err)
		}
	}
	if g.State().Version != v0 {
		t.Fatal("a refused stop changed the version")
	}
	// A stop with cards left is the caller's fault (T5a), and the round ends.
	if err := g.Stop("Ben"); err != nil {
		t.Fatal(err)
	}
	st = g.State()
	last := st.Feed[len(st.Feed)-1]
	if st.Phase != referee.PhaseCounting || st.StoppedBy != "Ben" || last.Status != referee.StatusViolation || last.Rule != "T5a" || last.Player != "Ben" || last.By != "operator" {
		t.Fatalf("after Ben's stop: phase %s, feed %+v", st.Phase, last)
	}
	if f := st.Tiles.Players[1].Faults; len(f) != 1 || f[0].Rule != tiles.T5a || *st.Tiles.Players[1].Points != 0 || *st.Players[1].Live != 0 {
		t.Fatalf("Ben: %+v", st.Tiles.Players[1])
	}
	if err := g.NoPlay(); statusFor(err) != http.StatusConflict {
		t.Fatalf("no play while counting: %v", err)
	}
}

// TestTilesGame_NoPlayRoute: POST /api/noplay ends a tile round (T6a);
// the classic game has no such call (501).
func TestTilesGame_NoPlayRoute(t *testing.T) {
	classic := newIdleServer(t, testConfig())
	if w := do(t, classic.Handler(), http.MethodPost, "/api/noplay", "", testToken, ""); w.Code != http.StatusNotImplemented {
		t.Fatalf("classic: %d %s", w.Code, w.Body)
	}
	g := NewTilesGame(tiles.New(), nil)
	s, err := New(testConfig(), newTestSource(64, 48, 5), g)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if w := do(t, s.Handler(), http.MethodPost, "/api/noplay", "", testToken, ""); w.Code != http.StatusConflict {
		t.Fatalf("before a match: %d %s", w.Code, w.Body)
	}
	// The match and round of a simulated one, then the call.
	_, err = tilesim.Run(tilesim.Config{Players: 2, Seed: 3, Rounds: 1}, func(e tilesim.Event) error {
		if e.Kind != tilesim.EvMatch && e.Kind != tilesim.EvRound {
			return errStopSim
		}
		for _, o := range e.Observations() {
			if _, err := g.Apply(o); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, errStopSim) {
		t.Fatal(err)
	}
	w := do(t, s.Handler(), http.MethodPost, "/api/noplay", "", testToken, "")
	if w.Code != http.StatusOK {
		t.Fatalf("no play: %d %s", w.Code, w.Body)
	}
	st := decodeState(t, w.Body.Bytes())
	if st.Phase != referee.PhaseCounting || !st.Deadlock || st.Feed[len(st.Feed)-1].Rule != "T6a" {
		t.Fatalf("after no play: %+v", st)
	}
	if w := do(t, s.Handler(), http.MethodPost, "/api/round", "", testToken, ""); w.Code != http.StatusNotImplemented {
		t.Fatalf("start a tile round: %d %s", w.Code, w.Body)
	}
	if w := do(t, s.Handler(), http.MethodPost, "/api/noplay", "", testToken, ""); w.Code != http.StatusConflict {
		t.Fatalf("no play twice: %d %s", w.Code, w.Body)
	}
}

var errStopSim = errors.New("enough of the simulation")

// TestTilesGame_JSON: the page's contract. The tile game's state says
// "game":"tiles" and carries "tiles" with its players' lines; the
// classic state has neither key, nor a feed item's "player".
func TestTilesGame_JSON(t *testing.T) {
	classic := NewRefereeGame(referee.New(), nil)
	playSomeGame(t, classic)
	b, err := json.Marshal(classic.State())
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"game", "tiles"} {
		if _, ok := raw[k]; ok {
			t.Errorf("the classic state has %q: %s", k, raw[k])
		}
	}
	if strings.Contains(string(raw["feed"]), `"player"`) {
		t.Errorf("the classic feed names players: %s", raw["feed"])
	}

	g := NewTilesGame(tiles.New(), nil)
	var atStop []byte
	playTiles(t, g, tilesim.Config{Players: 2, Seed: 5, Rounds: 1}, func(e tilesim.Event) {
		if e.Kind == tilesim.EvStop || e.Kind == tilesim.EvNoPlay {
			if atStop, err = json.Marshal(g.State()); err != nil {
				t.Fatal(err)
			}
		}
	})
	var doc struct {
		Game  string `json:"game"`
		Phase string `json:"phase"`
		Tiles struct {
			Rounds  int `json:"rounds"`
			Players []struct {
				Name   string          `json:"name"`
				Frame  string          `json:"frame"`
				Laid   *int            `json:"laid"`
				InPlay *int            `json:"in_play"`
				Points *int            `json:"points"`
				Total  *int            `json:"total"`
				Left   *int            `json:"cards_left"`
				Extra  json.RawMessage `json:"faults"`
			} `json:"players"`
			Stones []struct {
				At struct{ X, Y *int } `json:"at"`
			} `json:"stones"`
		} `json:"tiles"`
		Players []struct {
			Back string `json:"back"`
			Live *int   `json:"live"`
		} `json:"players"`
	}
	if err := json.Unmarshal(atStop, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Game != "tiles" || doc.Phase != "counting" || doc.Tiles.Rounds != 1 || len(doc.Tiles.Players) != 2 || len(doc.Tiles.Stones) != 4 {
		t.Fatalf("tile state at the stop: %s", atStop)
	}
	for i, p := range doc.Tiles.Players {
		if p.Frame != string(tiles.Frames[i]) || doc.Players[i].Back != p.Frame || p.Laid == nil || *p.Laid == 0 || p.InPlay == nil || *p.InPlay != 15 ||
			p.Points == nil || p.Total == nil || p.Left != nil || doc.Players[i].Live == nil || *doc.Players[i].Live != *p.Points {
			t.Fatalf("player %d at the stop: %s", i, atStop)
		}
		if doc.Tiles.Stones[i].At.X == nil || doc.Tiles.Stones[i].At.Y == nil {
			t.Fatalf("stone %d: %s", i, atStop)
		}
	}
}
