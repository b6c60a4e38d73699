package scene

import (
	"bytes"
	"errors"
	"image"
	"math"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/vision/aruco"
)

func small() Config {
	c := DefaultConfig()
	c.Width, c.Height = 320, 180
	return c
}

func TestDeterministic(t *testing.T) {
	evs := timeline(t, 4, 11, 1)
	a := newScene(t, small(), 4, 11, evs)
	b := newScene(t, small(), 4, 11, evs)
	c := newScene(t, small(), 4, 12, evs)
	for _, at := range []int64{a.Start() + 3000, 0, 5000, 9000, 14000} {
		ia, ta := render(t, a, at)
		ib, tb := render(t, b, at)
		ic, _ := render(t, c, at)
		if !bytes.Equal(ia.Pix, ib.Pix) {
			t.Errorf("t=%d: same seed, different frames", at)
		}
		if len(ta) != len(tb) {
			t.Errorf("t=%d: same seed, truth of %d and %d cards", at, len(ta), len(tb))
		}
		for i := range min(len(ta), len(tb)) {
			if ta[i] != tb[i] {
				t.Errorf("t=%d: truth %d differs: %+v vs %+v", at, i, ta[i], tb[i])
			}
		}
		if bytes.Equal(ia.Pix, ic.Pix) {
			t.Errorf("t=%d: different seeds, same frame", at)
		}
	}
	// Rendering out of order gives the same frame as in order.
	i1, _ := render(t, a, 9000)
	render(t, a, 100)
	i2, _ := render(t, a, 9000)
	if !bytes.Equal(i1.Pix, i2.Pix) {
		t.Error("a frame depends on the frames rendered before it")
	}
}

// The four corner markers are found by ArUco detection with the ids 0..3,
// where the geometry says they are.
func TestMarkersDetected(t *testing.T) {
	for _, tc := range []struct {
		players int
		seed    uint64
		at      int64
	}{{2, 1, -1000}, {4, 2, 3000}, {7, 3, -5000}, {12, 4, 6000}} {
		evs := timeline(t, tc.players, tc.seed, 1)
		s := newScene(t, DefaultConfig(), tc.players, tc.seed, evs)
		mat := gocv.NewMat()
		if _, err := s.Render(tc.at, &mat); err != nil {
			t.Fatal(err)
		}
		found, err := aruco.Detect(mat)
		mat.Close()
		if err != nil {
			t.Fatal(err)
		}
		geo := s.Geometry()
		seen := map[int]bool{}
		for _, d := range found {
			if d.ID < 0 || d.ID > 3 {
				t.Errorf("%d players: unexpected marker id %d", tc.players, d.ID)
				continue
			}
			seen[d.ID] = true
			for k, c := range d.Corners {
				want := geo.Markers[d.ID].Image[k]
				if e := math.Hypot(float64(c[0])-want.X, float64(c[1])-want.Y); e > 2 {
					t.Errorf("%d players: marker %d corner %d at (%.1f,%.1f), geometry says (%.1f,%.1f): %.1f px off",
						tc.players, d.ID, k, c[0], c[1], want.X, want.Y, e)
				}
			}
		}
		if len(seen) != 4 {
			t.Errorf("%d players: found markers %v, want 0..3", tc.players, seen)
		}
	}
}

