package plot

import (
	"image/color"
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
