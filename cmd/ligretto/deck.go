package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision"
)

func init() {
	register(command{name: "deck", summary: "learn your deck from a photo of it laid out in rows; add it to calib.json", run: runDeck})
}

// minDeckCards is how many of the 40 cards a layout must show by default.
const minDeckCards = 36

// photoList is a flag given once per photo.
type photoList []string

func (l *photoList) String() string     { return strings.Join(*l, ",") }
func (l *photoList) Set(v string) error { *l = append(*l, v); return nil }

func runDeck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("deck", "--photo PHOTO [--photo PHOTO...] --calibration calib.json [--out FILE] [--order red,green,blue,yellow] [--min 36]", stderr)
	var photos photoList
	fs.Var(&photos, "photo", "photo of the deck: a row of each colour, 1 to 10 from the left, the first colour at the top; give it again for more shots of each card (two photos read better than one)")
	calPath := fs.String("calibration", "", "calibration file to add the deck to (its white balance cuts the crops)")
	out := fs.String("out", "", "file to write (default: the calibration file itself)")
	orderFlag := fs.String("order", "red,green,blue,yellow", "the rows' colours, top to bottom as the camera sees them")
	minCards := fs.Int("min", minDeckCards, "fewest cards the photos must show")
	nets := networkFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(photos) == 0 || *calPath == "" {
		fs.Usage()
		return errUsage
	}
	order, err := parseOrder(*orderFlag)
	if err != nil {
		return err
	}
	cal, err := readCalibration(*calPath)
	if err != nil {
		return err
	}
	w, err := loadWeights(*nets.weights)
	if err != nil {
		return err
	}
	// Each photo adds a shot of each card it shows; a card is missing
	// when no photo shows it.
	var all vision.DeckLayout
	shown := map[referee.Face]bool{}
	for _, photo := range photos {
		layout, err := readDeckPhoto(photo, order, cal.WhiteBalance, w)
		if err != nil {
			return err
		}
		if len(photos) > 1 {
			fmt.Fprintf(stderr, "deck: %s: %d cards\n", photo, len(layout.Cards))
		}
		for _, c := range layout.Cards {
			shown[c.Face] = true
		}
		all.Cards = append(all.Cards, layout.Cards...)
		all.Missing = append(all.Missing, layout.Missing...)
	}
	missing := all.Missing[:0:0]
	for _, f := range all.Missing {
		if !shown[f] && !slices.Contains(missing, f) {
			missing = append(missing, f)
		}
	}
	all.Missing = missing
	if len(all.Missing) > 0 {
		fmt.Fprintf(stderr, "deck: not found: %s\n", faceList(all.Missing))
	}
	if len(shown) < *minCards {
		return fmt.Errorf("%d of %d cards found, want at least %d (not found: %s): lay them out again in view and take another photo",
			len(shown), len(order)*vision.DeckColumns, *minCards, faceList(all.Missing))
	}
	deck, misread, err := learnLayout(w, all)
	if err != nil {
		return err
	}
	cal.Deck = deck
	dst := *out
	if dst == "" {
		dst = *calPath
	}
	if err := writeCalibration(dst, cal); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: the deck's %d cards from %d shot(s) (%d shot(s) read otherwise by the network alone: %s)\n",
		dst, len(shown), len(all.Cards), len(misread), faceList(misread))
	return nil
}

// readDeckPhoto reads one photo of the layout: the cards found in their
// places, less those the network reads as another colour.
func readDeckPhoto(photo string, order []referee.Colour, wb [3]float64, w *model.Weights) (vision.DeckLayout, error) {
	img := gocv.IMRead(photo, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		return vision.DeckLayout{}, fmt.Errorf("%s: not an image OpenCV can read", photo)
	}
	layout, err := vision.ReadDeckLayout(img, order, wb, w.Config)
	if err != nil {
		return layout, fmt.Errorf("%s: %w", photo, err)
	}
	return dropOtherColours(w, layout)
}

// dropOtherColours moves to Missing the places whose find the network
// reads as a back or as another colour than the row's: a hand or a
// shadow where a card should be. The network's colour is what it reads
// right on real photos (docs/real-photos.md); its number is what the deck
// is there to teach, so it is not asked.
func dropOtherColours(w *model.Weights, layout vision.DeckLayout) (vision.DeckLayout, error) {
	fast, err := model.NewFast(w)
	if err != nil {
		return layout, err
	}
	crops := make([]model.Crop, len(layout.Cards))
	for i, c := range layout.Cards {
		crops[i] = c.Crop
	}
	preds, err := fast.Classify(crops)
	if err != nil {
		return layout, err
	}
	kept := layout.Cards[:0:0]
	for i, c := range layout.Cards {
		if p := preds[i]; p.IsBack() || referee.Colours[p.Colour] != c.Face.Colour {
			layout.Missing = append(layout.Missing, c.Face)
			continue
		}
		kept = append(kept, c)
	}
	layout.Cards = kept
	return layout, nil
}

