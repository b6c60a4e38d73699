package vision

import (
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/sim"
)

// TestReadSeats_C17_CountShowsNoFace: 2 players, seed 32 with bots erring
// 3%, is a deadlock at 1.5 s with no card played. While playing, the
// seats show their rows' faces; in the count after it, no face and the
// stacks spread face down, which is what starts the count of a round
// with no pile (watchSeats).
func TestReadSeats_C17_CountShowsNoFace(t *testing.T) {
	sc, evs, res := simRound(t, 2, 32, 0.03)
	if !res.Rounds[0].Deadlock || len(res.Rounds[0].Piles) != 0 {
		t.Fatalf("seed 32 is no longer a deadlock with no pile: %+v", res.Rounds[0])
	}
	var end int64 = -1
	for _, e := range evs {
		if e.Kind == sim.EvDeadlock {
			end = e.TimeMS
		}
	}
	cal := calibrateScene(t, sc, 2)
	pred := testPredictor(t)
	p, err := NewPipeline(cal, pred, DefaultPipelineConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	read := func(at int64) seatSides {
		t.Helper()
		m := gocv.NewMat()
		defer m.Close()
		if _, err := sc.Render(at, &m); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Process(m, at); err != nil {
			t.Fatal(err)
		}
		s, err := p.readSeats(m, 0)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	playing := read(end / 2)
	for i, f := range playing.faces {
		if f < 2 {
			t.Errorf("while playing, seat %d shows %d faces, want its row (5 cards) and stack top", i+1, f)
		}
	}
	counting := read(end + sc.Config().CountDelay + 1000)
	withBacks := 0
	for i := range counting.faces {
		if counting.faces[i] > 0 {
			t.Errorf("in the count, seat %d shows %d faces, want none", i+1, counting.faces[i])
		}
		if counting.backs[i] > 0 {
			withBacks++
		}
	}
	if withBacks < 1 {
		t.Errorf("in the count, no seat shows a back: %+v", counting)
	}
	t.Logf("playing %+v, counting %+v", playing, counting)
}
