package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"ligretto/model"
	"ligretto/model/plot"
	"ligretto/model/training"
	"ligretto/referee"
)

func init() {
	register(command{name: "model", summary: "measure the card classifier: 'model eval' (synthetic), 'model photos' (real photos)", run: runModel})
}

func runModel(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "eval" && args[0] != "photos" && args[0] != "temperature") {
		fmt.Fprintln(stderr, "Usage: ligretto model eval --seed S | --seeds LIST --n N [--faces-only] [--json] [--misread FILE.png] [--reliability FILE.png] [--weights FILE] [--second FILE|none] [--gorgonia]\n"+
			"       ligretto model photos --dir DIR [--json] [--all] [--reliability FILE.png] [--shots 1,2,5 [--shot-seeds 1-10]] [--weights FILE] [--second FILE|none]\n"+
			"       ligretto model temperature --seed S --n N [--weights FILE] [--second FILE|none] [--out FILE]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return errUsage
	}
	switch args[0] {
	case "photos":
		return runModelPhotos(args[1:], stdout, stderr)
	case "temperature":
		return runModelTemperature(args[1:], stdout, stderr)
	}
	return runModelEval(args[1:], stdout, stderr)
}

// evalFunc scores a predictor on n fresh crops of a seed.
type evalFunc func(p model.Predictor, seed uint64, n int, progress func(done, total int)) (training.Report, error)

func runModelEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model eval", "--seed S | --seeds LIST --n N [--faces-only] [--json] [--misread FILE.png] [--reliability FILE.png] [--weights FILE] [--second FILE|none] [--gorgonia]", stderr)
	seed := fs.Uint64("seed", 7, "seed of the fresh crops (training used --seed and --seed+1000003)")
	seedList := fs.String("seeds", "", "several seeds, each scored on its own, then summed up: a list of seeds and ranges (2001-2040,7,99)")
	n := fs.Int("n", 10000, "crops to render and classify (per seed)")
	facesOnly := fs.Bool("faces-only", false, "score the faces alone (the same faces, about 20 times sooner; no back figures)")
	printed := fs.Float64("printed", 0, "with --faces-only: the share of faces drawn in the real Ligretto print's style (1: all)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	nets := networkFlags(fs)
	useGorgonia := fs.Bool("gorgonia", false, "classify with the gorgonia graph instead of the fast path")
	misreadPNG := fs.String("misread", "", "write the faces read as another card to this PNG, each captioned with its seed, truth, reading and confidence")
	reliabilityPNG := fs.String("reliability", "", "write the reliability diagram of the faces' confidences (all seeds), before and after temperatures, to this PNG")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *misreadPNG != "" && filepath.Ext(*misreadPNG) != ".png" {
		return fmt.Errorf("--misread %q: want a .png file", *misreadPNG)
	}
	if *reliabilityPNG != "" && filepath.Ext(*reliabilityPNG) != ".png" {
		return fmt.Errorf("--reliability %q: want a .png file", *reliabilityPNG)
	}
	if *n < 2 {
		return fmt.Errorf("--n %d: evaluate at least 2 crops", *n)
	}
	seeds := []uint64{*seed}
	if *seedList != "" {
		var err error
		if seeds, err = parseSeeds(*seedList); err != nil {
			return fmt.Errorf("--seeds: %w", err)
		}
	}
	_, p, err := predictor(nets, *useGorgonia)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintf(stderr, "classifier: %v\n", nets)
	evaluate, err := chooseEval(*facesOnly, *printed)
	if err != nil {
		return err
	}
	reps, err := evalSeeds(evaluate, p, seeds, *n, *asJSON, stdout, stderr)
	if err != nil {
		return err
	}
	if *misreadPNG != "" {
		if err := writeMisread(*misreadPNG, seeds, reps); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "misread faces: %s\n", *misreadPNG)
	}
	var readings []training.Reading
	for _, r := range reps {
		readings = append(readings, r.Readings...)
	}
	calib := training.Calibrate(readings)
	if *reliabilityPNG != "" {
		if err := writeReliability(*reliabilityPNG, fmt.Sprintf("face confidence, %d synthetic faces (seeds %s); ECE", calib.N, seedsText(*seedList, seeds)), readings); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "reliability diagram: %s\n", *reliabilityPNG)
	}
	if !*asJSON {
		printCalibration(stdout, calib)
	}
	return printEvalResult(stdout, seeds, reps, calib, *seedList != "", *asJSON)
}

