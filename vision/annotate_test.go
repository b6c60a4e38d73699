package vision

import (
	"errors"
	"flag"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

var annotatedPNG = flag.String("annotated-png", "", "write the annotated frame of TestAnnotate_PilesViolationsScores to this PNG (the docs' example: ../docs/vision/annotated.png)")

// TestAnnotate_PilesViolationsScores runs the pipeline and a referee over
// a rendered 2-player round with illegal plays (seed 34, one play in ten
// illegal) until the half second after the first call, and annotates
// every frame: a pile the referee knows
// is outlined in cyan around a pile the scene laid, the illegal play in
// magenta, inside and around the pile, with its rule, and magenta appears
// nowhere before it; the scoreboard writes in its corner. The raw frames
// hold neither colour.
func TestAnnotate_PilesViolationsScores(t *testing.T) {
	const players, seed = 2, 34
	cfg := scene.DefaultConfig()
	if *annotatedPNG != "" {
		// Sensor noise does not compress: without it, and smaller, the
		// example stays a small file.
		cfg.Width, cfg.Height, cfg.Noise = 960, 540, 0
	}
	var evs []sim.Event
	if _, err := sim.Run(sim.Config{Players: players, Seed: seed, ErrorRate: 0.1}, func(e sim.Event) error { evs = append(evs, e); return nil }); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.New(cfg, evs[0].Players, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	cal := calibrateScene(t, sc, players)
	pred := testPredictor(t)
	pc := DefaultPipelineConfig()
	pc.Settings = *evs[0].Settings
	pc.StopWait = time.Hour // the stop is not this test's business: hands over both piles must not end the round
	p, err := NewPipeline(cal, pred, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ref := referee.New()
	apply := func(obs []referee.Observation) (bad *referee.Verdict) {
		for _, o := range obs {
			v, err := ref.Apply(o)
			var x *referee.Violation
			if err != nil && !errors.As(err, &x) {
				t.Fatalf("the referee refused %+v: %v", o, err)
			}
			if v.Status == referee.StatusViolation {
				bad = &v
			}
		}
		return bad
	}
	apply(p.Start(0))
	frame, out, shot := gocv.NewMat(), gocv.NewMat(), gocv.NewMat()
	defer frame.Close()
	defer out.Close()
	defer shot.Close() // the frame of the first call
	var violation *referee.Verdict
	legalSeen, after := false, 0
	for k := 0; after < 15; k++ {
		tm := int64(k) * 1000 / testFPS
		if tm > 30000 {
			t.Fatalf("no violation called in %d ms; observations so far: %+v", tm, ref.State().Verdicts)
		}
		truth, err := sc.Render(tm, &frame)
		if err != nil {
			t.Fatal(err)
		}
		obs, err := p.Process(frame, tm)
		if err != nil {
			t.Fatal(err)
		}
		called := false
		if v := apply(obs); v != nil && violation == nil {
			violation, called = v, true
			t.Logf("%d ms: %s %s on pile %d", tm, v.Rule, v.Reason, v.Pile)
		}
		if violation != nil {
			after++
		}
		st := ref.State()
		frame.CopyTo(&out)
		if err := p.Annotate(&out, st); err != nil {
			t.Fatal(err)
		}
		raw := bgrPixels(t, frame)
		img := bgrPixels(t, out)
		whole := image.Rect(0, 0, out.Cols(), out.Rows())
		if n := countColour(raw, whole, ViolationColour, nil) + countColour(raw, whole, PileColour, nil); n > 0 {
			t.Fatalf("%d ms: the raw frame has %d pixels of the annotation's colours: they would not stand out", tm, n)
		}
		if violation == nil {
			if n := countColour(img, whole, ViolationColour, nil); n > 0 {
				t.Fatalf("%d ms: %d magenta pixels before any violation", tm, n)
			}
		}
		marked := false
		for _, a := range p.Annotations(st) {
			if a.ID == 0 {
				continue
			}
			if called && a.ID == violation.Pile {
				marked = a.Illegal() && a.Verdict.Rule == violation.Rule
			}
			if !onScenePile(a.Outline, truth) {
				t.Fatalf("%d ms: pile %d is outlined at %v, on none of the scene's piles", tm, a.ID, a.Outline)
			}
			perim := perimeter(a.Outline)
			ring := countColour(img, boundsOf(a.Outline).Inset(-8), outlineColour(a), func(x, y int) bool { return nearEdge(a.Outline, x, y, 4) })
			if float64(ring) < 0.5*perim {
				t.Fatalf("%d ms: pile %d (%s, %s): %d pixels of its outline colour along an outline of %.0f pixels", tm, a.ID, ShortFace(a.Reading), a.Verdict.Status, ring, perim)
			}
			if a.Illegal() {
				inside := countColour(img, boundsOf(a.Outline), ViolationColour, func(x, y int) bool { return a.Outline.Contains(float64(x), float64(y)) })
				if inside < 50 {
					t.Fatalf("%d ms: illegal pile %d: %d magenta pixels inside its outline", tm, a.ID, inside)
				}
				if shot.Empty() {
					out.CopyTo(&shot)
				}
			} else {
				legalSeen = true
			}
		}
		if called && !marked {
			t.Fatalf("%d ms: pile %d is not annotated with the %s just called", tm, violation.Pile, violation.Rule)
		}
		// The scoreboard: a box of text in the top left corner.
		if n := changed(img, raw, image.Rect(0, 0, 120, 60)); n < 1000 {
			t.Fatalf("%d ms: the scoreboard changed %d pixels of the corner", tm, n)
		}
	}
	if !legalSeen {
		t.Error("no legal pile was annotated before the violation")
	}
	if *annotatedPNG != "" {
		if err := os.MkdirAll(filepath.Dir(*annotatedPNG), 0o755); err != nil {
			t.Fatal(err)
		}
		if !gocv.IMWriteWithParams(*annotatedPNG, shot, []int{gocv.IMWritePngCompression, 9}) {
			t.Fatalf("could not write %s", *annotatedPNG)
		}
	}
}

func outlineColour(a PileAnnotation) color.RGBA {
	if a.Illegal() {
		return ViolationColour
	}
	return PileColour
}

// bgr is a BGR frame's bytes and size.
type bgr struct {
	b    []byte
	w, h int
}

func bgrPixels(t *testing.T, m gocv.Mat) bgr {
	t.Helper()
	b, err := m.DataPtrUint8()
	if err != nil {
		t.Fatal(err)
	}
	return bgr{b, m.Cols(), m.Rows()}
}

// countColour counts the pixels of r that are exactly c (and pass keep).
func countColour(img bgr, r image.Rectangle, c color.RGBA, keep func(x, y int) bool) int {
	r = r.Intersect(image.Rect(0, 0, img.w, img.h))
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := 3 * (y*img.w + x)
			if img.b[i] == c.B && img.b[i+1] == c.G && img.b[i+2] == c.R && (keep == nil || keep(x, y)) {
				n++
			}
		}
	}
	return n
}

// changed counts the pixels of r that differ between a and b.
func changed(a, b bgr, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := 3 * (y*a.w + x)
			if a.b[i] != b.b[i] || a.b[i+1] != b.b[i+1] || a.b[i+2] != b.b[i+2] {
				n++
			}
		}
	}
	return n
}

