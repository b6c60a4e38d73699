package model

import (
	"fmt"
	"slices"
)

// Output sizes of the heads.
const (
	NumSides   = 2  // SideFace, SideBack
	NumColours = 4  // red, green, blue, yellow (ColourNames order)
	NumNumbers = 10 // card numbers 1..10
)

// Side of a card: its face or its back.
const (
	SideFace = 0
	SideBack = 1
)

// ColourNames names the colour head's outputs in order. It is the order of
// referee.Colours: index i is referee.Colours[i].
var ColourNames = [NumColours]string{"red", "green", "blue", "yellow"}

// Config describes the network and how it is trained.
//
// The architecture fields (Width, Height, Channels, Hidden, EmbedDim,
// BackClasses, BNEpsilon) fix the shapes of the weights and are saved with
// them; the training fields only matter to Train and NewTrainer.
type Config struct {
	// Input crop size in pixels. Crops are RGB, CHW (planar), float32 in [0,1].
	Width  int `json:"width"`
	Height int `json:"height"`
	// Channels holds the output channels of each conv block. A block is a
	// 3x3 convolution (padding 1, no bias), batch-norm, ReLU and a 2x2 max
	// pool, so Width and Height must be divisible by 2^len(Channels).
	Channels []int `json:"channels"`
	// Hidden is the width of the fully connected layer shared by the heads.
	Hidden int `json:"hidden"`
	// EmbedDim is the size of the L2-normalised back embedding.
	EmbedDim int `json:"embed_dim"`
	// BackClasses is the number of back designs in the training data. They
	// are only used to train the embedding (cosine classifier over
	// prototypes); inference compares embeddings with enrolled prototypes.
	BackClasses int `json:"back_classes"`
	// BNEpsilon is the batch-norm epsilon.
	BNEpsilon float64 `json:"bn_epsilon"`

	// Training.
	BatchSize   int     `json:"batch_size"`   // samples in a training batch
	LearnRate   float64 `json:"learn_rate"`   // Adam step size (peak, before decay)
	WeightDecay float64 `json:"weight_decay"` // decoupled (AdamW) decay per step, times LearnRate
	BNMomentum  float64 `json:"bn_momentum"`  // weight of a new batch in the running statistics
	EmbedScale  float64 `json:"embed_scale"`  // scale of the cosine logits of the back classifier
	BackWeight  float64 `json:"back_weight"`  // weight of the back-class loss in the total
	BackMargin  float64 `json:"back_margin"`  // CosFace margin of the back classifier's cosine (0: none)
	Seed        uint64  `json:"seed"`         // seed of the initial weights
	// Workers splits each batch over this many copies of the graph, run in
	// parallel, whose gradients are averaged into one step (gorgonia runs a
	// graph on one core). Batch-norm statistics are then per share, so the
	// number changes the result: it is a setting, not the machine's core
	// count. 0 means 1.
	Workers int `json:"workers,omitempty"`
}

// DefaultConfig returns the configuration the project uses: 32x48 crops,
// three conv blocks, a 32-dimensional back embedding.
func DefaultConfig() Config {
	return Config{
		Width:       32,
		Height:      48,
		Channels:    []int{16, 32, 64},
		Hidden:      96,
		EmbedDim:    32,
		BackClasses: 16,
		BNEpsilon:   1e-5,

		BatchSize:   32,
		LearnRate:   2e-3,
		WeightDecay: 1e-4,
		BNMomentum:  0.1,
		EmbedScale:  16,
		BackWeight:  1,
		BackMargin:  0, // 0.2 cost card accuracy and gained no unseen-back accuracy in full runs
		Seed:        1,
		Workers:     2,
	}
}

// Validate reports the first thing wrong with c, wrapping ErrConfig: in
// the network's shape first, then in how it is trained.
func (c Config) Validate() error {
	if err := c.validateArch(); err != nil {
		return err
	}
	return c.validateTraining()
}

