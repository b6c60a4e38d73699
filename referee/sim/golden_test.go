package sim_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ligretto/referee"
	"ligretto/referee/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden_SeededRound pins one seeded round (3 players, advanced, with
// blunders) to a golden timeline and result, so that any change in dealing,
// bots or rules shows up as a readable diff. Refresh with -update.
func TestGolden_SeededRound(t *testing.T) {
	var timeline bytes.Buffer
	enc := json.NewEncoder(&timeline)
	res, err := sim.Run(sim.Config{Players: 3, Seed: 42, Advanced: true, ErrorRate: 0.03, Deadlock: referee.DeadlockRestart},
		func(e sim.Event) error { return enc.Encode(e) })
	if err != nil {
		t.Fatal(err)
	}
	result, _ := json.MarshalIndent(res, "", "  ")
	golden(t, "round_seed42.timeline.jsonl", timeline.Bytes())
	golden(t, "round_seed42.result.json", append(result, '\n'))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from line %d:\n- want: %s\n+ got:  %s\n(rerun with -update if the change is intended)", path, i+1, w, g)
			}
		}
	}
}
