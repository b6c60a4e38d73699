package card

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"ligretto/referee"
)

func newRenderer(t testing.TB, p Params, seed uint64) *Renderer {
	t.Helper()
	r, err := New(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// meanAbsDiff is the mean absolute difference of two same-sized images over
// RGB, in 0..255.
func meanAbsDiff(a, b *image.RGBA) float64 {
	if a.Bounds() != b.Bounds() {
		return math.Inf(1)
	}
	var s float64
	n := 0
	for i := 0; i < len(a.Pix); i += 4 {
		for j := 0; j < 3; j++ {
			s += math.Abs(float64(a.Pix[i+j]) - float64(b.Pix[i+j]))
			n++
		}
	}
	return s / float64(n)
}

func rot180(img *image.RGBA) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			so := img.PixOffset(b.Min.X+x, b.Min.Y+y)
			do := out.PixOffset(b.Dx()-1-x, b.Dy()-1-y)
			copy(out.Pix[do:do+4], img.Pix[so:so+4])
		}
	}
	return out
}

func sub(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		so := img.PixOffset(r.Min.X, r.Min.Y+y)
		copy(out.Pix[y*out.Stride:y*out.Stride+4*r.Dx()], img.Pix[so:so+4*r.Dx()])
	}
	return out
}

func TestDeterministicBySeed(t *testing.T) {
	p := DefaultParams()
	a, b, c := newRenderer(t, p, 7), newRenderer(t, p, 7), newRenderer(t, p, 8)
	differs := 0
	for i := 0; i < 60; i++ {
		ia, la := a.Sample()
		ib, lb := b.Sample()
		ic, lc := c.Sample()
		if la != lb {
			t.Fatalf("sample %d: labels %v and %v from the same seed", i, la, lb)
		}
		if d := meanAbsDiff(ia, ib); d != 0 {
			t.Fatalf("sample %d: same seed, images differ by %.3f", i, d)
		}
		if la != lc || meanAbsDiff(ia, ic) > 1 {
			differs++
		}
	}
	if differs < 55 {
		t.Errorf("seeds 7 and 8 gave different samples only %d times in 60", differs)
	}
	// SampleOf is deterministic too, and so are varied Cards.
	l := Label{Side: FaceSide, Face: referee.Face{Colour: referee.Green, Number: 4}}
	x, _ := newRenderer(t, p, 3).SampleOf(l)
	y, _ := newRenderer(t, p, 3).SampleOf(l)
	if meanAbsDiff(x, y) != 0 {
		t.Error("SampleOf differs between renderers with the same seed")
	}
	cx, _ := newRenderer(t, p, 3).Card(l, 90, 135, true)
	cy, _ := newRenderer(t, p, 3).Card(l, 90, 135, true)
	cz, _ := newRenderer(t, p, 4).Card(l, 90, 135, true)
	if meanAbsDiff(cx, cy) != 0 || meanAbsDiff(cx, cz) < 1 {
		t.Error("varied Card is not deterministic by seed")
	}
}

// hueOf is the saturation-weighted circular mean hue of the central part
// of img, in degrees.
func hueOf(img *image.RGBA) float64 {
	b := img.Bounds()
	var sx, sy float64
	for y := b.Dy() / 6; y < b.Dy()*5/6; y++ {
		for x := b.Dx() / 6; x < b.Dx()*5/6; x++ {
			o := img.PixOffset(x, y)
			c := rgb{float32(img.Pix[o]) / 255, float32(img.Pix[o+1]) / 255, float32(img.Pix[o+2]) / 255}
			h, s, v := toHSV(c)
			w := s * v
			sx += w * math.Cos(h*math.Pi/180)
			sy += w * math.Sin(h*math.Pi/180)
		}
	}
	h := math.Atan2(sy, sx) * 180 / math.Pi
	if h < 0 {
		h += 360
	}
	return h
}

// nearestColour classifies a hue as one of the four card colours.
func nearestColour(h float64) referee.Colour {
	best, bd := referee.Colour(0), 1e9
	for _, c := range referee.Colours {
		ch, _, _ := toHSV(cardColours[c])
		d := math.Abs(h - ch)
		d = math.Min(d, 360-d)
		if d < bd {
			best, bd = c, d
		}
	}
	return best
}