// badConfig is an error of c, wrapping ErrConfig.
func badConfig(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
}

// validateArch checks the network's shape: its input, conv blocks and heads.
func (c Config) validateArch() error {
	bad := badConfig
	switch {
	case c.Width <= 0 || c.Height <= 0:
		return bad("input size %dx%d", c.Width, c.Height)
	case len(c.Channels) == 0 || len(c.Channels) > 6:
		return bad("%d conv blocks (want 1..6)", len(c.Channels))
	}
	div := 1 << len(c.Channels)
	if c.Width%div != 0 || c.Height%div != 0 {
		return bad("input size %dx%d not divisible by %d (2^conv blocks)", c.Width, c.Height, div)
	}
	for i, ch := range c.Channels {
		if ch <= 0 || ch > 1024 {
			return bad("conv block %d has %d channels", i, ch)
		}
	}
	switch {
	case c.features() < 2:
		return bad("conv output has %d features (want at least 2)", c.features())
	case c.Hidden < 2 || c.Hidden > 4096:
		return bad("hidden width %d", c.Hidden)
	case c.EmbedDim < 2 || c.EmbedDim > 1024:
		return bad("embedding size %d", c.EmbedDim)
	case c.BackClasses < 1 || c.BackClasses > 100000:
		return bad("%d back classes", c.BackClasses)
	case !(c.BNEpsilon > 0 && c.BNEpsilon < 1):
		return bad("batch-norm epsilon %g", c.BNEpsilon)
	}
	return nil
}

// validateTraining checks how the network is trained: batches, steps,
// losses and workers.
func (c Config) validateTraining() error {
	bad := badConfig
	switch {
	case c.BatchSize < 2 || c.BatchSize > 4096:
		return bad("batch size %d (batch-norm needs at least 2)", c.BatchSize)
	case !(c.LearnRate > 0 && c.LearnRate < 1):
		return bad("learning rate %g", c.LearnRate)
	case !(c.WeightDecay >= 0 && c.WeightDecay < 1):
		return bad("weight decay %g", c.WeightDecay)
	case !(c.BNMomentum > 0 && c.BNMomentum <= 1):
		return bad("batch-norm momentum %g", c.BNMomentum)
	case !(c.EmbedScale > 0 && c.EmbedScale <= 100):
		return bad("embedding scale %g", c.EmbedScale)
	case !(c.BackWeight >= 0 && c.BackWeight <= 100):
		return bad("back loss weight %g", c.BackWeight)
	case !(c.BackMargin >= 0 && c.BackMargin < 1):
		return bad("back margin %g", c.BackMargin)
	case c.Workers < 0 || c.Workers > 64:
		return bad("%d workers (want 1..64)", c.Workers)
	case c.BatchSize%c.workers() != 0 || c.BatchSize/c.workers() < 2:
		return bad("batch size %d does not split into %d shares of at least 2", c.BatchSize, c.workers())
	}
	return nil
}

// SameArch reports whether c and o give weights of the same shapes and the
// same forward pass.
func (c Config) SameArch(o Config) bool {
	return c.Width == o.Width && c.Height == o.Height && slices.Equal(c.Channels, o.Channels) &&
		c.Hidden == o.Hidden && c.EmbedDim == o.EmbedDim && c.BackClasses == o.BackClasses &&
		c.BNEpsilon == o.BNEpsilon
}

// workers is Workers, with 0 read as 1.
func (c Config) workers() int { return max(1, c.Workers) }

// CropLen is the number of float32 values in one crop: 3*Height*Width.
func (c Config) CropLen() int { return 3 * c.Height * c.Width }

// features is the length of the flattened output of the conv blocks.
func (c Config) features() int {
	div := 1 << len(c.Channels)
	return c.Channels[len(c.Channels)-1] * (c.Height / div) * (c.Width / div)
}

func (c Config) clone() Config {
	c.Channels = slices.Clone(c.Channels)
	return c
}
