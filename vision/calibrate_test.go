package vision

import (
	"bytes"
	"math"
	"testing"

	"ligretto/calibration"
	"ligretto/model"
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
}
