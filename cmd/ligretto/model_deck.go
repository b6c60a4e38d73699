package main

import (
	"errors"
	"fmt"
	"io"

	"ligretto/model"
	"ligretto/model/training"
)

// deckTuning is the deck adaptation's settings as model photos --shots
// takes them, to measure others than the defaults.
type deckTuning struct {
	layer        *string
	scale, floor *float64
}

// runDeckShots learns the held-out half's deck from k shots a card for
// each k of list, over the seeds of seedList, and prints a row per k:
// colour and number before and after (mean and worst over the seeds),
// and the sure misreads.
func runDeckShots(dir, list, seedList string, onTuneHalf bool, tune deckTuning, nets networks, stdout, stderr io.Writer) error {
	ks, err := parseSeeds(list)
	if err != nil {
		return fmt.Errorf("--shots: %w", err)
	}
	seeds, err := parseSeeds(seedList)
	if err != nil {
		return fmt.Errorf("--shot-seeds: %w", err)
	}
	layer := model.FeatureLayer(*tune.layer)
	if !layer.Valid() {
		return fmt.Errorf("--deck-layer %q: want hidden, conv or pooled", layer)
	}
	w, p, err := predictor(nets, false)
	if err != nil {
		return err
	}
	defer p.Close()
	f, err := model.NewFast(w)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "classifier: %v; deck prototypes of the %s layer, scale %g, floor %g\n", nets, layer, *tune.scale, *tune.floor)
	tuneHalf, held, err := loadPhotos(dir, w.Config)
	if err != nil {
		return err
	}
	which := "held-out half"
	if onTuneHalf {
		held, which = tuneHalf, "fine-tuning half (seen in training)"
	}
	set := func(d *model.DeckPrototypes) { d.Scale, d.Floor = *tune.scale, *tune.floor }
	fmt.Fprintf(stdout, "%s, %d crops; each row over %d draws of the shots (seeds %s): mean [worst]\n", which, len(held), len(seeds), seedList)
	fmt.Fprintln(stdout, "shots  cards  crops (1-9)  colour before  colour after     number 1-9 before  number 1-9 after  number 0-9 after  sure misreads before -> after")
	for _, k := range ks {
		var reps []training.DeckShotReport
		for _, s := range seeds {
			r, err := training.EvaluateDeckShots(p, f, held, int(k), s, layer, set)
			if errors.Is(err, training.ErrNoData) {
				fmt.Fprintf(stdout, "%5d  no card has more than %d crops: nothing to score\n", k, k)
				break
			}
			if err != nil {
				return fmt.Errorf("%d shots, seed %d: %w", k, s, err)
			}
			reps = append(reps, r)
		}
		if len(reps) > 0 {
			printDeckRow(stdout, int(k), reps)
		}
	}
	return nil
}

// printDeckRow prints one shot count's figures: means over the draws,
// the worst draw in brackets, sure misreads summed.
func printDeckRow(w io.Writer, k int, reps []training.DeckShotReport) {
	share := func(get func(training.DeckShotReport) (int, int)) string {
		var sum float64
		worst := 2.0
		for _, r := range reps {
			a, b := get(r)
			v := float64(a) / float64(max(b, 1))
			sum += v
			worst = min(worst, v)
		}
		return fmt.Sprintf("%6.2f%% [%6.2f%%]", 100*sum/float64(len(reps)), 100*worst)
	}
	var cards, crops, numbered, bs, as int
	for _, r := range reps {
		cards += r.Cards
		crops += r.Crops
		numbered += r.Numbered
		bs += r.BeforeSure
		as += r.AfterSure
	}
	n := float64(len(reps))
	fmt.Fprintf(w, "%5d  %5.1f  %5.1f (%4.1f)  %s  %s  %s  %s  %s  %d -> %d (in %d draws)\n", k,
		float64(cards)/n, float64(crops)/n, float64(numbered)/n,
		share(func(r training.DeckShotReport) (int, int) { return r.BeforeColour, r.Crops }),
		share(func(r training.DeckShotReport) (int, int) { return r.AfterColour, r.Crops }),
		share(func(r training.DeckShotReport) (int, int) { return r.BeforeNumber, r.Numbered }),
		share(func(r training.DeckShotReport) (int, int) { return r.AfterNumber, r.Numbered }),
		share(func(r training.DeckShotReport) (int, int) { return r.AfterNumber0, r.Crops }),
		bs, as, len(reps))
}
