//go:build e2e

package main

// The tile game served end to end: a rendered tile round read from its
// video by `serve --game tiles`, watched over WHEP. scripts/test runs it
// without -race (the camera's reading is what it measures):
//
//	go test -tags e2e -count=1 -run TilesServe -v ./cmd/ligretto

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/stream"
	"ligretto/stream/whepclient"
)

// tilesServeSeed is the rendered round's seed: 28 cards, no wrong plays.
const tilesServeSeed = "601"

// The records this test must not fall below on that round: cards read by
// the camera, and legal cards called wrong. Both are at the target now:
// every card read, none called wrong, and so the round is scored.
const (
	tilesRecordReadPct = 100
	tilesRecordWrong   = 0
)

// TestTilesServe_VideoRefereedAndWatched: `ligretto tiles simulate
// --players 2 --seed 601 --rounds 1 --render v.mkv` (no wrong plays), then
// `serve --game tiles --source v.mkv`. A WHEP viewer gets the annotated
// picture and the tile game's state on the DataChannel, the same as
// /api/state once the video has ended. The camera reads the board; every
// card it reports is one the simulator laid (player and fields), each
// player's laid count on the scoreboard is the referee log's, and the
// cards read and the legal ones called wrong are no worse than the
// records. The round is scored, with result.json's scores.
func TestTilesServe_VideoRefereedAndWatched(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "v.mkv")
	code, _, stderr := runCLI("tiles", "simulate", "--players", "2", "--seed", tilesServeSeed, "--rounds", "1", "--out", dir, "--render", video)
	if code != 0 {
		t.Fatalf("tiles simulate: exit %d: %s", code, stderr)
	}
	var want tilesim.Result
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || json.Unmarshal(b, &want) != nil || len(want.Rounds) != 1 || len(want.Injected) != 0 {
		t.Fatalf("result.json: %v (%d rounds, %d wrong plays)", err, len(want.Rounds), len(want.Injected))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	const token = "tiles-serve-operator-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	logPath := filepath.Join(t.TempDir(), "serve.jsonl")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs lockedBuffer
	done := make(chan int, 1)
	start := time.Now()
	go func() {
		done <- run([]string{"serve", "--game", "tiles", "--source", video, "--players", "2", "--speed", "50", "--addr", "127.0.0.1:0",
			"--udp-port", "0", "--token-file", tokenFile, "--log", logPath}, &out, &errs)
	}()
	base := servedAddress(t, &out)

	var mu sync.Mutex
	var dcState json.RawMessage
	var tilesStates int
	jctx, jcancel := context.WithTimeout(ctx, 20*time.Second)
	defer jcancel()
	viewer, err := whepclient.Dial(jctx, base+"/whep", whepclient.Options{LoopbackOnly: true, OnState: func(m json.RawMessage) {
		var st stream.GameState
		if json.Unmarshal(m, &st) == nil && st.Game == stream.GameTiles {
			mu.Lock()
			dcState, tilesStates = m, tilesStates+1
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer viewer.Close()

	for deadline := time.Now().Add(5 * time.Minute); !strings.Contains(errs.String(), "the source ended"); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not finish the video:\n%s", errs.String())
		}
	}
	took := time.Since(start)
	apiState := func() (stream.GameState, []byte) {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/state", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var raw json.RawMessage
		var st stream.GameState
		if err := json.NewDecoder(res.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &st) != nil {
			t.Fatalf("/api/state: %v", err)
		}
		return st, raw
	}
	st, _ := apiState()
	// The viewer hears every change: its newest state is the API's.
	var dc stream.GameState
	for deadline := time.Now().Add(10 * time.Second); dc.Version != st.Version; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the DataChannel's state is version %d, the API's %d", dc.Version, st.Version)
		}
		mu.Lock()
		if dcState != nil {
			_ = json.Unmarshal(dcState, &dc)
		}
		mu.Unlock()
	}
	stats := viewer.Stats()
	if stats.FramesReceived < 10 || tilesStates < 2 {
		t.Fatalf("the viewer got %d frames and %d tile states", stats.FramesReceived, tilesStates)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d:\n%s", code, errs.String())
	}

	// The cards laid, from the timeline: a card is its player and fields.
	cardKey := func(player string, fs []tiles.Field) string {
		if len(fs) == 2 && (fs[1].Y < fs[0].Y || fs[1].Y == fs[0].Y && fs[1].X < fs[0].X) {
			fs = []tiles.Field{fs[1], fs[0]}
		}
		return player + fmt.Sprint(fs)
	}
	tl, err := os.ReadFile(filepath.Join(dir, "timeline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(tl)), "\n") {
		var e tilesim.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.Kind == tilesim.EvLay {
			truth[cardKey(e.Player, e.Fields)] = true
		}
	}

	// What the referee was told and said, from serve's log.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	laid := map[string]int{}
	var wrong []string
	sawRound := false
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		e, err := tiles.DecodeEntry([]byte(line))
		if err != nil {
			t.Fatalf("serve's log: %v: %s", err, line)
		}
		switch e.Obs.Kind {
		case tiles.ObsRound:
			sawRound = true
		case tiles.ObsLay:
			if !truth[cardKey(e.Obs.Player, e.Obs.Fields)] {
				t.Errorf("a card the simulator did not lay: %s on %v", e.Obs.Player, e.Obs.Fields)
			}
			if e.Verdict.Status != tiles.StatusLate {
				laid[e.Obs.Player]++
			}
		}
		if e.Verdict.Status == tiles.StatusViolation {
			wrong = append(wrong, string(e.Verdict.Rule))
		}
	}
	if !sawRound || st.Round != 1 || st.Tiles == nil || len(st.Tiles.Players) != 2 {
		t.Fatalf("no round seen: round %d, tiles %+v", st.Round, st.Tiles)
	}
	read, made := 0, 0
	for _, p := range st.Tiles.Players {
		w := want.Rounds[0].Players[p.Name]
		read, made = read+laid[p.Name], made+w.Laid
		if p.Laid != laid[p.Name] || p.Laid > w.Laid {
			t.Errorf("%s: %d laid on the scoreboard, %d in the log, %d in truth", p.Name, p.Laid, laid[p.Name], w.Laid)
		}
	}
	t.Logf("%d of %d cards read (%.0f%%), %d legal ones called wrong %v, in %.0f s; %d frames and %d tile states over WHEP; phase %s, rounds scored %d",
		read, made, 100*float64(read)/float64(made), len(wrong), wrong, took.Seconds(), stats.FramesReceived, tilesStates, st.Phase, st.Match.Rounds)
	if read*100 < made*tilesRecordReadPct {
		t.Errorf("%d of %d cards read: below the record of %d%%", read, made, tilesRecordReadPct)
	}
	if len(wrong) > tilesRecordWrong {
		t.Errorf("%d legal cards called wrong: worse than the record of %d", len(wrong), tilesRecordWrong)
	}
	if st.Match.Rounds != 1 || st.Phase != "between_rounds" {
		t.Fatalf("the round was not scored: phase %s, %d rounds scored", st.Phase, st.Match.Rounds)
	}
	for _, p := range st.Tiles.Players {
		w := want.Rounds[0].Players[p.Name]
		if p.Points == nil || *p.Points != w.Points || p.Total != want.Totals[p.Name] {
			t.Errorf("%s: served %v points (total %d), result.json's %d (total %d)", p.Name, p.Points, p.Total, w.Points, want.Totals[p.Name])
		}
	}
}

