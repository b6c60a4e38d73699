package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ligretto/model"
	"ligretto/model/training"
	"ligretto/referee"
	"ligretto/referee/sim"
)

func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestSimulate_WritesFilesForEveryPlayerCount: for 2..12 players the
// command writes a timeline, a result.json in the documented shape and a
// referee log that `replay` rebuilds to the same totals.
func TestSimulate_WritesFilesForEveryPlayerCount(t *testing.T) {
	for n := 2; n <= 12; n++ {
		dir := t.TempDir()
		code, stdout, stderr := runCLI("simulate", "--players", fmt.Sprint(n), "--seed", fmt.Sprint(100+n), "--rounds", "2", "--out", dir)
		if code != 0 {
			t.Fatalf("%d players: exit %d: %s", n, code, stderr)
		}
		if !strings.Contains(stdout, "2 round(s)") {
			t.Fatalf("summary: %s", stdout)
		}
		var res struct {
			Players []string `json:"players"`
			Rounds  []struct {
				StoppedBy *string `json:"stopped_by"`
				Deadlock  bool    `json:"deadlock"`
				Piles     []struct {
					Colour string `json:"colour"`
					Top    int    `json:"top"`
				} `json:"piles"`
				Players map[string]struct{ Centre, StackLeft, Score *int } `json:"players"`
			} `json:"rounds"`
			Totals map[string]int `json:"totals"`
			Winner *string        `json:"winner"`
		}
		b, err := os.ReadFile(filepath.Join(dir, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Players) != n || len(res.Rounds) != 2 || len(res.Totals) != n {
			t.Fatalf("%d players: result %s", n, b)
		}
		for _, r := range res.Rounds {
			if (r.StoppedBy == nil) != r.Deadlock || len(r.Players) != n {
				t.Fatalf("round %+v", r)
			}
			for _, p := range r.Piles {
				if _, err := referee.ParseColour(p.Colour); err != nil || p.Top < 1 || p.Top > 10 {
					t.Fatalf("pile %+v", p)
				}
			}
		}
		checkTimeline(t, filepath.Join(dir, "timeline.jsonl"))
		code, stdout, stderr = runCLI("replay", "--json", filepath.Join(dir, "referee.jsonl"))
		if code != 0 {
			t.Fatalf("replay: %s", stderr)
		}
		var st referee.State
		if err := json.Unmarshal([]byte(stdout), &st); err != nil {
			t.Fatal(err)
		}
		for name, total := range res.Totals {
			if st.Match.Totals[name] != total {
				t.Fatalf("replayed total of %s: %d, result.json %d", name, st.Match.Totals[name], total)
			}
		}
	}
}

func checkTimeline(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rp sim.Replayer
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var e sim.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("timeline line %d: %v", i+1, err)
		}
		if err := rp.Apply(e); err != nil {
			t.Fatalf("timeline line %d: %v", i+1, err)
		}
	}
}

func TestCLI_Errors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fly"}, 2, `unknown command "fly"`},
		{[]string{"simulate", "--players", "4"}, 2, "--out DIR is required"},
		{[]string{"simulate", "--players", "13", "--out", t.TempDir()}, 1, "2 to 12"},
		{[]string{"simulate", "--deadlock", "sulk", "--out", t.TempDir()}, 1, "leader or restart"},
		{[]string{"simulate", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"replay", "/nonexistent/log.jsonl"}, 1, "open referee log"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.msg)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"seq\":1,\"obs\":{\"kind\":\"match\"},\"verdict\":{}}\nnonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("replay", bad); code != 1 || !strings.Contains(stderr, "line") {
		t.Errorf("a broken log: exit %d, %q", code, stderr)
	}
}

func TestHelp_ListsCommands(t *testing.T) {
	code, out, _ := runCLI("help")
	if code != 0 || !strings.Contains(out, "simulate") || !strings.Contains(out, "replay") {
		t.Fatalf("help: %d %s", code, out)
	}
	if code, _, stderr := runCLI("simulate", "-h"); code != 0 || !strings.Contains(stderr, "--players") {
		t.Fatalf("simulate -h: %d %s", code, stderr)
	}
}

