package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// A short round renders to a video that reads back with as many frames as
// the clip says, in .mkv and in .avi, with its timing beside it.
func TestRenderVideo_FrameCount(t *testing.T) {
	var evs []sim.Event
	if _, err := sim.Run(sim.Config{Players: 2, Seed: 8, Rounds: 1}, func(e sim.Event) error {
		evs = append(evs, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cfg := scene.DefaultConfig()
	cfg.Width, cfg.Height = 320, 180
	for _, ext := range []string{".mkv", ".avi"} {
		path := filepath.Join(t.TempDir(), "round"+ext)
		info, err := renderVideo(evs, path, 5, 8, cfg, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		end := evs[len(evs)-1].TimeMS
		if want := info.PreambleFrames + int(end*5/1000) + 1; info.Frames != want {
			t.Errorf("%s: %d frames, want %d", ext, info.Frames, want)
		}
		vc, err := gocv.VideoCaptureFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img := gocv.NewMat()
		n := 0
		for vc.Read(&img) && !img.Empty() {
			if img.Cols() != 320 || img.Rows() != 180 {
				t.Fatalf("%s: frame %d is %dx%d", ext, n, img.Cols(), img.Rows())
			}
			n++
		}
		img.Close()
		vc.Close()
		if n != info.Frames {
			t.Errorf("%s: read back %d frames, wrote %d", ext, n, info.Frames)
		}
		var side struct {
			FPS            float64 `json:"fps"`
			PreambleFrames int     `json:"preamble_frames"`
			Frames         int     `json:"frames"`
		}
		b, err := os.ReadFile(path + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &side); err != nil || side.Frames != info.Frames || side.FPS != 5 || side.PreambleFrames != info.PreambleFrames {
			t.Errorf("%s.json: %s (%v)", ext, b, err)
		}
	}
	if _, err := renderVideo(evs, filepath.Join(t.TempDir(), "x.mp3"), 5, 8, cfg, io.Discard); err == nil {
		t.Error("an .mp3 file was accepted")
	}
	if _, err := renderVideo(evs, filepath.Join(t.TempDir(), "missing", "x.mkv"), 5, 8, cfg, io.Discard); err == nil {
		t.Error("a video in a missing directory was accepted")
	}
}

// simulate --render writes the video next to the timeline and says so.
func TestSimulate_Render(t *testing.T) {
	dir := t.TempDir()
	video := filepath.Join(dir, "match.mkv")
	code, stdout, stderr := runCLI("simulate", "--players", "3", "--seed", "2", "--out", dir, "--render", video, "--fps", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "rendered") || !strings.Contains(stderr, "render: ") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	if st, err := os.Stat(video); err != nil || st.Size() == 0 {
		t.Errorf("video: %v", err)
	}
	if code, _, stderr := runCLI("simulate", "--out", dir, "--render", video, "--fps", "0"); code != 1 || !strings.Contains(stderr, "--fps") {
		t.Errorf("--fps 0: exit %d, %q", code, stderr)
	}
}
