package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/stream"
)

// A rendered round shared by the tests that referee a recorded or
// streamed table: rendering takes longer than refereeing.
var (
	roundOnce sync.Once
	roundDir  string
	roundErr  error
)

// renderedRound simulates a 2-player round with bots erring 3% and
// renders it at 10 fps; it returns the folder with round.mkv and
// result.json. The files live until the test binary ends.
func renderedRound(t testing.TB) string {
	t.Helper()
	roundOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ligretto-round-")
		if err != nil {
			roundErr = err
			return
		}
		code, _, stderr := runCLI("simulate", "--players", "2", "--seed", "5", "--errors", "0.03", "--out", dir,
			"--render", filepath.Join(dir, "round.mkv"), "--fps", "10")
		if code != 0 {
			roundErr = fmt.Errorf("simulate: exit %d: %s", code, stderr)
		}
		roundDir = dir
	})
	if roundErr != nil {
		t.Fatal(roundErr)
	}
	return roundDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if roundDir != "" {
		os.RemoveAll(roundDir)
	}
	os.Exit(code)
}

// call is what a test compares of one refereed observation.
type call struct {
	Kind   referee.Kind
	TimeMS int64
	Pile   int
	Card   string
	Status referee.Status
	Rule   referee.Rule
}

func callOf(o referee.Observation, v referee.Verdict) call {
	c := call{Kind: o.Kind, TimeMS: o.TimeMS, Pile: o.Pile, Status: v.Status, Rule: v.Rule}
	if o.Card != nil {
		c.Card = o.Card.String()
	}
	return c
}

// TestServe_VideoRefereedAsByTheRefereeCommand: `serve --source round.mkv`
// (played 50 times faster than it was recorded) calls every observation
// of a rendered round as `ligretto referee` does on the same file (the
// same kinds, times, piles, cards, verdicts and rules, in order: its event
// log against referee's JSON lines), and its API gives the scores the
// simulator dealt (C14). Once the video has ended it still serves them.
func TestServe_VideoRefereedAsByTheRefereeCommand(t *testing.T) {
	dir := renderedRound(t)
	video := filepath.Join(dir, "round.mkv")
	var want sim.Result
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || json.Unmarshal(b, &want) != nil || len(want.Rounds) != 1 {
		t.Fatalf("result.json: %v", err)
	}

	code, stdout, stderr := runCLI("referee", "--source", video, "--players", "2", "--json")
	if code != 0 {
		t.Fatalf("referee: exit %d: %s", code, stderr)
	}
	var byReferee []call
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l refereeLine
		if strings.HasPrefix(sc.Text(), `{"obs"`) && json.Unmarshal(sc.Bytes(), &l) == nil && l.Verdict != nil {
			byReferee = append(byReferee, callOf(l.Obs, *l.Verdict))
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	const token = "video-test-operator-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	logPath := filepath.Join(t.TempDir(), "serve.jsonl")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--source", video, "--players", "2", "--speed", "50", "--addr", "127.0.0.1:0", "--udp-port", "0",
			"--token-file", tokenFile, "--log", logPath}, &out, &errs)
	}()
	base := servedAddress(t, &out)
	var st stream.GameState
	for deadline := time.Now().Add(3 * time.Minute); st.Match.Rounds < 1; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no round scored over the API: %+v\n%s", st, errs.String())
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
	for _, p := range st.Players {
		if w := want.Rounds[0].Players[p.Name].Score; p.Last == nil || *p.Last != w || p.Total != w {
			t.Errorf("%s: served score %v (total %d), the simulator's %d", p.Name, p.Last, p.Total, w)
		}
	}
	for deadline := time.Now().Add(time.Minute); !strings.Contains(errs.String(), "the source ended"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say the video ended:\n%s", errs.String())
		}
	}
	if res, err := http.Get(base + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("healthz after the video ended: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d:\n%s", code, errs.String())
	}

	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var byServe []call
	dec := json.NewDecoder(f)
	for {
		var e referee.Entry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("serve's log: %v", err)
		}
		byServe = append(byServe, callOf(e.Obs, e.Verdict))
	}
	if len(byServe) < 10 {
		t.Fatalf("serve's log holds %d entries", len(byServe))
	}
	if fmt.Sprint(byServe) != fmt.Sprint(byReferee) {
		t.Errorf("serve and referee called the video differently:\n serve   %v\n referee %v", byServe, byReferee)
	}
	violations := 0
	for _, c := range byServe {
		if c.Status == referee.StatusViolation {
			violations++
		}
	}
	t.Logf("%d observations refereed alike, %d violations called; scores %v", len(byServe), violations, want.Rounds[0].Players)
}

// servedAddress waits for serve to print the spectators' address.
func servedAddress(t testing.TB, out *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`spectators: (http://[0-9.:]+)/`)
	// the demo is made and its table calibrated first: slow under -race
	// and load
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", out.String())
		}
	}
}

// TestCalibrate_ThenRefereeWithTheFile: `ligretto calibrate` on a rendered
// round writes a calibration with both players' backs enrolled (saying
// each stage as it goes), and `ligretto referee --calibration` scores the
// round with it as the simulator did (C14).
func TestCalibrate_ThenRefereeWithTheFile(t *testing.T) {
	dir := renderedRound(t)
	video := filepath.Join(dir, "round.mkv")
	cal := filepath.Join(t.TempDir(), "calib.json")
	code, stdout, stderr := runCLI("calibrate", "--source", video, "--players", "2", "--out", cal)
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "2 seats") || !strings.Contains(stderr, "calibrate: waiting for player 2") {
		t.Errorf("calibrate said %q, progress %q", stdout, stderr)
	}
	code, stdout, stderr = runCLI("referee", "--source", video, "--calibration", cal, "--json")
	if code != 0 {
		t.Fatalf("referee: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var got referee.MatchResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || len(got.Rounds) != 1 {
		t.Fatalf("referee's result %q: %v", lines[len(lines)-1], err)
	}
	var want sim.Result
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || json.Unmarshal(b, &want) != nil {
		t.Fatalf("result.json: %v", err)
	}
	for name, p := range want.Rounds[0].Players {
		if got.Rounds[0].Players[name].Score != p.Score {
			t.Errorf("%s: %d with the calibration file, the simulator's %d", name, got.Rounds[0].Players[name].Score, p.Score)
		}
	}
}
