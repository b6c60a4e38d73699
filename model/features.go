package model

import (
	"fmt"
	"math"
)

// FeatureLayer names the layer of the network whose output Features
// returns: what a deck's prototypes are made of (DeckPrototypes).
type FeatureLayer string

const (
	// FeatureHidden is the hidden layer after its ReLU (Config.Hidden
	// values), the input of every head.
	FeatureHidden FeatureLayer = "hidden"
	// FeatureConv is the last conv block's output, flattened (channels
	// times positions: 64x6x4 with the default Config).
	FeatureConv FeatureLayer = "conv"
	// FeaturePooled is the last conv block's output averaged over its
	// positions (one value a channel).
	FeaturePooled FeatureLayer = "pooled"
)

// Valid reports whether l names a layer Features knows.
func (l FeatureLayer) Valid() bool {
	return l == FeatureHidden || l == FeatureConv || l == FeaturePooled
}

// FeatureLen is the length of the features of layer l.
func (f *Fast) FeatureLen(l FeatureLayer) int {
	last := f.convs[len(f.convs)-1]
	switch l {
	case FeatureConv:
		return last.cout * (last.h / 2) * (last.w / 2)
	case FeaturePooled:
		return last.cout
	}
	return f.fc.out
}

// Features returns each crop's features at layer l, L2-normalised: with
// bothWays the normalised mean of the crop's and the crop turned half a
// turn's (as Classify reads a whole card), else the crop's as it is (as
// ClassifyAsIs reads a corner index).
func (f *Fast) Features(crops []Crop, l FeatureLayer, bothWays bool) ([][]float32, error) {
	if !l.Valid() {
		return nil, fmt.Errorf("%w: feature layer %q", ErrInput, l)
	}
	if err := checkCrops(f.cfg, crops); err != nil {
		return nil, err
	}
	n := len(crops)
	if n == 0 {
		return nil, nil
	}
	in := crops
	if bothWays {
		in = withTurned(crops, f.cfg.Width, f.cfg.Height)
	}
	s := f.pool.Get().(*fastScratch)
	defer f.pool.Put(s)
	f.trunk(s, in)
	all := make([][]float32, len(in))
	for i := range all {
		all[i] = normalized(f.layerOf(s, i, len(in), l))
	}
	if !bothWays {
		return all, nil
	}
	out := make([][]float32, n)
	for i := range out {
		out[i] = MeanEmbedding(all[i], all[n+i])
	}
	return out, nil
}

// layerOf returns sample i's values of layer l from the scratch a trunk
// pass of n samples filled.
func (f *Fast) layerOf(s *fastScratch, i, n int, l FeatureLayer) []float32 {
	switch l {
	case FeatureConv:
		F := f.FeatureLen(FeatureConv)
		return s.feats[i*F : (i+1)*F]
	case FeaturePooled:
		F := f.FeatureLen(FeatureConv)
		C := f.FeatureLen(FeaturePooled)
		P := F / C
		out := make([]float32, C)
		for c := range C {
			var sum float64
			for _, v := range s.feats[i*F+c*P : i*F+(c+1)*P] {
				sum += float64(v)
			}
			out[c] = float32(sum / float64(P))
		}
		return out
	}
	H := f.fc.out
	return s.hidden[i*H : (i+1)*H]
}

// finite reports whether every value of v is a number.
func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
