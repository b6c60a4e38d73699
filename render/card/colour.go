package card

import (
	"image/color"
	"math"
)

// rgb is a linear-ish working colour with components in [0,1] (sRGB values,
// not linearised: the renderer mimics print and camera, not physics).
type rgb struct{ r, g, b float32 }

func rgbOf(c color.RGBA) rgb {
	return rgb{float32(c.R) / 255, float32(c.G) / 255, float32(c.B) / 255}
}

func (c rgb) scale(k float32) rgb { return rgb{c.r * k, c.g * k, c.b * k} }

func (c rgb) mix(d rgb, t float32) rgb {
	return rgb{c.r + (d.r-c.r)*t, c.g + (d.g-c.g)*t, c.b + (d.b-c.b)*t}
}

func (c rgb) clamp() rgb { return rgb{clamp01(c.r), clamp01(c.g), clamp01(c.b)} }

func (c rgb) rgba() color.RGBA {
	c = c.clamp()
	return color.RGBA{uint8(c.r*255 + 0.5), uint8(c.g*255 + 0.5), uint8(c.b*255 + 0.5), 255}
}

func clamp01(v float32) float32 {
	if v < 0 {
		return 0
	}
	if v > 1 {
		return 1
	}
	return v
}

func clampf(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// hsv builds a colour from hue (degrees), saturation and value in [0,1].
func hsv(h, s, v float64) rgb {
	h = math.Mod(h, 360)
	if h < 0 {
		h += 360
	}
	s, v = clampf(s, 0, 1), clampf(v, 0, 1)
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := v - c
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	return rgb{float32(r + m), float32(g + m), float32(b + m)}
}

// toHSV returns hue in degrees, saturation and value.
func toHSV(c rgb) (h, s, v float64) {
	r, g, b := float64(c.r), float64(c.g), float64(c.b)
	mx := math.Max(r, math.Max(g, b))
	mn := math.Min(r, math.Min(g, b))
	v = mx
	d := mx - mn
	if mx > 0 {
		s = d / mx
	}
	if d == 0 {
		return 0, s, v
	}
	switch mx {
	case r:
		h = 60 * math.Mod((g-b)/d, 6)
	case g:
		h = 60 * ((b-r)/d + 2)
	default:
		h = 60 * ((r-g)/d + 4)
	}
	if h < 0 {
		h += 360
	}
	return h, s, v
}

// mat3 is a colour transform applied as out = M * in.
type mat3 [9]float32

func (m mat3) mul(n mat3) mat3 {
	var o mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			o[3*i+j] = m[3*i]*n[j] + m[3*i+1]*n[3+j] + m[3*i+2]*n[6+j]
		}
	}
	return o
}

func (m *mat3) apply(r, g, b float32) (float32, float32, float32) {
	return m[0]*r + m[1]*g + m[2]*b, m[3]*r + m[4]*g + m[5]*b, m[6]*r + m[7]*g + m[8]*b
}

// printMatrix is a hue rotation (degrees) about the grey axis, a saturation
// factor and a brightness factor: the colour drift of one print run.
func printMatrix(hueDeg, sat, val float64) mat3 {
	t := hueDeg * math.Pi / 180
	c, s := math.Cos(t), math.Sin(t)
	k := 1 / math.Sqrt(3)
	// Rodrigues rotation about (k,k,k).
	var rot mat3
	kk := (1 - c) * k * k
	ks := s * k
	rot = mat3{
		float32(c + kk), float32(kk - ks), float32(kk + ks),
		float32(kk + ks), float32(c + kk), float32(kk - ks),
		float32(kk - ks), float32(kk + ks), float32(c + kk),
	}
	// Saturation about Rec. 601 luma.
	lr, lg, lb := 0.299*(1-sat), 0.587*(1-sat), 0.114*(1-sat)
	sm := mat3{
		float32(lr + sat), float32(lg), float32(lb),
		float32(lr), float32(lg + sat), float32(lb),
		float32(lr), float32(lg), float32(lb + sat),
	}
	m := sm.mul(rot)
	for i := range m {
		m[i] *= float32(val)
	}
	return m
}
