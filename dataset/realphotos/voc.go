package realphotos

import (
	"encoding/xml"
	"fmt"
	"image"
	"io"
)

// VOC is one Pascal VOC annotation: the image's size and a box per object
// (here a box per whole card).
type VOC struct {
	Width, Height int
	Boxes         []image.Rectangle
	Names         []string // each box's class name
}

type vocFile struct {
	Size struct {
		Width  int `xml:"width"`
		Height int `xml:"height"`
	} `xml:"size"`
	Objects []struct {
		Name string `xml:"name"`
		Box  struct {
			XMin float64 `xml:"xmin"`
			YMin float64 `xml:"ymin"`
			XMax float64 `xml:"xmax"`
			YMax float64 `xml:"ymax"`
		} `xml:"bndbox"`
	} `xml:"object"`
}

// ParseVOC reads a Pascal VOC annotation. A box that is empty or reaches
// outside the image is an error: these labels are the truth a finder is
// scored against.
func ParseVOC(r io.Reader) (VOC, error) {
	var f vocFile
	dec := xml.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return VOC{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if f.Size.Width <= 0 || f.Size.Height <= 0 {
		return VOC{}, fmt.Errorf("%w: image size %dx%d", ErrFormat, f.Size.Width, f.Size.Height)
	}
	v := VOC{Width: f.Size.Width, Height: f.Size.Height}
	bounds := image.Rect(0, 0, f.Size.Width, f.Size.Height)
	for i, o := range f.Objects {
		// VOC boxes are 1-based and inclusive: pixels xmin..xmax.
		b := image.Rect(int(o.Box.XMin)-1, int(o.Box.YMin)-1, int(o.Box.XMax), int(o.Box.YMax))
		if b.Empty() || !b.In(bounds) {
			return VOC{}, fmt.Errorf("%w: object %d (%s): box %v outside %dx%d", ErrFormat, i+1, o.Name, b, f.Size.Width, f.Size.Height)
		}
		v.Boxes = append(v.Boxes, b)
		v.Names = append(v.Names, o.Name)
	}
	return v, nil
}
