package tiles

import (
	"errors"
	"flag"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
	"ligretto/table"
)

var errEnough = errors.New("enough frames")

var savePNG = flag.String("annotated", "", "write an annotated frame to this PNG")

// TestLoop_StepReadsRenderedFrames_T1: rendered frames of a 2-player round
// (seed 3) go through Step with Annotate on. Every frame reaches OnFrame,
// counted from 1, "calibrating" until the board is found; the referee
// hears the match and the round (T1: the 6 parts of 2 players), then the
// simulation's first card with its owner and fields; the annotated frames
// are drawn on.
func TestLoop_StepReadsRenderedFrames_T1(t *testing.T) {
	var events []tilesim.Event
	if _, err := tilesim.Run(tilesim.Config{Players: 2, Seed: 3, Rounds: 1}, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var first tilesim.Event
	for _, e := range events {
		if e.Kind == tilesim.EvLay {
			first = e
			break
		}
	}
	players := tiles.DefaultPlayers(2)
	sc, err := rtiles.New(scene.DefaultConfig(), players, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	clip, err := sc.Clip(10)
	if err != nil {
		t.Fatal(err)
	}
	ref := tiles.New()
	var vs []Verdict
	var seqs []uint64
	var calibrating []bool
	drawn := 0
	orig := gocv.NewMat()
	defer orig.Close()
	diff := gocv.NewMat()
	defer diff.Close()
	grey := gocv.NewMat()
	defer grey.Close()
	l, err := New(Config{Players: players, Settings: tiles.Settings{Rounds: 1}, Annotate: true,
		OnVerdict: func(v Verdict) { vs = append(vs, v) },
		OnFrame: func(f table.Frame) {
			seqs = append(seqs, f.Seq)
			if f.Seq == 60 && *savePNG != "" {
				gocv.IMWrite(*savePNG, f.Image)
			}
			calibrating = append(calibrating, f.Calibrating)
			gocv.AbsDiff(f.Image, orig, &diff)
			gocv.CvtColor(diff, &grey, gocv.ColorBGRToGray)
			if gocv.CountNonZero(grey) > f.Image.Rows()*f.Image.Cols()/100 {
				drawn++
			}
		}}, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	lastT := first.TimeMS + 4000
	err = sc.RenderClip(clip, func(f rtiles.Frame) error {
		if f.TimeMS > lastT {
			return errEnough
		}
		// As a camera's Motion JPEG brings it (tiles simulate --render).
		buf, err := gocv.IMEncode(gocv.JPEGFileExt, f.Image)
		if err != nil {
			return err
		}
		defer buf.Close()
		img, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
		if err != nil {
			return err
		}
		defer img.Close()
		img.CopyTo(&orig)
		return l.Step(&img, table.Shot{TimeMS: int64(f.Index) * 100})
	})
	if !errors.Is(err, errEnough) {
		t.Fatalf("render: %v", err)
	}
	for i, s := range seqs {
		if s != uint64(i+1) {
			t.Fatalf("frame %d has Seq %d", i, s)
		}
	}
	found := slices.Index(calibrating, false)
	if found <= 0 || slices.Contains(calibrating[found:], true) {
		t.Fatalf("calibrating %v: want true on the empty table, then false from the board on", calibrating)
	}
	if len(vs) < 3 || vs[0].Obs.Kind != tiles.ObsMatch || vs[1].Obs.Kind != tiles.ObsRound || vs[0].Err != nil || vs[1].Err != nil {
		t.Fatalf("verdicts %v: want the match, the round, then cards", kinds(vs))
	}
	var lay *Verdict
	for i := range vs {
		if vs[i].Obs.Kind == tiles.ObsLay {
			lay = &vs[i]
			break
		}
	}
	if lay == nil || lay.Err != nil || lay.Obs.Player != first.Player || !slices.Contains(lay.Obs.Fields, first.Fields[0]) || !slices.Contains(lay.Obs.Fields, first.Fields[1]) {
		t.Fatalf("first card judged %+v, want %s's on %v", lay, first.Player, first.Fields)
	}
	if drawn != len(seqs) {
		t.Errorf("%d of %d frames annotated", drawn, len(seqs))
	}
}
