package training

import (
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// vmEngine is the engine the training and inference machines run on (a
// variable so that a test can compare it with gorgonia's own).
var vmEngine tensor.Engine = fastEngine{}

// fastEngine is gorgonia's CPU engine with a quicker Transpose for the
// float32 tensors of up to four dimensions this network moves about
// (G.Conv2d ends in one, and its backward pass in another: the blocks
// built from gorgonia's ops that the tests compare blockOp with).
// gorgonia's walks a generic iterator a value at a time; this is the same
// data movement in nested loops, so the results are the same bits.
type fastEngine struct {
	G.StandardEngine
}

// Transpose lays a's data out in the order of its (already transposed)
// shape and strides.
func (e fastEngine) Transpose(a tensor.Tensor, expStrides []int) error {
	d, ok := a.(*tensor.Dense)
	if !ok || d.Dtype() != tensor.Float32 || !d.IsNativelyAccessible() || d.Dims() > 4 || d.Dims() == 0 {
		return e.StandardEngine.Transpose(a, expStrides)
	}
	data := d.Data().([]float32)
	var shape, strides [4]int
	off := 4 - d.Dims()
	for i := range off {
		shape[i], strides[i] = 1, 0
	}
	copy(shape[off:], d.Shape())
	copy(strides[off:], d.Strides())
	tmp := make([]float32, d.DataSize())
	k := 0
	for i0 := range shape[0] {
		for i1 := range shape[1] {
			for i2 := range shape[2] {
				base := i0*strides[0] + i1*strides[1] + i2*strides[2]
				s3 := strides[3]
				for i3 := range shape[3] {
					tmp[k] = data[base+i3*s3]
					k++
				}
			}
		}
	}
	copy(data, tmp)
	return nil
}
