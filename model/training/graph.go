package training

import (
	"fmt"
	"ligretto/model"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// net is one gorgonia graph of the network for a fixed batch size.
type net struct {
	cfg   model.Config
	batch int
	g     *G.ExprGraph
	x     *G.Node // input (N,3,H,W)

	// nodes holds one node per tensor of tensorSpecs; running statistics
	// have no node (nil) and live in the batch-norm ops.
	nodes []*G.Node
	specs []model.TensorSpec
	bn    []batchNorm // one per conv block

	side, colour, number *G.Node // logits (N,k)
	emb                  *G.Node // embedding before normalisation (N,D)
	embNorm              *G.Node // L2-normalised embedding (training only)
	back                 *G.Node // scaled cosine logits over the prototypes (training only)

	// Copies of the outputs, made by read nodes as soon as they are
	// computed: a tape machine reuses registers, so a node's own value may
	// be overwritten later in the same run.
	sideV, colourV, numberV, embV, backV G.Value
}

// batchNorm is a conv block's batch norm: gorgonia's BatchNormOp or a
// blockOp's state.
type batchNorm interface {
	Stats() (mean, variance tensor.Tensor)
	SetStats(mean, variance tensor.Tensor) error
}

func denseOf(shape []int, data []float32) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(slices.Clone(data)))
}