// chooseEval is the evaluation --faces-only and --printed ask for.
func chooseEval(facesOnly bool, printed float64) (evalFunc, error) {
	evaluate := training.Evaluate
	if facesOnly {
		evaluate = training.EvaluateFaces
	}
	if printed != 0 {
		if !facesOnly || printed < 0 || printed > 1 {
			return nil, fmt.Errorf("--printed %g: want a share in 0..1, with --faces-only", printed)
		}
		share := printed
		evaluate = func(p model.Predictor, seed uint64, n int, progress func(done, total int)) (training.Report, error) {
			return training.EvaluatePrintedFaces(p, seed, n, share, progress)
		}
	}
	return evaluate, nil
}

// evalSeeds scores p on n crops of each seed, with a progress bar; as
// text, each seed's report is printed as it comes.
func evalSeeds(evaluate evalFunc, p model.Predictor, seeds []uint64, n int, asJSON bool, stdout, stderr io.Writer) ([]training.Report, error) {
	var reps []training.Report
	for _, s := range seeds {
		bar := newProgress(stderr, fmt.Sprintf("eval seed %d", s), n)
		rep, err := evaluate(p, s, n, func(done, total int) { bar.update(done, "") })
		bar.done()
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", s, err)
		}
		reps = append(reps, rep)
		if !asJSON {
			printReport(stdout, s, rep)
		}
	}
	return reps, nil
}

// printEvalResult prints what model eval prints last: the one seed's
// report as JSON, or the summary of several seeds (as JSON, with each
// seed's report).
func printEvalResult(stdout io.Writer, seeds []uint64, reps []training.Report, calib training.Calibration, several, asJSON bool) error {
	if !several {
		if asJSON {
			m := reportJSON(seeds[0], reps[0])
			m["calibration"] = calib
			return json.NewEncoder(stdout).Encode(m)
		}
		return nil
	}
	sum := training.Summarise(reps)
	if asJSON {
		out := map[string]any{"summary": sum, "calibration": calib}
		var rs []map[string]any
		for i, r := range reps {
			rs = append(rs, reportJSON(seeds[i], r))
		}
		out["reports"] = rs
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "%d seeds: card %.5f (%d errors in %d faces), worst seed %.6f, %d seed(s) under %.1f%%; side under %.1f%% on %d\n",
		sum.Seeds, sum.Card, sum.CardErrors, sum.Faces, sum.WorstCard, sum.CardUnder, 100*training.CardTarget, 100*training.SideTarget, sum.SideUnder)
	if sum.BackSeeds > 0 {
		fmt.Fprintf(stdout, "backs: unseen designs mean %.4f, worst %.4f; %d seed(s) under %.1f%% (seen or unseen designs)\n",
			sum.MeanUnseen, sum.WorstUnseen, sum.BackUnder, 100*training.BackTarget)
	}
	return nil
}

// reportJSON is one seed's report as model eval prints it; the back
// figures only where backs were scored.
func reportJSON(seed uint64, rep training.Report) map[string]any {
	m := map[string]any{"n": rep.N, "seed": seed, "side": rep.Side, "colour": rep.Colour,
		"number": rep.Number, "card": rep.Card, "illegible": rep.Illegible, "faces": rep.Faces, "card_errors": rep.CardErrors}
	if rep.Backs > 0 {
		m["back"], m["back_unseen"] = rep.Back, rep.BackUnseen
	}
	return m
}

func printReport(w io.Writer, seed uint64, rep training.Report) {
	fmt.Fprintf(w, "%d crops (seed %d): side %.4f  colour %.4f  number %.4f  card %.6f (%d errors in %d faces; %d with both numerals hidden not scored)",
		rep.N, seed, rep.Side, rep.Colour, rep.Number, rep.Card, rep.CardErrors, rep.Faces, rep.Illegible)
	if rep.Backs > 0 {
		fmt.Fprintf(w, "  back %.4f  back (unseen designs) %.4f", rep.Back, rep.BackUnseen)
	}
	fmt.Fprintln(w)
}

