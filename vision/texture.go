package vision

import (
	"image"

	"gocv.io/x/gocv"
)

// tableTexture is the fine texture of the empty table (wood grain, a
// weave) over the centre. A hand the colour of the table (skin on wood)
// passes the colour test of bare table, but hides the grain: where the
// table has texture to show and the frame does not show that texture, the
// spot is not bare, whatever its colour. Texture is compared by normalised
// correlation of the high-passed grey images, which light drift (a gain)
// leaves alone.
type tableTexture struct {
	hp       gocv.Mat // high-passed grey of the empty table, float32
	energy   gocv.Mat // box mean of hp², float32
	textured gocv.Mat // 8-bit mask: where the table has texture to compare
	plain    gocv.Mat // its inverse: where it has none (felt, laminate)
	// some is whether textured marks any pixel: on a table with none,
	// nothing can be hidden, and hidden need not look.
	some bool
}

const (
	// textureSigma is the blur taken off to keep the texture: grain and
	// weave are a few work pixels (millimetres) across.
	textureSigma = 2
	// textureWindow is the side of the window the correlation is taken
	// over, in work pixels.
	textureWindow = 9
	// minTextureEnergy is the least mean squared high-pass level of a
	// textured spot: on the simulated tables the wood's and linen's grain
	// is above it everywhere, felt and laminate from nowhere to most of
	// the centre (their bare spots correlate too: 2-3% of their pixels
	// fall below the match, specks that cleanMask drops).
	minTextureEnergy = 1.2 * 1.2
	// minTextureMatch is the least correlation of a bare textured spot
	// with the empty table: bare wood correlates 0.6-0.95, a hand or a
	// card over it -0.3-0.2.
	minTextureMatch = 0.35
)

// newTableTexture measures the texture of bg (8-bit BGR, the empty table).
func newTableTexture(bg gocv.Mat) *tableTexture {
	t := &tableTexture{hp: highPass(bg), energy: gocv.NewMat(), textured: gocv.NewMat(), plain: gocv.NewMat()}
	gocv.Multiply(t.hp, t.hp, &t.energy)
	gocv.Blur(t.energy, &t.energy, image.Pt(textureWindow, textureWindow))
	gocv.Threshold(t.energy, &t.textured, minTextureEnergy, 255, gocv.ThresholdBinary)
	t.textured.ConvertTo(&t.textured, gocv.MatTypeCV8U)
	gocv.BitwiseNot(t.textured, &t.plain)
	t.some = gocv.CountNonZero(t.textured) > 0
	return t
}

func (t *tableTexture) Close() {
	t.hp.Close()
	t.energy.Close()
	t.textured.Close()
	t.plain.Close()
}

// hidden returns the mask (8-bit, 255) of the pixels of img (the same size
// as the table it was made from) where the table's texture should show
// and does not.
func (t *tableTexture) hidden(img gocv.Mat) gocv.Mat {
	if !t.some {
		return gocv.Zeros(img.Rows(), img.Cols(), gocv.MatTypeCV8U)
	}
	a := highPass(img)
	defer a.Close()
	ab, aa := gocv.NewMat(), gocv.NewMat()
	defer ab.Close()
	defer aa.Close()
	win := image.Pt(textureWindow, textureWindow)
	gocv.Multiply(a, t.hp, &ab)
	gocv.Blur(ab, &ab, win)
	gocv.Multiply(a, a, &aa)
	gocv.Blur(aa, &aa, win)
	// ncc = ab / sqrt(aa·bb) is below the match m where ab·|ab| <
	// m²·aa·bb (no square root: this runs on every frame).
	gocv.Multiply(aa, t.energy, &aa)
	aa.MultiplyFloat(minTextureMatch * minTextureMatch)
	abs := gocv.NewMat()
	defer abs.Close()
	gocv.Threshold(ab, &abs, 0, 0, gocv.ThresholdToZero) // max(ab, 0)
	gocv.Multiply(ab, abs, &abs)                         // ab·|ab| where ab > 0, else 0
	gocv.Subtract(aa, abs, &aa)                          // > 0 below the match (or ab ≤ 0 on texture)
	m := gocv.NewMat()
	gocv.Threshold(aa, &m, 0, 255, gocv.ThresholdBinary)
	m.ConvertTo(&m, gocv.MatTypeCV8U)
	gocv.BitwiseAnd(m, t.textured, &m)
	return m
}

// highPass is img's grey level less its blur, as float32.
func highPass(img gocv.Mat) gocv.Mat {
	g, b := gocv.NewMat(), gocv.NewMat()
	defer b.Close()
	gocv.CvtColor(img, &g, gocv.ColorBGRToGray)
	g.ConvertTo(&g, gocv.MatTypeCV32F)
	gocv.GaussianBlur(g, &b, image.Pt(0, 0), textureSigma, textureSigma, gocv.BorderReplicate)
	gocv.Subtract(g, b, &g)
	return g
}
