package plot

import (
	"image"
	"image/draw"

	xdraw "golang.org/x/image/draw"
)

// Sheet lays tiles out in rows of cols, each scaled by scale (nearest
// pixel, so a person sees what the network saw) with its caption under
// it, below a title: a contact sheet of crops, such as the faces an
// evaluation misread.
func Sheet(title string, tiles []image.Image, captions []string, cols, scale int) *image.RGBA {
	const pad, captionH, titleH = 6, 16, 22
	cols = max(1, min(cols, len(tiles)))
	scale = max(1, scale)
	tw, th := 0, 0
	for _, t := range tiles {
		tw, th = max(tw, t.Bounds().Dx()*scale), max(th, t.Bounds().Dy()*scale)
	}
	tw = max(tw, 7*longest(captions)) // captions stay readable under small tiles
	rows := (len(tiles) + cols - 1) / cols
	w := max(cols*(tw+pad)+pad, 7*len(title)+2*pad)
	img := image.NewRGBA(image.Rect(0, 0, w, titleH+rows*(th+captionH+pad)+pad))
	draw.Draw(img, img.Bounds(), image.NewUniform(white), image.Point{}, draw.Src)
	text(img, pad, 15, title, black)
	for i, t := range tiles {
		x, y := pad+(i%cols)*(tw+pad), titleH+(i/cols)*(th+captionH+pad)
		r := image.Rect(x, y, x+t.Bounds().Dx()*scale, y+t.Bounds().Dy()*scale)
		xdraw.NearestNeighbor.Scale(img, r, t, t.Bounds(), xdraw.Src, nil)
		if i < len(captions) {
			text(img, x, y+th+12, captions[i], black)
		}
	}
	return img
}

func longest(ss []string) int {
	n := 0
	for _, s := range ss {
		n = max(n, len(s))
	}
	return n
}
