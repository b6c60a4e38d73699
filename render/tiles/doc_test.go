package tiles

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/render/scene"
)

var docPNG = flag.String("docpng", "", "write the annotated mid-round frame of the docs (docs/tiles-render.png) to this file")

// TestDocPNG writes the annotated mid-round frame of docs/tiles-render.png
// when asked with -docpng FILE: the frame as the camera sees it, each
// card and joker outlined in its owner's colour of the legend, each stone
// circled, scaled to 960x540 with 32 levels a channel.
func TestDocPNG(t *testing.T) {
	if *docPNG == "" {
		t.Skip("-docpng FILE not given")
	}
	evs := timeline(t, 4, 7, 1)
	s := newScene(t, scene.DefaultConfig(), 4, 7, evs)
	tm := nthLay(evs, 30) + 600
	mat, truth := render(t, s, tm)
	defer mat.Close()
	small := gocv.NewMat()
	defer small.Close()
	const k = 0.75
	gocv.Resize(mat, &small, image.Pt(960, 540), 0, 0, gocv.InterpolationArea)
	// Fewer levels (the sensor noise is most of a PNG's size) keep the
	// file small.
	if px, err := small.DataPtrUint8(); err == nil {
		for i, v := range px {
			px[i] = v&^7 | 4
		}
	}
	owners := []color.RGBA{{0, 255, 255, 0}, {255, 0, 255, 0}, {255, 140, 0, 0}, {255, 255, 255, 0}}
	byName := map[string]int{}
	for i, p := range s.Players() {
		byName[p.Name] = i
	}
	pt := func(p Pt) image.Point { return image.Pt(int(p.X*k+0.5), int(p.Y*k+0.5)) }
	for _, p := range truth {
		if p.Kind == KindStone {
			c := p.Quad.Centre()
			gocv.Circle(&small, pt(c), 14, color.RGBA{255, 255, 255, 0}, 1)
			continue
		}
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{{pt(p.Quad[0]), pt(p.Quad[1]), pt(p.Quad[2]), pt(p.Quad[3])}})
		gocv.Polylines(&small, pv, true, owners[byName[p.Player]], 1)
		pv.Close()
	}
	gocv.Rectangle(&small, image.Rect(0, 0, 960, 24), color.RGBA{0, 0, 0, 0}, -1)
	legend := fmt.Sprintf("render/tiles  4 players, seed 7, t = %.1f s", float64(tm)/1000)
	gocv.PutText(&small, legend, image.Pt(6, 17), gocv.FontHersheySimplex, 0.45, color.RGBA{255, 255, 255, 0}, 1)
	for i, p := range s.Players() {
		gocv.PutText(&small, fmt.Sprintf("%s %s", p.Name, p.Frame), image.Pt(430+i*130, 17), gocv.FontHersheySimplex, 0.45, owners[i], 1)
	}
	if !gocv.IMWriteWithParams(*docPNG, small, []int{gocv.IMWritePngCompression, 9}) {
		t.Fatalf("cannot write %s", *docPNG)
	}
}
