// Package calibration knows where things are on a table: the table plane
// (a homography from the camera image to a top-down table image), the
// centre area, each player's seat, the colour balance of the light, and
// each player's enrolled card back, and optionally what the classifier
// learnt from the user's deck. It is saved as one versioned JSON file.
//
// This file holds the file format and its validation (pure Go); finding
// the markers in a frame uses OpenCV.
package calibration

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Version is the calibration file format this program writes and reads.
// Version 2: back prototypes join a whole-card and a close-up embedding
// (twice as long as version 1's), so version 1's do not compare.
const Version = 2

// Sentinel errors, each with a message that says what to do.
var (
	ErrVersion   = errors.New("calibration file version not supported (run `ligretto calibrate` again to write a new one)")
	ErrMalformed = errors.New("calibration file is malformed (run `ligretto calibrate` again, or fix the JSON)")
	ErrZone      = errors.New("calibration zone missing or invalid (run `ligretto calibrate` with the right --players)")
)

// Point is a point in pixels (image or table image, as the field says).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Polygon is a closed zone in table-image pixels.
type Polygon []Point

// Contains reports whether p lies inside the polygon (even-odd rule).
func (pg Polygon) Contains(p Point) bool {
	in := false
	for i, j := 0, len(pg)-1; i < len(pg); j, i = i, i+1 {
		a, b := pg[i], pg[j]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < (b.X-a.X)*(p.Y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}

// Area is the polygon's area in square pixels.
func (pg Polygon) Area() float64 {
	s := 0.0
	for i, j := 0, len(pg)-1; i < len(pg); j, i = i, i+1 {
		s += pg[j].X*pg[i].Y - pg[i].X*pg[j].Y
	}
	return math.Abs(s) / 2
}

// Seat is one player's place at the table.
type Seat struct {
	Player string  `json:"player"`
	Back   string  `json:"back,omitempty"` // back design name, if known
	Zone   Polygon `json:"zone"`           // where their stack, row and hand lie
	// Prototype is the enrolled back: the classifier's mean embedding of
	// the crops the player showed. Empty until enrolled.
	Prototype []float32 `json:"prototype,omitempty"`
	// At is where the player showed their back during enrolment (table
	// image pixels); the zone is derived from it.
	At *Point `json:"at,omitempty"`
}

// File is a whole calibration.
type File struct {
	Version int `json:"version"`
	// ImageW, ImageH: the camera frame size the homography was measured on.
	ImageW int `json:"image_width"`
	ImageH int `json:"image_height"`
	// TableW, TableH: the size of the top-down table image, in pixels.
	TableW int `json:"table_width"`
	TableH int `json:"table_height"`
	// Corners are the table corners in the camera image (marker ids 0..3:
	// top-left, top-right, bottom-right, bottom-left of the table image).
	Corners [4]Point `json:"corners"`
	// Homography maps camera pixels to table pixels, row-major 3x3.
	Homography [9]float64 `json:"homography"`
	Centre     Polygon    `json:"centre"`
	Seats      []Seat     `json:"seats"`
	// WhiteBalance are per-channel gains (R, G, B) that make the table's
	// light neutral.
	WhiteBalance [3]float64 `json:"white_balance"`
	// Source says how the corners were found: "aruco" or "manual".
	Source string `json:"source"`
	// PxPerMM is the table image's scale (0 in older files: 1).
	PxPerMM float64 `json:"px_per_mm,omitempty"`
	// Background is the empty table, rectified at BackgroundPxPerMM, as a
	// PNG (base64 in the JSON): what is not table after the stop is cards.
	Background        []byte  `json:"background_png,omitempty"`
	BackgroundPxPerMM float64 `json:"background_px_per_mm,omitempty"`
	// Deck is what the classifier learnt from shots of the user's deck
	// (ligretto deck); none in files made without.
	Deck *Deck `json:"deck,omitempty"`
}

// Scale is the table image's pixels per millimetre.
func (f *File) Scale() float64 {
	if f.PxPerMM > 0 {
		return f.PxPerMM
	}
	return 1
}

// H returns the homography from camera pixels to table image pixels.
func (f *File) H() Homography { return Homography(f.Homography) }

// Enrolled reports whether every seat has a back prototype.
func (f *File) Enrolled() bool {
	for _, s := range f.Seats {
		if len(s.Prototype) == 0 {
			return false
		}
	}
	return len(f.Seats) > 0
}

// Validate checks everything a referee relies on.
func (f *File) Validate() error {
	if f.Version != Version {
		return fmt.Errorf("%w: file has version %d, this program reads %d", ErrVersion, f.Version, Version)
	}
	if f.ImageW <= 0 || f.ImageH <= 0 || f.TableW <= 0 || f.TableH <= 0 {
		return fmt.Errorf("%w: image %dx%d, table %dx%d must be positive", ErrMalformed, f.ImageW, f.ImageH, f.TableW, f.TableH)
	}
	h := f.Homography
	det := h[0]*(h[4]*h[8]-h[5]*h[7]) - h[1]*(h[3]*h[8]-h[5]*h[6]) + h[2]*(h[3]*h[7]-h[4]*h[6])
	if math.IsNaN(det) || math.Abs(det) < 1e-12 {
		return fmt.Errorf("%w: the homography is singular", ErrMalformed)
	}
	if len(f.Centre) < 3 || f.Centre.Area() < 1 {
		return fmt.Errorf("%w: the centre area", ErrZone)
	}
	if len(f.Seats) < 2 || len(f.Seats) > 12 {
		return fmt.Errorf("%w: %d seats, want 2 to 12", ErrZone, len(f.Seats))
	}
	seen := map[string]bool{}
	for i, s := range f.Seats {
		if s.Player == "" || seen[s.Player] {
			return fmt.Errorf("%w: seat %d has no name or a repeated one (%q)", ErrZone, i+1, s.Player)
		}
		seen[s.Player] = true
		if len(s.Zone) < 3 || s.Zone.Area() < 1 {
			return fmt.Errorf("%w: the zone of %s", ErrZone, s.Player)
		}
		if len(s.Prototype) > 0 && len(s.Prototype) != len(f.Seats[0].Prototype) {
			return fmt.Errorf("%w: the back prototype of %s has %d values, the first seat's %d", ErrMalformed, s.Player, len(s.Prototype), len(f.Seats[0].Prototype))
		}
	}
	if f.PxPerMM < 0 || f.PxPerMM > 20 || math.IsNaN(f.PxPerMM) {
		return fmt.Errorf("%w: px_per_mm %v", ErrMalformed, f.PxPerMM)
	}
	for i, g := range f.WhiteBalance {
		if !(g > 0.1 && g < 10) {
			return fmt.Errorf("%w: white balance gain %d is %v", ErrMalformed, i, g)
		}
	}
	if f.Deck != nil {
		return f.Deck.Validate()
	}
	return nil
}

// Read decodes and validates a calibration file.
func Read(r io.Reader) (*File, error) {
	var f File
	dec := json.NewDecoder(io.LimitReader(r, 4<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Write validates f and encodes it as indented JSON.
func (f *File) Write(w io.Writer) error {
	if err := f.Validate(); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}

// Layout lays out a table image of w x h pixels for n players: the centre
// area is the middle of the table, and the seats share the rim equally,
// starting at the bottom-right corner and going clockwise on screen (along
// the bottom edge to the left, up the left edge, along the top, down the right).
func Layout(n, w, h int) (centre Polygon, seats []Polygon) {
	fw, fh := float64(w), float64(h)
	rim := math.Min(fw, fh) * 0.22
	centre = Polygon{{rim, rim}, {fw - rim, rim}, {fw - rim, fh - rim}, {rim, fh - rim}}
	// Walk the perimeter; each seat takes an equal share of its length.
	per := 2 * (fw + fh)
	at := func(d float64) Point { // the point at distance d along the rim
		d = math.Mod(d+per, per)
		switch {
		case d < fw:
			return Point{fw - d, fh}
		case d < fw+fh:
			return Point{0, fh - (d - fw)}
		case d < 2*fw+fh:
			return Point{d - fw - fh, 0}
		default:
			return Point{fw, d - 2*fw - fh}
		}
	}
	inner := func(p Point) Point { // the same point pulled in to the centre's edge
		return Point{math.Min(math.Max(p.X, rim), fw-rim), math.Min(math.Max(p.Y, rim), fh-rim)}
	}
	share := per / float64(n)
	for i := range n {
		a, b := float64(i)*share, float64(i+1)*share
		var outer []Point
		for k := 0; k <= 8; k++ {
			outer = append(outer, at(a+(b-a)*float64(k)/8))
		}
		zone := Polygon(append([]Point{}, outer...))
		for k := len(outer) - 1; k >= 0; k-- {
			zone = append(zone, inner(outer[k]))
		}
		seats = append(seats, zone)
	}
	return centre, seats
}