// buildNet builds the forward graph for batch samples with values from w.
// With training set, it also builds the normalised embedding and the cosine
// back classifier. The batch-norm ops start in training mode; the caller's
// tape machine sets the mode, after which setStats must be called (a
// training-mode machine resets the statistics when it is made).
func buildNet(w *model.Weights, batch int, training bool) (n *net, err error) {
	installGraphBLAS()
	defer func() {
		// gorgonia panics on some malformed graphs; report instead.
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("model: building the graph: %v", r)
		}
	}()
	cfg := w.Config
	g := G.NewGraph()
	n = &net{cfg: cfg, batch: batch, g: g, specs: cfg.TensorSpecs()}
	n.nodes = make([]*G.Node, len(n.specs))
	node := func(name string) *G.Node {
		for i, sp := range n.specs {
			if sp.Name != name {
				continue
			}
			if n.nodes[i] == nil {
				t := w.Tensors[i]
				n.nodes[i] = G.NodeFromAny(g, denseOf(t.Shape, t.Data), G.WithName(name))
			}
			return n.nodes[i]
		}
		panic("model: no tensor " + name)
	}

	n.x = G.NewTensor(g, tensor.Float32, 4, G.WithShape(batch, 3, cfg.Height, cfg.Width), G.WithName("x"))
	h := n.x
	for i := range cfg.Channels {
		p := fmt.Sprintf("conv%d.", i)
		if fusedBlocks {
			if h, err = convProduct(h, node(p+"w")); err != nil {
				return nil, fmt.Errorf("conv %d: %w", i, err)
			}
			var st *blockState
			if h, st, err = convBlock(h, node(p+"gamma"), node(p+"beta"), cfg.BNMomentum, cfg.BNEpsilon); err != nil {
				return nil, fmt.Errorf("block %d: %w", i, err)
			}
			n.bn = append(n.bn, st)
			continue
		}
		if h, err = G.Conv2d(h, node(p+"w"), tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}); err != nil {
			return nil, fmt.Errorf("conv %d: %w", i, err)
		}
		var op *G.BatchNormOp
		if h, _, _, op, err = G.BatchNorm(h, node(p+"gamma"), node(p+"beta"), cfg.BNMomentum, cfg.BNEpsilon); err != nil {
			return nil, fmt.Errorf("batch-norm %d: %w", i, err)
		}
		n.bn = append(n.bn, op)
		if h, err = G.Rectify(h); err != nil {
			return nil, err
		}
		if h, err = G.MaxPool2D(h, tensor.Shape{2, 2}, []int{0, 0}, []int{2, 2}); err != nil {
			return nil, fmt.Errorf("pool %d: %w", i, err)
		}
	}
	if h, err = G.Reshape(h, tensor.Shape{batch, features(cfg)}); err != nil {
		return nil, err
	}
	dense := func(in *G.Node, name string) (*G.Node, error) {
		mm, err := G.Mul(in, node(name+".w"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return G.BroadcastAdd(mm, node(name+".b"), nil, []byte{0})
	}
	if h, err = dense(h, "fc"); err != nil {
		return nil, err
	}
	if h, err = G.Rectify(h); err != nil {
		return nil, err
	}
	if n.side, err = dense(h, "side"); err != nil {
		return nil, err
	}
	if n.colour, err = dense(h, "colour"); err != nil {
		return nil, err
	}
	if n.number, err = dense(h, "number"); err != nil {
		return nil, err
	}
	if n.emb, err = dense(h, "embed"); err != nil {
		return nil, err
	}
	G.Read(n.side, &n.sideV)
	G.Read(n.colour, &n.colourV)
	G.Read(n.number, &n.numberV)
	G.Read(n.emb, &n.embV)
	if !training {
		return n, nil
	}
	if n.embNorm, err = l2normRows(n.emb); err != nil {
		return nil, err
	}
	protos, err := l2normRows(node("protos"))
	if err != nil {
		return nil, err
	}
	cos, err := G.Mul(n.embNorm, G.Must(G.Transpose(protos)))
	if err != nil {
		return nil, err
	}
	if n.back, err = G.Mul(cos, G.NewConstant(float32(cfg.EmbedScale))); err != nil {
		return nil, err
	}
	G.Read(n.back, &n.backV)
	return n, nil
}

// l2normRows divides each row of the matrix a by its L2 norm.
func l2normRows(a *G.Node) (*G.Node, error) {
	sq, err := G.Square(a)
	if err != nil {
		return nil, err
	}
	ss, err := G.Sum(sq, 1)
	if err != nil {
		return nil, err
	}
	ss, err = G.Add(ss, G.NewConstant(float32(1e-12)))
	if err != nil {
		return nil, err
	}
	norm, err := G.Sqrt(ss)
	if err != nil {
		return nil, err
	}
	norm, err = G.Reshape(norm, tensor.Shape{a.Shape()[0], 1})
	if err != nil {
		return nil, err
	}
	return G.BroadcastHadamardDiv(a, norm, nil, []byte{1})
}

// learnables returns the nodes of the learnable tensors and their indices
// in the weights.
func (n *net) learnables() (nodes G.Nodes, idx []int) {
	for i, sp := range n.specs {
		if sp.Learnable && n.nodes[i] != nil {
			nodes = append(nodes, n.nodes[i])
			idx = append(idx, i)
		}
	}
	return nodes, idx
}

// setStats copies the running statistics from w into the batch-norm ops.
func (n *net) setStats(w *model.Weights) error {
	for i, op := range n.bn {
		p := fmt.Sprintf("conv%d.", i)
		m, v := w.Tensor(p+"mean"), w.Tensor(p+"var")
		if m == nil || v == nil {
			return fmt.Errorf("%w: no running statistics for conv block %d", model.ErrShapeMismatch, i)
		}
		if err := op.SetStats(denseOf(m.Shape, m.Data), denseOf(v.Shape, v.Data)); err != nil {
			return fmt.Errorf("%w: %v", model.ErrShapeMismatch, err)
		}
	}
	return nil
}

// snapshot copies the current values of the graph (learnables and running
// statistics) into fresh model.Weights; tensors without a node (the prototypes of
// an inference graph) are copied from base.
func (n *net) snapshot(base *model.Weights) *model.Weights {
	w := base.Clone()
	for i, nd := range n.nodes {
		if nd == nil || nd.Value() == nil {
			continue
		}
		copy(w.Tensors[i].Data, nd.Value().Data().([]float32))
	}
	for i, op := range n.bn {
		p := fmt.Sprintf("conv%d.", i)
		m, v := op.Stats()
		copy(w.Tensor(p+"mean").Data, m.Data().([]float32))
		copy(w.Tensor(p+"var").Data, v.Data().([]float32))
	}
	return w
}

// float32s returns the data of a value read from the graph.
func float32s(v G.Value) ([]float32, error) {
	if v == nil {
		return nil, fmt.Errorf("model: an output was not computed")
	}
	d, ok := v.Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("model: an output holds %T, not []float32", v.Data())
	}
	return d, nil
}

// features is the length of the flattened output of the conv blocks.
func features(c model.Config) int {
	div := 1 << len(c.Channels)
	return c.Channels[len(c.Channels)-1] * (c.Height / div) * (c.Width / div)
}

// workers is c.Workers, with 0 read as 1.
func workers(c model.Config) int { return max(1, c.Workers) }

// cloneConfig is c with a Channels of its own.
func cloneConfig(c model.Config) model.Config {
	c.Channels = slices.Clone(c.Channels)
	return c
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
