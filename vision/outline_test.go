package vision

import (
	"image"
	"image/color"
	"math"
	"testing"

	"gocv.io/x/gocv"
)

// A pile's card whose outline joins an arm lying beside it is kept
// (heldPiles); a hand or fingers over its border, or the card gone (from
// a plain table or a checked cloth, whose squares contrast across any
// outline), are not taken for it.
func TestClearOutline_ArmBesideNotOver(t *testing.T) {
	beige := gocv.NewScalar(190, 205, 212, 0) // BGR
	yellow, skin := color.RGBA{30, 200, 225, 0}, color.RGBA{50, 70, 110, 0}
	band := func(img *gocv.Mat, pts ...image.Point) {
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{pts})
		gocv.FillPoly(img, pv, skin)
		pv.Close()
	}
	const cx, cy, a = 120.0, 85.0, 0.05
	// An arm from the image's left edge to past the card, its upper edge
	// along the card's lower side, a pixel below it.
	armBeside := func(img *gocv.Mat, q Quad) {
		l, r := q[3], q[2]
		slope := float64(r.Y-l.Y) / float64(r.X-l.X)
		y := func(x int) int { return l.Y + 1 + int(math.Round(slope*float64(x-l.X))) }
		band(img, image.Pt(0, y(0)), image.Pt(230, y(230)), image.Pt(230, y(230)+28), image.Pt(0, y(0)+30))
	}
	checked := func(img *gocv.Mat) {
		for y := 0; y < img.Rows(); y += 6 {
			for x := (y / 6 % 2) * 6; x < img.Cols(); x += 12 {
				gocv.Rectangle(img, image.Rect(x, y, x+6, y+6), color.RGBA{150, 60, 110, 0}, -1)
			}
		}
	}
	cases := []struct {
		name    string
		card    bool
		cover   func(img *gocv.Mat, q Quad)
		held    bool
		checked bool
	}{
		{"arm along the card's side, touching it", true, armBeside, true, false},
		{"two fingers over the card's top", true, func(img *gocv.Mat, q Quad) {
			for _, x := range []int{112, 126} {
				band(img, image.Pt(x, 20), image.Pt(x+7, 20), image.Pt(x+7, 80), image.Pt(x, 80))
			}
		}, false, false},
		{"a hand over the card's end", true, func(img *gocv.Mat, q Quad) {
			band(img, image.Pt(80, 20), image.Pt(160, 20), image.Pt(160, 75), image.Pt(80, 75))
		}, false, false},
		{"the card gone", false, nil, false, false},
		{"the card gone from a checked cloth", false, nil, false, true},
		{"on a checked cloth, an arm beside it", true, armBeside, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			table := gocv.NewMatWithSizeFromScalar(beige, 170, 300, gocv.MatTypeCV8UC3)
			defer table.Close()
			if c.checked {
				checked(&table)
			}
			img := table.Clone()
			defer img.Close()
			truth := moveQuad(Quad{{-15, -22}, {15, -22}, {15, 22}, {-15, 22}}, 0, cx, cy) // the card's place
			if c.card {
				truth = drawCard(&img, cx, cy, a, yellow)
			}
			if c.cover != nil {
				c.cover(&img, truth)
			}
			gocv.GaussianBlur(img, &img, image.Pt(5, 5), 0, 0, gocv.BorderDefault) // a camera's softness
			gocv.GaussianBlur(table, &table, image.Pt(5, 5), 0, 0, gocv.BorderDefault)
			// The pile's last outline: a little off, as the card below lay.
			last := moveQuad(truth, 0.03, 2, -2)
			ib, _ := img.DataPtrUint8()
			tb, _ := table.DataPtrUint8()
			q, contrast := clearOutline(ib, img.Cols(), img.Rows(), last, fgThreshold)
			differs := tableDiffers(ib, tb, img.Cols(), img.Rows(), q, fgThreshold)
			t.Logf("border contrast %.2f, differs from the table %.2f", contrast, differs)
			if held := contrast >= holdContrast && differs >= holdDiffers; held != c.held {
				t.Fatalf("contrast %.2f, differs from the table %.2f: held %v, want %v", contrast, differs, held, c.held)
			}
			if !c.held {
				return
			}
			for i := range q {
				if d := math.Hypot(float64(q[i].X-truth[i].X), float64(q[i].Y-truth[i].Y)); d > 2 {
					t.Errorf("corner %d at %v, the card's at %v (%.1f px off)", i, q[i], truth[i], d)
				}
			}
		})
	}
}

// BenchmarkHoldOutline measures what heldPiles pays for each pile the
// finder lost: the climb from its last outline, and the table check.
func BenchmarkHoldOutline(b *testing.B) {
	table := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(190, 205, 212, 0), 170, 300, gocv.MatTypeCV8UC3)
	defer table.Close()
	img := table.Clone()
	defer img.Close()
	truth := drawCard(&img, 120, 85, 0.05, color.RGBA{30, 200, 225, 0})
	gocv.GaussianBlur(img, &img, image.Pt(5, 5), 0, 0, gocv.BorderDefault)
	ib, _ := img.DataPtrUint8()
	tb, _ := table.DataPtrUint8()
	last := moveQuad(truth, 0.03, 2, -2)
	b.ResetTimer()
	for range b.N {
		q, _ := clearOutline(ib, img.Cols(), img.Rows(), last, fgThreshold)
		tableDiffers(ib, tb, img.Cols(), img.Rows(), q, fgThreshold)
	}
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
