package main

import (
	"encoding/json"
	"fmt"
	"io"

	"ligretto/model"
	"ligretto/model/training"
)

func init() {
	register(command{name: "model", summary: "measure the card classifier: 'model eval' (synthetic), 'model photos' (real photos)", run: runModel})
}

func runModel(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "eval" && args[0] != "photos") {
		fmt.Fprintln(stderr, "Usage: ligretto model eval --seed S --n N [--json] [--weights FILE] [--gorgonia]\n       ligretto model photos --dir DIR [--json] [--all] [--weights FILE]")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return errUsage
	}
	if args[0] == "photos" {
		return runModelPhotos(args[1:], stdout, stderr)
	}
	fs := newFlags("model eval", "--seed S --n N [--json] [--weights FILE] [--gorgonia]", stderr)
	seed := fs.Uint64("seed", 7, "seed of the fresh crops (training used --seed and --seed+1000003)")
	n := fs.Int("n", 10000, "crops to render and classify")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	weights := fs.String("weights", "", "weights file (default: the embedded weights)")
	useGorgonia := fs.Bool("gorgonia", false, "classify with the gorgonia graph instead of the fast path")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *n < 2 {
		return fmt.Errorf("--n %d: evaluate at least 2 crops", *n)
	}
	w, p, err := predictor(*weights, *useGorgonia)
	if err != nil {
		return err
	}
	defer p.Close()
	bar := newProgress(stderr, "eval", *n)
	rep, err := training.Evaluate(p, w.Config, *seed, *n, func(done, total int) { bar.update(done, "") })
	bar.done()
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"n": rep.N, "seed": *seed, "side": rep.Side, "colour": rep.Colour,
			"number": rep.Number, "card": rep.Card, "illegible": rep.Illegible, "back": rep.Back, "back_unseen": rep.BackUnseen})
	}
	fmt.Fprintf(stdout, "%d crops (seed %d): side %.4f  colour %.4f  number %.4f  card %.4f (%d faces with both numerals hidden not scored)  back %.4f  back (unseen designs) %.4f\n",
		rep.N, *seed, rep.Side, rep.Colour, rep.Number, rep.Card, rep.Illegible, rep.Back, rep.BackUnseen)
	return nil
}

func runModelPhotos(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model photos", "--dir DIR [--json] [--all] [--weights FILE]", stderr)
	dir := fs.String("dir", "../shared/data/uno-photos", "folder of labelled photos (images/, labels/, data.yaml)")
	all := fs.Bool("all", false, "score every photo, not only the held-out half")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	weights := fs.String("weights", "", "weights file (default: the embedded weights)")
	if err := parse(fs, args); err != nil {
		return err
	}
	w, p, err := predictor(*weights, false)
	if err != nil {
		return err
	}
	defer p.Close()
	tune, held, err := loadPhotos(*dir, w.Config)
	if err != nil {
		return err
	}
	crops, which := held, "held-out half (never used in training)"
	if *all {
		crops, which = append(held, tune...), "all photos (half of them were used in training)"
	}
	rep, err := training.EvaluatePhotos(p, w.Config, crops)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"set": which, "n": rep.N, "colour": rep.Colour, "number_n": rep.NumberN, "number": rep.Number})
	}
	fmt.Fprintf(stdout, "%s: %d crops, colour %.4f; %d with a number 1-9, number %.4f\n", which, rep.N, rep.Colour, rep.NumberN, rep.Number)
	return nil
}

// predictor loads weights (the embedded ones when path is "") and makes a
// classifier over them.
func predictor(path string, useGorgonia bool) (*model.Weights, model.Predictor, error) {
	var w *model.Weights
	var err error
	if path == "" {
		w, err = model.Default()
	} else {
		w, err = model.LoadWeights(path)
	}
	if err != nil {
		return nil, nil, err
	}
	var p model.Predictor
	if useGorgonia {
		p, err = model.NewClassifier(w, 32)
	} else {
		p, err = model.NewFast(w)
	}
	if err != nil {
		return nil, nil, err
	}
	return w, p, nil
}
