package calibration

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func validFile(n int) *File {
	centre, zones := Layout(n, 1200, 800)
	f := &File{Version: Version, ImageW: 1280, ImageH: 720, TableW: 1200, TableH: 800,
		Homography: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, Centre: centre, WhiteBalance: [3]float64{1, 1, 1}, Source: "manual"}
	for i, z := range zones {
		f.Seats = append(f.Seats, Seat{Player: "P" + string(rune('1'+i)), Zone: z})
	}
	return f
}

func TestFile_RoundTrip(t *testing.T) {
	f := validFile(4)
	f.Seats[0].Prototype = []float32{0.6, 0.8}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Seats) != 4 || g.Seats[0].Prototype[1] != 0.8 || g.Centre.Area() != f.Centre.Area() {
		t.Fatalf("round trip lost data: %+v", g)
	}
}

func TestFile_BrokenFilesSayWhatToDo(t *testing.T) {
	var buf bytes.Buffer
	if err := validFile(3).Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	cases := []struct {
		doc  string
		want error
	}{
		{"{not json", ErrMalformed},
		{strings.Replace(good, `"version": 2`, `"version": 7`, 1), ErrVersion},
		{strings.Replace(good, `"version": 2`, `"version": 1`, 1), ErrVersion}, // prototypes of one view only
		{strings.Replace(good, `"version": 2`, `"version": 2, "colour": 3`, 1), ErrMalformed},
		{strings.Replace(good, `"homography": [`, `"homography": [0, 0, 0, 0, 0, 0, 0, 0, 0], "x": [`, 1), ErrMalformed},
	}
	for _, c := range cases {
		_, err := Read(strings.NewReader(c.doc))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "ligretto calibrate") {
			t.Errorf("%.40q: got %v, want %v with advice", c.doc, err, c.want)
		}
	}
	f := validFile(3)
	f.Seats = f.Seats[:1]
	if err := f.Validate(); !errors.Is(err, ErrZone) {
		t.Errorf("one seat: %v", err)
	}
	f = validFile(3)
	f.Centre = nil
	if err := f.Validate(); !errors.Is(err, ErrZone) {
		t.Errorf("no centre: %v", err)
	}
	f = validFile(3)
	f.Seats[2].Player = f.Seats[1].Player
	if err := f.Validate(); !errors.Is(err, ErrZone) {
		t.Errorf("repeated player: %v", err)
	}
}

// TestLayout_SeatsShareTheRim: for 2..12 players every seat has room, no
// point of the table belongs to two seats, and no seat reaches the centre.
func TestLayout_SeatsShareTheRim(t *testing.T) {
	for n := 2; n <= 12; n++ {
		centre, seats := Layout(n, 1200, 800)
		if len(seats) != n {
			t.Fatalf("%d seats for %d players", len(seats), n)
		}
		for i, s := range seats {
			if s.Area() < 1200*800*0.02 {
				t.Fatalf("%d players: seat %d has area %.0f", n, i, s.Area())
			}
		}
		for y := 5.0; y < 800; y += 10 {
			for x := 5.0; x < 1200; x += 10 {
				p := Point{x, y}
				owners := 0
				for _, s := range seats {
					if s.Contains(p) {
						owners++
					}
				}
				if owners > 1 || (owners > 0 && centre.Contains(p)) {
					t.Fatalf("%d players: %v lies in %d seats (centre %v)", n, p, owners, centre.Contains(p))
				}
			}
		}
	}
}
