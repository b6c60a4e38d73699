package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/vision/aruco"
)

// TestMarkers_SheetIsDetectable: the printable sheet holds markers 0-3 that
// OpenCV's ArUco detector finds.
func TestMarkers_SheetIsDetectable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "markers.png")
	if code, _, stderr := runCLI("markers", "--out", out, "--dpi", "100"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	img := gocv.IMRead(out, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		t.Fatal("no readable PNG written")
	}
	found, err := aruco.Detect(img)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, d := range found {
		ids = append(ids, d.ID)
	}
	sort.Ints(ids)
	if len(ids) != 4 || ids[0] != 0 || ids[3] != 3 {
		t.Fatalf("detected ids %v, want 0 1 2 3", ids)
	}
}

// TestVisionCommands_BadInput: missing sources and broken calibration files
// are clear errors that say what is wrong.
func TestVisionCommands_BadInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "calib.json")
	if err := os.WriteFile(broken, []byte(`{"version": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	frames := filepath.Join(dir, "frames")
	if err := os.Mkdir(frames, 0o755); err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMatWithSize(72, 128, gocv.MatTypeCV8UC3)
	gocv.IMWrite(filepath.Join(frames, "0001.png"), img)
	img.Close()
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"calibrate", "--source", filepath.Join(dir, "nope.mkv"), "--players", "4", "--out", filepath.Join(dir, "c.json")}, "nope.mkv"},
		{[]string{"referee", "--source", frames, "--calibration", broken}, "version"},
		{[]string{"referee", "--source", frames, "--calibration", filepath.Join(dir, "missing.json")}, "missing.json"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code == 0 || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want a failure naming %q", c.args, code, stderr, c.msg)
		}
	}
}
