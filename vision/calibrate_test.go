package vision

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/render/scene"
)

// TestCalibrate_FromScenePreamble calibrates from the rendered start of a
// video (markers on an empty table, then each player showing a back in
// their seat): the table plane has the true size, every player is
// enrolled where they sat, the backs can be told apart, and the file
// survives a round trip.
func TestCalibrate_FromScenePreamble(t *testing.T) {
	sc, _, _ := simRound(t, 4, 3, 0)
	f := calibrateScene(t, sc, 4)
	g := sc.Geometry()
	// The table image covers the table at f.Scale() pixels per millimetre.
	w, h := float64(f.TableW)/f.Scale(), float64(f.TableH)/f.Scale()
	if math.Abs(w-g.TableW)/g.TableW > 0.03 || math.Abs(h-g.TableH)/g.TableH > 0.03 {
		t.Errorf("table measured %.0fx%.0f mm, truly %.0fx%.0f", w, h, g.TableW, g.TableH)
	}
	if len(f.Seats) != 4 || !f.Enrolled() {
		t.Fatalf("%d seats, enrolled %v", len(f.Seats), f.Enrolled())
	}
	for i, s := range f.Seats {
		if s.At == nil || !s.Zone.Contains(*s.At) {
			t.Errorf("seat %d: shown at %v, outside its zone", i, s.At)
		}
		if f.Centre.Contains(*s.At) {
			t.Errorf("seat %d lies in the centre area", i)
		}
		for j := range i {
			if sim := model.Cosine(s.Prototype, f.Seats[j].Prototype); sim > 0.95 {
				t.Errorf("backs of seats %d and %d are alike (cosine %.3f): they could not be told apart", j, i, sim)
			}
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := calibration.Read(&buf); err != nil {
		t.Fatalf("the written calibration does not read back: %v", err)
	}
	// Prototypes join both views' embeddings; one cut to a single view's
	// length (another classifier's) is refused, not compared in part.
	pred := testPredictor(t)
	mcfg := pred.Config()
	if n := len(f.Seats[0].Prototype); n != mcfg.BackEmbeddingLen() {
		t.Fatalf("prototype of %d values, want %d", n, mcfg.BackEmbeddingLen())
	}
	for i := range f.Seats {
		f.Seats[i].Prototype = f.Seats[i].Prototype[:mcfg.EmbedDim]
	}
	if p, err := NewPipeline(f, pred, DefaultPipelineConfig()); !errors.Is(err, calibration.ErrMalformed) || !strings.Contains(err.Error(), "ligretto calibrate") {
		if p != nil {
			p.Close()
		}
		t.Errorf("prototypes of another length: %v, want ErrMalformed saying to calibrate again", err)
	}
}

// TestCalibrate_ManySeeds calibrates from the rendered preambles of many
// rounds: tables of every kind and colour, lights that drift while the
// players take turns, backs that may be nearly the table's colour. Every
// seat must be enrolled with the back of the player who sat there, and the
// table measured to its true size.
func TestCalibrate_ManySeeds(t *testing.T) {
	pred := testPredictor(t)
	std, err := standardBacks(pred)
	if err != nil {
		t.Fatal(err)
	}
	// 3:2, 6:2, 8:1 and 12:1 once failed: the light drifted away from the
	// learnt empty table, and a green back on green felt did not stand out.
	rounds := []struct {
		players int
		seeds   []uint64
	}{
		{2, []uint64{5, 1}},
		{3, []uint64{2, 1}},
		{4, []uint64{3, 7}},
		{6, []uint64{2, 4}},
		{8, []uint64{1, 3}},
		{12, []uint64{1, 2}},
	}
	for _, r := range rounds {
		seeds := r.seeds
		if testing.Short() {
			seeds = seeds[:1] // rendering the preambles takes most of a minute
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%d:%d", r.players, seed), func(t *testing.T) {
				sc, evs, _ := simRound(t, r.players, seed, 0)
				f := calibratePreamble(t, sc, r.players, WithStandardBacks(std))
				// The calibration measures the rectangle spanned by the
				// markers' outer corners (the table image adds a margin).
				// Lens distortion, which the plane does not model, shrinks
				// the markers in the image's corners: hence 5%.
				tw, th := markerSpan(sc.Geometry())
				w, h := float64(f.TableW)/f.Scale()-2*calibration.MarginMM, float64(f.TableH)/f.Scale()-2*calibration.MarginMM
				if math.Abs(w-tw)/tw > 0.05 || math.Abs(h-th)/th > 0.05 {
					t.Errorf("markers span %.0fx%.0f mm as measured, truly %.0fx%.0f", w, h, tw, th)
				}
				if len(f.Seats) != r.players || !f.Enrolled() {
					t.Fatalf("%d seats for %d players, enrolled %v", len(f.Seats), r.players, f.Enrolled())
				}
				for i, s := range f.Seats {
					want := evs[0].Players[i].Back
					if s.Back != want {
						sims := make([]string, len(std))
						for k, b := range std {
							sims[k] = fmt.Sprintf("%s %.2f", b.Name, model.Cosine(s.Prototype, b.Embedding))
						}
						t.Errorf("seat %d enrolled back %q, the player shows %q (similarities: %v)", i, s.Back, want, sims)
					}
					if s.At == nil || !s.Zone.Contains(*s.At) {
						t.Errorf("seat %d: shown at %v, outside its zone", i, s.At)
					}
				}
			})
		}
	}
}

// markerSpan is the size of the rectangle spanned by the markers' outer
// corners (the corners farthest from the table's centre), in mm.
func markerSpan(g scene.Geometry) (float64, float64) {
	var oc [4]scene.Pt
	for i, m := range g.Markers {
		for _, c := range m.Table {
			if math.Hypot(c.X, c.Y) > math.Hypot(oc[i].X, oc[i].Y) {
				oc[i] = c
			}
		}
	}
	return (oc[1].X - oc[0].X + oc[2].X - oc[3].X) / 2, (oc[3].Y - oc[0].Y + oc[2].Y - oc[1].Y) / 2
}

// calibratePreamble runs a calibrator with opts over the scene's preamble
// and returns its file.
func calibratePreamble(t testing.TB, sc *scene.Scene, players int, opts ...CalibratorOption) *calibration.File {
	t.Helper()
	pred := testPredictor(t)
	c, err := NewCalibrator(players, pred, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := gocv.NewMat()
	defer m.Close()
	for tm := sc.Start(); tm < 0 && !c.Done(); tm += 1000 / testFPS {
		if _, err := sc.Render(tm, &m); err != nil {
			t.Fatal(err)
		}
		if err := c.Add(m); err != nil {
			t.Fatalf("t=%d ms: %v", tm, err)
		}
	}
	f, err := c.File()
	if err != nil {
		t.Fatal(err)
	}
	return f
}
