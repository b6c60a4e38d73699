package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/dataset/realphotos"
	"ligretto/vision/find"
)

func init() {
	register(command{name: "finder", summary: "measure the card finder on labelled real photos (cards found, false finds)", run: runFinder})
}

// labelledPhoto is one photo of a set with its cards' labels: whole-card
// boxes (Pascal VOC) or a marked point per card (the UNO set's corner
// index boxes, YOLO).
type labelledPhoto struct {
	name, path string
	labelSize  image.Point // the image size the VOC label gives (0 for YOLO)
	boxes      []image.Rectangle
	points     []image.Point
}

// photoSplit is the part of a set to score.
type photoSplit string

const (
	splitTest  photoSplit = "test"  // never used to tune the finder
	splitTrain photoSplit = "train" // what the finder's thresholds were tuned on
	splitAll   photoSplit = "all"
)

// inSplit says which split a photo is in: the VOC set's file names carry
// it (train_, test_); the UNO set is split by realphotos.HeldOut.
func inSplit(name string, voc bool, s photoSplit) bool {
	if s == splitAll {
		return true
	}
	test := realphotos.HeldOut(name)
	if voc {
		test = strings.HasPrefix(name, "test_")
	}
	return test == (s == splitTest)
}

// listLabelledPhotos reads a folder of VOC-labelled photos (IMAGE.JPG and
// IMAGE.xml side by side) or a YOLO set (images/, labels/).
func listLabelledPhotos(dir string, split photoSplit) (photos []labelledPhoto, voc bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, "labels")); err != nil {
		voc = true
	}
	imgDir := dir
	if !voc {
		imgDir = filepath.Join(dir, "images")
	}
	entries, err := os.ReadDir(imgDir)
	if err != nil {
		return nil, voc, fmt.Errorf("list photos: %w", err)
	}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg" && ext != ".png") || !inSplit(e.Name(), voc, split) {
			continue
		}
		base := strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))
		p := labelledPhoto{name: e.Name(), path: filepath.Join(imgDir, e.Name())}
		if voc {
			f, err := os.Open(filepath.Join(dir, base+".xml"))
			if err != nil {
				return nil, voc, fmt.Errorf("photo %s has no label: %w", e.Name(), err)
			}
			v, err := realphotos.ParseVOC(f)
			f.Close()
			if err != nil {
				return nil, voc, fmt.Errorf("%s.xml: %w", base, err)
			}
			p.boxes, p.labelSize = v.Boxes, image.Pt(v.Width, v.Height)
		} else {
			f, err := os.Open(filepath.Join(dir, "labels", base+".txt"))
			if errors.Is(err, fs.ErrNotExist) {
				continue // a photo of the background alone
			}
			if err != nil {
				return nil, voc, fmt.Errorf("labels of %s: %w", e.Name(), err)
			}
			boxes, _, err := realphotos.ParseLabels(f)
			f.Close()
			if err != nil {
				return nil, voc, fmt.Errorf("labels of %s: %w", e.Name(), err)
			}
			// The points are fractions of the image; the size is known once it is read.
			for _, b := range boxes {
				p.points = append(p.points, image.Pt(int(b.CX*1e6), int(b.CY*1e6)))
			}
		}
		photos = append(photos, p)
	}
	sort.Slice(photos, func(i, j int) bool { return photos[i].name < photos[j].name })
	if len(photos) == 0 {
		return nil, voc, fmt.Errorf("no labelled photos in %s (split %s)", dir, split)
	}
	return photos, voc, nil
}

func runFinder(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("finder", "--dir DIR [--split test|train|all] [--json] [--annotate OUTDIR]", stderr)
	dir := fs.String("dir", "../shared/data/card-photos", "labelled photos: IMAGE.JPG with a Pascal VOC IMAGE.xml beside it (whole-card boxes), or a YOLO set (images/, labels/)")
	split := fs.String("split", "test", "which photos: test (never used to tune the finder), train, or all")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	annotate := fs.String("annotate", "", "write each photo with a miss or a false find to this folder: labels blue, finds green, false finds red")
	if err := parse(fs, args); err != nil {
		return err
	}
	s := photoSplit(*split)
	if s != splitTest && s != splitTrain && s != splitAll {
		return fmt.Errorf("--split %q: want test, train or all", *split)
	}
	photos, _, err := listLabelledPhotos(*dir, s)
	if err != nil {
		return err
	}
	if *annotate != "" {
		if err := os.MkdirAll(*annotate, 0o755); err != nil {
			return err
		}
	}
	var total find.Score
	imperfect := 0
	for _, p := range photos {
		img := gocv.IMRead(p.path, gocv.IMReadColor)
		if img.Empty() {
			img.Close()
			return fmt.Errorf("cannot read %s", p.path)
		}
		if p.labelSize != (image.Point{}) && p.labelSize != image.Pt(img.Cols(), img.Rows()) {
			img.Close()
			return fmt.Errorf("%s: the label is for a %dx%d image, the photo is %dx%d (turned by its EXIF orientation?)",
				p.name, p.labelSize.X, p.labelSize.Y, img.Cols(), img.Rows())
		}
		finds := find.Cards(img, find.PhotoOptions(img.Cols(), img.Rows()))
		var sc find.Score
		if p.boxes != nil {
			sc = find.ScoreWholeCards(finds, p.boxes)
		} else {
			pts := make([]image.Point, len(p.points))
			for i, q := range p.points {
				pts[i] = image.Pt(q.X*img.Cols()/1e6, q.Y*img.Rows()/1e6)
			}
			p.points = pts
			sc = find.ScoreMarkedCards(finds, pts)
		}
		total = total.Add(sc)
		if sc.Found < sc.Labelled || sc.FalseFinds > 0 {
			imperfect++
			if *annotate != "" {
				drawFinderScore(&img, p, finds)
				out := filepath.Join(*annotate, strings.TrimSuffix(p.name, filepath.Ext(p.name))+".png")
				if ok := gocv.IMWrite(out, img); !ok {
					img.Close()
					return fmt.Errorf("cannot write %s", out)
				}
			}
		}
		img.Close()
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{"dir": *dir, "split": s, "photos": len(photos), "score": total})
	}
	fmt.Fprintf(stdout, "%s (%s split): %d photos, %d labelled cards; found %d (%.1f%%), false finds %d (%.1f%% of the labelled cards); %d photos not perfect\n",
		*dir, s, len(photos), total.Labelled, total.Found, pct(total.Found, total.Labelled), total.FalseFinds, pct(total.FalseFinds, total.Labelled), imperfect)
	return nil
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// drawFinderScore draws the labels (blue) and the finds (green, or red
// when they match no label) on img.
func drawFinderScore(img *gocv.Mat, p labelledPhoto, finds []find.Quad) {
	blue, green, red := color.RGBA{40, 40, 255, 0}, color.RGBA{0, 200, 0, 0}, color.RGBA{255, 0, 0, 0}
	for _, b := range p.boxes {
		gocv.Rectangle(img, b, blue, 2)
	}
	for _, pt := range p.points {
		gocv.Circle(img, pt, 6, blue, -1)
	}
	for _, q := range finds {
		c := red
		if p.boxes != nil && find.ScoreWholeCards([]find.Quad{q}, p.boxes).Found == 1 ||
			p.boxes == nil && find.ScoreMarkedCards([]find.Quad{q}, p.points).FalseFinds == 0 {
			c = green
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{q[:]})
		gocv.Polylines(img, pv, true, c, 2)
		pv.Close()
	}
}