func TestConcurrentRenderersAgree(t *testing.T) {
	p := DefaultParams()
	want := make([][]byte, 4)
	for i := range want {
		r := newRenderer(t, p, uint64(100+i))
		for k := 0; k < 20; k++ {
			img, _ := r.Sample()
			want[i] = append(want[i], img.Pix...)
		}
	}
	got := make([][]byte, 4)
	done := make(chan int)
	for i := range got {
		go func() {
			r, err := New(p, uint64(100+i))
			if err == nil {
				for k := 0; k < 20; k++ {
					img, _ := r.Sample()
					got[i] = append(got[i], img.Pix...)
				}
			}
			done <- i
		}()
	}
	for range got {
		<-done
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Errorf("renderer %d: concurrent samples differ from sequential ones", i)
		}
	}
}

func TestFaceColourMatchesLabel(t *testing.T) {
	clean := newRenderer(t, DefaultParams(), 1)
	mild := DefaultParams().Scaled(0.5)
	mild.Occlusion = 0
	rm := newRenderer(t, mild, 2)
	rd := newRenderer(t, DefaultParams(), 3)
	right, total := 0, 0
	for _, c := range referee.Colours {
		for n := 1; n <= 10; n++ {
			f := referee.Face{Colour: c, Number: n}
			if got := nearestColour(hueOf(clean.Face(f))); got != c {
				t.Errorf("clean %v: hue %.0f looks %v", f, hueOf(clean.Face(f)), got)
			}
			for k := 0; k < 3; k++ {
				img, err := rm.SampleOf(Label{Side: FaceSide, Face: f})
				if err != nil {
					t.Fatal(err)
				}
				if got := nearestColour(hueOf(img)); got != c {
					t.Errorf("mildly augmented %v: hue %.0f looks %v", f, hueOf(img), got)
				}
				img, _ = rd.SampleOf(Label{Side: FaceSide, Face: f})
				if nearestColour(hueOf(img)) == c {
					right++
				}
				total++
			}
		}
	}
	// At full strength occluders, neighbours and white balance may mislead
	// a mean hue now and then, but not often.
	if right < total*9/10 {
		t.Errorf("fully augmented faces: mean hue matches the colour in %d of %d", right, total)
	}
}

// plainFace renders a face in the canonical style without balls, so that
// only the numerals differ between faces.
func plainFace(f referee.Face, w, h int) *image.RGBA {
	var c canvas
	c.reset(w, h)
	st := canonicalFaceStyle(f, float64(h)/float64(w))
	st.balls = nil
	drawFace(&c, f, &st)
	return c.rgba()
}

func TestSixAndNineDiffer(t *testing.T) {
	for _, c := range referee.Colours {
		six := plainFace(referee.Face{Colour: c, Number: 6}, 120, 180)
		nine := plainFace(referee.Face{Colour: c, Number: 9}, 120, 180)
		// A card turned 180 degrees is the same card (its numeral is
		// printed both ways up)...
		if d := meanAbsDiff(six, rot180(six)); d > 0.5 {
			t.Errorf("%v 6 differs from itself turned 180 degrees by %.2f", c, d)
		}
		// ...and a 6 is not a 9 whichever way up either lies.
		if d := meanAbsDiff(six, nine); d < 8 {
			t.Errorf("%v: 6 and 9 differ by only %.1f", c, d)
		}
		if d := meanAbsDiff(six, rot180(nine)); d < 8 {
			t.Errorf("%v: 6 and a 9 turned 180 degrees differ by only %.1f", c, d)
		}
	}
	// The underline is under the upright numeral: in a clean 6 the
	// numeral's ink ends above the underline's gap, so there must be a row
	// of pure card colour between them.
	m := goFonts[0].mask(6)
	if m == nil {
		t.Fatal("no mask for 6")
	}
	lv := m.levels[0]
	gap := false
	for y := int(m.cy + m.ih/2); y < lv.h && !gap; y++ {
		row := float32(0)
		for x := 0; x < lv.w; x++ {
			row = max(row, lv.a[y*lv.w+x])
		}
		if row < 0.05 {
			gap = true
		}
	}
	if !gap {
		t.Error("no gap between the 6 and its underline")
	}
	// Crops of 6 and 9 (clean, same place) differ as well.
	p := DefaultParams().Scaled(0)
	six, _ := newRenderer(t, p, 5).SampleOf(Label{Side: FaceSide, Face: referee.Face{Colour: referee.Red, Number: 6}})
	nine, _ := newRenderer(t, p, 5).SampleOf(Label{Side: FaceSide, Face: referee.Face{Colour: referee.Red, Number: 9}})
	if d := meanAbsDiff(six, nine); d < 5 {
		t.Errorf("clean crops of red 6 and red 9 differ by only %.1f", d)
	}
}