// colourAt classifies a pixel as one of the four card colours, or 0.
func colourAt(img *image.RGBA, p Pt) referee.Colour {
	x, y := int(math.Round(p.X)), int(math.Round(p.Y))
	if !image.Pt(x, y).In(img.Bounds()) {
		return 0
	}
	i := img.PixOffset(x, y)
	r, g, b := float64(img.Pix[i])/255, float64(img.Pix[i+1])/255, float64(img.Pix[i+2])/255
	mx, mn := max(r, g, b), min(r, g, b)
	if mx < 0.15 || (mx-mn)/mx < 0.6 {
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
	hues := map[referee.Colour]float64{referee.Red: 358, referee.Yellow: 48, referee.Green: 144, referee.Blue: 215}
	best, bd := referee.Colour(0), 26.0
	for c, hc := range hues {
		d := math.Abs(h - hc)
		d = min(d, 360-d)
		if d < bd {
			best, bd = c, d
		}
	}
	return best
}

// colourShare is the share of a 6x6 grid inside q that shows colour c.
func colourShare(img *image.RGBA, q Quad, c referee.Colour) float64 {
	n := 0
	for i := range 6 {
		for j := range 6 {
			if colourAt(img, q.At(0.12+0.152*float64(i), 0.12+0.152*float64(j))) == c {
				n++
			}
		}
	}
	return float64(n) / 36
}

// Every unoccluded pile top is where the truth puts it: the pixels inside
// its quadrilateral show its colour, and just beside it they mostly do not.
func TestPileTruthColour(t *testing.T) {
	checked := 0
	inside, beside := 0.0, 0.0
	for _, n := range []int{3, 12} {
		evs := timeline(t, n, 21, 1)
		s := newScene(t, DefaultConfig(), n, 21, evs)
		var stop int64
		for _, e := range evs {
			if e.Kind == sim.EvStop || e.Kind == sim.EvDeadlock {
				stop = e.TimeMS
				break
			}
		}
		for _, at := range []int64{stop / 3, stop * 2 / 3, stop} {
			img, truth := render(t, s, at)
			for _, ct := range truth {
				if ct.Role != RolePile || ct.Occluded > 0 {
					continue
				}
				checked++
				if got := colourShare(img, ct.Quad, ct.Card.Colour); got < 0.45 {
					t.Errorf("%d players, t=%d: pile %d (%v): only %.0f%% of its quad shows %v",
						n, at, ct.Pile, ct.Card.Face, 100*got, ct.Card.Colour)
				}
				// Shifted by a card's width the quad is no longer on the card.
				c := ct.Quad.Centre()
				w := ct.Quad[1].sub(ct.Quad[0])
				var moved Quad
				for i, p := range ct.Quad {
					moved[i] = p.add(w.mul(1.15)).sub(c).mul(1).add(c)
				}
				inside += colourShare(img, ct.Quad, ct.Card.Colour)
				beside += colourShare(img, moved, ct.Card.Colour)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d pile tops checked", checked)
	}
	if inside < 3*beside {
		t.Errorf("quads show their card's colour %.0f%% of the time, quads moved aside %.0f%%", 100*inside/float64(checked), 100*beside/float64(checked))
	}
}

// While a card is laid on a pile a hand covers the pile; once the hand
// has withdrawn the new top card shows.
func TestHandCoversPlacement(t *testing.T) {
	evs := timeline(t, 4, 5, 1)
	s := newScene(t, DefaultConfig(), 4, 5, evs)
	tested := 0
	for i, e := range evs {
		if e.Kind != sim.EvPlay || e.NewPile || e.Card.Colour == referee.Red || tested >= 4 {
			continue
		}
		// No other play on this pile soon after.
		quiet := true
		for _, f := range evs[i+1:] {
			if f.TimeMS > e.TimeMS+1500 {
				break
			}
			if f.Kind == sim.EvPlay && f.Pile == e.Pile {
				quiet = false
			}
		}
		if !quiet {
			continue
		}
		pileAt := func(at int64) (*image.RGBA, CardTruth) {
			img, truth := render(t, s, at)
			for _, ct := range truth {
				if ct.Role == RolePile && ct.Pile == e.Pile {
					return img, ct
				}
			}
			t.Fatalf("t=%d: pile %d not in the truth", at, e.Pile)
			return nil, CardTruth{}
		}
		img, ct := pileAt(e.TimeMS)
		if ct.Card != *e.Card || !ct.Hand || ct.Occluded < 0.2 {
			t.Errorf("landing of %v on pile %d at %d: truth %+v, want the card under a hand", e.Card, e.Pile, e.TimeMS, ct)
		}
		// The covered part of the card does not show its colour.
		_, hs := s.movers(e.TimeMS)
		covered, coloured := 0, 0
		for a := range 8 {
			for b := range 8 {
				p := ct.Table.At(0.1+0.11*float64(a), 0.1+0.11*float64(b))
				for k := range hs {
					if hs[k].covers(p) {
						covered++
						if colourAt(img, s.Project(p)) == e.Card.Colour {
							coloured++
						}
						break
					}
				}
			}
		}
		if covered == 0 || float64(coloured) > 0.2*float64(covered) {
			t.Errorf("landing at %d: %d of %d points under the hand show the card's colour", e.TimeMS, coloured, covered)
		}
		// Before the card left the seat, the pile showed its old top.
		_, before := pileAt(e.TimeMS - s.cfg.TravelMaxMS - maxReachMS - 10)
		if before.Card == *e.Card {
			t.Errorf("pile %d shows %v before it was played", e.Pile, e.Card)
		}
		// After the hand withdrew, the new card shows where no other hand is.
		img, after := pileAt(e.TimeMS + 1000)
		if after.Card != *e.Card {
			t.Errorf("pile %d shows %v after the play of %v", e.Pile, after.Card, e.Card)
		}
		if !after.Hand && after.Occluded == 0 {
			if got := colourShare(img, after.Quad, e.Card.Colour); got < 0.45 {
				t.Errorf("after the hand withdrew from pile %d, only %.0f%% shows %v", e.Pile, 100*got, e.Card.Colour)
			}
		}
		tested++
	}
	if tested < 3 {
		t.Fatalf("only %d placements tested", tested)
	}
}

// Applying events as a live clock advances, and rendering Lookahead behind
// it, gives the frames of the whole timeline applied at once.
func TestProgressiveMatchesWhole(t *testing.T) {
	evs := timeline(t, 4, 9, 1)
	whole := newScene(t, small(), 4, 9, evs)
	live, err := New(small(), referee.DefaultPlayers(4), 9)
	if err != nil {
		t.Fatal(err)
	}
	next := 0
	frames := 0
	for clock := int64(0); next < len(evs); clock += 211 {
		for next < len(evs) && evs[next].TimeMS <= clock {
			if err := live.Apply(evs[next]); err != nil {
				t.Fatal(err)
			}
			next++
		}
		at := clock - live.Lookahead()
		a, ta := render(t, live, at)
		b, tb := render(t, whole, at)
		frames++
		if !bytes.Equal(a.Pix, b.Pix) || len(ta) != len(tb) {
			t.Fatalf("t=%d: the live frame differs from the whole timeline's", at)
		}
	}
	if frames < 20 {
		t.Fatalf("only %d frames compared", frames)
	}
}

// A short round renders to the expected number of frames, aligned with the
// timeline after the preamble.
func TestClipFrames(t *testing.T) {
	evs := timeline(t, 2, 4, 1)
	cfg := small()
	cfg.Width, cfg.Height = 160, 90
	s := newScene(t, cfg, 2, 4, evs)
	clip, err := s.Clip(10)
	if err != nil {
		t.Fatal(err)
	}
	end := evs[len(evs)-1].TimeMS
	want := int(math.Ceil(float64(preambleMS(2))/100)) + int(end/100) + 1
	if clip.Frames != want {
		t.Errorf("clip of %d frames, want %d", clip.Frames, want)
	}
	if got := clip.Time(clip.PreambleFrames); got != 0 {
		t.Errorf("frame %d (first after the preamble) is at %d ms, want 0", clip.PreambleFrames, got)
	}
	if got := clip.Time(clip.PreambleFrames + 25); got != 2500 {
		t.Errorf("frame %d is at %d ms, want 2500", clip.PreambleFrames+25, got)
	}
	n, last := 0, int64(math.MinInt64)
	if err := s.RenderClip(clip, func(f Frame) error {
		if f.Index != n || f.TimeMS <= last || f.Image.Cols() != 160 {
			t.Fatalf("frame %d: index %d at %d ms after %d, %d wide", n, f.Index, f.TimeMS, last, f.Image.Cols())
		}
		n++
		last = f.TimeMS
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != clip.Frames || last != end/100*100 {
		t.Errorf("rendered %d frames ending at %d ms, want %d ending at %d", n, last, clip.Frames, end/100*100)
	}
}

func TestBadInput(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Distortion = 0.5
	if _, err := New(cfg, referee.DefaultPlayers(4), 1); !errors.Is(err, ErrConfig) {
		t.Errorf("distortion 0.5: %v", err)
	}
	if _, err := New(DefaultConfig(), referee.DefaultPlayers(1), 1); !errors.Is(err, ErrConfig) {
		t.Errorf("one player: %v", err)
	}
	evs := timeline(t, 3, 1, 1)
	s := newScene(t, small(), 3, 1, evs[:10])
	if err := s.Apply(evs[3]); !errors.Is(err, ErrEvent) {
		t.Errorf("an event out of time order: %v", err)
	}
	other, err := New(small(), referee.DefaultPlayers(4), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Apply(evs[0]); !errors.Is(err, ErrEvent) {
		t.Errorf("a match of 3 players in a scene of 4: %v", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	if _, err := s.RenderRGBA(0, img); !errors.Is(err, ErrFrame) {
		t.Errorf("a 10x10 frame: %v", err)
	}
}

// The optional JPEG round trip changes the frame, a little.
func TestJPEG(t *testing.T) {
	evs := timeline(t, 2, 3, 1)
	plain := newScene(t, small(), 2, 3, evs)
	cfg := small()
	cfg.JPEGQuality = 40
	jpeg := newScene(t, cfg, 2, 3, evs)
	a, _ := render(t, plain, 4000)
	b, _ := render(t, jpeg, 4000)
	diff := 0.0
	for i := range a.Pix {
		diff += math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))
	}
	diff /= float64(len(a.Pix))
	if diff == 0 || diff > 8 {
		t.Errorf("JPEG at quality 40 changes pixels by %.2f levels on average", diff)
	}
}

// A shade darkens one side of the frame while it lasts, and only then;
// the rest of the scene is as without it.
func TestShade_DarkensOneSideWhileItLasts(t *testing.T) {
	evs := timeline(t, 4, 11, 1)
	plain := newScene(t, small(), 4, 11, evs)
	cfg := small()
	cfg.ShadeDepth, cfg.ShadeFromMS, cfg.ShadeToMS, cfg.ShadeRampMS = 0.5, 4000, 6000, 500
	shaded := newScene(t, cfg, 4, 11, evs)
	before, _ := render(t, shaded, 2000)
	before0, _ := render(t, plain, 2000)
	if !bytes.Equal(before.Pix, before0.Pix) {
		t.Error("before the shade, the frame differs from the scene without one")
	}
	during, _ := render(t, shaded, 5000)
	during0, _ := render(t, plain, 5000)
	darker, same := 0, 0
	for i := 0; i < len(during.Pix); i += 4 {
		d := int(during0.Pix[i+1]) - int(during.Pix[i+1])
		switch {
		case d > 8:
			darker++
		case d >= -6 && d <= 6:
			same++
		}
	}
	n := len(during.Pix) / 4
	if darker < n/4 || same < n/4 {
		t.Errorf("during the shade: %d of %d pixels darker, %d about the same; want a quarter or more of each", darker, n, same)
	}
	after, _ := render(t, shaded, 7000)
	after0, _ := render(t, plain, 7000)
	if !bytes.Equal(after.Pix, after0.Pix) {
		t.Error("after the shade, the frame differs from the scene without one")
	}
	bad := small()
	bad.ShadeDepth, bad.ShadeFromMS, bad.ShadeToMS = 0.5, 6000, 4000
	if err := bad.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("a shade that ends before it starts: %v", err)
	}
}
