package find

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// cardOptions are the pipeline's: a Ligretto card (58 x 87 mm) in its
// work images (0.5 pixels a millimetre).
func cardOptions() Options { return TableOptions(29, 43.5) }

// against is o looking against the empty table bg, where plain (or nil)
// marks it plain, fitting cards into heaps when fit is set.
func against(o Options, bg *gocv.Mat, plain *gocv.Mat, fit bool) Options {
	o.Table, o.Plain, o.Fit = bg, plain, fit
	return o
}

// drawCard fills a card-sized (work scale) rectangle centred at (cx, cy),
// turned by a radians, with a white numeral-like block near each end.
func drawCard(img *gocv.Mat, cx, cy, a float64, face color.RGBA) Quad {
	p := cardOptions()
	corner := func(u, v float64) image.Point {
		return image.Pt(int(math.Round(cx+u*math.Cos(a)-v*math.Sin(a))), int(math.Round(cy+u*math.Sin(a)+v*math.Cos(a))))
	}
	rect := func(u0, v0, u1, v1 float64, c color.RGBA) Quad {
		q := Quad{corner(u0, v0), corner(u1, v0), corner(u1, v1), corner(u0, v1)}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{q[:]})
		gocv.FillPoly(img, pv, c)
		pv.Close()
		return q
	}
	w, h := p.CardW/2, p.CardH/2
	q := rect(-w, -h, w, h, face)
	white := color.RGBA{250, 250, 250, 0}
	rect(-w/3, -h+4, w/3, -h+14, white)
	rect(-w/3, h-14, w/3, h-4, white)
	return q
}

// Two piles whose top cards touch make one outline; both cards must still
// be found, side by side and end to end, square or a little turned.
func TestCards_SplitsTouchingCards(t *testing.T) {
	p := cardOptions()
	green := color.RGBA{40, 150, 40, 0} // BGR
	cases := []struct {
		name   string
		dx, dy float64 // second card's offset from the first
		a0, a1 float64
		second color.RGBA
	}{
		{"side by side", p.CardW, 0, 0, 0, green},
		{"side by side, turned", p.CardW + 3, 4, 0.12, -0.1, green},
		{"side by side, other colour", p.CardW + 3, 4, 0.12, -0.1, color.RGBA{30, 200, 220, 0}},
		{"end to end", 2, p.CardH, 0.05, -0.04, green},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 50, 120, 0), 240, 260, gocv.MatTypeCV8UC3)
			defer img.Close()
			x0, y0 := 90.0, 80.0
			want := []Quad{drawCard(&img, x0, y0, c.a0, green), drawCard(&img, x0+c.dx, y0+c.dy, c.a1, c.second)}
			gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0, 0, gocv.BorderDefault)
			got := Cards(img, p)
			expectCards(t, got, want)
		})
	}
}

// Three piles whose top cards touch in a row (the pile grid puts them so)
// make one outline; all three cards must be found.
func TestCards_SplitsThreeTouchingCards(t *testing.T) {
	p := cardOptions()
	cols := []color.RGBA{{40, 150, 40, 0}, {30, 200, 220, 0}, {200, 90, 30, 0}}
	cases := []struct {
		name string
		gap  float64
		a    [3]float64
	}{
		{"square", 0, [3]float64{0, 0, 0}},
		{"a little turned", 2, [3]float64{0.08, -0.06, 0.1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			img := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(60, 50, 120, 0), 200, 260, gocv.MatTypeCV8UC3)
			defer img.Close()
			var want []Quad
			for i := range 3 {
				want = append(want, drawCard(&img, 70+float64(i)*(p.CardW+c.gap), 90, c.a[i], cols[i]))
			}
			gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0, 0, gocv.BorderDefault)
			got := Cards(img, p)
			expectCards(t, got, want)
		})
	}
}

// expectCards checks that every wanted card was found (centres within 4 px)
// and that nothing else was.
func expectCards(t *testing.T, got, want []Quad) {
	t.Helper()
	for _, w := range want {
		wx, wy := w.Centre()
		hit := false
		for _, q := range got {
			if x, y := q.Centre(); math.Hypot(x-wx, y-wy) < 4 {
				hit = true
			}
		}
		if !hit {
			t.Errorf("card at %.0f,%.0f not found; found %v", wx, wy, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("found %d cards, want %d: %v", len(got), len(want), got)
	}
}

// A pile's top card lies a little askew on the cards below (the scene
// lays each card within 3 mm and 0.08 rad of the pile's place): the top
// card must be found, not the pile's ragged outline.
func TestCardsOffTable_PileWithItsTopAskew(t *testing.T) {
	p := cardOptions()
	table := gocv.NewScalar(60, 50, 120, 0)
	bg := gocv.NewMatWithSizeFromScalar(table, 160, 160, gocv.MatTypeCV8UC3)
	defer bg.Close()
	for _, c := range []struct {
		name   string
		dx, dy float64 // the top card's offset from the one below, work px
		a0, a1 float64
	}{
		{"square", 0, 0, 0, 0},
		{"askew", 2, -2, -0.08, 0.08},
		{"askew the other way", -2, 2, 0.06, -0.08},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := bg.Clone()
			defer img.Close()
			drawCard(&img, 80, 80, c.a0, color.RGBA{40, 40, 200, 0})
			top := drawCard(&img, 80+c.dx, 80+c.dy, c.a1, color.RGBA{40, 150, 40, 0})
			gocv.GaussianBlur(img, &img, image.Pt(3, 3), 0, 0, gocv.BorderDefault)
			got := Cards(img, against(p, &bg, nil, false))
			tx, ty := top.Centre()
			for _, q := range got {
				if x, y := q.Centre(); math.Hypot(x-tx, y-ty) < 4 {
					return
				}
			}
			t.Errorf("the pile's top at %.0f,%.0f not found; found %v", tx, ty, got)
		})
	}
}