func TestBacksDistinct(t *testing.T) {
	p := DefaultParams()
	p.CardW, p.CardH = 60, 90
	r := newRenderer(t, p, 1)
	ds := Designs()
	if len(ds) != 12 {
		t.Fatalf("%d designs", len(ds))
	}
	imgs := make([]*image.RGBA, len(ds))
	for i, d := range ds {
		if d.ID != referee.BackDesigns[i] {
			t.Errorf("design %d is %q, want %q", i, d.ID, referee.BackDesigns[i])
		}
		imgs[i] = r.Back(d)
	}
	for i := range imgs {
		for j := i + 1; j < len(imgs); j++ {
			if d := meanAbsDiff(imgs[i], imgs[j]); d < 20 {
				t.Errorf("backs %s and %s differ by only %.1f", ds[i].ID, ds[j].ID, d)
			}
		}
	}
	var rnd []*image.RGBA
	for s := uint64(0); s < 40; s++ {
		d := RandomDesign(s)
		if DesignIndex(d.ID) >= 0 {
			t.Fatalf("random design has a real design's ID %q", d.ID)
		}
		img := r.Back(d)
		for i := range imgs {
			if diff := meanAbsDiff(img, imgs[i]); diff < 15 {
				t.Errorf("random design %d is too like %s (%.1f)", s, ds[i].ID, diff)
			}
		}
		for j, o := range rnd {
			if diff := meanAbsDiff(img, o); diff < 8 {
				t.Errorf("random designs %d and %d differ by only %.1f", s, j, diff)
			}
		}
		rnd = append(rnd, img)
	}
	if meanAbsDiff(r.Back(RandomDesign(99)), r.Back(RandomDesign(99))) != 0 {
		t.Error("RandomDesign is not deterministic")
	}
}

func TestDesignByID(t *testing.T) {
	for _, n := range referee.BackDesigns {
		d, err := DesignByID(n)
		if err != nil || d.ID != n {
			t.Errorf("DesignByID(%q) = %q, %v", n, d.ID, err)
		}
	}
	rd := RandomDesign(0xdeadbeef)
	got, err := DesignByID(rd.ID)
	if err != nil || got != rd {
		t.Errorf("DesignByID(%q) = %+v, %v; want %+v", rd.ID, got, err, rd)
	}
	for _, bad := range []string{"", "spheres2", "random-", "random-xyz"} {
		if _, err := DesignByID(bad); !errors.Is(err, ErrUnknownDesign) {
			t.Errorf("DesignByID(%q) error %v, want ErrUnknownDesign", bad, err)
		}
	}
}

func TestSampleLabels(t *testing.T) {
	p := DefaultParams()
	r := newRenderer(t, p, 11)
	const n = 600
	backs, random := 0, 0
	seen := map[referee.Face]bool{}
	for i := 0; i < n; i++ {
		img, l := r.Sample()
		if img.Bounds() != image.Rect(0, 0, p.W, p.H) {
			t.Fatalf("sample is %v", img.Bounds())
		}
		switch l.Side {
		case FaceSide:
			if !l.Face.Valid() || l.Back != "" {
				t.Fatalf("bad face label %+v", l)
			}
			seen[l.Face] = true
		case BackSide:
			backs++
			if _, err := DesignByID(l.Back); err != nil {
				t.Fatalf("back label %q: %v", l.Back, err)
			}
			if DesignIndex(l.Back) < 0 {
				random++
			}
		default:
			t.Fatalf("bad side %v", l.Side)
		}
	}
	if f := float64(backs) / n; math.Abs(f-p.BackFraction) > 0.07 {
		t.Errorf("back fraction %.2f, want about %.2f", f, p.BackFraction)
	}
	if f := float64(random) / float64(backs); math.Abs(f-p.RandomBacks) > 0.12 {
		t.Errorf("random back fraction %.2f, want about %.2f", f, p.RandomBacks)
	}
	if len(seen) < 38 {
		t.Errorf("only %d of 40 faces in %d samples", len(seen), n)
	}
}

