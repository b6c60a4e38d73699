package plot

import (
	"fmt"
	"image"
	"image/draw"
)

// Reliability draws a reliability diagram: each series' points are
// (mean confidence, accuracy) of a confidence bin, joined, on axes from 0
// to 1, with the diagonal a calibrated reading lies on.
func Reliability(title string, series []Series, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	left, right, top, bottom := 50, w-190, 30, h-40
	px := func(x float64) int { return left + int(x*float64(right-left)) }
	py := func(y float64) int { return bottom - int(y*float64(bottom-top)) }
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		line(img, left, py(v), right, py(v), grey)
		line(img, px(v), top, px(v), bottom, grey)
		text(img, 8, py(v)+4, fmt.Sprintf("%.1f", v), black)
		text(img, px(v)-10, bottom+15, fmt.Sprintf("%.1f", v), black)
	}
	line(img, left, bottom, right, bottom, black)
	line(img, left, top, left, bottom, black)
	line(img, px(0), py(0), px(1), py(1), black)
	text(img, left, 18, title, black)
	text(img, (left+right)/2-60, h-8, "confidence (bin mean)", black)
	text(img, right+10, top+4, "y: accuracy", black)
	for k, s := range series {
		c := s.Colour
		if c.A == 0 {
			c = Palette[k%len(Palette)]
		}
		for i := range s.X {
			x, y := px(s.X[i]), py(s.Y[i])
			for d := -2; d <= 2; d++ {
				line(img, x-2, y+d, x+2, y+d, c)
			}
			if i > 0 {
				line(img, px(s.X[i-1]), py(s.Y[i-1]), x, y, c)
			}
		}
		ly := top + 26 + 16*k
		line(img, right+10, ly, right+30, ly, c)
		text(img, right+35, ly+4, s.Name, black)
	}
	return img
}
