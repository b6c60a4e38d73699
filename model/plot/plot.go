// Package plot draws the few pictures training needs — curves and
// confusion matrices — as images, with nothing but the standard library
// and x/image's fixed font, so that no plotting dependency is pulled in.
package plot

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Series is one named curve.
type Series struct {
	Name   string
	X, Y   []float64
	Colour color.RGBA
}

// Palette gives distinct colours for series.
var Palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
}

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	grey  = color.RGBA{220, 220, 220, 255}
)

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := math.Abs(float64(x1-x0)), math.Abs(float64(y1-y0))
	steps := int(math.Max(dx, dy))
	if steps == 0 {
		img.SetRGBA(x0, y0, c)
		return
	}
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(steps)
		x := int(math.Round(float64(x0) + t*float64(x1-x0)))
		y := int(math.Round(float64(y0) + t*float64(y1-y0)))
		img.SetRGBA(x, y, c)
		img.SetRGBA(x, y+1, c)
	}
}

// Lines draws curves on shared axes. With logY the y axis is logarithmic
// (for losses); values <= 0 are skipped there.
func Lines(title, xLabel string, series []Series, logY bool, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	left, right, top, bottom := 60, w-150, 30, h-40
	tr := func(v float64) float64 {
		if logY {
			return math.Log10(v)
		}
		return v
	}
	minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for i := range s.X {
			if logY && s.Y[i] <= 0 {
				continue
			}
			minX, maxX = math.Min(minX, s.X[i]), math.Max(maxX, s.X[i])
			minY, maxY = math.Min(minY, tr(s.Y[i])), math.Max(maxY, tr(s.Y[i]))
		}
	}
	if math.IsInf(minX, 0) {
		minX, maxX, minY, maxY = 0, 1, 0, 1
	}
	if maxX == minX {
		maxX = minX + 1
	}
	if maxY == minY {
		maxY = minY + 1
	}
	px := func(x float64) int { return left + int((x-minX)/(maxX-minX)*float64(right-left)) }
	py := func(y float64) int { return bottom - int((tr(y)-minY)/(maxY-minY)*float64(bottom-top)) }
	for i := 0; i <= 4; i++ { // grid and y ticks
		v := minY + float64(i)/4*(maxY-minY)
		y := bottom - i*(bottom-top)/4
		line(img, left, y, right, y, grey)
		label := fmt.Sprintf("%.3g", v)
		if logY {
			label = fmt.Sprintf("%.2g", math.Pow(10, v))
		}
		text(img, 2, y+4, label, black)
	}
	for i := 0; i <= 4; i++ {
		v := minX + float64(i)/4*(maxX-minX)
		text(img, px(v)-10, bottom+15, fmt.Sprintf("%.0f", v), black)
	}
	line(img, left, bottom, right, bottom, black)
	line(img, left, top, left, bottom, black)
	text(img, left, 18, title, black)
	text(img, (left+right)/2-len(xLabel)*3, h-8, xLabel, black)
	for k, s := range series {
		c := s.Colour
		if c.A == 0 {
			c = Palette[k%len(Palette)]
		}
		px0, py0, have := 0, 0, false
		for i := range s.X {
			if logY && s.Y[i] <= 0 {
				continue
			}
			x, y := px(s.X[i]), py(s.Y[i])
			if have {
				line(img, px0, py0, x, y, c)
			}
			px0, py0, have = x, y, true
		}
		ly := top + 10 + 16*k
		line(img, right+10, ly, right+30, ly, c)
		text(img, right+35, ly+4, s.Name, black)
	}
	return img
}

// Confusion draws a confusion matrix: rows are truths, columns predictions,
// each cell shaded by its share of the row and labelled with its count.
func Confusion(title string, labels []string, m [][]int) *image.RGBA {
	n := len(labels)
	cell, left, top := 34, 90, 40
	w, h := left+n*cell+10, top+n*cell+40
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	text(img, 4, 16, title, black)
	text(img, 4, 32, "rows: truth, columns: prediction", black)
	for i := range n {
		total := 0
		for _, v := range m[i] {
			total += v
		}
		text(img, 4, top+i*cell+cell/2+4, labels[i], black)
		for j := range n {
			share := 0.0
			if total > 0 {
				share = float64(m[i][j]) / float64(total)
			}
			shade := uint8(255 - 200*share)
			c := color.RGBA{shade, shade, 255, 255}
			if i != j && m[i][j] > 0 {
				c = color.RGBA{255, shade, shade, 255}
			}
			r := image.Rect(left+j*cell, top+i*cell, left+(j+1)*cell-1, top+(i+1)*cell-1)
			draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
			if m[i][j] > 0 {
				s := fmt.Sprint(m[i][j])
				if m[i][j] >= 10000 {
					s = fmt.Sprintf("%dk", m[i][j]/1000)
				}
				text(img, r.Min.X+2, r.Min.Y+cell/2+4, s, black)
			}
		}
	}
	for j := range n {
		l := labels[j]
		if len(l) > 4 {
			l = l[:4]
		}
		text(img, left+j*cell+2, top+n*cell+14, l, black)
	}
	return img
}
