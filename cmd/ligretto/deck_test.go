package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/render/scene"
)

// deckFixture writes a rendered deck layout (covered: cards under a hand)
// and a calibration file without a deck, and returns their paths.
func deckFixture(t *testing.T, covered ...referee.Face) (photo, cal string) {
	t.Helper()
	dir := t.TempDir()
	img, _, err := scene.RenderDeckLayout(scene.DeckLayout{Order: []referee.Colour{referee.Red, referee.Green, referee.Blue, referee.Yellow}, Covered: covered, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	photo = filepath.Join(dir, "deck.png")
	if !gocv.IMWrite(photo, img) {
		t.Fatal("write the layout")
	}
	centre, zones := calibration.Layout(2, 1000, 700)
	f := &calibration.File{Version: calibration.Version, ImageW: 1280, ImageH: 800, TableW: 1000, TableH: 700,
		Homography: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, Centre: centre, WhiteBalance: [3]float64{1, 1, 1}, Source: "manual"}
	for i, z := range zones {
		f.Seats = append(f.Seats, calibration.Seat{Player: []string{"Ann", "Bob"}[i], Zone: z})
	}
	cal = filepath.Join(dir, "calib.json")
	if err := writeCalibration(cal, f); err != nil {
		t.Fatal(err)
	}
	return photo, cal
}

// ligretto deck learns the 40 cards of a rendered layout into the
// calibration file, and identify reads with it; a deck learnt for other
// weights is refused.
func TestDeckCommand_LearnsTheLayoutAndIdentifyUsesIt(t *testing.T) {
	photo, cal := deckFixture(t)
	code, out, errs := runCLI("deck", "--photo", photo, "--calibration", cal)
	if code != 0 {
		t.Fatalf("deck: exit %d: %s %s", code, out, errs)
	}
	f, err := readCalibration(cal)
	if err != nil {
		t.Fatal(err)
	}
	if f.Deck == nil || len(f.Deck.Cards) != 40 || len(f.Deck.Colours) != 4 || f.Deck.Cards[0].Shots != 1 {
		t.Fatalf("deck section %+v after %q", f.Deck, out)
	}
	code, out, errs = runCLI("identify", "--calibration", cal, photo)
	if code != 0 || !strings.Contains(out, "card(s)") {
		t.Fatalf("identify with the deck: exit %d: %s %s", code, out, errs)
	}

	f.Deck.WeightsSHA256 = strings.Repeat("0", 64)
	if err := writeCalibration(cal, f); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI("identify", "--calibration", cal, photo)
	if code == 0 || !strings.Contains(errs, "learnt for other classifier weights") {
		t.Fatalf("a deck of other weights: exit %d: %s", code, errs)
	}
}

// A layout with cards under a hand is refused when fewer than --min are
// found, naming the missing ones, and the file is left as it was.
func TestDeckCommand_NamesMissingCardsAndWritesNothing(t *testing.T) {
	photo, cal := deckFixture(t, referee.Face{Colour: referee.Blue, Number: 4}, referee.Face{Colour: referee.Red, Number: 9})
	before, _ := os.ReadFile(cal)
	code, _, errs := runCLI("deck", "--photo", photo, "--calibration", cal, "--min", "40")
	if code == 0 || !strings.Contains(errs, "38 of 40") || !strings.Contains(errs, "red 9") || !strings.Contains(errs, "blue 4") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if after, _ := os.ReadFile(cal); !bytes.Equal(before, after) {
		t.Fatal("the calibration file changed")
	}
}

// Two photos of the layout, each with another card under a hand: the
// deck has every card, a shot of each from every photo that shows it.
func TestDeckCommand_TwoPhotosMakeTwoShotsACard(t *testing.T) {
	red9, blue4 := referee.Face{Colour: referee.Red, Number: 9}, referee.Face{Colour: referee.Blue, Number: 4}
	first, cal := deckFixture(t, red9)
	second, _ := deckFixture(t, blue4)
	code, out, errs := runCLI("deck", "--photo", first, "--photo", second, "--calibration", cal, "--min", "40")
	if code != 0 {
		t.Fatalf("deck: exit %d: %s %s", code, out, errs)
	}
	f, err := readCalibration(cal)
	if err != nil {
		t.Fatal(err)
	}
	if f.Deck == nil || len(f.Deck.Cards) != 40 {
		t.Fatalf("deck section %+v after %q", f.Deck, out)
	}
	for _, c := range f.Deck.Cards {
		want := 2
		if colour, err := referee.ParseColour(c.Colour); err != nil {
			t.Fatal(err)
		} else if face := (referee.Face{Colour: colour, Number: c.Number}); face == red9 || face == blue4 {
			want = 1
		}
		if c.Shots != want {
			t.Errorf("%s %d: %d shot(s), want %d", c.Colour, c.Number, c.Shots, want)
		}
	}
}