func TestSampleOfErrors(t *testing.T) {
	r := newRenderer(t, DefaultParams(), 1)
	for _, l := range []Label{
		{Side: FaceSide, Face: referee.Face{Colour: referee.Red, Number: 11}},
		{Side: FaceSide},
		{Side: Side(9)},
	} {
		if _, err := r.SampleOf(l); !errors.Is(err, ErrLabel) {
			t.Errorf("SampleOf(%+v) error %v, want ErrLabel", l, err)
		}
	}
	if _, err := r.SampleOf(Label{Side: BackSide, Back: "nope"}); !errors.Is(err, ErrUnknownDesign) {
		t.Errorf("unknown back: error %v", err)
	}
	if err := r.SampleOfInto(image.NewRGBA(image.Rect(0, 0, 10, 10)), Label{Side: BackSide, Back: "fish"}); !errors.Is(err, ErrParams) {
		t.Errorf("wrong-sized destination: error %v", err)
	}
}

func TestParamsValidate(t *testing.T) {
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	for s := 0.0; s <= 2; s += 0.5 {
		if err := DefaultParams().Scaled(s).Validate(); err != nil {
			t.Errorf("Scaled(%v): %v", s, err)
		}
	}
	for name, mod := range map[string]func(*Params){
		"zero size":     func(p *Params) { p.W = 0 },
		"back fraction": func(p *Params) { p.BackFraction = 1.5 },
		"scale order":   func(p *Params) { p.ScaleMin, p.ScaleMax = 1.1, 0.9 },
		"jpeg quality":  func(p *Params) { p.JPEGQuality = 0 },
		"noise":         func(p *Params) { p.Noise = -1 },
		"card size":     func(p *Params) { p.CardH = 2 },
	} {
		p := DefaultParams()
		mod(&p)
		if _, err := New(p, 1); !errors.Is(err, ErrParams) {
			t.Errorf("%s: New error %v, want ErrParams", name, err)
		}
	}
}

func TestCleanCards(t *testing.T) {
	r := newRenderer(t, DefaultParams(), 1)
	f := r.Face(referee.Face{Colour: referee.Blue, Number: 3})
	b := r.Back(Designs()[0])
	for _, img := range []*image.RGBA{f, b} {
		if img.Bounds() != image.Rect(0, 0, 180, 270) {
			t.Fatalf("clean card is %v", img.Bounds())
		}
		if a := img.Pix[3]; a != 0 {
			t.Errorf("corner alpha %d, want transparent", a)
		}
		if a := img.Pix[img.PixOffset(90, 135)+3]; a != 255 {
			t.Errorf("centre alpha %d, want opaque", a)
		}
	}
	// The face has white numerals: some pixels are near white.
	white := 0
	for i := 0; i < len(f.Pix); i += 4 {
		if f.Pix[i] > 220 && f.Pix[i+1] > 220 && f.Pix[i+2] > 220 {
			white++
		}
	}
	if frac := float64(white) / float64(180*270); frac < 0.03 || frac > 0.3 {
		t.Errorf("white fraction of a face %.3f, want a numeral's worth", frac)
	}
	if _, err := r.Card(Label{Side: BackSide, Back: "shells"}, 2, 2, false); !errors.Is(err, ErrParams) {
		t.Errorf("tiny card: %v", err)
	}
}

func TestFontsHaveAllNumerals(t *testing.T) {
	for _, f := range fontsFor(true) {
		for n := 1; n <= 10; n++ {
			m := f.mask(n)
			if m == nil || m.ih < 40 || m.iw < 10 {
				t.Errorf("font %s: numeral %d mask %+v", f.name, n, m)
			}
		}
	}
}

