package tiles

import (
	"crypto/sha256"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	"ligretto/vision"
)

// pixel returns the BGR pixel nearest to p, and false outside the frame.
func pixel(m gocv.Mat, p Pt) ([3]float64, bool) {
	x, y := int(math.Round(p.X)), int(math.Round(p.Y))
	if x < 0 || y < 0 || x >= m.Cols() || y >= m.Rows() {
		return [3]float64{}, false
	}
	v := m.GetVecbAt(y, x)
	return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}, true
}

// meanPixel averages the (2r+1)^2 pixels round p.
func meanPixel(m gocv.Mat, p Pt, r int) [3]float64 {
	var acc [3]float64
	n := 0.0
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if v, ok := pixel(m, Pt{X: p.X + float64(dx), Y: p.Y + float64(dy)}); ok {
				for k := range 3 {
					acc[k] += v[k]
				}
				n++
			}
		}
	}
	return [3]float64{acc[0] / n, acc[1] / n, acc[2] / n}
}

// colourOf names a BGR colour by its hue: one of the four Ligretto
// colours, or 0.
func colourOf(bgr [3]float64) tiles.Colour {
	b, g, r := bgr[0], bgr[1], bgr[2]
	mx, mn := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
	if mx-mn < 30 {
		return 0
	}
	var h float64
	switch mx {
	case r:
		h = math.Mod((g-b)/(mx-mn)*60+360, 360)
	case g:
		h = (b-r)/(mx-mn)*60 + 120
	default:
		h = (r-g)/(mx-mn)*60 + 240
	}
	switch {
	case h < 25 || h > 330:
		return referee.Red
	case h < 75:
		return referee.Yellow
	case h >= 85 && h < 185:
		return referee.Green
	case h >= 185 && h < 265:
		return referee.Blue
	}
	return 0
}

func lum(v [3]float64) float64 { return 0.114*v[0] + 0.587*v[1] + 0.299*v[2] }

// clearFrame is the first time at or after t with no hand over the table
// and nothing in the air.
func clearFrame(t *testing.T, s *Scene, from int64) int64 {
	t.Helper()
	for tm := from; tm < from+20000; tm += 33 {
		if fl, hs := s.movers(tm); len(fl) == 0 && len(hs) == 0 {
			return tm
		}
	}
	t.Fatalf("no frame without hands after %d ms", from)
	return 0
}

// midRound is the time of the n-th lay of the timeline.
func nthLay(evs []tilesim.Event, n int) int64 {
	k := 0
	for _, e := range evs {
		if e.Kind == tilesim.EvLay {
			if k++; k == n {
				return e.TimeMS
			}
		}
	}
	return evs[len(evs)-1].TimeMS
}

// TestBoardWhereTheLayoutSays: on a frame of a round's empty board,
// mapped with the plane vision's marker finder finds, every field shows
// its layout's colour at its centre (stones aside).
func TestBoardWhereTheLayoutSays(t *testing.T) {
	for _, n := range []int{2, 4} {
		evs := timeline(t, n, 21, 1)
		cfg := scene.DefaultConfig()
		cfg.Distortion = 0 // the plane's homography has no lens
		s := newScene(t, cfg, n, 21, evs)
		var layout *tiles.Layout
		var stones []tiles.Field
		for _, e := range evs {
			if e.Kind == tilesim.EvRound {
				layout, stones = e.Layout, e.Stones
				break
			}
		}
		tm := clearFrame(t, s, 0)
		mat, _ := render(t, s, tm)
		defer mat.Close()
		plane, err := vision.FindPlane(mat, 80)
		if err != nil {
			t.Fatal(err)
		}
		g := s.Geometry()
		var outer [4]calibration.Point
		for i, m := range g.Markers {
			outer[i] = calibration.Point{X: m.Table[i].X, Y: m.Table[i].Y}
		}
		h, err := calibration.FourPoint(outer, plane.Corners)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tiles.NewBoard(*layout)
		if err != nil {
			t.Fatal(err)
		}
		w, hh := b.Size()
		bad, total := 0, 0
		for y := range hh {
			for x := range w {
				f := tiles.Field{X: x, Y: y}
				if containsField(stones, f) {
					continue
				}
				q, ok := s.FieldQuad(1, f)
				if !ok {
					t.Fatalf("no field %v", f)
				}
				c := q.Centre()
				p := h.Apply(calibration.Point{X: c.X, Y: c.Y})
				got := colourOf(meanPixel(mat, Pt{X: p.X, Y: p.Y}, 3))
				total++
				if got != b.Colour(f) {
					bad++
					t.Errorf("%d players: field %v at (%.0f, %.0f) px shows %v, layout says %v", n, f, p.X, p.Y, got, b.Colour(f))
				}
			}
		}
		t.Logf("%d players: %d of %d fields as the layout says", n, total-bad, total)
	}
}

