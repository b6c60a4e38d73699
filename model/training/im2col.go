package training

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// im2colOp is gorgonia's Im2Col for the one case the network uses, a 3x3
// kernel with stride 1 and padding 1, and col2imOp its gradient. They move
// the same values to the same places, and col2im adds each image value's
// terms in gorgonia's order (the same walk over the columns, from +0), so
// training gives the same weights bit for bit; but they walk without a
// bounds test a value inside the image and start no goroutine an image
// (each replica already has its core). gorgonia's pair was a fifth of a
// training step.
type im2colOp struct {
	grad    bool // col2im: (N,H,W,9C) to (N,C,H,W)
	c, h, w int  // the image's channels, height and width
}

// im2col3x3 returns the (N,H,W,9C) patches of the (N,C,H,W) image, each
// channel's 3x3 neighbourhood in row-major order, zeros outside.
func im2col3x3(im *G.Node) (*G.Node, error) {
	s := im.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("im2col: image of shape %v, want (N,C,H,W)", s)
	}
	return G.ApplyOp(im2colOp{c: s[1], h: s[2], w: s[3]}, im)
}

func (op im2colOp) String() string {
	if op.grad {
		return fmt.Sprintf("col2im3x3(%d,%d,%d)", op.c, op.h, op.w)
	}
	return fmt.Sprintf("im2col3x3(%d,%d,%d)", op.c, op.h, op.w)
}

func (op im2colOp) Arity() int { return 1 }

func (op im2colOp) Type() hm.Type {
	t := G.TensorType{Dims: 4, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t)
}

func (op im2colOp) InferShape(inputs ...G.DimSizer) (tensor.Shape, error) {
	s, ok := inputs[0].(tensor.Shape)
	if len(inputs) != 1 || !ok || s.Dims() != 4 {
		return nil, fmt.Errorf("%v: want one 4-d input", op)
	}
	return op.outShape(s[0]), nil
}

func (op im2colOp) inShape(n int) tensor.Shape {
	if op.grad {
		return tensor.Shape{n, op.h, op.w, 9 * op.c}
	}
	return tensor.Shape{n, op.c, op.h, op.w}
}

func (op im2colOp) outShape(n int) tensor.Shape {
	if op.grad {
		return tensor.Shape{n, op.c, op.h, op.w}
	}
	return tensor.Shape{n, op.h, op.w, 9 * op.c}
}

func (op im2colOp) ReturnsPtr() bool      { return false }
func (op im2colOp) CallsExtern() bool     { return false }
func (op im2colOp) OverwritesInput() int  { return -1 }
func (op im2colOp) WriteHash(h hash.Hash) { fmt.Fprint(h, op.String()) }
func (op im2colOp) Hashcode() uint32 {
	h := fnv.New32a()
	op.WriteHash(h)
	return h.Sum32()
}

func (op im2colOp) DiffWRT(inputs int) []bool { return []bool{!op.grad} }

func (op im2colOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("%v is not differentiable", op)
	}
	back := op
	back.grad = true
	n, err := G.ApplyOp(back, grad)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", back, err)
	}
	return G.Nodes{n}, nil
}

func (op im2colOp) Do(inputs ...G.Value) (G.Value, error) {
	in, n, err := op.check(inputs)
	if err != nil {
		return nil, err
	}
	out := tensor.New(tensor.WithShape(op.outShape(n)...), tensor.Of(tensor.Float32))
	op.run(in, n, out.Data().([]float32))
	return out, nil
}

// UsePreallocDo writes into the register's old value when it fits; the
// machine falls back to Do on an error.
func (op im2colOp) UsePreallocDo(prealloc G.Value, inputs ...G.Value) (G.Value, error) {
	in, n, err := op.check(inputs)
	if err != nil {
		return nil, err
	}
	p, data, err := register(op, prealloc, op.outShape(n), in)
	if err != nil {
		return nil, err
	}
	op.run(in, n, data)
	return p, nil
}

// check returns the input's data and its batch size.
func (op im2colOp) check(inputs []G.Value) ([]float32, int, error) {
	if len(inputs) != 1 {
		return nil, 0, fmt.Errorf("%v: %d inputs, want 1", op, len(inputs))
	}
	d, ok := inputs[0].(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || d.Dims() != 4 || !d.IsNativelyAccessible() {
		return nil, 0, fmt.Errorf("%v: input is not a 4-d float32 tensor", op)
	}
	n := d.Shape()[0]
	if !d.Shape().Eq(op.inShape(n)) || n == 0 {
		return nil, 0, fmt.Errorf("%v: input of shape %v, want %v", op, d.Shape(), op.inShape(n))
	}
	return d.Data().([]float32), n, nil
}

func (op im2colOp) run(in []float32, n int, out []float32) {
	plane := op.c * op.h * op.w
	ims, cols := in, out
	if op.grad {
		ims, cols = out, in
		clear(ims)
	}
	for i := range n {
		op.image(ims[i*plane:(i+1)*plane], cols[i*9*plane:(i+1)*9*plane])
	}
}

// image walks one image's columns as gorgonia does (output row, output
// column, channel, kernel row, kernel column), copying each image value to
// its column (im2col) or adding each column value to its image value
// (col2im).
func (op im2colOp) image(im, col []float32) {
	C, H, W := op.c, op.h, op.w
	k := 0
	for r := range H {
		for c := range W {
			inside := r > 0 && r < H-1 && c > 0 && c < W-1
			for ch := range C {
				dst := col[k : k+9]
				k += 9
				if inside {
					top := ch*H*W + (r-1)*W + c - 1
					a, b, d := im[top:top+3], im[top+W:top+W+3], im[top+2*W:top+2*W+3]
					if op.grad {
						a[0] += dst[0]
						a[1] += dst[1]
						a[2] += dst[2]
						b[0] += dst[3]
						b[1] += dst[4]
						b[2] += dst[5]
						d[0] += dst[6]
						d[1] += dst[7]
						d[2] += dst[8]
					} else {
						dst[0], dst[1], dst[2] = a[0], a[1], a[2]
						dst[3], dst[4], dst[5] = b[0], b[1], b[2]
						dst[6], dst[7], dst[8] = d[0], d[1], d[2]
					}
					continue
				}
				for kr := range 3 {
					ir := r - 1 + kr
					for kc := range 3 {
						ic := c - 1 + kc
						j := 3*kr + kc
						if ir < 0 || ir >= H || ic < 0 || ic >= W {
							if !op.grad {
								dst[j] = 0
							}
							continue
						}
						if op.grad {
							im[ch*H*W+ir*W+ic] += dst[j]
						} else {
							dst[j] = im[ch*H*W+ir*W+ic]
						}
					}
				}
			}
		}
	}
}
