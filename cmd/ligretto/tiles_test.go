package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
)

// TestTiles_SimulateWritesTimelineResultAndLog: for 2, 3 and 4 players the
// command writes a result.json in the documented shape whose totals add
// up its rounds' points, a timeline the full model replays, and a referee
// log that replays to the same totals.
func TestTiles_SimulateWritesTimelineResultAndLog(t *testing.T) {
	for n := 2; n <= 4; n++ {
		dir := t.TempDir()
		code, stdout, stderr := runCLI("tiles", "simulate", "--players", fmt.Sprint(n), "--seed", fmt.Sprint(40+n), "--rounds", "3", "--errors", "0.02", "--board", "random", "--out", dir)
		if code != 0 {
			t.Fatalf("%d players: exit %d: %s", n, code, stderr)
		}
		if !strings.Contains(stdout, "3 round(s)") {
			t.Fatalf("summary: %s", stdout)
		}
		var res struct {
			Players []string `json:"players"`
			Rounds  []struct {
				StoppedBy *string  `json:"stopped_by"`
				Deadlock  bool     `json:"deadlock"`
				Winners   []string `json:"winners"`
				Players   map[string]struct {
					Laid      *int `json:"laid"`
					CardsLeft *int `json:"cards_left"`
					Points    *int `json:"points"`
				} `json:"players"`
			} `json:"rounds"`
			Totals   map[string]int `json:"totals"`
			Winner   *string        `json:"winner"`
			Seed     uint64         `json:"seed"`
			Injected []struct {
				Rule string `json:"rule"`
			} `json:"injected"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Players) != n || len(res.Rounds) != 3 || res.Seed != uint64(40+n) {
			t.Fatalf("%d players: result %s", n, b)
		}
		sum := map[string]int{}
		for i, r := range res.Rounds {
			if (r.StoppedBy == nil) != r.Deadlock || len(r.Players) != n {
				t.Fatalf("round %d: stopped by %v, deadlock %v, %d players", i+1, r.StoppedBy, r.Deadlock, len(r.Players))
			}
			for name, p := range r.Players {
				if p.Laid == nil || p.CardsLeft == nil || p.Points == nil {
					t.Fatalf("round %d %s: fields missing in %s", i+1, name, b)
				}
				sum[name] += *p.Points
			}
		}
		for name, total := range res.Totals {
			if sum[name] != total {
				t.Fatalf("%s: total %d, rounds add up to %d", name, total, sum[name])
			}
		}
		replayTimeline(t, filepath.Join(dir, "timeline.jsonl"))
		lf, err := os.Open(filepath.Join(dir, "referee.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		ref, warns, err := tiles.Replay(lf)
		lf.Close()
		if err != nil || len(warns) > 0 {
			t.Fatalf("referee log: %v %v", err, warns)
		}
		if m := ref.Match(); m == nil || fmt.Sprint(m.Totals) != fmt.Sprint(res.Totals) {
			t.Fatalf("the replayed log's totals %v, result.json's %v", m, res.Totals)
		}
	}
}

func replayTimeline(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rp tilesim.Replayer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var e tilesim.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("timeline line %d: %v", lines, err)
		}
		if err := rp.Apply(e); err != nil {
			t.Fatalf("timeline line %d: %v", lines, err)
		}
	}
	if err := sc.Err(); err != nil || lines < 50 {
		t.Fatalf("timeline: %d lines, %v", lines, err)
	}
}

func TestTiles_SimulateBadArgumentsExit2(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--players", "3"}, "--out DIR is required"},
		{[]string{"--players", "5", "--out", t.TempDir()}, "2 to 4"},
		{[]string{"--players", "1", "--out", t.TempDir()}, "2 to 4"},
		{[]string{"--errors", "1.5", "--out", t.TempDir()}, "within 0..1"},
		{[]string{"--rounds", "0", "--out", t.TempDir()}, "want at least 1"},
		{[]string{"--board", "hex", "--out", t.TempDir()}, "default or random"},
		{[]string{"--render", "x.mp3", "--out", t.TempDir()}, "want a .mkv or .avi file"},
		{[]string{"--render", filepath.Join(t.TempDir(), "missing", "x.mkv"), "--out", t.TempDir()}, "no such directory"},
		{[]string{"--out", t.TempDir(), "extra"}, `unexpected argument "extra"`},
		{[]string{"--seed", "minus-one", "--out", t.TempDir()}, "invalid value"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(append([]string{"tiles", "simulate"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.msg)
		}
	}
	if code, _, stderr := runCLI("tiles", "fly"); code != 2 || !strings.Contains(stderr, `unknown command "fly"`) {
		t.Errorf("tiles fly: exit %d, %q", code, stderr)
	}
}

func TestTiles_UsageWithoutSubcommand(t *testing.T) {
	code, stdout, _ := runCLI("tiles")
	if code != 0 || !strings.Contains(stdout, "simulate") || !strings.Contains(stdout, "referee") || strings.Contains(stdout, "Not yet") {
		t.Fatalf("ligretto tiles: exit %d, %q", code, stdout)
	}
	if code, _, stderr := runCLI("tiles", "simulate", "-h"); code != 0 || !strings.Contains(stderr, "--players") || !strings.Contains(stderr, "--render DIR2/video.mkv") {
		t.Fatalf("tiles simulate -h: exit %d, %q", code, stderr)
	}
	if code, stdout, _ := runCLI("help"); code != 0 || !strings.Contains(stdout, "tiles") {
		t.Fatalf("help does not list tiles: %q", stdout)
	}
}

// TestTiles_SimulateRender: tiles simulate --render writes a video of the
// right number of 1280x720 frames (decoded with gocv), its timing and a
// truth.jsonl with one line per timeline event, each event's frame at or
// after its time. The video may go into --out's directory before that
// exists.
func TestTiles_SimulateRender(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "match")
	video := filepath.Join(dir, "video.mkv")
	code, stdout, stderr := runCLI("tiles", "simulate", "--players", "2", "--seed", "5", "--rounds", "1", "--out", dir, "--render", video, "--fps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "rendered") || !strings.Contains(stderr, "render: ") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	var info struct {
		FPS            float64 `json:"fps"`
		PreambleFrames int     `json:"preamble_frames"`
		Frames         int     `json:"frames"`
		Width, Height  int
	}
	b, err := os.ReadFile(video + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &info); err != nil || info.FPS != 2 || info.PreambleFrames != 4 || info.Width != 1280 || info.Height != 720 {
		t.Fatalf("video.json: %s (%v)", b, err)
	}
	var events []tilesim.Event
	readLines(t, filepath.Join(dir, "timeline.jsonl"), func(line []byte) {
		var e tilesim.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	})
	end := events[len(events)-1].TimeMS
	if want := info.PreambleFrames + int(end*2/1000) + 1; info.Frames != want {
		t.Errorf("%d frames, want %d", info.Frames, want)
	}
	vc, err := gocv.VideoCaptureFile(video)
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMat()
	n := 0
	for vc.Read(&img) && !img.Empty() {
		if img.Cols() != 1280 || img.Rows() != 720 {
			t.Fatalf("frame %d is %dx%d", n, img.Cols(), img.Rows())
		}
		n++
	}
	img.Close()
	vc.Close()
	if n != info.Frames {
		t.Errorf("read back %d frames, wrote %d", n, info.Frames)
	}
	k := 0
	readLines(t, filepath.Join(dir, "truth.jsonl"), func(line []byte) {
		var et struct {
			Event   int    `json:"event"`
			TimeMS  int64  `json:"t_ms"`
			Kind    string `json:"kind"`
			Frame   int    `json:"frame"`
			FrameMS int64  `json:"frame_t_ms"`
		}
		if err := json.Unmarshal(line, &et); err != nil {
			t.Fatal(err)
		}
		if et.Event != k || et.TimeMS != events[k].TimeMS || et.Kind != string(events[k].Kind) {
			t.Errorf("truth line %d: %s", k, line)
		}
		if et.Kind == "lay" && (et.Frame < info.PreambleFrames || et.FrameMS < et.TimeMS || et.Frame >= info.Frames) {
			t.Errorf("truth line %d: a lay shown before it happened or never: %s", k, line)
		}
		k++
	})
	if k != len(events) {
		t.Errorf("truth.jsonl has %d lines for %d events", k, len(events))
	}
	if code, _, stderr := runCLI("tiles", "simulate", "--out", dir, "--render", video, "--fps", "0"); code != 2 || !strings.Contains(stderr, "--fps") {
		t.Errorf("--fps 0: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("tiles", "simulate", "--out", dir, "--render", filepath.Join(dir, "v.mp3")); code == 0 || !strings.Contains(stderr, ".mkv") {
		t.Errorf("an .mp3: exit %d, %q", code, stderr)
	}
}

func readLines(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
