package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ligretto/referee/tiles"
	ttable "ligretto/table/tiles"
)

// TestTilesReferee_BadArgumentsExit2: bad flags are usage errors (exit 2)
// with a message: players outside 2-4 (T1), names or styles that do not
// fit the players, a frame style twice (T1), rounds below 1 (T6b).
func TestTilesReferee_BadArgumentsExit2(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--players", "2"}, "--source SRC is required"},
		{[]string{"--source", "x.mkv"}, "want 2 to 4"},
		{[]string{"--source", "x.mkv", "--players", "5"}, "want 2 to 4"},
		{[]string{"--source", "x.mkv", "--players", "2", "--names", "Ann"}, "1 names for 2 players"},
		{[]string{"--source", "x.mkv", "--players", "2", "--names", "Ann,Ann"}, `two players named "Ann"`},
		{[]string{"--source", "x.mkv", "--players", "3", "--styles", "plain,double"}, "2 frame styles for 3 players"},
		{[]string{"--source", "x.mkv", "--players", "2", "--styles", "plain,plain"}, "no two the same"},
		{[]string{"--source", "x.mkv", "--players", "2", "--styles", "plain,wavy"}, `frame "wavy"`},
		{[]string{"--source", "x.mkv", "--players", "2", "--rounds", "0"}, "want at least 1"},
		{[]string{"--source", "x.mkv", "--players", "2", "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(append([]string{"tiles", "referee"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
}

// TestTilesReferee_MissingOrCorruptVideo: a source that is not there or
// not a video fails (exit 1) saying which and why; no result is written.
func TestTilesReferee_MissingOrCorruptVideo(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.mkv")
	if err := os.WriteFile(corrupt, []byte(strings.Repeat("not a video ", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "result.json")
	for _, c := range []struct{ src, msg string }{
		{filepath.Join(dir, "missing.mkv"), "no such file"},
		{corrupt, "corrupt.mkv"},
	} {
		code, _, stderr := runCLI("tiles", "referee", "--source", c.src, "--players", "2", "--out", out)
		if code != 1 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q", c.src, code, stderr, c.msg)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a result was written for a broken source: %v", err)
	}
}

// TestTilesReferee_ReadsARenderedRound: a rendered round (2 players, no
// wrong plays, 2 frames a second) refereed with no flags but the source
// and the players: the board is found and the round begins (T1: 6 parts
// for 2 players), every JSON line parses, and the result names the
// simulator's players and frame styles and counts the cards judged and
// the wrong plays called as the lines do. (How right the calls are is
// the e2e test's: TestTilesReferee_ScoresRenderedMatches.)
func TestTilesReferee_ReadsARenderedRound(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "video.mkv")
	if code, _, stderr := runCLI("tiles", "simulate", "--players", "2", "--seed", "3", "--rounds", "1", "--out", dir, "--render", video, "--fps", "2"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "referee.json")
	code, stdout, stderr := runCLI("tiles", "referee", "--source", video, "--players", "2", "--rounds", "1", "--json", "--out", out)
	if code != 0 {
		t.Fatalf("referee: exit %d: %s", code, stderr)
	}
	var rounds, lays, called int
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line tilesLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch {
		case line.Obs.Kind == tiles.ObsRound && line.Verdict != nil:
			rounds++
		case line.Obs.Kind == tiles.ObsLay && line.Verdict != nil:
			lays++
		}
		if line.Verdict != nil && line.Verdict.Status == tiles.StatusViolation {
			called++
		}
	}
	if rounds != 1 || lays == 0 {
		t.Fatalf("%d rounds began and %d cards were judged, want 1 and some:\n%s", rounds, lays, stdout)
	}
	var res tilesRefereeResult
	if err := readJSON(out, &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Players, ",") != "P1,P2" || res.Frames["P2"] != tiles.Double || res.Lays != lays || len(res.Called) != called {
		t.Errorf("result: players %v frames %v lays %d (want %d) called %d (want %d)", res.Players, res.Frames, res.Lays, lays, len(res.Called), called)
	}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// TestTilesReferee_T5_CallOnACardLaidForNobodyNamesItsOwnerOnceKnown: a
// wrong card whose frame was not read is called for nobody; when its
// owner is read or inferred later (the referee moves the fault to them),
// the call in the result names them too. A call on another card stays
// as it was.
func TestTilesReferee_T5_CallOnACardLaidForNobodyNamesItsOwnerOnceKnown(t *testing.T) {
	f := func(x, y int) tiles.Field { return tiles.Field{X: x, Y: y} }
	var out strings.Builder
	p := &tilesPrinter{out: &out, ref: tiles.New()}
	wrong := func(seq int, fs ...tiles.Field) ttable.Verdict {
		return ttable.Verdict{Obs: tiles.Observation{Kind: tiles.ObsLay, Fields: fs},
			Verdict: tiles.Verdict{Seq: seq, Status: tiles.StatusViolation, Rule: tiles.T2d, Reason: "an unread frame's card meets a stone at a corner alone"}}
	}
	p.print(wrong(1, f(6, 9), f(6, 10)))
	p.print(wrong(2, f(2, 2), f(2, 3)))
	p.print(ttable.Verdict{Obs: tiles.Observation{Kind: tiles.ObsOwner, Player: "P1", Fields: []tiles.Field{f(6, 10), f(6, 9)}},
		Verdict: tiles.Verdict{Seq: 3, Status: tiles.StatusInfo, Player: "P1", Reason: "the card at (6,10)-(6,9), laid for nobody, is P1's"}})
	if len(p.called) != 2 || p.called[0].Player != "P1" || p.called[1].Player != "" {
		t.Errorf("calls %+v: want the first named P1, the second for nobody", p.called)
	}
}
