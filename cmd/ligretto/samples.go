package main

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"strings"
	"time"

	"ligretto/referee"
	"ligretto/render/card"
)

func init() {
	register(command{
		name:    "samples",
		summary: "render synthetic card crops as PNG contact sheets",
		run:     runSamples,
	})
}

func runSamples(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("samples", "[--seed S] [--n N] [--out FILE.png] [--printed P]", stderr)
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same sheet")
	n := fs.Int("n", 128, "number of augmented samples")
	out := fs.String("out", "samples.png", "PNG file for the sheet of samples")
	clean := fs.Bool("clean", true, "also write the 40 clean faces, the 12 backs and 8 random backs to FILE-clean.png")
	cols := fs.Int("cols", 16, "columns of the samples sheet")
	zoom := fs.Int("zoom", 3, "enlarge the samples sheet this many times (nearest neighbour)")
	size := fs.String("size", "32x48", "crop size WxH")
	strength := fs.Float64("strength", 1, "scale every augmentation (0: clean crops)")
	backs := fs.Float64("backs", -1, "fraction of samples that are backs (default: the renderer's)")
	sysFonts := fs.Bool("system-fonts", false, "also draw numerals with Debian fonts found on this machine")
	labels := fs.Bool("labels", false, "print the samples' labels on stdout, one row of the sheet a line")
	printed := fs.Float64("printed", 0, "probability that a face is drawn in the real Ligretto print's style (0..1)")
	printedClean := fs.Bool("printed-canonical", false, "draw the clean faces (and crops without a random style) in the real print's clean style")
	facesOut := fs.String("faces", "", "also write the 40 clean faces alone to this PNG file")
	if err := parse(fs, args); err != nil {
		return err
	}
	p := card.DefaultParams()
	if _, err := fmt.Sscanf(*size, "%dx%d", &p.W, &p.H); err != nil {
		fmt.Fprintf(stderr, "ligretto samples: --size %q: want WxH, e.g. 32x48\n", *size)
		return errUsage
	}
	if *n < 1 || *cols < 1 || *zoom < 1 || *zoom > 32 {
		fmt.Fprintln(stderr, "ligretto samples: --n, --cols must be positive and --zoom in 1..32")
		return errUsage
	}
	p = p.Scaled(*strength)
	if *backs >= 0 {
		p.BackFraction = *backs
	}
	p.SystemFonts = *sysFonts
	p.Printed = *printed
	p.PrintedCanonical = *printedClean
	r, err := card.New(p, *seed)
	if err != nil {
		return err
	}

	imgs := make([]*image.RGBA, *n)
	var line []string
	start := time.Now()
	last := start
	for i := range imgs {
		img, l := r.Sample()
		imgs[i] = img
		if *labels {
			line = append(line, l.String())
			if len(line) == *cols || i == len(imgs)-1 {
				fmt.Fprintln(stdout, strings.Join(line, " | "))
				line = line[:0]
			}
		}
		if now := time.Now(); now.Sub(last) >= time.Second {
			fmt.Fprintf(stderr, "samples: %d/%d\n", i+1, *n)
			last = now
		}
	}
	el := time.Since(start)
	if err := writePNG(*out, card.Zoom(card.ContactSheet(imgs, *cols), *zoom)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "samples: wrote %s: %d samples of %dx%d in %v (fonts load on first use)\n",
		*out, *n, p.W, p.H, el.Round(time.Millisecond))

	var faces []*image.RGBA
	for _, c := range referee.Colours {
		for num := 1; num <= 10; num++ {
			faces = append(faces, r.Face(referee.Face{Colour: c, Number: num}))
		}
	}
	if *facesOut != "" {
		if err := writePNG(*facesOut, card.ContactSheet(faces, 10)); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "samples: wrote %s: 40 clean faces\n", *facesOut)
	}
	if *clean {
		cards := append([]*image.RGBA(nil), faces...)
		for _, d := range card.Designs() {
			cards = append(cards, r.Back(d))
		}
		for i := range 8 {
			cards = append(cards, r.Back(card.RandomDesign(*seed*1000+uint64(i))))
		}
		name := strings.TrimSuffix(*out, ".png") + "-clean.png"
		if err := writePNG(name, card.ContactSheet(cards, 10)); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "samples: wrote %s: 40 faces, 12 backs, 8 random backs\n", name)
	}
	return nil
}

func writePNG(name string, img image.Image) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