// The same on a rendered table (8 players, seed 13: a green 6 laid as a
// foul on a red pile, its red edge showing; cut from the rectified
// centre, with the empty table under it): with the askew top's edges
// broken by its print, only the pile's outline holds it, at 1.5 cards.
func TestCardsOffTable_RenderedPileWithItsTopAskew(t *testing.T) {
	img, bg := cutWithTable(t, "askew-pile")
	got := Cards(img, against(cardOptions(), &bg, nil, false))
	for _, q := range got {
		if x, y := q.Centre(); math.Hypot(x-48, y-34) < 5 {
			return
		}
	}
	t.Errorf("the pile at 48,34 not found; found %v", got)
}

// A green 1 on green felt (12 players seed 14, cut from the rectified
// centre with the empty table relit under it): its channels differ from
// the felt's by -22, +33 and -14 levels, under ForegroundStep, so that
// only its white print stands out; across the felt's colour it differs by
// about 41 (hueDiffMask), and where the table is plain that finds it. The
// felt is plain all over (as the pipeline's table texture finds it).
func TestCardsOnPlainTable_GreenCardOnGreenFelt(t *testing.T) {
	img, bg := cutWithTable(t, "green-on-felt")
	plain := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), bg.Rows(), bg.Cols(), gocv.MatTypeCV8U)
	defer plain.Close()
	at := func(qs []Quad) bool {
		for _, q := range qs {
			if x, y := q.Centre(); math.Hypot(x-45, y-35) < 8 {
				return true
			}
		}
		return false
	}
	if at(Cards(img, against(cardOptions(), &bg, nil, true))) {
		t.Fatal("found by brightness and channels alone: the cut no longer shows a card the felt's colour")
	}
	if got := Cards(img, against(cardOptions(), &bg, &plain, true)); !at(got) {
		t.Errorf("the green 1 at 45,35 not found on plain felt; found %v", got)
	}
}

// hueDiffMask marks what no change of light makes: the felt shaded to 60%
// or lit to 130% is not marked, the green card on it is.
func TestHueDiffMask_ShadeIsNotHue(t *testing.T) {
	img, bg := cutWithTable(t, "green-on-felt")
	plain := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), bg.Rows(), bg.Cols(), gocv.MatTypeCV8U)
	defer plain.Close()
	share := func(m gocv.Mat, r image.Rectangle) float64 {
		reg := m.Region(r)
		defer reg.Close()
		return float64(gocv.CountNonZero(reg)) / float64(r.Dx()*r.Dy())
	}
	for _, gain := range []float64{0.6, 1.3} {
		lit := gocv.NewMat()
		bg.ConvertToWithParams(&lit, gocv.MatTypeCV8UC3, float32(gain), 0)
		m, ok := hueDiffMask(lit, bg, &plain, hueThreshold)
		lit.Close()
		if !ok {
			t.Fatal("no mask")
		}
		s := share(m, image.Rect(0, 0, bg.Cols(), bg.Rows()))
		t.Logf("felt lit %.0f%%: %.2f%% marked", 100*gain, 100*s)
		if s > 0.01 {
			t.Errorf("felt lit %.0f%%: %.1f%% of it marked as differing in hue", 100*gain, 100*s)
		}
		m.Close()
	}
	m, ok := hueDiffMask(img, bg, &plain, hueThreshold)
	if !ok {
		t.Fatal("no mask")
	}
	defer m.Close()
	// The card's face between its numerals (print and balls are white).
	s := share(m, image.Rect(38, 28, 52, 42))
	t.Logf("card face: %.0f%% marked", 100*s)
	if s < 0.5 {
		t.Errorf("only %.0f%% of the green card's face marked", 100*s)
	}
	if _, ok := hueDiffMask(img, bg, nil, hueThreshold); ok {
		t.Error("a mask without a plain table")
	}
}

// BenchmarkHueDiffMask measures the finder's hue test over a whole
// rectified centre (820x410 work pixels) of plain table, its worst case
// (on wood or linen it skips the grain):
//
//	go test ./vision/find -run '^$' -bench HueDiffMask
func BenchmarkHueDiffMask(b *testing.B) {
	img, bg := cutWithTable(b, "green-on-felt")
	big, table := gocv.NewMat(), gocv.NewMat()
	defer big.Close()
	defer table.Close()
	gocv.Resize(img, &big, image.Pt(820, 410), 0, 0, gocv.InterpolationLinear)
	gocv.Resize(bg, &table, image.Pt(820, 410), 0, 0, gocv.InterpolationLinear)
	plain := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(255, 0, 0, 0), 410, 820, gocv.MatTypeCV8U)
	defer plain.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, ok := hueDiffMask(big, table, &plain, hueThreshold)
		if !ok {
			b.Fatal("no mask")
		}
		m.Close()
	}
}

// cutWithTable reads a fixture cut from a rendered frame,
// testdata/NAME.png, and the empty table under it, testdata/NAME-table.png;
// both are closed when the test ends.
func cutWithTable(t testing.TB, name string) (img, table gocv.Mat) {
	t.Helper()
	img = gocv.IMRead("testdata/"+name+".png", gocv.IMReadColor)
	table = gocv.IMRead("testdata/"+name+"-table.png", gocv.IMReadColor)
	t.Cleanup(func() {
		img.Close()
		table.Close()
	})
	if img.Empty() || table.Empty() {
		t.Fatalf("testdata/%s*.png do not load", name)
	}
	return img, table
}
