package realphotos

import (
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ligretto/referee"
)

const shared = "../../../shared/data/uno-photos"

func TestParseLabels(t *testing.T) {
	got, skipped, err := ParseLabels(strings.NewReader("7 0.27 0.26 0.066 0.082\n\n9 0.5 0.5 0.1 0.2\n1 1.56 0.5 0.1 0.1\n"))
	if err != nil || len(got) != 2 || got[0].Class != 7 || got[1].H != 0.2 || skipped != 1 {
		t.Fatalf("%+v %d %v", got, skipped, err)
	}
	for _, bad := range []string{"7 0.2 0.3\n", "x 0.1 0.1 0.1 0.1\n", "1 0.1 0.1 0.1 wide\n"} {
		if _, _, err := ParseLabels(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestClassNamesOfTheSharedSet(t *testing.T) {
	f, err := os.Open(filepath.Join(shared, "data.yaml"))
	if err != nil {
		t.Fatalf("the shared photos must be beside the repository: %v", err)
	}
	defer f.Close()
	names, err := ParseClassNames(f)
	if err != nil || len(names) != 54 {
		t.Fatalf("%d names, %v", len(names), err)
	}
	if c, ok := CardOf(names[7]); !ok || c != (Card{referee.Blue, 7}) {
		t.Fatalf("class 7 is %q", names[7])
	}
	if _, ok := CardOf("blue skip"); ok {
		t.Fatal("an action card has no number")
	}
	if _, ok := CardOf("wild"); ok {
		t.Fatal("wild has no colour")
	}
}

func TestCropScalesTheBox(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	for y := 40; y < 60; y++ {
		for x := 40; x < 60; x++ {
			img.Set(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	c := Crop(img, Box{CX: 0.5, CY: 0.5, W: 0.2, H: 0.2}, 0, 32, 48)
	if c.Bounds().Dx() != 32 || c.Bounds().Dy() != 48 {
		t.Fatal(c.Bounds())
	}
	if r, g, _, _ := c.At(16, 24).RGBA(); r>>8 < 250 || g>>8 > 5 {
		t.Fatalf("the centre of the crop is not the red box: %v", c.At(16, 24))
	}
	if r, _, _, _ := Crop(img, Box{CX: 0.5, CY: 0.5, W: 0.2, H: 0.2}, 0.5, 32, 48).At(1, 1).RGBA(); r != 0 {
		t.Fatal("padding must reach beyond the box")
	}
}

func TestHeldOutSplitsAboutHalf(t *testing.T) {
	n, held := 0, 0
	entries, _ := os.ReadDir(filepath.Join(shared, "images"))
	for _, e := range entries {
		n++
		if HeldOut(e.Name()) {
			held++
		}
	}
	if n < 200 || held < n/3 || held > 2*n/3 {
		t.Fatalf("%d of %d held out", held, n)
	}
}

func TestParseVOC(t *testing.T) {
	const doc = `<annotation><size><width>378</width><height>504</height><depth>3</depth></size>
<object><name>ace</name><bndbox><xmin>97</xmin><ymin>136</ymin><xmax>275</xmax><ymax>368</ymax></bndbox></object>
<object><name>king</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>40</xmax><ymax>60</ymax></bndbox></object></annotation>`
	v, err := ParseVOC(strings.NewReader(doc))
	if err != nil || v.Width != 378 || len(v.Boxes) != 2 || v.Boxes[0] != image.Rect(96, 135, 275, 368) || v.Names[1] != "king" {
		t.Fatalf("%+v %v", v, err)
	}
	for _, bad := range []string{
		"<annotation><size><width>10</width>",
		"<annotation><size><width>0</width><height>5</height></size></annotation>",
		`<annotation><size><width>10</width><height>10</height></size><object><name>x</name><bndbox><xmin>5</xmin><ymin>5</ymin><xmax>40</xmax><ymax>8</ymax></bndbox></object></annotation>`,
	} {
		if _, err := ParseVOC(strings.NewReader(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: want ErrFormat, got %v", bad, err)
		}
	}
}