// TestTilesServe_Demo: `serve --game tiles --source demo --players 2`
// (5 times faster than the table) opens the demo's match, its camera
// finds the board and the round begins, and cards are judged: the state
// shows the tile game with cards laid and calls with their rules.
func TestTilesServe_Demo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	const token = "tiles-demo-operator-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--game", "tiles", "--source", "demo", "--players", "2", "--speed", "5", "--addr", "127.0.0.1:0",
			"--udp-port", "0", "--token-file", tokenFile}, &out, &errs)
	}()
	base := servedAddress(t, &out)
	var st stream.GameState
	laid := func() int {
		n := 0
		if st.Tiles != nil {
			for _, p := range st.Tiles.Players {
				n += p.Laid
			}
		}
		return n
	}
	for deadline := time.Now().Add(3 * time.Minute); st.Round < 1 || laid() < 3; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the demo's round did not get going: round %d, %d cards laid\n%s", st.Round, laid(), errs.String())
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/api/state", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	ruled := 0
	for _, f := range st.Feed {
		if f.Rule != "" {
			ruled++
		}
	}
	t.Logf("round %d, phase %s, %d cards laid, %d calls (%d with a rule)", st.Round, st.Phase, laid(), len(st.Feed), ruled)
	if st.Game != stream.GameTiles || ruled == 0 || !strings.Contains(errs.String(), "tile demo match begins") {
		t.Fatalf("game %q, %d calls with a rule", st.Game, ruled)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d:\n%s", code, errs.String())
	}
}