// onScenePile reports whether q's centre lies on a centre pile of the
// scene's truth.
func onScenePile(q Quad, truth []scene.CardTruth) bool {
	x, y := q.Centre()
	for _, c := range truth {
		if c.Role == scene.RolePile && c.Quad.Contains(scene.Pt{X: x, Y: y}) {
			return true
		}
	}
	return false
}

func perimeter(q Quad) float64 {
	s := 0.0
	for i := range q {
		d := q[(i+1)%4].Sub(q[i])
		s += math.Hypot(float64(d.X), float64(d.Y))
	}
	return s
}

// nearEdge reports whether (x, y) lies within d pixels of an edge of q.
func nearEdge(q Quad, x, y int, d float64) bool {
	p := image.Pt(x, y)
	for i := range q {
		a, b := q[i], q[(i+1)%4]
		ab, ap := b.Sub(a), p.Sub(a)
		l2 := float64(ab.X*ab.X + ab.Y*ab.Y)
		u := 0.0
		if l2 > 0 {
			u = min(max(float64(ab.X*ap.X+ab.Y*ap.Y)/l2, 0), 1)
		}
		dx, dy := float64(ap.X)-u*float64(ab.X), float64(ap.Y)-u*float64(ab.Y)
		if dx*dx+dy*dy <= d*d {
			return true
		}
	}
	return false
}