// parseSeeds reads a list of seeds and ranges: "2001-2040,7,99".
func parseSeeds(s string) ([]uint64, error) {
	var seeds []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is no seed or range of seeds (want 7 or 2001-2040)", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("%q is no range of seeds (want 2001-2040)", part)
			}
		}
		if b-a >= maxEvalSeeds || len(seeds)+int(b-a) >= maxEvalSeeds {
			return nil, fmt.Errorf("more than %d seeds", maxEvalSeeds)
		}
		for v := a; v <= b; v++ {
			seeds = append(seeds, v)
		}
	}
	return seeds, nil
}

// maxEvalSeeds bounds --seeds, so that a typo (1-100000) is an error, not a week's work.
const maxEvalSeeds = 1000

func runModelPhotos(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model photos", "--dir DIR [--json] [--all] [--reliability FILE.png] [--shots 1,2,5 [--shot-seeds 1-10]] [--weights FILE] [--second FILE|none]", stderr)
	dir := fs.String("dir", "../shared/data/uno-photos", "folder of labelled photos (images/, labels/, data.yaml)")
	all := fs.Bool("all", false, "score every photo, not only the held-out half")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	reliabilityPNG := fs.String("reliability", "", "write the reliability diagram of the photos' confidences, before and after temperatures, to this PNG")
	shots := fs.String("shots", "", "learn the held-out half's deck from this many shots a card (a list: 1,2,5) and score the rest, before and after")
	shotsTune := fs.Bool("shots-tune-half", false, "with --shots: draw and score on the fine-tuning half (seen in training) instead, to choose settings on")
	shotSeeds := fs.String("shot-seeds", "1-10", "with --shots: the seeds of the shot draws (a list of seeds and ranges)")
	deck := deckTuning{
		layer: fs.String("deck-layer", string(model.DefaultDeckLayer), "with --shots: the layer prototypes are made of (hidden, conv, pooled)"),
		scale: fs.Float64("deck-scale", model.DefaultDeckScale, "with --shots: the prototypes' cosine scale (1/temperature)"),
		floor: fs.Float64("deck-floor", model.DefaultDeckFloor, "with --shots: the share of the network's probability spread evenly before the product"),
	}
	nets := networkFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *shots != "" {
		return runDeckShots(*dir, *shots, *shotSeeds, *shotsTune, deck, nets, stdout, stderr)
	}
	if *reliabilityPNG != "" && filepath.Ext(*reliabilityPNG) != ".png" {
		return fmt.Errorf("--reliability %q: want a .png file", *reliabilityPNG)
	}
	w, p, err := predictor(nets, false)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintf(stderr, "classifier: %v\n", nets)
	tune, held, err := loadPhotos(*dir, w.Config)
	if err != nil {
		return err
	}
	crops, which := held, "held-out half (never used in training)"
	if *all {
		crops, which = append(held, tune...), "all photos (half of them were used in training)"
	}
	rep, err := training.EvaluatePhotos(p, crops)
	if err != nil {
		return err
	}
	// A photo's face is scored on the number cards (number_n of them);
	// colour on every card.
	calib := training.Calibrate(rep.Readings)
	if *reliabilityPNG != "" {
		if err := writeReliability(*reliabilityPNG, fmt.Sprintf("real photos, %s; ECE", strings.SplitN(which, " (", 2)[0]), rep.Readings); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "reliability diagram: %s\n", *reliabilityPNG)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"set": which, "n": rep.N, "colour": rep.Colour, "number_n": rep.NumberN, "number": rep.Number, "calibration": calib})
	}
	fmt.Fprintf(stdout, "%s: %d crops, colour %.4f; %d with a number 1-9, number %.4f\n", which, rep.N, rep.Colour, rep.NumberN, rep.Number)
	printCalibration(stdout, calib)
	return nil
}

// networks is the classifier's weights as the commands take them: the
// network's, and a second network's, asked about the faces the first is
// unsure of (model.SecondOpinion).
type networks struct{ weights, second *string }

// networkFlags adds --weights and --second to fs.
func networkFlags(fs *flag.FlagSet) networks {
	return networks{
		weights: fs.String("weights", "", "classifier weights (default: the embedded weights)"),
		second: fs.String("second", "", "weights of a second network (or a comma-separated list of networks), asked about the faces the first is unsure of; "+
			"\"none\" for none (default: the embedded second network with the embedded weights, none with --weights)"),
	}
}