func TestHomography(t *testing.T) {
	from := [4][2]float64{{0, 0}, {10, 1}, {11, 12}, {-1, 9}}
	to := [4][2]float64{{0, 0}, {1, 0}, {1, 1.5}, {0, 1.5}}
	h := homography(from, to)
	for i := range from {
		x, y := from[i][0], from[i][1]
		w := h[6]*x + h[7]*y + h[8]
		u, v := (h[0]*x+h[1]*y+h[2])/w, (h[3]*x+h[4]*y+h[5])/w
		if math.Abs(u-to[i][0]) > 1e-9 || math.Abs(v-to[i][1]) > 1e-9 {
			t.Errorf("point %d maps to (%g,%g), want %v", i, u, v, to[i])
		}
	}
}

func TestContactSheet(t *testing.T) {
	r := newRenderer(t, DefaultParams(), 1)
	var imgs []*image.RGBA
	for i := 0; i < 5; i++ {
		img, _ := r.Sample()
		imgs = append(imgs, img)
	}
	s := ContactSheet(imgs, 2)
	if want := image.Rect(0, 0, 2+2*34, 2+3*50); s.Bounds() != want {
		t.Errorf("sheet %v, want %v", s.Bounds(), want)
	}
	if got := sub(s, image.Rect(36, 2, 68, 50)); meanAbsDiff(got, imgs[1]) != 0 {
		t.Error("second image not in place")
	}
	if z := Zoom(imgs[0], 3); z.Bounds().Dx() != 96 || z.Pix[z.PixOffset(95, 143)] != imgs[0].Pix[imgs[0].PixOffset(31, 47)] {
		t.Error("Zoom wrong")
	}
}

func BenchmarkSample(b *testing.B) {
	r := newRenderer(b, DefaultParams(), 1)
	dst := image.NewRGBA(image.Rect(0, 0, 32, 48))
	r.SampleInto(dst) // fonts load once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.SampleInto(dst)
	}
}

func BenchmarkSampleFace(b *testing.B) {
	p := DefaultParams()
	p.BackFraction = 0
	r := newRenderer(b, p, 1)
	dst := image.NewRGBA(image.Rect(0, 0, 32, 48))
	r.SampleInto(dst)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.SampleInto(dst)
	}
}

func BenchmarkSampleRandomBack(b *testing.B) {
	p := DefaultParams()
	p.BackFraction, p.RandomBacks = 1, 1
	r := newRenderer(b, p, 1)
	dst := image.NewRGBA(image.Rect(0, 0, 32, 48))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.SampleInto(dst)
	}
}

func BenchmarkSampleClean(b *testing.B) {
	p := DefaultParams().Scaled(0)
	p.BackFraction = 0
	r := newRenderer(b, p, 1)
	dst := image.NewRGBA(image.Rect(0, 0, 32, 48))
	r.SampleInto(dst)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.SampleInto(dst)
	}
}

func TestOtherSizes(t *testing.T) {
	for _, sz := range []struct {
		w, h int
		tex  float64
	}{{24, 36, 1.5}, {64, 96, 2}, {48, 48, 1}} {
		p := DefaultParams().Scaled(0.5)
		p.W, p.H, p.TexScale = sz.w, sz.h, sz.tex
		p.Occlusion = 0
		r := newRenderer(t, p, 1)
		for _, c := range referee.Colours {
			img, err := r.SampleOf(Label{Side: FaceSide, Face: referee.Face{Colour: c, Number: 7}})
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, sz.w, sz.h) {
				t.Fatalf("%dx%d: got %v", sz.w, sz.h, img.Bounds())
			}
			if got := nearestColour(hueOf(img)); got != c {
				t.Errorf("%dx%d %v 7 looks %v", sz.w, sz.h, c, got)
			}
		}
		img, l := r.Sample()
		if img.Bounds().Dx() != sz.w || l.Side > BackSide {
			t.Errorf("%dx%d: Sample gave %v, %+v", sz.w, sz.h, img.Bounds(), l)
		}
	}
}

