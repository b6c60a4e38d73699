package tiles

import (
	"os"
	"testing"

	"gocv.io/x/gocv"
	rtiles "ligretto/referee/tiles"
)

func TestDiagBoard(t *testing.T) {
	path := os.Getenv("TILES_VIDEO")
	if path == "" {
		t.Skip("TILES_VIDEO not set")
	}
	vc, _ := gocv.VideoCaptureFile(path)
	defer vc.Close()
	img := gocv.NewMat()
	defer img.Close()
	for k := 0; k <= 65; k++ {
		vc.Read(&img)
	}
	tv, err := newTopView(img)
	if err != nil {
		t.Fatal(err)
	}
	tv.warp(img)
	gocv.IMWrite("/tmp/tl/top.png", tv.img)
	b, err := findBoard(tv, 2)
	t.Logf("%v %v", b, err)
	if b != nil {
		for y := range b.H {
			for x := range b.W {
				s := sampleField(tv, b, tilesField(x, y))
				t.Logf("%d,%d %v %+v", x, y, s, lookOf(s))
			}
		}
	}
}

func tilesField(x, y int) rtiles.Field { return rtiles.Field{X: x, Y: y} }

func TestDiagField(t *testing.T) {
	path := os.Getenv("TILES_VIDEO")
	if path == "" {
		t.Skip("TILES_VIDEO not set")
	}
	vc, _ := gocv.VideoCaptureFile(path)
	defer vc.Close()
	img := gocv.NewMat()
	defer img.Close()
	var tv *topView
	var b *Board
	for k := 0; k <= 240; k++ {
		vc.Read(&img)
		if k == 65 {
			tv, _ = newTopView(img)
			tv.warp(img)
			b, _ = findBoard(tv, 2)
		}
	}
	tv.warp(img)
	gocv.IMWrite("/tmp/tl/top240.png", tv.img)
	for _, f := range []rtiles.Field{{X: 7, Y: 7}, {X: 7, Y: 6}, {X: 8, Y: 6}, {X: 8, Y: 7}} {
		s := sampleField(tv, b, f)
		t.Logf("%v %v %+v", f, s, lookOf(s))
	}
}