// frameStyle tells a card's frame style from the pixels along its long
// edges: ink well inside the band (double), then how much of the band's
// middle is inked and how long the inked runs are.
func frameStyle(m gocv.Mat, s *Scene, q scene.Quad) (tiles.Frame, [3]float64) {
	const step = 0.5
	var at72, at41, runs, runLen float64
	n := 0.0
	for _, top := range []bool{true, false} {
		v := func(d float64) float64 {
			if top {
				return d / CardShort
			}
			return 1 - d/CardShort
		}
		inRun, runs1, dark1 := false, 0.0, 0.0
		for x := 8.0; x <= CardLong-8; x += step {
			u := x / CardLong
			ref, ok1 := pixel(m, s.Project(q.At(u, v(13))))
			a, ok2 := pixel(m, s.Project(q.At(u, v(tiles.FrameDotMid))))
			b, ok3 := pixel(m, s.Project(q.At(u, v(7.2))))
			if !ok1 || !ok2 || !ok3 {
				continue
			}
			dark := lum(a) < 0.6*lum(ref)
			if dark {
				at41++
				dark1++
				if !inRun {
					runs1++
				}
			}
			inRun = dark
			if lum(b) < 0.6*lum(ref) {
				at72++
			}
			n++
		}
		runs += runs1
		runLen += dark1 * step
	}
	f72, f41 := at72/n, at41/n
	mean := runLen / math.Max(runs, 1)
	feat := [3]float64{f72, f41, mean}
	switch {
	case f72 > 0.5:
		return tiles.Double, feat
	case f41 > 0.85:
		return tiles.Plain, feat
	case mean > 6:
		return tiles.Dashed, feat
	}
	return tiles.Dotted, feat
}

// TestCardColoursAndFrames: in mid-round frames every card clear of hands
// shows its two colours on its two halves, and its owner's frame style
// can be told from the pixels along its border.
func TestCardColoursAndFrames(t *testing.T) {
	evs := timeline(t, 4, 7, 1)
	s := newScene(t, scene.DefaultConfig(), 4, 7, evs)
	cards, colourOK := 0, 0
	styles := map[tiles.Frame][2]int{}
	for _, lay := range []int{20, 35, 50} {
		tm := clearFrame(t, s, nthLay(evs, lay)+50)
		mat, truth := render(t, s, tm)
		var stones []tiles.Field
		for _, p := range truth {
			if p.Kind == KindStone {
				stones = append(stones, p.Fields[0])
			}
		}
		for _, p := range truth {
			if p.Kind != KindCard || p.Occluded > 0 || p.Covered || containsField(stones, p.Fields[0]) || containsField(stones, p.Fields[1]) {
				continue // under a hand, a later card or a stone
			}
			cards++
			a := colourOf(meanPixel(mat, s.Project(p.Table.At(0.25, 0.5)), 2))
			b := colourOf(meanPixel(mat, s.Project(p.Table.At(0.75, 0.5)), 2))
			if a == p.Colours[0] && b == p.Colours[1] {
				colourOK++
			} else {
				t.Errorf("%d ms: card %v on %v shows %v-%v", tm, p.Colours, p.Fields, a, b)
			}
			got, feat := frameStyle(mat, s, p.Table)
			st := styles[p.Frame]
			st[0]++
			if got == p.Frame {
				st[1]++
			} else {
				t.Logf("%d ms: %s's %s card on %v reads as %s (ink at 7.2 mm %.2f, on the band %.2f, runs %.1f mm)", tm, p.Player, p.Frame, p.Fields, got, feat[0], feat[1], feat[2])
			}
			styles[p.Frame] = st
		}
		mat.Close()
	}
	if cards < 30 {
		t.Fatalf("only %d cards clear of hands", cards)
	}
	for _, f := range tiles.Frames {
		st := styles[f]
		t.Logf("%s: %d of %d cards read right", f, st[1], st[0])
		if st[0] == 0 || float64(st[1]) < 0.9*float64(st[0]) {
			t.Errorf("%s: only %d of %d cards read right", f, st[1], st[0])
		}
	}
	t.Logf("%d cards, %d in the right colours", cards, colourOK)
}

