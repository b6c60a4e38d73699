package vision

import (
	"gocv.io/x/gocv"

	"ligretto/vision/find"
)

// The names pipeline.go and attribute.go call the finder by, until they
// call find.Cards themselves.

func FindCards(img gocv.Mat, o find.Options) []Quad { return find.Cards(img, o) }

func findCardsOnPlainTable(img, bg gocv.Mat, plain *gocv.Mat, o find.Options, fit bool) []Quad {
	return find.Cards(img, againstTableOf(o, &bg, plain, fit))
}

func againstTableOf(o find.Options, bg, plain *gocv.Mat, fit bool) find.Options {
	o.Table, o.Plain, o.Fit = bg, plain, fit
	return o
}

func cardParams() find.Options { return cardOptions() }

func OrderCorners(q Quad) Quad { return find.OrderCorners(q) }

func WarpCard(img gocv.Mat, q Quad, w, h int) gocv.Mat { return find.WarpCard(img, q, w, h) }