// String says which networks the flags choose, for the commands' logs.
func (n networks) String() string {
	first := "the embedded weights"
	if *n.weights != "" {
		first = *n.weights
	}
	switch {
	case *n.second == "none":
		return first
	case *n.second != "":
		return first + ", with a second opinion from " + *n.second
	case *n.weights == "":
		return first + ", with the embedded second network's opinion"
	}
	return first
}

// predictor loads the weights (the embedded ones by default) and makes a
// classifier over them, with a second network's opinion on unsure faces:
// the one --second names, or with the embedded weights the embedded second
// network. Side and back embeddings are always the first network's.
func predictor(n networks, useGorgonia bool) (*model.Weights, model.Predictor, error) {
	w, err := loadWeights(*n.weights)
	if err != nil {
		return nil, nil, err
	}
	var others []*model.Weights
	switch {
	case *n.second == "none":
	case *n.second != "":
		for _, path := range strings.Split(*n.second, ",") {
			o, err := loadWeights(path)
			if err != nil {
				return nil, nil, fmt.Errorf("second opinion: %w", err)
			}
			others = append(others, o)
		}
	case *n.weights == "":
		o, err := model.DefaultSecond()
		if err != nil {
			return nil, nil, fmt.Errorf("second opinion: %w", err)
		}
		others = append(others, o)
	}
	first, err := newPredictor(w, useGorgonia)
	if err != nil {
		return nil, nil, err
	}
	if len(others) == 0 {
		return w, first, nil
	}
	preds := []model.Predictor{first}
	fail := func(err error) (*model.Weights, model.Predictor, error) {
		for _, p := range preds {
			p.Close()
		}
		return nil, nil, fmt.Errorf("second opinion: %w", err)
	}
	for _, o := range others {
		p, err := newPredictor(o, useGorgonia)
		if err != nil {
			return fail(err)
		}
		preds = append(preds, p)
	}
	pair, err := model.NewSecondOpinion(first, preds[1])
	if err != nil {
		return fail(err)
	}
	for _, p := range preds[2:] {
		if err := pair.Add(p); err != nil {
			return fail(err)
		}
	}
	return w, pair, nil
}

// loadWeights reads the weights file at path, or the embedded ones when
// path is "", and warns when it has no temperatures: its confidences are
// then the network's own, uncalibrated, and the sure/unsure threshold
// (model.SureAt) means less.
func loadWeights(path string) (*model.Weights, error) {
	if path == "" {
		return model.Default()
	}
	w, err := model.LoadWeights(path)
	if err == nil && w.Temperatures.IsZero() {
		fmt.Fprintf(os.Stderr, "ligretto: warning: %s has no temperatures (no entry of its SHA-256 in the %s beside it or in the committed one): its confidences are uncalibrated; fit them with 'ligretto model temperature'\n",
			path, model.TemperatureFileName)
	}
	return w, err
}

func newPredictor(w *model.Weights, useGorgonia bool) (model.Predictor, error) {
	if useGorgonia {
		return training.NewClassifier(w, 32)
	}
	return model.NewFast(w)
}

// writeMisread draws every seed's misread faces on one contact sheet,
// each captioned "seed: truth as reading, confidence" (Y10 as Y9 43%).
func writeMisread(path string, seeds []uint64, reps []training.Report) error {
	var tiles []image.Image
	var captions []string
	short := func(f referee.Face) string {
		return fmt.Sprintf("%s%d", strings.ToUpper(f.Colour.String()[:1]), f.Number)
	}
	for i, rep := range reps {
		for _, m := range rep.Misread {
			tiles = append(tiles, m.Crop)
			captions = append(captions, fmt.Sprintf("%d: %s as %s %.0f%%", seeds[i], short(m.Truth), short(m.Read), 100*m.Sure))
		}
	}
	title := fmt.Sprintf("%d faces read as another card", len(tiles))
	if len(tiles) == 0 {
		title = "no face read as another card"
	}
	return savePNG(path, plot.Sheet(title, tiles, captions, 8, 3))
}

// seedsText is the seeds as the command was given them.
func seedsText(list string, seeds []uint64) string {
	if list != "" {
		return list
	}
	return fmt.Sprint(seeds[0])
}
