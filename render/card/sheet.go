package card

import (
	"image"
	"image/color"
	"image/draw"
)

// ContactSheet lays images out in a grid of cols columns, in order, with a
// 2-pixel grey gutter. Cells are as large as the largest image.
func ContactSheet(imgs []*image.RGBA, cols int) *image.RGBA {
	if cols < 1 {
		cols = 1
	}
	cw, ch := 0, 0
	for _, im := range imgs {
		cw = max(cw, im.Bounds().Dx())
		ch = max(ch, im.Bounds().Dy())
	}
	rows := (len(imgs) + cols - 1) / cols
	const gap = 2
	sheet := image.NewRGBA(image.Rect(0, 0, gap+cols*(cw+gap), gap+rows*(ch+gap)))
	draw.Draw(sheet, sheet.Bounds(), image.NewUniform(color.RGBA{64, 64, 64, 255}), image.Point{}, draw.Src)
	for i, im := range imgs {
		x := gap + (i%cols)*(cw+gap)
		y := gap + (i/cols)*(ch+gap)
		r := image.Rect(x, y, x+im.Bounds().Dx(), y+im.Bounds().Dy())
		draw.Draw(sheet, r, im, im.Bounds().Min, draw.Over)
	}
	return sheet
}

// Zoom enlarges img k times with nearest-neighbour sampling, for looking
// at small crops.
func Zoom(img *image.RGBA, k int) *image.RGBA {
	if k <= 1 {
		return img
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()*k, b.Dy()*k))
	for y := 0; y < b.Dy()*k; y++ {
		for x := 0; x < b.Dx()*k; x++ {
			so := img.PixOffset(b.Min.X+x/k, b.Min.Y+y/k)
			do := out.PixOffset(x, y)
			copy(out.Pix[do:do+4], img.Pix[so:so+4])
		}
	}
	return out
}
