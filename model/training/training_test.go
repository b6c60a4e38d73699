package training

import (
	"errors"
	"image"
	"image/color"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"ligretto/dataset/realphotos"
	"ligretto/model"
	"ligretto/referee"
)

func smallConfig() model.Config {
	cfg := model.DefaultConfig()
	cfg.BackClasses = 20
	cfg.BatchSize = 16
	return cfg
}

func TestNext_LabelsFitTheHeads(t *testing.T) {
	cfg := smallConfig()
	photo := PhotoCrop{Image: image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height)), Colour: 2, Number: 7}
	d, err := NewData(cfg, 3, []PhotoCrop{photo}, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	faces, backs, photos := 0, 0, 0
	for range 8 {
		b, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if len(b.X) != cfg.BatchSize*cfg.CropLen() || len(b.Side) != cfg.BatchSize {
			t.Fatalf("batch sizes %d %d", len(b.X), len(b.Side))
		}
		for i := range b.Side {
			switch {
			case b.Side[i] == model.SideBack:
				backs++
				if b.BackClass[i] < 0 || b.BackClass[i] >= cfg.BackClasses || b.Colour[i] != -1 {
					t.Fatalf("back labels %d %d", b.BackClass[i], b.Colour[i])
				}
			case b.Colour[i] == 2 && b.Number[i] == 7 && b.BackClass[i] == -1 && allBlackish(b.X[i*cfg.CropLen():(i+1)*cfg.CropLen()]):
				photos++
			default:
				faces++
				if b.Colour[i] < 0 || b.Colour[i] > 3 || b.Number[i] < 1 || b.Number[i] > 10 {
					t.Fatalf("face labels %d %d", b.Colour[i], b.Number[i])
				}
			}
		}
	}
	if faces == 0 || backs == 0 || photos == 0 {
		t.Fatalf("faces %d backs %d photos %d: every kind must appear", faces, backs, photos)
	}
}

func allBlackish(x []float32) bool {
	for _, v := range x {
		if v > 0.35 {
			return false
		}
	}
	return true
}

func TestTrainDesigns_RealFirstThenRandom(t *testing.T) {
	ids := TrainDesigns(15)
	if len(ids) != 15 || ids[0] != referee.BackDesigns[0] || ids[11] != referee.BackDesigns[11] || ids[12] == ids[13] {
		t.Fatalf("%v", ids)
	}
	if _, err := NewData(model.Config{}, 1, nil, 0); err == nil {
		t.Fatal("an invalid config must be refused")
	}
	cfg := smallConfig()
	cfg.BackClasses = 5
	if _, err := NewData(cfg, 1, nil, 0); !errors.Is(err, ErrNoData) {
		t.Fatalf("5 classes cannot hold 12 designs: %v", err)
	}
}

func TestPhotoCrops_MapsClasses(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	names := []string{"blue 0", "green 7", "red skip", "wild"}
	boxes := []realphotos.Box{{Class: 0, CX: .5, CY: .5, W: .2, H: .2}, {Class: 1, CX: .5, CY: .5, W: .2, H: .2},
		{Class: 2, CX: .5, CY: .5, W: .2, H: .2}, {Class: 3, CX: .5, CY: .5, W: .2, H: .2}, {Class: 9, CX: .5, CY: .5, W: .2, H: .2}}
	got := PhotoCrops(img, boxes, names, 32, 48)
	if len(got) != 2 || got[0].Number != -1 || got[0].Colour != 2 || got[1].Number != 7 || got[1].Colour != 1 {
		t.Fatalf("%+v", got)
	}
	if got[1].Image.Bounds().Dx() != 32 || got[1].Image.At(5, 5) == (color.RGBA{}) {
		t.Fatal("crop not drawn")
	}
}