// TestDeterministic: the same seed gives the same frames, whatever order
// they are rendered in; another seed gives another table.
func TestDeterministic(t *testing.T) {
	evs := timeline(t, 3, 9, 1)
	a := newScene(t, scene.DefaultConfig(), 3, 9, evs)
	b := newScene(t, scene.DefaultConfig(), 3, 9, evs)
	c := newScene(t, scene.DefaultConfig(), 3, 10, evs)
	hash := func(s *Scene, tm int64) [32]byte {
		m, _ := render(t, s, tm)
		defer m.Close()
		return sha256.Sum256(m.ToBytes())
	}
	times := []int64{-1000, nthLay(evs, 5) - 200, nthLay(evs, 12), nthLay(evs, 30) + 300}
	var first [][32]byte
	for _, tm := range times {
		first = append(first, hash(a, tm))
	}
	for i := len(times) - 1; i >= 0; i-- {
		if hash(b, times[i]) != first[i] {
			t.Errorf("%d ms: frames differ for the same seed", times[i])
		}
	}
	if hash(c, times[2]) == first[2] {
		t.Error("another seed rendered the same frame")
	}
}

// TestVisibleWhenClear: every lay's frame in Visible shows the card
// landed, clear of hands, with its stone on its new field; the frame
// before it (from the lay on) does not.
func TestVisibleWhenClear(t *testing.T) {
	evs := timeline(t, 4, 3, 1)
	s := newScene(t, scene.DefaultConfig(), 4, 3, evs)
	clip, err := s.Clip(30)
	if err != nil {
		t.Fatal(err)
	}
	vis := s.Visible(clip)
	if len(vis) != len(evs) {
		t.Fatalf("%d truths for %d events", len(vis), len(evs))
	}
	lays, waited := 0, 0
	for i, v := range vis {
		e := evs[i]
		if e.Kind != tilesim.EvLay && e.Kind != tilesim.EvJoker {
			continue
		}
		lays++
		if v.Frame < 0 || v.FrameMS < e.TimeMS {
			t.Fatalf("event %d: %+v", i, v)
		}
		fl, hs := s.movers(v.FrameMS)
		found := false
		for _, p := range s.truth(v.FrameMS, fl, hs) {
			if p.Kind != KindStone && p.Fields[0] == e.Fields[0] && p.Player == e.Player {
				found = true
				if p.Hand {
					t.Errorf("event %d: a hand over the piece at frame %d", i, v.Frame)
				}
			}
			if e.StoneTo != nil && p.Kind == KindStone && p.Stone == e.Stone && p.Fields[0] != *e.StoneTo && !laterMove(evs, i, e.Stone, v.FrameMS) {
				t.Errorf("event %d: stone %d on %v at frame %d, want %v", i, e.Stone, p.Fields[0], v.Frame, *e.StoneTo)
			}
		}
		if !found {
			t.Errorf("event %d: the piece is not on the board at frame %d", i, v.Frame)
		}
		if v.WaitMS > 0 {
			waited++
		}
	}
	if lays < 30 || waited < lays/2 {
		t.Errorf("%d lays, %d waited for a hand", lays, waited)
	}
}

// laterMove reports whether the stone moved again after event i by t.
func laterMove(evs []tilesim.Event, i, stone int, t int64) bool {
	for _, e := range evs[i+1:] {
		if e.TimeMS <= t && e.Stone == stone {
			return true
		}
	}
	return false
}

// BenchmarkRenderTilesFrame renders consecutive 30 fps frames of a round
// of 4 in progress, as the video writer does.
func BenchmarkRenderTilesFrame(b *testing.B) {
	evs := timeline(b, 4, 7, 1)
	s := newScene(b, scene.DefaultConfig(), 4, 7, evs)
	mat := gocv.NewMat()
	defer mat.Close()
	end := evs[len(evs)-1].TimeMS
	k := 0
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Render(int64(k)*1000/30%end, &mat); err != nil {
			b.Fatal(err)
		}
		k++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "fps")
}
