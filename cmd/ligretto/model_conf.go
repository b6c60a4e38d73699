package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ligretto/model"
	"ligretto/model/plot"
	"ligretto/model/training"
)

// runModelTemperature fits the temperatures of the networks and writes
// them to the temperatures file (model.TemperatureFile).
func runModelTemperature(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model temperature", "--seed S --n N [--weights FILE] [--second FILE[,FILE...]|none] [--out FILE]", stderr)
	seed := fs.Uint64("seed", 5151, "seed of the crops the temperatures are fitted on: one neither training (2, 3) nor the figures (docs/model.md) use")
	n := fs.Int("n", 40000, "crops to render (half faces, half backs)")
	out := fs.String("out", filepath.Join("model", "weights", model.TemperatureFileName), "temperatures file to write")
	nets := networkFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 2 {
		return fmt.Errorf("--n %d: fit on at least 2 crops", *n)
	}
	outGiven := false
	fs.Visit(func(f *flag.Flag) { outGiven = outGiven || f.Name == "out" })
	if (*nets.weights != "" || *nets.second != "") && !outGiven {
		// The committed file must name the embedded weights, or every
		// command refuses them: other weights' temperatures go elsewhere.
		return fmt.Errorf("--weights or --second: give --out too (the default, %s, is the embedded weights' file)", *out)
	}
	type network struct {
		name string // as the file names it: the name the weights have in model/weights
		w    *model.Weights
		sum  string
	}
	var list []network
	add := func(name, path string, embedded func() (*model.Weights, error), raw []byte) error {
		var w *model.Weights
		var err error
		if path == "" {
			w, err = embedded()
		} else {
			if raw, err = os.ReadFile(path); err != nil {
				return err
			}
			w, err = model.DecodeWeights(raw)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		list = append(list, network{name, w, model.WeightsSHA256(raw)})
		return nil
	}
	firstRaw, secondRaw := model.EmbeddedWeightsFiles()
	if err := add("card.weights", *nets.weights, model.Default, firstRaw); err != nil {
		return err
	}
	switch {
	case *nets.second == "none":
	case *nets.second != "":
		for i, path := range strings.Split(*nets.second, ",") {
			name := "second.weights"
			if i > 0 {
				name = fmt.Sprintf("second-%d.weights", i+1)
			}
			if err := add(name, path, nil, nil); err != nil {
				return err
			}
		}
	case *nets.weights == "":
		if err := add("second.weights", "", model.DefaultSecond, secondRaw); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "fitting temperatures on %d crops of seed %d: %v\n", *n, *seed, nets)
	crops, err := training.LabelledCrops(list[0].w.Config, *seed, *n)
	if err != nil {
		return err
	}
	f := model.TemperatureFile{Version: model.TemperatureVersion, Seed: *seed, N: *n}
	for _, nw := range list {
		fit, err := model.FitTemperatures(nw.w, crops)
		if err != nil {
			return fmt.Errorf("%s: %w", nw.name, err)
		}
		f.Networks = append(f.Networks, model.TemperatureEntry{Weights: nw.name, SHA256: nw.sum, Side: fit.Side, Colour: fit.Colour, Number: fit.Number})
		for _, h := range []struct {
			head string
			fit  model.HeadFit
		}{{"side", fit.Side}, {"colour", fit.Colour}, {"number", fit.Number}} {
			fmt.Fprintf(stdout, "%s %-6s T %.3f  NLL %.5f -> %.5f (%d crops)\n", nw.name, h.head, h.fit.T, h.fit.NLLBefore, h.fit.NLLAfter, h.fit.N)
		}
	}
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "temperatures: %s\n", *out)
	return nil
}

// printCalibration says how well the readings' confidences are
// calibrated, without temperatures and with them.
func printCalibration(w io.Writer, c training.Calibration) {
	fmt.Fprintf(w, "calibration (%d faces; ECE, %d bins; before -> after temperatures): colour %.2f%% -> %.2f%%, number %.2f%% -> %.2f%%, face %.2f%% -> %.2f%%; sure misreads (face >= %.2f) %d -> %d\n",
		c.N, training.ECEBins, 100*c.ColourBefore, 100*c.ColourAfter, 100*c.NumberBefore, 100*c.NumberAfter,
		100*c.FaceBefore, 100*c.FaceAfter, model.SureAt, c.SureMisreadsBefore, c.SureMisreadsAfter)
}

// writeReliability draws the face reading's reliability diagram before
// and after temperatures, and the colour's and number's after.
func writeReliability(path, title string, rs []training.Reading) error {
	var series []plot.Series
	for _, s := range []struct {
		name string
		head training.Head
		raw  bool
	}{{"face, raw", training.HeadFace, true}, {"face", training.HeadFace, false}, {"colour", training.HeadColour, false}, {"number", training.HeadNumber, false}} {
		conf, ok := training.Outcomes(rs, s.head, s.raw)
		var x, y []float64
		for _, b := range training.Reliability(conf, ok, training.ECEBins) {
			if b.N > 0 {
				x, y = append(x, b.Conf), append(y, b.Acc)
			}
		}
		series = append(series, plot.Series{Name: fmt.Sprintf("%s %.2f%%", s.name, 100*training.ECE(conf, ok)), X: x, Y: y})
	}
	return savePNG(path, plot.Reliability(title, series, 640, 440))
}