// untrained is the fast path over new, untrained weights of smallConfig.
func untrained(t *testing.T) (model.Config, *model.Fast) {
	t.Helper()
	cfg := smallConfig()
	w, err := model.NewWeights(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.NewFast(w)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, p
}

// TestEvaluate_Bookkeeping runs the real evaluation with an untrained
// network: every count must add up, whatever the accuracy.
func TestEvaluate_Bookkeeping(t *testing.T) {
	cfg, p := untrained(t)
	rep, err := Evaluate(p, 5, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(m [][]int) int {
		s := 0
		for _, r := range m {
			for _, v := range r {
				s += v
			}
		}
		return s
	}
	if sum(rep.SideConfusion) != 100 || sum(rep.ColourConfusion) != 50 || sum(rep.NumberConfusion) != 50 {
		t.Fatalf("confusions add to %d %d %d", sum(rep.SideConfusion), sum(rep.ColourConfusion), sum(rep.NumberConfusion))
	}
	for _, v := range []float64{rep.Side, rep.Colour, rep.Number, rep.Card, rep.Back, rep.BackUnseen} {
		if v < 0 || v > 1 {
			t.Fatalf("accuracy %v out of range", v)
		}
	}
	if rep.Card > rep.Colour || rep.Card > rep.Number {
		t.Fatal("card accuracy cannot exceed colour or number accuracy")
	}
	// Each card error is kept with the crop read, for model eval --misread.
	if len(rep.Misread) != rep.CardErrors || rep.CardErrors == 0 {
		t.Fatalf("%d misread faces kept for %d card errors (an untrained network makes many)", len(rep.Misread), rep.CardErrors)
	}
	for _, m := range rep.Misread {
		if m.Truth == m.Read || m.Crop == nil || m.Crop.Bounds().Dx() != cfg.Width || m.Crop.Bounds().Dy() != cfg.Height {
			t.Fatalf("misread %v as %v with a crop of %v", m.Truth, m.Read, m.Crop)
		}
	}
	ph := []PhotoCrop{{Image: image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height)), Colour: 1, Number: -1}}
	pr, err := EvaluatePhotos(p, ph)
	if err != nil || pr.N != 1 || pr.NumberN != 0 {
		t.Fatalf("%+v %v", pr, err)
	}
}

// SetColourWeights: a colour of weight 0 is never drawn, and bad weights are
// refused with ErrNoData.
func TestSetColourWeights_DrawsInProportion(t *testing.T) {
	cfg := smallConfig()
	d, err := NewData(cfg, 5, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]float64{{1, 1, 1}, {1, 1, -1, 1}, {0, 0, 0, 0}} {
		if err := d.SetColourWeights(bad); !errors.Is(err, ErrNoData) {
			t.Errorf("weights %v: err %v, want ErrNoData", bad, err)
		}
	}
	if err := d.SetColourWeights([]float64{0, 1, 0, 3}); err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for range 4 {
		b, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		for i, side := range b.Side {
			if side == model.SideFace {
				count[b.Colour[i]]++
			}
		}
	}
	green, yellow := count[1], count[3]
	if count[0] != 0 || count[2] != 0 || green == 0 || yellow <= green {
		t.Errorf("faces by colour %v: want no red or blue, more yellow than green", count)
	}
}

