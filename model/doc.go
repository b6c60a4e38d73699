// Package model runs the card classifier: one small CNN that looks at an
// RGB crop of a single card and says
//
//   - which side is up (face or back),
//   - for a face, its colour (red, green, blue, yellow, the order of
//     referee.Colours) and its number 1..10,
//   - for a back, an L2-normalised embedding. Backs are recognised by the
//     nearest enrolled prototype (Nearest, MeanEmbedding), so a player's
//     back design never seen in training still works once it is enrolled.
//     ClassifyBacks reads a back from two views, the whole card and its
//     centre nearer (BackViews), each with its mirror image and each moved
//     a few pixels four ways, so that small motifs tell close designs
//     apart and no one crop's framing sways a prototype; prototypes and
//     what is compared with them use it alike.
//
// The package knows nothing about where crops come from: a Crop is a planar
// (CHW) RGB float32 slice of Config.CropLen() values in [0,1]; CropFromImage
// and CropFromBGR convert from common pixel layouts.
//
// The network (see Config): n blocks of 3x3 conv (no bias), batch-norm, ReLU,
// 2x2 max pool; flatten; a fully connected layer with ReLU; four linear heads
// (side, colour, number, embedding). During training the embedding also
// feeds a cosine classifier over the training back designs (normalised
// prototypes times Config.EmbedScale, with an optional CosFace margin);
// only the embedding is used after.
//
// Training lives in package training (model/training), with the gorgonia
// graph, so that what reads cards links no gorgonia. There, training
// (Train, Trainer) takes batches from the caller, builds gorgonia
// graphs with symbolic gradients and updates the weights with AdamW. The
// colour and number losses only count face samples, the back loss only back
// samples; a label of -1 leaves a sample out of that head's loss. A graph
// runs on one core, so a batch is split over Config.Workers copies of the
// graph run side by side, whose gradients are summed into one step; and
// gorgonia's matrix products go to the AVX2 kernel of the fast path
// (graphBLAS). Together they make a step 2.5 times quicker on 2 cores.
// Each conv block after its convolution product (batch norm, scale and
// shift, ReLU, max pool) is one op, blockOp, with gorgonia's arithmetic and
// order of summation, where gorgonia's ops cloned, transposed, broadcast
// and walked a dozen full-size tensors: the same weights bit for bit, in
// less time a step; so is im2colOp, gorgonia's 3x3 im2col and col2im
// without its bounds tests and goroutines.
//
// Both inference paths read every crop twice, as it is and turned half a
// turn, and average the readings: a Ligretto card reads the same either
// way up, and the second opinion halves the errors. SecondOpinion asks
// further networks about the faces the first is unsure of;
// DefaultPredictor is the committed pair, the program's default.
//
// Weights (the learnables plus the batch-norm running statistics) are
// serialised in a small versioned binary format with a checksum
// (Weights.WriteTo, ReadWeights, LoadWeights, Weights.Save).
//
// Two inference paths compute the same function from the same Weights:
// training.Classifier runs the gorgonia graph in eval mode (batch-norm with running
// statistics), and Fast is a forward pass without gorgonia (batch-norm
// folded into the convolutions, im2col and a small AVX2/FMA assembly matrix
// kernel on amd64, gonum's saxpy elsewhere or with -tags purego) that is
// over ten times quicker (about 0.15-0.2 ms per 32x48 crop against 2-3 ms)
// and is what the live pipeline should use. Fast is safe for concurrent
// use; Classifier and Trainer are not. Tests hold the two within 1e-4.
//
// Gorgonia pitfalls met here (v0.9.18): a tape machine adds each run's
// gradients to the dual values, so they must be zeroed after every step
// (gorgonia's solvers do it in Step; Trainer does it itself); registers are
// reused within a run, so outputs are taken with G.Read, not Node.Value;
// making a training-mode machine resets the batch-norm statistics, so they
// are set after the machine is made; BatchNorm's momentum is the weight of
// the new batch (0.1, not 0.9); LogSoftMax shifts every row by the first
// row's first value, not by the row's own maximum, and overflows once the
// network is confident (logSoftmaxRows is the stable one); two machines of
// separate graphs run safely side by side.
package model