// A face's number is scored only when a numeral shows: NumeralSeen must be
// 1 for clean, centred cards and for backs, and fall below LegibleNumeral
// for some, not most, of the cards under deep occluders.
func TestNumeralSeen(t *testing.T) {
	clean, err := New(DefaultParams().Scaled(0), 3)
	if err != nil {
		t.Fatal(err)
	}
	face := Label{Side: FaceSide, Face: referee.Face{Colour: referee.Green, Number: 6}}
	for range 20 {
		if _, err := clean.SampleOf(face); err != nil {
			t.Fatal(err)
		}
		if s := clean.NumeralSeen(); s != 1 {
			t.Fatalf("clean centred card: NumeralSeen %v, want 1", s)
		}
	}
	p := DefaultParams()
	p.Occlusion, p.MaxOcclusion = 1, 0.9
	heavy, err := New(p, 4)
	if err != nil {
		t.Fatal(err)
	}
	hidden := 0
	for range 400 {
		if _, err := heavy.SampleOf(face); err != nil {
			t.Fatal(err)
		}
		if heavy.NumeralSeen() < LegibleNumeral {
			hidden++
		}
	}
	if _, err := heavy.SampleOf(Label{Side: BackSide, Back: referee.BackDesigns[0]}); err != nil {
		t.Fatal(err)
	}
	if s := heavy.NumeralSeen(); s != 1 {
		t.Errorf("a back: NumeralSeen %v, want 1", s)
	}
	// Occluders reaching up to 90% in from one side hide both numerals of
	// some cards, never of most.
	if hidden == 0 || hidden > 200 {
		t.Errorf("%d of 400 heavily occluded faces have both numerals hidden, want some but not most", hidden)
	}
	t.Logf("%d of 400 heavily occluded faces have both numerals hidden", hidden)
}

// renderedHash hashes what a renderer with Params p draws: samples with
// their labels, the clean faces, and varied Cards.
func renderedHash(t *testing.T, p Params) (samples, faces, cards string) {
	h := sha256.New()
	r := newRenderer(t, p, 42)
	for range 200 {
		img, l := r.Sample()
		h.Write(img.Pix)
		h.Write([]byte(l.String()))
	}
	samples = fmt.Sprintf("%x", h.Sum(nil))
	h.Reset()
	for _, c := range referee.Colours {
		for n := 1; n <= 10; n++ {
			h.Write(r.Face(referee.Face{Colour: c, Number: n}).Pix)
		}
	}
	faces = fmt.Sprintf("%x", h.Sum(nil))
	h.Reset()
	for i := range 20 {
		l := Label{Side: FaceSide, Face: referee.Face{Colour: referee.Colours[i%4], Number: 1 + i%10}}
		img, err := r.Card(l, 90, 135, true)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(img.Pix)
	}
	cards = fmt.Sprintf("%x", h.Sum(nil))
	return
}

// With Printed 0 (the default) the renderer draws exactly what it drew
// before the printed style existed: the committed weights were trained on
// these samples and the rendered test scenes show these faces. The hashes
// were taken from the code before the printed style was added (with this
// Go version's JPEG encoder).
func TestPrintedZeroDrawsAsBefore(t *testing.T) {
	samples, faces, cards := renderedHash(t, DefaultParams())
	if want := "87e5c1f6daa2b8b5d86e7d5107c7c2c58548ee4f79feedf9d9bf8a4504c1b8d2"; samples != want {
		t.Errorf("samples hash %s, want %s", samples, want)
	}
	if want := "bfa04251ad31652c7b4edc2217900c3413ddbf5c4cad754f406558203245dd68"; faces != want {
		t.Errorf("clean faces hash %s, want %s", faces, want)
	}
	if want := "c9fa3d5cea2ac3f9e8d41e81a9ddb49d6f470be36551601713f9c59ad9c47c14"; cards != want {
		t.Errorf("varied cards hash %s, want %s", cards, want)
	}
}

func near(img *image.RGBA, x, y int, c rgb, tol float32) bool {
	o := img.PixOffset(x, y)
	px := rgb{float32(img.Pix[o]) / 255, float32(img.Pix[o+1]) / 255, float32(img.Pix[o+2]) / 255}
	return dist3(px, c) < tol
}

// printedPlain draws face f in style st without balls, wear or gloss, so
// that only the card colour and the numerals show.
func printedPlain(f referee.Face, st faceStyle, w, h int) *image.RGBA {
	var c canvas
	c.reset(w, h)
	st.balls, st.wear, st.gloss = nil, 0, 0
	drawFace(&c, f, &st)
	return c.rgba()
}

