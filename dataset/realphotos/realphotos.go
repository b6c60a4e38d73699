// Package realphotos reads the labelled photographs of real coloured number
// cards (UNO, YOLO labels) that check colour and number reading on real
// light and real print. It parses and crops; the caller opens the files.
//
// The labels box the card's corner index (a white numeral on the card
// colour), not the whole card.
package realphotos

import (
	"bufio"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"io"
	"strconv"
	"strings"

	"golang.org/x/image/draw"

	"ligretto/referee"
)

// ErrFormat marks a malformed label or class file.
var ErrFormat = errors.New("malformed label data")

// Box is one labelled object: a class and a box in image fractions.
type Box struct {
	Class  int
	CX, CY float64 // centre
	W, H   float64
}

// Card is what a class names, when it names a coloured number card.
type Card struct {
	Colour referee.Colour
	Number int // 0..9 on UNO cards; Ligretto has 1..10
}

// ParseLabels reads a YOLO label file: one "class cx cy w h" per line. A
// box that reaches outside the image (a labelling slip the shared set has)
// is skipped and counted; a line that is not five numbers is an error.
func ParseLabels(r io.Reader) (boxes []Box, skipped int, err error) {
	var out []Box
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 5 {
			return nil, 0, fmt.Errorf("%w: line %d has %d fields, want 5", ErrFormat, n, len(fields))
		}
		cls, err := strconv.Atoi(fields[0])
		if err != nil || cls < 0 {
			return nil, 0, fmt.Errorf("%w: line %d: class %q", ErrFormat, n, fields[0])
		}
		var v [4]float64
		inside := true
		for i := range v {
			f, err := strconv.ParseFloat(fields[i+1], 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: line %d: coordinate %q", ErrFormat, n, fields[i+1])
			}
			inside = inside && f >= 0 && f <= 1
			v[i] = f
		}
		if !inside {
			skipped++
			continue
		}
		out = append(out, Box{Class: cls, CX: v[0], CY: v[1], W: v[2], H: v[3]})
	}
	return out, skipped, sc.Err()
}

// ParseClassNames reads the names list of a YOLO data.yaml, which spans
// lines: names: [ 'blue 0', 'blue 1', ... ].
func ParseClassNames(r io.Reader) ([]string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.Index(s, "names:")
	if i < 0 {
		return nil, fmt.Errorf("%w: no names: list", ErrFormat)
	}
	open, end := strings.Index(s[i:], "["), strings.Index(s[i:], "]")
	if open < 0 || end < open {
		return nil, fmt.Errorf("%w: names: is not a [ ... ] list", ErrFormat)
	}
	var names []string
	for _, part := range strings.Split(s[i+open+1:i+end], ",") {
		if n := strings.Trim(strings.TrimSpace(part), `'"`); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%w: empty names list", ErrFormat)
	}
	return names, nil
}

// CardOf reads a class name such as "blue 7"; ok is false for action cards
// ("blue skip", "wild").
func CardOf(name string) (Card, bool) {
	parts := strings.Fields(name)
	if len(parts) != 2 {
		return Card{}, false
	}
	c, err := referee.ParseColour(parts[0])
	if err != nil {
		return Card{}, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 0 || n > 9 {
		return Card{}, false
	}
	return Card{Colour: c, Number: n}, true
}

// Crop cuts the box out of img, widened by pad (a fraction of the box on
// each side), and scales it to w x h.
func Crop(img image.Image, b Box, pad float64, w, h int) *image.RGBA {
	bounds := img.Bounds()
	iw, ih := float64(bounds.Dx()), float64(bounds.Dy())
	bw, bh := b.W*iw*(1+2*pad), b.H*ih*(1+2*pad)
	x0, y0 := b.CX*iw-bw/2, b.CY*ih-bh/2
	r := image.Rect(int(x0), int(y0), int(x0+bw+0.5), int(y0+bh+0.5)).Add(bounds.Min).Intersect(bounds)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), img, r, draw.Src, nil)
	return dst
}

// HeldOut splits the photos in two by a hash of the file name: true for
// the half never used to fine-tune, so that anyone can tell which is which.
func HeldOut(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()%2 == 0
}