func TestSetFaceShare_DrawsInProportion(t *testing.T) {
	cfg := smallConfig()
	d, err := NewData(cfg, 5, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{0, 1, -0.5, 2} {
		if err := d.SetFaceShare(bad); !errors.Is(err, ErrNoData) {
			t.Errorf("share %g: err %v, want ErrNoData", bad, err)
		}
	}
	if err := d.SetFaceShare(0.9); err != nil {
		t.Fatal(err)
	}
	faces, n := 0, 0
	for range 8 {
		b, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range b.Side {
			n++
			if side == model.SideFace {
				faces++
			}
		}
	}
	// 0.9 of n is well above the half the default draws, below all of them.
	if faces < n*3/4 || faces == n {
		t.Errorf("%d faces of %d samples with a share of 0.9", faces, n)
	}
}

// EvaluateFaces scores the very faces Evaluate does (faces and backs come
// from streams of their own): an untrained network's many errors must fall
// on the same crops, to the confusion matrix.
func TestEvaluateFaces_TheFacesOfEvaluate(t *testing.T) {
	_, p := untrained(t)
	all, err := Evaluate(p, 11, 120, nil)
	if err != nil {
		t.Fatal(err)
	}
	faces, err := EvaluateFaces(p, 11, 120, nil)
	if err != nil {
		t.Fatal(err)
	}
	if faces.Backs != 0 || all.Backs != 60 || faces.Faces+faces.Illegible != 60 {
		t.Fatalf("backs %d and %d, faces %d+%d illegible: want 0, 60 and 60 faces", faces.Backs, all.Backs, faces.Faces, faces.Illegible)
	}
	if faces.CardErrors == 0 {
		t.Fatal("an untrained network read every card: the comparison proves nothing")
	}
	if faces.Colour != all.Colour || faces.Number != all.Number || faces.Card != all.Card || faces.CardErrors != all.CardErrors ||
		faces.Faces != all.Faces || !reflect.DeepEqual(faces.ColourConfusion, all.ColourConfusion) || !reflect.DeepEqual(faces.NumberConfusion, all.NumberConfusion) {
		t.Errorf("faces alone: %+v\nwith backs: %+v", faces, all)
	}
	if got := faces.SideConfusion[model.SideFace][0] + faces.SideConfusion[model.SideFace][1]; got != 60 {
		t.Errorf("side scored on %d faces, want 60", got)
	}
}

// Summarise counts the seeds under each target: card 4 errors in 4,995
// passes (99.92%), 5 do not (99.8999%).
func TestSummarise_CountsSeedsUnderTarget(t *testing.T) {
	card := func(errs, faces int) Report {
		return Report{Faces: faces, CardErrors: errs, Card: frac(faces-errs, faces), Side: 1, Backs: 100, Back: 1, BackUnseen: 0.999}
	}
	reps := []Report{card(4, 4995), card(5, 4995), card(0, 5000)}
	reps[2].BackUnseen = 0.9918
	s := Summarise(reps)
	if s.Seeds != 3 || s.CardErrors != 9 || s.Faces != 14990 || s.CardUnder != 1 || s.BackUnder != 1 || s.SideUnder != 0 {
		t.Errorf("%+v", s)
	}
	if s.WorstUnseen != 0.9918 || s.WorstCard != reps[1].Card {
		t.Errorf("worst: %+v", s)
	}
	if faces := Summarise([]Report{{Faces: 10, Card: 1, Side: 1}}); faces.BackSeeds != 0 || faces.WorstUnseen != 0 || faces.BackUnder != 0 {
		t.Errorf("faces alone: %+v", faces)
	}
}

// The batches hang on the seed alone: the lanes render at once, yet on one
// core or two the same seed gives the same batches, and another seed other
// ones.
func TestNext_SameBatchesOnAnyCores(t *testing.T) {
	cfg := smallConfig()
	batches := func(seed uint64, procs int) []Batch {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		d, err := NewData(cfg, seed, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []Batch
		for range 3 {
			b, err := d.Next()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	one, two := batches(5, 1), batches(5, 2)
	if !reflect.DeepEqual(one, two) {
		t.Fatal("seed 5 gave other batches on two cores than on one")
	}
	if other := batches(6, 2); reflect.DeepEqual(one[0].X, other[0].X) {
		t.Fatal("seeds 5 and 6 gave the same batch")
	}
	// The lanes draw apart: a batch's two halves are not one stream twice.
	cl := cfg.CropLen()
	if reflect.DeepEqual(one[0].X[:cl], one[0].X[cl:2*cl]) {
		t.Fatal("the first two samples, one from each lane, are the same")
	}
}

// SetPrinted(0) leaves the data as it was; a share outside 0..1 is refused;
// a share of 1 changes the faces and keeps the labels.
func TestSetPrinted_ChangesOnlyTheFaces(t *testing.T) {
	cfg := smallConfig()
	batch := func(printed float64) Batch {
		t.Helper()
		d, err := NewData(cfg, 5, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if printed >= 0 {
			if err := d.SetPrinted(printed); err != nil {
				t.Fatal(err)
			}
		}
		b, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plain, zero, all := batch(-1), batch(0), batch(1)
	if !slices.Equal(plain.X, zero.X) {
		t.Error("SetPrinted(0) changed the crops")
	}
	if !slices.Equal(plain.Colour, all.Colour) || !slices.Equal(plain.Side, all.Side) {
		t.Error("SetPrinted(1) changed the labels")
	}
	if slices.Equal(plain.X, all.X) {
		t.Error("SetPrinted(1) left the crops as they were")
	}
	d, err := NewData(cfg, 5, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if err := d.SetPrinted(bad); err == nil {
			t.Errorf("share %g accepted", bad)
		}
	}
}
