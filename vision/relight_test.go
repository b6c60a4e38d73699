package vision

import (
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// The empty table relit to a frame whose light grew brighter, warmer and
// slanted matches that frame's bare table to a few levels, however big
// and dark the thing lying on it, so that only the thing differs.
func TestRelight_MatchesDriftedLight(t *testing.T) {
	const w, h = 300, 200
	bg := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	defer bg.Close()
	b, err := bg.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	for y := range h {
		for x := range w {
			// A textured felt with a dark marker in a corner.
			v := 120 + 20*math.Sin(float64(x)/7)*math.Cos(float64(y)/5)
			if x < 30 && y < 30 {
				v = 15
			}
			b[3*(y*w+x)], b[3*(y*w+x)+1], b[3*(y*w+x)+2] = uint8(v*0.8), uint8(v*1.1), uint8(v*0.6)
		}
	}
	// The same table under another light.
	gain := func(k, x, y int) float64 {
		return []float64{1.08, 1.15, 1.22}[k] + 0.1*float64(x)/w - 0.06*float64(y)/h
	}
	cur := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	defer cur.Close()
	c, err := cur.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	for y := range h {
		for x := range w {
			for k := range 3 {
				o := 3*(y*w+x) + k
				c[o] = uint8(math.Min(255, math.Round(float64(b[o])*gain(k, x, y))))
			}
		}
	}
	// A card and an arm on it.
	card := image.Rect(100, 60, 130, 104)
	arm := image.Rect(0, 120, 160, 170)
	for _, f := range []struct {
		r   image.Rectangle
		bgr [3]uint8
	}{{card, [3]uint8{40, 30, 200}}, {arm, [3]uint8{120, 150, 190}}} {
		for y := f.r.Min.Y; y < f.r.Max.Y; y++ {
			for x := f.r.Min.X; x < f.r.Max.X; x++ {
				copy(c[3*(y*w+x):], f.bgr[:])
			}
		}
	}

	r, err := newRelighter(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	relit := gocv.NewMat()
	defer relit.Close()
	if err := r.relight(cur, &relit); err != nil {
		t.Fatal(err)
	}
	rl, err := relit.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for y := range h {
		for x := range w {
			if p := image.Pt(x, y); p.In(card) || p.In(arm) {
				continue
			}
			for k := range 3 {
				o := 3*(y*w+x) + k
				worst = math.Max(worst, math.Abs(float64(rl[o])-float64(c[o])))
			}
		}
	}
	if worst > 4 {
		t.Errorf("the relit table differs from the bare table by up to %.0f levels", worst)
	}
	fg := shownForeground(cur, relit)
	defer fg.Close()
	if q := cardsInMask(fg); len(q) != 1 {
		t.Errorf("found %d cards against the relit table, want the one", len(q))
	}

	small := gocv.NewMatWithSize(h/2, w, gocv.MatTypeCV8UC3)
	defer small.Close()
	if err := r.relight(small, &relit); err == nil {
		t.Error("a frame of another size relit without error")
	}
}

// Someone stands in the lamp's light: half the table is 45% darker, with
// a soft edge. The relit table matches the frame's bare table on both
// sides, and the cards on either side, one of them grey like the table,
// still stand out from it.
func TestRelight_ShadeAcrossTheTable(t *testing.T) {
	const w, h = 480, 320
	bg := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	defer bg.Close()
	cur := gocv.NewMatWithSize(h, w, gocv.MatTypeCV8UC3)
	defer cur.Close()
	b, _ := bg.DataPtrUint8()
	c, _ := cur.DataPtrUint8()
	shade := func(x int) float64 { // 1 on the lit side, 0.55 in the shade, 40 px between
		f := math.Max(0, math.Min(1, (float64(x)-260)/40))
		return 1 - 0.45*f*f*(3-2*f)
	}
	for y := range h {
		for x := range w {
			v := 150 + 15*math.Sin(float64(x)/9)*math.Cos(float64(y)/6)
			for k, m := range []float64{0.7, 0.95, 1.15} {
				o := 3*(y*w+x) + k
				b[o] = uint8(v * m)
				c[o] = uint8(math.Round(v * m * shade(x)))
			}
		}
	}
	lit, shaded := image.Rect(80, 100, 110, 144), image.Rect(360, 140, 390, 184)
	for _, f := range []struct {
		r   image.Rectangle
		bgr [3]float64
	}{{lit, [3]float64{40, 30, 200}}, {shaded, [3]float64{70, 95, 115}}} { // the second: grey, the table's hue, darker
		for y := f.r.Min.Y; y < f.r.Max.Y; y++ {
			for x := f.r.Min.X; x < f.r.Max.X; x++ {
				for k := range 3 {
					c[3*(y*w+x)+k] = uint8(f.bgr[k] * shade(x))
				}
			}
		}
	}
	r, err := newRelighter(bg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.local = true
	relit := gocv.NewMat()
	defer relit.Close()
	if err := r.relight(cur, &relit); err != nil {
		t.Fatal(err)
	}
	rl, _ := relit.DataPtrUint8()
	worst := 0.0
	for y := range h {
		for x := range w {
			if p := image.Pt(x, y); p.In(lit.Inset(-8)) || p.In(shaded.Inset(-8)) || x > 220 && x < 340 {
				continue // the cards, and the shade's edge give or take a window
			}
			for k := range 3 {
				o := 3*(y*w+x) + k
				v := math.Round(float64(b[o]) * shade(x))
				worst = math.Max(worst, math.Abs(float64(rl[o])-v))
			}
		}
	}
	if worst > 8 {
		t.Errorf("the relit table differs from the shaded bare table by up to %.0f levels", worst)
	}
	fg := shownForeground(cur, relit)
	defer fg.Close()
	if q := cardsInMask(fg); len(q) != 2 {
		t.Errorf("found %d cards against the relit table, want the two", len(q))
	}
}

// BenchmarkRelight: the empty table relit to a frame, at the size of a
// 12-player table's centre in work pixels (the pipeline relights every
// relightFrames frames): under an even change of light, and with a shade
// over half the table (the local fit's cost).
func BenchmarkRelight(b *testing.B) {
	const w, h = 640, 400
	bg := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(120, 150, 170, 0), h, w, gocv.MatTypeCV8UC3)
	defer bg.Close()
	for _, shade := range []bool{false, true} {
		name := "even"
		cur := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(100, 130, 160, 0), h, w, gocv.MatTypeCV8UC3)
		if shade {
			name = "shade"
			half := cur.Region(image.Rect(w/2, 0, w, h))
			half.SetTo(gocv.NewScalar(55, 72, 88, 0))
			half.Close()
		}
		b.Run(name, func(b *testing.B) {
			r, err := newRelighter(bg)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			r.local = true
			relit := gocv.NewMat()
			defer relit.Close()
			for range b.N {
				if err := r.relight(cur, &relit); err != nil {
					b.Fatal(err)
				}
			}
		})
		cur.Close()
	}
}