// learnLayout learns the deck from the layout's crops with the first
// network of w, and says which cards that network alone reads as another.
func learnLayout(w *model.Weights, layout vision.DeckLayout) (*calibration.Deck, []referee.Face, error) {
	fast, err := model.NewFast(w)
	if err != nil {
		return nil, nil, err
	}
	shots := make([]model.DeckShot, len(layout.Cards))
	crops := make([]model.Crop, len(layout.Cards))
	for i, c := range layout.Cards {
		crops[i] = c.Crop
		shots[i] = model.DeckShot{Crop: c.Crop, Colour: colourIndex(c.Face.Colour), Number: c.Face.Number}
	}
	preds, err := fast.Classify(crops)
	if err != nil {
		return nil, nil, err
	}
	var misread []referee.Face
	for i, p := range preds {
		if p.Face() != layout.Cards[i].Face {
			misread = append(misread, layout.Cards[i].Face)
		}
	}
	protos, err := model.LearnDeck(fast, shots, model.DefaultDeckLayer, true)
	if err != nil {
		return nil, nil, err
	}
	sum, err := w.SHA256()
	if err != nil {
		return nil, nil, err
	}
	return deckSection(protos, sum), misread, nil
}

// deckSection is the calibration file's form of a deck's prototypes.
func deckSection(d model.DeckPrototypes, sum string) *calibration.Deck {
	out := &calibration.Deck{Version: calibration.DeckVersion, WeightsSHA256: sum, Layer: string(d.Layer), Scale: d.Scale, Floor: d.Floor}
	for _, c := range d.Cards {
		out.Cards = append(out.Cards, calibration.DeckCard{Colour: calibration.DeckColours[c.Colour], Number: c.Number, Shots: c.Shots, Prototype: c.Mean})
	}
	for _, c := range d.Colours {
		out.Colours = append(out.Colours, calibration.DeckColour{Colour: calibration.DeckColours[c.Colour], Shots: c.Shots, Prototype: c.Mean})
	}
	return out
}

// deckPrototypes is the model's form of a calibration file's deck.
func deckPrototypes(d *calibration.Deck) model.DeckPrototypes {
	out := model.DeckPrototypes{Layer: model.FeatureLayer(d.Layer), Scale: d.Scale, Floor: d.Floor}
	for _, c := range d.Cards {
		out.Cards = append(out.Cards, model.CardPrototype{Colour: calibration.ColourIndex(c.Colour), Number: c.Number, Shots: c.Shots, Mean: c.Prototype})
	}
	for _, c := range d.Colours {
		out.Colours = append(out.Colours, model.ColourPrototype{Colour: calibration.ColourIndex(c.Colour), Shots: c.Shots, Mean: c.Prototype})
	}
	return out
}

// withDeck is pred adapted to the calibration file's deck, if it has one
// (model.DeckReader over w's first network). A deck learnt for other
// weights is an error (calibration.ErrDeckWeights).
func withDeck(cal *calibration.File, w *model.Weights, pred model.Predictor) (model.Predictor, error) {
	if cal == nil || cal.Deck == nil {
		return pred, nil
	}
	sum, err := w.SHA256()
	if err != nil {
		return nil, err
	}
	if err := cal.Deck.ForWeights(sum); err != nil {
		return nil, err
	}
	fast, err := model.NewFast(w)
	if err != nil {
		return nil, err
	}
	r, err := model.NewDeckReader(pred, fast, deckPrototypes(cal.Deck))
	if err != nil {
		return nil, fmt.Errorf("calibration file's deck: %w", err)
	}
	return r, nil
}

func colourIndex(c referee.Colour) int {
	for i, k := range referee.Colours {
		if k == c {
			return i
		}
	}
	return -1
}

func parseOrder(s string) ([]referee.Colour, error) {
	var out []referee.Colour
	seen := map[int]bool{}
	for _, name := range strings.Split(s, ",") {
		i := calibration.ColourIndex(strings.TrimSpace(name))
		if i < 0 || seen[i] {
			return nil, fmt.Errorf("--order %q: want colours among red, green, blue, yellow, each once", s)
		}
		seen[i] = true
		out = append(out, referee.Colours[i])
	}
	return out, nil
}

func faceList(fs []referee.Face) string {
	if len(fs) == 0 {
		return "none"
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ", ")
}

// writeCalibration writes f to path through a file beside it, so that a
// failed write leaves the old file whole.
func writeCalibration(path string, f *calibration.File) error {
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := f.Write(out); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
