package plot

import (
	"image"
	"image/color"
	"image/draw"
	"testing"
)

func TestLinesDrawsEachSeries(t *testing.T) {
	red := color.RGBA{255, 0, 0, 255}
	img := Lines("loss", "step", []Series{{Name: "a", X: []float64{0, 1, 2}, Y: []float64{1, 0.1, 0.01}, Colour: red}}, true, 400, 300)
	found := 0
	for y := 0; y < 300; y++ {
		for x := 60; x < 250; x++ {
			if img.RGBAAt(x, y) == red {
				found++
			}
		}
	}
	if found < 100 {
		t.Fatalf("the curve left only %d red pixels", found)
	}
}

func TestConfusionShadesErrors(t *testing.T) {
	img := Confusion("c", []string{"a", "b"}, [][]int{{9, 1}, {0, 10}})
	// The off-diagonal error cell is reddish, the diagonal bluish.
	if c := img.RGBAAt(90+34+20, 40+5); c.R != 255 || c.B == 255 {
		t.Fatalf("error cell %v", c)
	}
	if c := img.RGBAAt(90+20, 40+5); c.B != 255 || c.R == 255 {
		t.Fatalf("diagonal cell %v", c)
	}
}

// TestSheetScalesEachTile: each tile lands at its place, scaled by
// nearest pixel, so the picture shows the very pixels the network read.
func TestSheetScalesEachTile(t *testing.T) {
	red, blue := image.NewRGBA(image.Rect(0, 0, 4, 6)), image.NewRGBA(image.Rect(0, 0, 4, 6))
	draw.Draw(red, red.Bounds(), image.NewUniform(color.RGBA{255, 0, 0, 255}), image.Point{}, draw.Src)
	draw.Draw(blue, blue.Bounds(), image.NewUniform(color.RGBA{0, 0, 255, 255}), image.Point{}, draw.Src)
	blue.SetRGBA(3, 5, color.RGBA{0, 255, 0, 255}) // its bottom-right pixel
	img := Sheet("misread", []image.Image{red, blue}, []string{"a", "b"}, 2, 5)
	// Tiles are 20x30 at (6,22) and (6+20+6, 22): their inside and corners.
	if c := img.RGBAAt(6+10, 22+15); c != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("first tile's middle %v, want red", c)
	}
	if c := img.RGBAAt(32+10, 22+15); c != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("second tile's middle %v, want blue", c)
	}
	if c := img.RGBAAt(32+19, 22+29); c != (color.RGBA{0, 255, 0, 255}) {
		t.Errorf("second tile's last pixel %v, want the green of its source pixel", c)
	}
	if c := img.RGBAAt(32+14, 22+24); c != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("next to the scaled green pixel %v, want blue", c)
	}
}
