package find

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"gocv.io/x/gocv"
)

// TestMinRect_EqualsOpenCV: the Go smallest rectangle has OpenCV's size
// (to the pixel it rounds to) and centre on random point sets. The centre
// may differ by a few pixels where two turns of a small point set give
// rectangles of almost the same area; the splits below show that this
// does not change what is found.
func TestMinRect_EqualsOpenCV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		n := 4 + rng.IntN(300)
		cx, cy := rng.Float64()*200, rng.Float64()*200
		a := rng.Float64() * math.Pi
		w, h := 5+rng.Float64()*60, 5+rng.Float64()*90
		pts := make([]image.Point, n)
		for i := range pts {
			u, v := (rng.Float64()-0.5)*w, (rng.Float64()-0.5)*h
			pts[i] = image.Pt(int(cx+u*math.Cos(a)-v*math.Sin(a)), int(cy+u*math.Sin(a)+v*math.Cos(a)))
		}
		gw, gh, gx, gy := minRect(hullOfSorted(sortedPoints(pts), nil))
		pv := gocv.NewPointVectorFromPoints(pts)
		r := gocv.MinAreaRect(pv)
		pv.Close()
		ow, oh := float64(r.Width), float64(r.Height)
		if math.Abs(math.Max(gw, gh)-math.Max(ow, oh)) > 1 || math.Abs(math.Min(gw, gh)-math.Min(ow, oh)) > 1 {
			t.Fatalf("trial %d: Go %vx%v, OpenCV %vx%v", trial, gw, gh, ow, oh)
		}
		if math.Hypot(gx-float64(r.Center.X), gy-float64(r.Center.Y)) > 3 {
			t.Fatalf("trial %d (%d points): centre Go %.1f,%.1f (%vx%v), OpenCV %v (%vx%v) %v", trial, n, gx, gy, gw, gh, r.Center, ow, oh, r.Points)
		}
	}
}

// TestSplitTwo_SameAsAllOpenCV: the split sized in Go finds the same two
// cards as the search that asked OpenCV for every rectangle, on the
// outlines of two touching cards at random angles and offsets.
func TestSplitTwo_SameAsAllOpenCV(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cw, ch := 28.0, 43.0
	same, splits, outlines := 0, 0, 0
	for trial := range 300 {
		m := gocv.NewMatWithSize(200, 200, gocv.MatTypeCV8U)
		a := rng.Float64() * math.Pi
		gap := cw + (rng.Float64()-0.3)*3
		for k, side := range []float64{-0.5, 0.5} {
			turn := a + (rng.Float64()-0.5)*0.2
			cx := 100 + side*gap*math.Cos(a) + float64(k)*rng.Float64()*2
			cy := 100 + side*gap*math.Sin(a) + (rng.Float64()-0.5)*4
			var poly []image.Point
			for _, c := range [][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				u, v := c[0]*cw/2, c[1]*ch/2
				poly = append(poly, image.Pt(int(cx+u*math.Cos(turn)-v*math.Sin(turn)), int(cy+u*math.Sin(turn)+v*math.Cos(turn))))
			}
			pv := gocv.NewPointsVectorFromPoints([][]image.Point{poly})
			gocv.FillPoly(&m, pv, color.RGBA{255, 255, 255, 0})
			pv.Close()
		}
		cs := gocv.FindContours(m, gocv.RetrievalExternal, gocv.ChainApproxSimple)
		if cs.Size() == 1 {
			outlines++
			c := cs.At(0).ToPoints()
			got, want := splitTwo(c, cw, ch), splitTwoAllOpenCV(c, cw, ch)
			if len(want) == 2 {
				splits++
			}
			if len(got) == len(want) && (len(got) == 0 || got[0] == want[0] && got[1] == want[1]) {
				same++
			} else {
				t.Logf("trial %d: Go-sized %v, all-OpenCV %v", trial, got, want)
			}
		}
		cs.Close()
		m.Close()
	}
	t.Logf("%d outlines, %d split in two, %d the same", outlines, splits, same)
	if outlines < 250 || splits < 200 || same != outlines {
		t.Errorf("%d outlines, %d split in two, %d the same", outlines, splits, same)
	}
}

// splitTwoAllOpenCV is splitTwo as it was, asking OpenCV for every
// rectangle: the reference the Go-sized search is held to.
func splitTwoAllOpenCV(contour []image.Point, cw, ch float64) []Quad {
	ux, uy, ok := longAxis(contour)
	if !ok {
		return nil
	}
	pts := outlinePoints(contour)
	// The line between the cards is across the axis, perhaps a little
	// turned (each card may be turned) and off the middle: try a few and
	// keep the one that leaves two halves most like a card.
	var out []Quad
	bestCost := math.Inf(1)
	for _, turn := range []float64{-0.3, -0.15, 0, 0.15, 0.3} {
		dx, dy := ux*math.Cos(turn)-uy*math.Sin(turn), ux*math.Sin(turn)+uy*math.Cos(turn)
		t0, t1 := math.Inf(1), math.Inf(-1)
		ts := make([]float64, len(pts))
		for i, p := range pts {
			ts[i] = float64(p.X)*dx + float64(p.Y)*dy
			t0, t1 = math.Min(t0, ts[i]), math.Max(t1, ts[i])
		}
		for off := -10.0; off <= 10; off++ {
			mid := (t0+t1)/2 + off
			var qs []Quad
			cost := 0.0
			for half := range 2 {
				var sel []image.Point
				for i, p := range pts {
					if (half == 0) == (ts[i] <= mid) {
						sel = append(sel, p)
					}
				}
				if len(sel) < 4 {
					cost = math.Inf(1)
					break
				}
				hv := gocv.NewPointVectorFromPoints(sel)
				r := gocv.MinAreaRect(hv)
				hv.Close()
				w, h := float64(r.Width), float64(r.Height)
				long, short := math.Max(w, h), math.Min(w, h)
				if len(r.Points) != 4 || long < 0.85*ch || long > 1.2*ch || short < 0.8*cw || short > 1.25*cw {
					cost = math.Inf(1)
					break
				}
				// An outline of edges may be a few pixels wider than the
				// card; a straight cut is likelier than a turned one.
				cost += math.Max(0, math.Abs(long-ch-2)-4) + math.Max(0, math.Abs(short-cw-2)-4) + 10*math.Abs(turn)
				var q Quad
				copy(q[:], r.Points)
				qs = append(qs, OrderCorners(q))
			}
			if len(qs) == 2 {
				ax, ay := qs[0].Centre()
				bx, by := qs[1].Centre()
				if math.Hypot(ax-bx, ay-by) < 0.8*cw {
					cost = math.Inf(1) // the halves overlap: one card, not two
				}
			}
			if cost < bestCost {
				bestCost, out = cost, qs
			}
		}
	}
	return out
}