func TestModelEval_JSON(t *testing.T) {
	code, stdout, stderr := runCLI("model", "eval", "--seed", "99", "--n", "64", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// By default the embedded network reads with the embedded second one.
	if !strings.Contains(stderr, "classifier: the embedded weights, with the embedded second network's opinion") {
		t.Errorf("the default classifier is not named as the embedded pair: %q", stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"side", "colour", "number", "card", "back"} {
		if v, ok := rep[k].(float64); !ok || v < 0.5 || v > 1 {
			t.Errorf("%s = %v (the committed weights read far better than chance)", k, v)
		}
	}
	if code, _, _ := runCLI("model", "eval", "--weights", "/nonexistent.weights"); code != 1 {
		t.Errorf("a missing weights file: exit %d", code)
	}
	if code, _, stderr := runCLI("model", "eval", "--second", "/nonexistent.weights"); code != 1 || !strings.Contains(stderr, "second opinion") {
		t.Errorf("a missing second weights file: exit %d, %q", code, stderr)
	}
	// A second network (the committed one again: any weights of the same
	// crop size) is asked about unsure faces; a malformed file is refused.
	second := filepath.Join("..", "..", "model", "weights", "card.weights")
	if code, stdout, stderr := runCLI("model", "eval", "--seed", "99", "--n", "64", "--second", second, "--json"); code != 0 || !strings.Contains(stdout, `"card"`) {
		t.Errorf("--second %s: exit %d, %q", second, code, stderr)
	}
	for args, want := range map[string]string{
		"--second none":       "classifier: the embedded weights\n",
		"--weights " + second: "classifier: " + second + "\n",
		"--weights " + second + " --second " + second: "classifier: " + second + ", with a second opinion from " + second + "\n",
	} {
		argv := append([]string{"model", "eval", "--seed", "99", "--n", "64"}, strings.Fields(args)...)
		if code, _, stderr := runCLI(argv...); code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, %q, want %q", args, code, stderr, want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.weights")
	if err := os.WriteFile(bad, []byte("no weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("model", "eval", "--n", "64", "--second", bad); code != 1 || !strings.Contains(stderr, "second opinion") {
		t.Errorf("a corrupt second weights file: exit %d, %q", code, stderr)
	}
}

// model eval --seeds scores each seed of a list on its own and sums them
// up; --faces-only leaves the back figures out; a list that is no list of
// seeds is refused before anything is rendered.
func TestModelEval_SeedsFacesOnly(t *testing.T) {
	code, stdout, stderr := runCLI("model", "eval", "--seeds", "3-4,9", "--n", "64", "--faces-only", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Summary training.Summary
		Reports []map[string]any
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Reports) != 3 || out.Summary.Seeds != 3 || out.Summary.BackSeeds != 0 {
		t.Fatalf("%d reports, summary %+v: want 3 seeds, no backs", len(out.Reports), out.Summary)
	}
	faces := 0
	for i, want := range []float64{3, 4, 9} {
		r := out.Reports[i]
		if r["seed"] != want {
			t.Errorf("report %d is of seed %v, want %v", i, r["seed"], want)
		}
		if _, ok := r["back_unseen"]; ok {
			t.Errorf("seed %v: a back figure with --faces-only", want)
		}
		faces += int(r["faces"].(float64))
	}
	if out.Summary.Faces != faces || faces < 90 {
		t.Errorf("summary of %d faces, the reports' %d (want about 96)", out.Summary.Faces, faces)
	}
	for _, bad := range []string{"5-3", "x", "1-5000", "7,"} {
		if code, _, stderr := runCLI("model", "eval", "--seeds", bad, "--n", "64"); code == 0 || !strings.Contains(stderr, "--seeds") {
			t.Errorf("--seeds %q: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestIdentify_RealPhotoAndMissingFile: in a real photo of a blue UNO 9 the
// one card is found around its labelled corner index; a missing file is
// reported and does not stop the rest. (A whole UNO face, white border and
// oval, is no Ligretto face: what the classifier makes of it is not
// asserted. Reading real colours is measured on the labelled index crops,
// `ligretto model photos` and vision/find's RealPhotos test.)
func TestIdentify_RealPhotoAndMissingFile(t *testing.T) {
	photo := "../../../shared/data/uno-photos/images/03c661af-b9.jpg"
	index := image.Pt(222, 109) // the labelled index box's centre (labels/03c661af-b9.txt, 640x640)
	png := filepath.Join(t.TempDir(), "out.png")
	code, stdout, stderr := runCLI("identify", "--json", "--annotate", png, photo, "/nonexistent/card.jpg")
	if code != 1 || !strings.Contains(stderr, "1 of 2 image(s) could not be read") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one JSON line per image, got %q", stdout)
	}
	var first struct {
		Image string `json:"image"`
		Cards []struct {
			Corners    []struct{ X, Y int }
			Side       string
			Confidence float64
		} `json:"cards"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Image != photo || len(first.Cards) != 1 || len(first.Cards[0].Corners) != 4 {
		t.Fatalf("read %+v", first)
	}
	c := first.Cards[0]
	box := image.Rect(c.Corners[0].X, c.Corners[0].Y, c.Corners[0].X+1, c.Corners[0].Y+1)
	for _, p := range c.Corners[1:] {
		box = box.Union(image.Rect(p.X, p.Y, p.X+1, p.Y+1))
	}
	if !index.In(box) || box.Dx() < 200 || box.Dy() < 300 {
		t.Errorf("card found at %v: want the whole card around the index at %v", box, index)
	}
	if (c.Side != "face" && c.Side != "back") || !(c.Confidence > 0 && c.Confidence <= 1) {
		t.Errorf("side %q, confidence %v", c.Side, c.Confidence)
	}
	if _, err := os.Stat(png); err != nil {
		t.Fatalf("no annotated image: %v", err)
	}
}

// TestTrain_FromWeights: `train --from` goes on from saved weights (their
// architecture, a few real steps: the weights change) and refuses an
// architecture flag that contradicts them, or a file that is no weights.
func TestTrain_FromWeights(t *testing.T) {
	from := filepath.Join("..", "..", "model", "weights", "card.weights")
	out := t.TempDir()
	code, _, stderr := runCLI("train", "--from", from, "--seed", "3", "--steps", "3", "--learn-rate", "1e-4", "--colour-weights", "1,1,1,2", "--face-share", "0.7", "--replay", "2", "--eval-n", "16", "--snapshot-at", "1,3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The snapshot after the last step is the run's own weights; the one
	// after the first step is not.
	last, err := os.ReadFile(filepath.Join(out, "card-3.weights"))
	if err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(out, "card-1.weights"))
	if err != nil {
		t.Fatal(err)
	}
	final, err := os.ReadFile(filepath.Join(out, "card.weights"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(last, final) || bytes.Equal(first, final) {
		t.Errorf("snapshot after step 3 equals the weights: %v (want true); after step 1: %v (want false)", bytes.Equal(last, final), bytes.Equal(first, final))
	}
	before, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(out, "card.weights"))
	if err != nil {
		t.Fatal(err)
	}
	if len(after) < len(before)/2 || bytes.Equal(before, after) {
		t.Errorf("weights after 3 steps: %d bytes, equal to the start: %v", len(after), bytes.Equal(before, after))
	}
	var rep struct {
		From          string    `json:"from"`
		ColourWeights []float64 `json:"colour_weights"`
		FaceShare     float64   `json:"face_share"`
		Replay        int       `json:"replay"`
		Config        struct {
			Hidden    int     `json:"hidden"`
			LearnRate float64 `json:"learn_rate"`
		} `json:"config"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.From != from || rep.Config.LearnRate != 1e-4 || rep.Config.Hidden != 96 || len(rep.ColourWeights) != 4 || rep.ColourWeights[3] != 2 {
		t.Errorf("report: from %q, learn rate %g, hidden %d, colour weights %v", rep.From, rep.Config.LearnRate, rep.Config.Hidden, rep.ColourWeights)
	}
	if rep.FaceShare != 0.7 || rep.Replay != 2 {
		t.Errorf("report: face share %g, replay %d; want 0.7 and 2", rep.FaceShare, rep.Replay)
	}
	for _, bad := range [][]string{{"--face-share", "1"}, {"--replay", "32"}, {"--replay", "-1"}, {"--snapshot-at", "0"}, {"--snapshot-at", "7000"}, {"--snapshot-at", "5,x"}} {
		dir := filepath.Join(t.TempDir(), "out")
		code, _, stderr := runCLI("train", bad[0], bad[1], "--out", dir)
		if code != 1 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%s %s: exit %d, %q", bad[0], bad[1], code, stderr)
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s %s: the output directory was made (%v)", bad[0], bad[1], err)
		}
	}
	if code, _, stderr := runCLI("train", "--colour-weights", "1,1,2", "--out", t.TempDir()); code != 1 || !strings.Contains(stderr, "--colour-weights") {
		t.Errorf("three colour weights: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("train", "--from", from, "--hidden", "50", "--out", t.TempDir()); code != 1 || !strings.Contains(stderr, "--hidden 50") {
		t.Errorf("a contradicting --hidden: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("train", "--from", filepath.Join(out, "report.json"), "--out", t.TempDir()); code != 1 || !strings.Contains(stderr, "report.json") {
		t.Errorf("no weights file: exit %d, %q", code, stderr)
	}
}

// model eval --misread draws the faces read as another card: an untrained
// network misreads most faces, so the sheet holds many tiles; a name that
// is no PNG is refused before anything is rendered.
func TestModelEval_MisreadSheet(t *testing.T) {
	dir := t.TempDir()
	w, err := model.NewWeights(model.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	untrained := filepath.Join(dir, "untrained.weights")
	if err := w.Save(untrained); err != nil {
		t.Fatal(err)
	}
	sheet := filepath.Join(dir, "misread.png")
	code, stdout, stderr := runCLI("model", "eval", "--weights", untrained, "--seed", "3", "--n", "64", "--faces-only", "--misread", sheet)
	if code != 0 || !strings.Contains(stderr, "misread faces: "+sheet) {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	f, err := os.Open(sheet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the sheet is no PNG: %v", err)
	}
	// At least a row of 8 tiles, each 3 times the crop's width.
	if cfg := model.DefaultConfig(); img.Bounds().Dx() < 8*3*cfg.Width || img.Bounds().Dy() < 3*cfg.Height {
		t.Errorf("sheet %v for an untrained network's many misread faces (%s)", img.Bounds(), stdout)
	}
	if code, _, stderr := runCLI("model", "eval", "--n", "64", "--misread", filepath.Join(dir, "x.jpg")); code == 0 || !strings.Contains(stderr, "--misread") {
		t.Errorf("--misread x.jpg: exit %d, %q", code, stderr)
	}
}

// model temperature fits both committed networks and writes a file that
// pins each by its SHA-256; model eval reports the calibration before and
// after, and draws the reliability diagram.
func TestModelTemperature_WritesPinnedFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "temperature.json")
	code, stdout, stderr := runCLI("model", "temperature", "--seed", "5151", "--n", "64", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := model.ParseTemperatureFile(b)
	if err != nil {
		t.Fatal(err)
	}
	first, second := model.EmbeddedWeightsFiles()
	if len(f.Networks) != 2 || f.Seed != 5151 || f.Networks[0].SHA256 != model.WeightsSHA256(first) || f.Networks[1].SHA256 != model.WeightsSHA256(second) {
		t.Errorf("%+v: want both committed networks, pinned by their hashes", f)
	}
	if !strings.Contains(stdout, "card.weights colour T") {
		t.Errorf("stdout %q does not give the temperatures", stdout)
	}
	png := filepath.Join(dir, "rel.png")
	code, stdout, stderr = runCLI("model", "eval", "--seed", "99", "--n", "64", "--faces-only", "--reliability", png)
	if code != 0 || !strings.Contains(stdout, "calibration (32 faces; ECE, 15 bins") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	if st, err := os.Stat(png); err != nil || st.Size() == 0 {
		t.Errorf("reliability diagram: %v", err)
	}
}
