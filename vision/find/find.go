// Package find finds cards in an image: the outlines of card-shaped
// regions, as four corners each. One entry point, Cards, looks by the
// Options given: in a frame's edges alone, against a picture of the empty
// table (a calibrated, rectified table), or in a photo nobody calibrated.
// It also scores a finder on labelled photos (ScoreWholeCards,
// ScoreMarkedCards). It owns OpenCV (through gocv); every Mat it makes it
// closes.
package find

import "gocv.io/x/gocv"

// Options say what counts as a card and how it is looked for. The zero
// Table, Plain, Fit and Photo look in the image's edges alone.
type Options struct {
	MinArea, MaxArea float64 // in pixels of the image searched
	MinAspect        float64 // long side / short side
	MaxAspect        float64
	// CardW, CardH are a card's size in pixels of the image searched when
	// the image has a known scale (a rectified table), else 0. With them,
	// an outline of about two cards (two piles whose top cards touch) is
	// split into two card-sized outlines.
	CardW, CardH float64
	// MinFill is the least share of its bounding rectangle an outline's
	// hull covers; 0 means 0.85. The photo finder, which checks every
	// outline's border, takes outlines whose corners were cut.
	MinFill float64

	// Table is the picture of the empty table (BGR, the same size, scale
	// and type as the image searched), or nil. With it, edges are kept
	// only near what differs from the table, and the outline of that
	// difference closes a card's outline where its colour is close to the
	// table's. A Table that does not fit the image is not used.
	Table *gocv.Mat
	// Plain (8-bit, the image's size, or nil) marks where the Table is
	// plain, without texture to show: there a card also stands out from
	// the table by its hue alone (a green card on green felt).
	Plain *gocv.Mat
	// Fit also fits card-sized rectangles (CardW x CardH) into the heaps
	// of touching or overlapping piles against the Table: what is split
	// by the cards' own edges (a card's border against its neighbour) is
	// found as each card's outline.
	Fit bool

	// Photo looks for the cards as in a photo nobody calibrated: uneven
	// light, a table of carpet, wood grain or cloth (see photo.go). It
	// searches at most 640 pixels along the long side and takes no
	// Table, Plain, Fit or card size.
	Photo bool
	// StraightSides (Photo only) also builds cards on straight edge
	// segments at the size of the cards found whole: a card that touches
	// another or lies partly under something. Off for a photo of cards
	// laid apart (a deck in rows), where it could take a hand over a card
	// for one.
	StraightSides bool
}

// FrameOptions look in a w x h frame's edges for cards that fill between
// 0.1% and 60% of it.
func FrameOptions(w, h int) Options {
	a := float64(w * h)
	return Options{MinArea: a * 0.001, MaxArea: a * 0.6, MinAspect: 1.15, MaxAspect: 2.0}
}

// PhotoOptions suit a w x h photo taken to read the cards in it: cards
// that fill between 1% and 60% of it, some touching or under others.
func PhotoOptions(w, h int) Options {
	o := FrameOptions(w, h)
	o.MinArea = photoMinShare * float64(w*h)
	o.Photo = true
	o.StraightSides = true
	o.MinFill = photoMinFill
	return o
}

// LayoutOptions suit a w x h photo of many cards laid apart (a deck laid
// out in rows): the photo finder, for cards as small as FrameOptions
// takes, built on no straight sides.
func LayoutOptions(w, h int) Options {
	o := FrameOptions(w, h)
	o.Photo = true
	return o
}

// TableOptions look for cards of cw x ch pixels in an image of known
// scale (a rectified table). An outline of up to 1.6 cards is one card: a
// pile whose top card lies askew on the cards below (a few millimetres, a
// few degrees) outlines half as big again as one card, and above 1.6 the
// outline is split into touching cards. Set Table (and Plain, Fit) to
// look against the empty table.
func TableOptions(cw, ch float64) Options {
	a := cw * ch
	return Options{MinArea: 0.6 * a, MaxArea: 1.6 * a, MinAspect: 1.25, MaxAspect: 1.8, CardW: cw, CardH: ch}
}

// Cards finds the cards in a BGR image, as o says: in a photo (o.Photo),
// against the empty table (o.Table, when it fits the image), or else in
// the image's edges. A pile's top card, which lies inside the pile's
// outline, is the one returned.
func Cards(img gocv.Mat, o Options) []Quad {
	switch {
	case o.Photo:
		return inPhoto(img, o)
	case o.Table != nil && fits(*o.Table, img):
		return offTable(img, *o.Table, o)
	default:
		return inEdges(img, o)
	}
}

// fits reports whether bg can be compared with img pixel by pixel.
func fits(bg, img gocv.Mat) bool {
	return !bg.Empty() && bg.Cols() == img.Cols() && bg.Rows() == img.Rows() && bg.Type() == img.Type()
}
