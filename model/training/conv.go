package training

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// convProduct is G.Conv2d with a 3x3 kernel, stride 1 and padding 1 (the
// same im2col, if not gorgonia's op, and the same product op, so the same
// arithmetic) without its
// last step: the result stays (N,H,W,C), as blockOp takes it, where
// G.Conv2d transposes it to (N,C,H,W) by cloning it and copying it twice.
func convProduct(im, filter *G.Node) (*G.Node, error) {
	colIm, err := im2col3x3(im)
	if err != nil {
		return nil, fmt.Errorf("im2col: %w", err)
	}
	fs := filter.Shape()
	flat, err := G.Reshape(filter, tensor.Shape{fs[0], fs[1] * fs[2] * fs[3]})
	if err != nil {
		return nil, err
	}
	cs := colIm.Shape()
	patch, err := G.Reshape(colIm, tensor.Shape{cs[0] * cs[1] * cs[2], cs[3]})
	if err != nil {
		return nil, err
	}
	mulABt, err := matMulABt()
	if err != nil {
		return nil, err
	}
	prod, err := G.ApplyOp(mulABt, patch, flat)
	if err != nil {
		return nil, fmt.Errorf("conv product: %w", err)
	}
	return G.Reshape(prod, tensor.Shape{cs[0], cs[1], cs[2], fs[0]})
}

// matMulABt returns gorgonia's A·Bᵀ op (unexported), taken from a
// G.Conv2d built on a throwaway graph.
func matMulABt() (G.Op, error) {
	g := G.NewGraph()
	im := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, 1, 3, 3))
	filter := G.NewTensor(g, tensor.Float32, 4, G.WithShape(1, 1, 3, 3))
	if _, err := G.Conv2d(im, filter, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}); err != nil {
		return nil, err
	}
	for _, n := range g.AllNodes() {
		if op := n.Op(); op != nil && op.String() == "A × Bᵀ" {
			return op, nil
		}
	}
	return nil, fmt.Errorf("model: no A×Bᵀ op in gorgonia's Conv2d")
}
