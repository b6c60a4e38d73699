package training

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestIm2Col_SameBitsAsGorgonias: im2colOp gives gorgonia's Im2Col (3x3,
// stride 1, padding 1) and its gradient the same bits, on images with no
// inside (one or two rows or columns) and with one, values including
// signed zeros, whose sums show the order of the additions.
func TestIm2Col_SameBitsAsGorgonias(t *testing.T) {
	for _, s := range []tensor.Shape{{1, 1, 1, 1}, {2, 3, 2, 5}, {3, 2, 4, 1}, {2, 4, 6, 7}, {1, 16, 12, 8}} {
		rng := rand.New(rand.NewPCG(uint64(s.TotalSize()), 7))
		values := func(n int) []float32 {
			v := make([]float32, n)
			for i := range v {
				switch rng.IntN(6) {
				case 0:
					v[i] = float32(math.Copysign(0, -1))
				case 1:
					v[i] = 0
				default:
					v[i] = float32(rng.NormFloat64()) * float32(math.Pow(10, float64(rng.IntN(9)-4)))
				}
			}
			return v
		}
		im := values(s.TotalSize())
		weight := values(s[0] * s[2] * s[3] * s[1] * 9)
		run := func(ours bool) (col, grad []float32) {
			g := G.NewGraph()
			x := G.NewTensor(g, tensor.Float32, 4, G.WithShape(s...), G.WithName("x"),
				G.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(append([]float32(nil), im...)))))
			var c *G.Node
			var err error
			if ours {
				c, err = im2col3x3(x)
			} else {
				c, err = G.Im2Col(x, tensor.Shape{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1})
			}
			if err != nil {
				t.Fatal(err)
			}
			w := G.NewTensor(g, tensor.Float32, 4, G.WithShape(c.Shape()...), G.WithName("w"),
				G.WithValue(tensor.New(tensor.WithShape(c.Shape()...), tensor.WithBacking(weight))))
			cost := G.Must(G.Sum(G.Must(G.HadamardProd(c, w))))
			if _, err := G.Grad(cost, x); err != nil {
				t.Fatal(err)
			}
			vm := G.NewTapeMachine(g)
			defer vm.Close()
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			gx, err := x.Grad()
			if err != nil {
				t.Fatal(err)
			}
			return append([]float32(nil), c.Value().Data().([]float32)...), append([]float32(nil), gx.Data().([]float32)...)
		}
		oc, og := run(true)
		gc, gg := run(false)
		same := func(what string, a, b []float32) {
			if len(a) != len(b) {
				t.Fatalf("%v: %s has %d values, gorgonia's %d", s, what, len(a), len(b))
			}
			for i := range a {
				if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
					t.Fatalf("%v: %s[%d] = %g, gorgonia's %g", s, what, i, a[i], b[i])
				}
			}
		}
		same("im2col", oc, gc)
		same("gradient", og, gg)
	}
}
