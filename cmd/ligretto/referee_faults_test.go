package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ligretto/referee"
)

// A video that breaks off mid-round (a copy cut short) is refereed up to
// the break: the command says the round was not scored, and the referee
// log it wrote replays to the state it had, so nothing seen is lost.
func TestReferee_VideoCutShortKeepsWhatWasSeen(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "round.mkv")
	// 10 fps keeps the test short; calibration and tracking work at it.
	code, _, stderr := runCLI("simulate", "--players", "2", "--seed", "5", "--out", dir, "--render", video, "--fps", "10")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mkv")
	if err := os.WriteFile(cut, b[:len(b)*55/100], 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "camera-referee.jsonl") // simulate wrote referee.jsonl
	code, stdout, stderr := runCLI("referee", "--source", cut, "--players", "2", "--json", "--log", logPath)
	if code != 0 {
		t.Fatalf("referee on a cut video: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "ended during round 1") || !strings.Contains(stderr, logPath) {
		t.Errorf("stderr does not say the round was cut short: %q", stderr)
	}
	applied, piles := 0, map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var l refereeLine
		if json.Unmarshal([]byte(line), &l) != nil || l.Verdict == nil {
			continue
		}
		applied++
		if l.Obs.Kind == referee.ObsPileNew {
			piles[l.Obs.Pile] = true
		}
	}
	if len(piles) == 0 {
		t.Fatalf("no pile was seen before the cut:\n%s", stdout)
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref, warns, err := referee.Replay(f)
	if err != nil || len(warns) > 0 {
		t.Fatalf("replay the log: %v %v", err, warns)
	}
	st := ref.State()
	if st.Phase != referee.PhasePlaying || len(st.Piles) != len(piles) {
		t.Errorf("replayed state: phase %s, %d piles; the command saw %d piles in %d observations", st.Phase, len(st.Piles), len(piles), applied)
	}
	// An existing log is never overwritten.
	code, _, stderr = runCLI("referee", "--source", cut, "--players", "2", "--log", logPath)
	if code == 0 || !strings.Contains(stderr, "referee log") {
		t.Errorf("an existing log was accepted: exit %d, %q", code, stderr)
	}
}