// A printed face is mostly its card colour; its numerals are white with
// the contrasting card colour next to them (the extrusion and outline),
// and they lie where numeralBoxes says.
func TestPrintedFaceLook(t *testing.T) {
	const w, h = 180, 270
	aspect := float64(h) / w
	p := DefaultParams()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, col := range referee.Colours {
		for n := 1; n <= 10; n++ {
			f := referee.Face{Colour: col, Number: n}
			styles := []faceStyle{canonicalPrintedStyle(f, aspect), printedFaceStyle(rng, f, aspect, &p)}
			for k, st := range styles {
				img := printedPlain(f, st, w, h)
				checkPrintedLook(t, fmt.Sprintf("%v style %d", f, k), img, f, &st)
			}
		}
	}
}

func checkPrintedLook(t *testing.T, name string, img *image.RGBA, f referee.Face, st *faceStyle) {
	t.Helper()
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	k := float64(w)
	con := cardColours[contrastColour[f.Colour]]
	boxes := numeralBoxes(f, st, float64(h)/k)
	inBoxes := func(x, y int) bool {
		u, v := (float64(x)+0.5)/k, (float64(y)+0.5)/k
		return inBox(boxes[0], u, v, 0.02) || inBox(boxes[1], u, v, 0.02)
	}
	base, whites, whiteOut, edged := 0, 0, 0, 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			if near(img, x, y, st.base, 0.12) {
				base++
			}
			if !near(img, x, y, st.numeral, 0.1) {
				continue
			}
			whites++
			if !inBoxes(x, y) {
				whiteOut++
			}
			// A white pixel at the numeral's edge has the contrasting colour
			// within three pixels on some side.
		edge:
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				for s := 1; s <= 3; s++ {
					xx, yy := x+d[0]*s, y+d[1]*s
					if xx < 0 || yy < 0 || xx >= w || yy >= h {
						break
					}
					if near(img, xx, yy, con, 0.45) {
						edged++
						break edge
					}
					if near(img, xx, yy, st.base, 0.2) {
						break
					}
				}
			}
		}
	}
	total := (w - 2) * (h - 2)
	if fr := float64(base) / float64(total); fr < 0.6 {
		t.Errorf("%s: %.2f of the face near its card colour", name, fr)
	}
	if fr := float64(whites) / float64(total); fr < 0.05 || fr > 0.3 {
		t.Errorf("%s: %.3f of the face white, want two numerals' worth", name, fr)
	}
	if whiteOut > whites/100 {
		t.Errorf("%s: %d of %d white pixels outside the numeral boxes", name, whiteOut, whites)
	}
	// The white numerals are edged by the contrasting colour, not by the
	// card's own colour: a good share of the white pixels is near it.
	if edged < whites/10 {
		t.Errorf("%s: only %d of %d white pixels have the contrasting colour beside them", name, edged, whites)
	}
}

// The real print has no underline under 6 and 9: the printed fonts' masks
// have no ink below the numeral, where the default fonts have their
// underline.
func TestPrintedNoUnderline(t *testing.T) {
	for _, n := range []int{6, 9} {
		m := goFonts[0].mask(n)
		if below := m.ink[3] - (m.cy + m.ih/2); below < 0.1*m.ih {
			t.Errorf("default font %d: underline reaches only %.1f below the numeral", n, below)
		}
		for _, fn := range printedFonts {
			m := fn.mask(n)
			if m == nil {
				t.Fatalf("%s: no mask for %d", fn.name, n)
			}
			if below := m.ink[3] - (m.cy + m.ih/2); below > 0.02*m.ih {
				t.Errorf("%s %d: ink %.1f pixels below the numeral", fn.name, n, below)
			}
		}
	}
	// Printed 6 and 9 still differ, upright and turned.
	const w, h = 120, 180
	for _, c := range referee.Colours {
		six := printedPlain(referee.Face{Colour: c, Number: 6}, canonicalPrintedStyle(referee.Face{Colour: c, Number: 6}, 1.5), w, h)
		nine := printedPlain(referee.Face{Colour: c, Number: 9}, canonicalPrintedStyle(referee.Face{Colour: c, Number: 9}, 1.5), w, h)
		if d := meanAbsDiff(six, nine); d < 5 {
			t.Errorf("%v printed 6 and 9 differ by only %.1f", c, d)
		}
		if d := meanAbsDiff(six, rot180(nine)); d < 5 {
			t.Errorf("%v printed 6 and a 9 turned differ by only %.1f", c, d)
		}
	}
}

