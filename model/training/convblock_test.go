package training

import (
	"ligretto/model"
	"math"
	"testing"
)

// TestBlockOp_SameWeightsAsGorgonias: conv blocks built as the product
// and blockOp train to the very bits that gorgonia's Conv2d, BatchNorm,
// Rectify and MaxPool2D give (the committed weights were trained with
// those), on a small network and on the committed network's shapes, with
// two workers; and the inference graphs, in eval mode with the trained
// running statistics, read the same bits.
func TestBlockOp_SameWeightsAsGorgonias(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  model.Config
	}{
		{"small", tinyConfig()},
		{"default", model.DefaultConfig()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Workers = 2
			with := func(fused bool, f func()) {
				old := fusedBlocks
				fusedBlocks = fused
				defer func() { fusedBlocks = old }()
				f()
			}
			var a, b *model.Weights
			with(true, func() { a = trainFive(t, cfg) })
			with(false, func() { b = trainFive(t, cfg) })
			init, err := model.NewWeights(cfg)
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for i := range a.Tensors {
				if d := maxAbsDiff(a.Tensors[i].Data, b.Tensors[i].Data); d != 0 {
					t.Errorf("%s differs by %g between blockOp and gorgonia's ops", a.Tensors[i].Name, d)
				}
				if maxAbsDiff(a.Tensors[i].Data, init.Tensors[i].Data) != 0 {
					moved++
				}
			}
			// Every tensor but the prototypes of unseen classes must have
			// moved, or the comparison proves nothing about it.
			if moved < len(a.Tensors)-1 {
				t.Errorf("training moved %d of %d tensors", moved, len(a.Tensors))
			}
			batch := newSynth(cfg, 9).batch([]int{0, 1, 2, 3, 4, 5, 6, 7})
			var pa, pb []model.Prediction
			with(true, func() { pa = readBatch(t, a, batch) })
			with(false, func() { pb = readBatch(t, a, batch) })
			for i := range pa {
				if maxAbsDiff(pa[i].Embedding, pb[i].Embedding) != 0 || pa[i].Colour != pb[i].Colour || pa[i].Number != pb[i].Number {
					t.Errorf("crop %d reads %+v with blockOp, %+v with gorgonia's ops", i, pa[i], pb[i])
				}
			}
		})
	}
}

// TestRelu_IsGorgoniasMaskAndProduct: v·mask(u) by bits is v times
// gorgonia's ReLU mask (1.0 where u >= 0, else 0.0), to the sign of a zero,
// for every finite v (∞·0 is NaN: training has failed long before).
func TestRelu_IsGorgoniasMaskAndProduct(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	special := []float32{0, negZero, 1e-45, -1e-45, 1, -1, 3.4e38, -3.4e38, float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, u := range special {
		for _, v := range append(special[:8], 0.37, -2.5) {
			mask := float32(0)
			if u >= 0 {
				mask = 1
			}
			want, got := v*mask, times(v, relu(u))
			if math.Float32bits(got) != math.Float32bits(want) {
				t.Errorf("%g times the mask of %g: %g (%08x), want %g (%08x)", v, u, got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
	}
}

// readBatch reads a batch's crops with a gorgonia Classifier of w.
func readBatch(t *testing.T, w *model.Weights, b Batch) []model.Prediction {
	t.Helper()
	c, err := NewClassifier(w, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := w.Config.CropLen()
	var crops []model.Crop
	for i := 0; i+n <= len(b.X); i += n {
		crops = append(crops, model.Crop(b.X[i:i+n]))
	}
	p, err := c.Classify(crops)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
