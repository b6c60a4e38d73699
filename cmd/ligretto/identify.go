package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/vision"
)

func init() {
	register(command{name: "identify", summary: "find and read the cards in photos, without calibration", run: runIdentify})
}

// identified is one image's answer.
type identified struct {
	Image string         `json:"image"`
	Cards []vision.Found `json:"cards"`
	Error string         `json:"error,omitempty"`
}

func runIdentify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("identify", "[--json] [--annotate OUT.png] [--calibration FILE] [--weights FILE] IMAGE...", stderr)
	calPath := fs.String("calibration", "", "calibration file whose deck (ligretto deck) and white balance the cards are read with; its table geometry is not used")
	asJSON := fs.Bool("json", false, "print one JSON object per image")
	annotate := fs.String("annotate", "", "write the image with the cards drawn on it (OUT-2.png, ... for further images)")
	nets := networkFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	w, pred, err := predictor(nets, false)
	if err != nil {
		return err
	}
	defer pred.Close()
	var cal *calibration.File
	if *calPath != "" {
		if cal, err = readCalibration(*calPath); err != nil {
			return err
		}
		if pred, err = withDeck(cal, w, pred); err != nil {
			return err
		}
	}
	backs, err := standardBacks(pred)
	if err != nil {
		return err
	}
	id := vision.NewIdentifier(pred, backs)
	if cal != nil {
		id.UseWhiteBalance(cal.WhiteBalance) // the deck was learnt from crops so corrected
	}
	failed := 0
	for i, path := range fs.Args() {
		res := identifyOne(id, path, annotatePath(*annotate, i))
		if res.Error != "" {
			failed++
			fmt.Fprintf(stderr, "ligretto identify: %s: %s\n", path, res.Error)
		}
		if *asJSON {
			if err := json.NewEncoder(stdout).Encode(res); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(stdout, "%s: %d card(s)\n", path, len(res.Cards))
		for _, c := range res.Cards {
			x, y := c.Corners.Centre()
			switch {
			case c.Side == "back":
				fmt.Fprintf(stdout, "  back %-10s at (%4.0f,%4.0f)  confidence %.2f\n", c.Back, x, y, c.Confidence)
			case c.Unsure:
				fmt.Fprintf(stdout, "  face unsure (%s %d?) at (%4.0f,%4.0f)  confidence %.2f\n", c.Colour, c.Number, x, y, c.Confidence)
			default:
				fmt.Fprintf(stdout, "  %-6s %2d     at (%4.0f,%4.0f)  confidence %.2f\n", c.Colour, c.Number, x, y, c.Confidence)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d image(s) could not be read", failed, fs.NArg())
	}
	return nil
}

func identifyOne(id *vision.Identifier, path, annotateTo string) identified {
	res := identified{Image: path, Cards: []vision.Found{}}
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		res.Error = "not an image OpenCV can read (missing, or corrupt)"
		return res
	}
	found, err := id.Identify(img)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	if found != nil {
		res.Cards = found
	}
	if annotateTo != "" {
		vision.Annotate(&img, found)
		if !gocv.IMWrite(annotateTo, img) {
			res.Error = fmt.Sprintf("could not write %s", annotateTo)
		}
	}
	return res
}

func annotatePath(base string, i int) string {
	if base == "" || i == 0 {
		return base
	}
	ext := filepath.Ext(base)
	return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(base, ext), i+1, ext)
}
