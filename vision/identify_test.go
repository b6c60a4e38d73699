package vision

import (
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/render/card"
)

// table draws clean rendered cards, turned by the given angles, onto a
// green cloth, as a photo from above would show them.
func table(t *testing.T, faces []referee.Face, backs []string, angles []float64) gocv.Mat {
	t.Helper()
	r, err := card.New(card.DefaultParams(), 5)
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 110, 50, 0), 720, 1280, gocv.MatTypeCV8UC3)
	n := len(faces) + len(backs)
	for i := range n {
		l := card.Label{Side: card.FaceSide}
		if i < len(faces) {
			l.Face = faces[i]
		} else {
			l = card.Label{Side: card.BackSide, Back: backs[i-len(faces)]}
		}
		card, err := r.Card(l, 120, 180, false)
		if err != nil {
			t.Fatal(err)
		}
		cx, cy := 160+float64(i%5)*240, 180+float64(i/5)*330
		paste(img, card, cx, cy, angles[i%len(angles)])
	}
	return img
}

// paste warps an RGBA card onto a BGR Mat, centred at (cx, cy), turned by deg.
func paste(dst gocv.Mat, card *image.RGBA, cx, cy, deg float64) {
	w, h := float64(card.Bounds().Dx()), float64(card.Bounds().Dy())
	a := deg * math.Pi / 180
	cos, sin := math.Cos(a), math.Sin(a)
	for y := int(cy - 150); y < int(cy+150); y++ {
		for x := int(cx - 150); x < int(cx+150); x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			u, v := cos*dx+sin*dy+w/2, -sin*dx+cos*dy+h/2
			if u < 0 || v < 0 || u >= w || v >= h {
				continue
			}
			c := card.RGBAAt(int(u), int(v))
			if c.A < 128 {
				continue
			}
			dst.SetUCharAt(y, x*3, c.B)
			dst.SetUCharAt(y, x*3+1, c.G)
			dst.SetUCharAt(y, x*3+2, c.R)
		}
	}
}

func embedded(t *testing.T) model.Predictor {
	t.Helper()
	p, err := model.DefaultPredictor() // as identify reads
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestIdentify_ReadsRenderedCards: cards laid at any angle on a cloth are
// found and read (face: colour and number; back: which of the 12 designs).
func TestIdentify_ReadsRenderedCards(t *testing.T) {
	faces := []referee.Face{{Colour: referee.Red, Number: 6}, {Colour: referee.Green, Number: 9}, {Colour: referee.Blue, Number: 1},
		{Colour: referee.Yellow, Number: 10}, {Colour: referee.Green, Number: 4}, {Colour: referee.Red, Number: 7}}
	backs := []string{"spheres", "crystals", "fish", "waves"}
	img := table(t, faces, backs, []float64{0, 17, 90, 180, -35, 63, 120})
	defer img.Close()
	p := embedded(t)
	defer p.Close()
	protos, err := standardBacks(p)
	if err != nil {
		t.Fatal(err)
	}
	found, err := NewIdentifier(p, protos).Identify(img)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != len(faces)+len(backs) {
		t.Fatalf("found %d cards, laid %d: %+v", len(found), len(faces)+len(backs), found)
	}
	for i, want := range faces {
		cx, cy := 160+float64(i%5)*240, 180+float64(i/5)*330
		f := nearestFound(found, cx, cy)
		if f.Side != "face" || f.Face != want {
			t.Errorf("card %d: read %s %s %d, laid %s", i, f.Side, f.Colour, f.Number, want)
		}
	}
	for j, want := range backs {
		i := len(faces) + j
		f := nearestFound(found, 160+float64(i%5)*240, 180+float64(i/5)*330)
		if f.Side != "back" || f.Back != want {
			t.Errorf("back %d: read %s %s, laid %s", j, f.Side, f.Back, want)
		}
	}
}

func nearestFound(found []Found, x, y float64) Found {
	best, bd := Found{}, math.Inf(1)
	for _, f := range found {
		fx, fy := f.Corners.Centre()
		if d := math.Hypot(fx-x, fy-y); d < bd {
			best, bd = f, d
		}
	}
	return best
}

func TestIdentify_RefusesNonColourImages(t *testing.T) {
	p := embedded(t)
	defer p.Close()
	grey := gocv.NewMatWithSize(10, 10, gocv.MatTypeCV8U)
	defer grey.Close()
	if _, err := NewIdentifier(p, nil).Identify(grey); err == nil {
		t.Fatal("a one-channel image must be refused")
	}
}

// A face that shows a 6 at one end and an 8 at the other (the top of one
// card over another's bottom) has no one number: identify must not be
// sure of one (it says unsure), while the whole faces beside it are read
// sure.
func TestIdentify_TwoNumbersAtOnceIsUnsure(t *testing.T) {
	r, err := card.New(card.DefaultParams(), 5)
	if err != nil {
		t.Fatal(err)
	}
	img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 110, 50, 0), 720, 1280, gocv.MatTypeCV8UC3)
	defer img.Close()
	faces := []referee.Face{{Colour: referee.Red, Number: 6}, {Colour: referee.Blue, Number: 8}, {Colour: referee.Green, Number: 3}}
	for i, f := range faces {
		im, err := r.Card(card.Label{Side: card.FaceSide, Face: f}, 120, 180, false)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			eight, err := r.Card(card.Label{Side: card.FaceSide, Face: referee.Face{Colour: referee.Red, Number: 8}}, 120, 180, false)
			if err != nil {
				t.Fatal(err)
			}
			for y := 90; y < 180; y++ {
				for x := range 120 {
					im.SetRGBA(x, y, eight.RGBAAt(x, y))
				}
			}
		}
		paste(img, im, 200+float64(i)*300, 360, 10)
	}
	p := embedded(t)
	defer p.Close()
	found, err := NewIdentifier(p, nil).Identify(img)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range faces {
		f := nearestFound(found, 200+float64(i)*300, 360)
		t.Logf("card %d: %s %s %d %.3f unsure %v", i, f.Side, f.Colour, f.Number, f.Confidence, f.Unsure)
		if i == 0 {
			if f.Side != "face" || f.Colour != "red" || !f.Unsure {
				t.Errorf("a red face with a 6 and an 8 read %s %s %d (%.3f), unsure %v; want a red face, unsure", f.Side, f.Colour, f.Number, f.Confidence, f.Unsure)
			}
			continue
		}
		if f.Side != "face" || f.Face != want || f.Unsure {
			t.Errorf("card %d: read %s %s %d unsure %v, laid %s", i, f.Side, f.Colour, f.Number, f.Unsure, want)
		}
	}
}
