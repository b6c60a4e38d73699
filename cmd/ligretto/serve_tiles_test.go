package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestServe_TilesBadArguments: --game takes classic or tiles; with tiles
// the classic flags (a calibration file, the card networks) and more
// than 4 players are usage errors (T1: 2 to 4), and --rounds is the
// tile game's only. A source that cannot be opened fails as with classic.
func TestServe_TilesBadArguments(t *testing.T) {
	video := filepath.Join(t.TempDir(), "v.mkv")
	for _, c := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"serve", "--game", "chess"}, 2, `--game "chess": want classic or tiles`},
		{[]string{"serve", "--game", "tiles", "--calibration", "c.json"}, 2, "--calibration: classic Ligretto's only"},
		{[]string{"serve", "--game", "tiles", "--source", video, "--calibration", "c.json"}, 2, "--calibration: classic Ligretto's only"},
		{[]string{"serve", "--game", "tiles", "--source", video, "--weights", "w.bin", "--second", "none"}, 2, "--weights, --second: classic Ligretto's only"},
		{[]string{"serve", "--game", "tiles", "--source", video, "--players", "5"}, 2, "--players 5: the tile game is for 2 to 4 (T1)"},
		{[]string{"serve", "--game", "tiles", "--source", video, "--rounds", "-1"}, 2, "--rounds -1 is negative"},
		{[]string{"serve", "--rounds", "3"}, 2, "--rounds is for --game tiles"},
		{[]string{"serve", "--game", "tiles", "--source", video, "--udp-port", "0", "--addr", "127.0.0.1:0"}, 1, "no such file, folder or camera"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.want || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, want %d saying %q: %s", c.args, code, c.want, c.says, stderr)
		}
	}
}
