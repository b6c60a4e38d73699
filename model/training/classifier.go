package training

import (
	"fmt"
	"ligretto/model"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// DefaultClassifierBatch is the graph batch size NewClassifier uses for 0.
const DefaultClassifierBatch = 32

// Classifier runs the network with gorgonia in eval mode (batch-norm with
// the running statistics). It owns one graph and one tape machine: it is
// not safe for concurrent use; make one Classifier per goroutine. For speed
// use model.Fast, which computes the same outputs.
type Classifier struct {
	cfg    model.Config
	temps  model.Temperatures
	net    *net
	vm     G.VM
	input  *tensor.Dense
	closed bool
}

var _ model.Predictor = (*Classifier)(nil)

// NewClassifier builds the inference graph for w. batch is the number of
// crops the graph takes at once (0 means DefaultClassifierBatch; at least
// 2); Classify splits or pads to it.
func NewClassifier(w *model.Weights, batch int) (*Classifier, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if batch == 0 {
		batch = DefaultClassifierBatch
	}
	if batch < 2 || batch > 4096 {
		return nil, fmt.Errorf("%w: classifier batch %d (want 2..4096)", model.ErrInput, batch)
	}
	n, err := buildNet(w, batch, false)
	if err != nil {
		return nil, err
	}
	c := &Classifier{cfg: cloneConfig(w.Config), temps: w.Temperatures, net: n}
	c.vm = G.NewTapeMachine(n.g, G.EvalMode(), G.WithEngine(vmEngine))
	// The machine sets the batch-norm ops to eval mode; only then are the
	// statistics set (a training-mode switch would reset them).
	if err := n.setStats(w); err != nil {
		c.vm.Close()
		return nil, err
	}
	c.input = tensor.New(tensor.WithShape(batch, 3, w.Config.Height, w.Config.Width), tensor.Of(tensor.Float32))
	return c, nil
}

// model.Config returns the configuration of the weights.
func (c *Classifier) Config() model.Config { return cloneConfig(c.cfg) }

// Batch is the graph batch size.
func (c *Classifier) Batch() int { return c.net.batch }

// Classify runs the network on the crops, each read both ways up
// (withTurned), in graph-sized batches.
func (c *Classifier) Classify(crops []model.Crop) ([]model.Prediction, error) {
	return model.ClassifyWith(c.cfg, c.temps, c.forward, crops, true)
}

// ClassifyAsIs runs the network on the crops, each read once (see
// model.Predictor).
func (c *Classifier) ClassifyAsIs(crops []model.Crop) ([]model.Prediction, error) {
	return model.ClassifyWith(c.cfg, c.temps, c.forward, crops, false)
}

// forward returns the raw outputs for the crops.
func (c *Classifier) forward(crops []model.Crop) (model.RawOutputs, error) {
	var r model.RawOutputs
	if c.closed {
		return r, model.ErrClosed
	}
	if err := c.cfg.CheckCrops(crops); err != nil {
		return r, err
	}
	cl := c.cfg.CropLen()
	b := c.net.batch
	in := c.input.Data().([]float32)
	for start := 0; start < len(crops); start += b {
		m := min(b, len(crops)-start)
		for i := 0; i < b; i++ {
			dst := in[i*cl : (i+1)*cl]
			if i < m {
				copy(dst, crops[start+i])
			} else {
				clear(dst) // padding; batch-norm in eval mode keeps samples independent
			}
		}
		if err := G.Let(c.net.x, c.input); err != nil {
			return r, err
		}
		err := c.vm.RunAll()
		if err == nil {
			err = appendRows(&r, c.net, m, c.cfg.EmbedDim)
		}
		c.vm.Reset()
		if err != nil {
			return r, fmt.Errorf("model: gorgonia forward: %w", err)
		}
	}
	return r, nil
}

// appendRows appends the first m rows of the output nodes to r.
func appendRows(r *model.RawOutputs, n *net, m, embDim int) error {
	for _, o := range []struct {
		v   G.Value
		dst *[]float32
		k   int
	}{
		{n.sideV, &r.Side, model.NumSides},
		{n.colourV, &r.Colour, model.NumColours},
		{n.numberV, &r.Number, model.NumNumbers},
		{n.embV, &r.Embedding, embDim},
	} {
		d, err := float32s(o.v)
		if err != nil {
			return err
		}
		*o.dst = append(*o.dst, d[:m*o.k]...)
	}
	return nil
}

// Close releases the machine. Classify fails after it.
func (c *Classifier) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.vm.Close()
}