// The printed style's balls: four to eight, a tenth to a fifth of the
// card wide, rimmed, in another colour than the card's, over the middle
// of the face and clear of the numerals.
func TestPrintedBalls(t *testing.T) {
	const aspect = 1.5
	p := DefaultParams()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		f := referee.Face{Colour: referee.Colours[i%4], Number: 1 + i%10}
		st := printedFaceStyle(rng, f, aspect, &p)
		if i%2 == 0 {
			st = canonicalPrintedStyle(f, aspect)
		}
		if n := len(st.balls); n < 4 || n > 8 {
			t.Errorf("%v: %d balls", f, n)
		}
		boxes := numeralBoxes(f, &st, aspect)
		for _, b := range st.balls {
			switch {
			case b.r < 0.05 || b.r > 0.1:
				t.Errorf("%v: ball radius %.3f", f, b.r)
			case b.rim <= 0:
				t.Errorf("%v: ball without a rim", f)
			case dist3(b.col, cardColours[f.Colour]) < 0.25:
				t.Errorf("%v: ball in the card's own colour", f)
			case b.y < 0.25*aspect-0.02 || b.y > 0.75*aspect+0.02 || b.x-b.r < 0 || b.x+b.r > 1:
				t.Errorf("%v: ball at (%.2f,%.2f) r %.2f, not over the middle", f, b.x, b.y, b.r)
			case inBox(boxes[0], b.x, b.y, b.r) || inBox(boxes[1], b.x, b.y, b.r):
				t.Errorf("%v: ball at (%.2f,%.2f) on a numeral", f, b.x, b.y)
			}
		}
	}
}

// PrintedCanonical switches the clean face to the real print's, and only
// the clean face.
func TestPrintedCanonical(t *testing.T) {
	p := DefaultParams()
	p.PrintedCanonical = true
	f := referee.Face{Colour: referee.Green, Number: 6}
	got := newRenderer(t, p, 1).Face(f)
	var c canvas
	c.reset(p.CardW, p.CardH)
	st := canonicalPrintedStyle(f, float64(p.CardH)/float64(p.CardW))
	drawFace(&c, f, &st)
	c.cutCorners(cardCorner)
	if d := meanAbsDiff(got, c.rgba()); d != 0 {
		t.Errorf("PrintedCanonical face differs from the canonical printed style by %.2f", d)
	}
	if d := meanAbsDiff(got, newRenderer(t, DefaultParams(), 1).Face(f)); d < 5 {
		t.Errorf("PrintedCanonical face differs from the default face by only %.2f", d)
	}
}

// Printed is a probability: Scaled scales and caps it, Validate rejects it
// outside 0..1, and Printed 1 draws only printed faces.
func TestPrintedParams(t *testing.T) {
	p := DefaultParams()
	if p.Printed != 0 || p.PrintedCanonical {
		t.Errorf("default Printed %v, PrintedCanonical %v: want 0, false", p.Printed, p.PrintedCanonical)
	}
	p.Printed = 0.6
	if s := p.Scaled(0.5).Printed; math.Abs(s-0.3) > 1e-12 {
		t.Errorf("Scaled(0.5).Printed = %v", s)
	}
	if s := p.Scaled(3).Printed; s != 1 {
		t.Errorf("Scaled(3).Printed = %v, want 1", s)
	}
	for _, bad := range []float64{-0.1, 1.01, math.NaN()} {
		p.Printed = bad
		if _, err := New(p, 1); !errors.Is(err, ErrParams) {
			t.Errorf("Printed %v: New error %v, want ErrParams", bad, err)
		}
	}
}

func BenchmarkSamplePrinted(b *testing.B) {
	p := DefaultParams()
	p.BackFraction, p.Printed = 0, 1
	r := newRenderer(b, p, 1)
	dst := image.NewRGBA(image.Rect(0, 0, 32, 48))
	r.SampleInto(dst)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.SampleInto(dst)
	}
}
