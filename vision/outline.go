package vision

import (
	"image"
	"math"

	"ligretto/vision/find"
)

// Keeping a pile's outline where the finder loses it: a card whose edges
// join an arm's (the arm lies beside it, or its shadow bridges the gap)
// makes one outline with the arm, which is no card, so the pile is not
// found although its card lies in plain view. A card lying clear differs
// from what is just outside it all round its border (the table, an arm,
// a shadow), while a finger or a hand over the card's border is the same
// on both sides of it. So a pile not found is looked for near its last
// outline, by that contrast; and its inside must differ from the empty
// table, whose own pattern (a checked cloth) can contrast across any
// outline once the pile is taken away.

// fgThreshold is the least difference from the empty table, in 8-bit
// levels of one channel, of a pixel that is not table: the finder's
// (find.ForegroundStep).
const fgThreshold = find.ForegroundStep

// borderInset and borderOutset are how far inside and outside a card's
// border, in work pixels, its contrast is sampled: clear of the border's
// own blur on either side.
const borderInset, borderOutset = 2.5, 2.5

// borderStep is the spacing of the samples along the border, in work
// pixels.
const borderStep = 2.0

// cornerSkip is the fraction of each side, at either end, left out of
// the samples: a card's corners are rounded.
const cornerSkip = 0.15

// borderContrast is the fraction of the samples along q's border (q in the
// pixels of img, BGR bytes w x h, rows packed) where the inside and the
// outside differ by at least thresh levels in some colour channel, and
// the mean of that difference, each capped at 3 thresh (it peaks where
// the outline lies on the card's border, so it is what clearOutline
// climbs).
// Samples outside the image are not counted; with none left both are 0.
func borderContrast(pix []byte, w, h int, q Quad, thresh int) (frac, mean float64) {
	cx, cy := q.Centre()
	at := func(x, y float64) (int, bool) {
		ix, iy := int(math.Round(x)), int(math.Round(y))
		if ix < 0 || iy < 0 || ix >= w || iy >= h {
			return 0, false
		}
		return 3 * (iy*w + ix), true
	}
	n, ok, sum := 0, 0, 0
	for i := range q {
		a, b := q[i], q[(i+1)%4]
		ax, ay, bx, by := float64(a.X), float64(a.Y), float64(b.X), float64(b.Y)
		l := math.Hypot(bx-ax, by-ay)
		if l < 1 {
			continue
		}
		ux, uy := (bx-ax)/l, (by-ay)/l
		nx, ny := -uy, ux // a normal; turned outward below
		if mx, my := (ax+bx)/2, (ay+by)/2; nx*(mx-cx)+ny*(my-cy) < 0 {
			nx, ny = -nx, -ny
		}
		for s := cornerSkip * l; s <= (1-cornerSkip)*l; s += borderStep {
			px, py := ax+s*ux, ay+s*uy
			in, ok1 := at(px-borderInset*nx, py-borderInset*ny)
			out, ok2 := at(px+borderOutset*nx, py+borderOutset*ny)
			if !ok1 || !ok2 {
				continue
			}
			n++
			d := 0
			for c := range 3 {
				d = max(d, abs(int(pix[in+c])-int(pix[out+c])))
			}
			if d >= thresh {
				ok++
			}
			sum += min(d, 3*thresh)
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(ok) / float64(n), float64(sum) / float64(n)
}

// moveQuad turns q by da radians about its centre and shifts it by
// (dx, dy).
func moveQuad(q Quad, da, dx, dy float64) Quad {
	cx, cy := q.Centre()
	c, s := math.Cos(da), math.Sin(da)
	var m Quad
	for i, p := range q {
		x, y := float64(p.X)-cx, float64(p.Y)-cy
		m[i] = image.Pt(int(math.Round(cx+x*c-y*s+dx)), int(math.Round(cy+x*s+y*c+dy)))
	}
	return m
}

// holdShift and holdTurn bound how far from its last outline a pile's card
// is looked for: a card laid on a pile lies a few millimetres and degrees
// off the one below.
const (
	holdShift = 4    // work pixels, either way
	holdTurn  = 0.08 // radians, either way
)

// clearOutline looks for a card near last (a pile's last outline) in the
// rectified centre (BGR bytes pix, w x h, rows packed) whose border
// contrasts with its surroundings by thresh, and returns the outline found
// and its contrast (borderContrast's fraction). It climbs borderContrast's
// mean from last by a pixel or a degree at a time, as far as holdShift and
// holdTurn.
func clearOutline(pix []byte, w, h int, last Quad, thresh int) (Quad, float64) {
	const turn = holdTurn / 4
	var at [3]float64 // da, dx, dy
	best, bestMean := borderContrast(pix, w, h, last, thresh)
	moves := [6][3]float64{{turn, 0, 0}, {-turn, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}
	for range 4 * holdShift {
		next, nextC, nextMean := at, best, bestMean
		for _, m := range moves {
			try := [3]float64{at[0] + m[0], at[1] + m[1], at[2] + m[2]}
			if math.Abs(try[0]) > holdTurn+1e-9 || math.Abs(try[1]) > holdShift || math.Abs(try[2]) > holdShift {
				continue
			}
			c, mean := borderContrast(pix, w, h, moveQuad(last, try[0], try[1], try[2]), thresh)
			if mean > nextMean {
				next, nextC, nextMean = try, c, mean
			}
		}
		if next == at {
			break
		}
		at, best, bestMean = next, nextC, nextMean
	}
	return moveQuad(last, at[0], at[1], at[2]), best
}

// tableDiffers is the fraction of the points on a 2-pixel grid inside q
// (BGR bytes img and table, both w x h) where img differs from the empty
// table by at least thresh levels in some colour channel: a card there
// does, the table's own pattern (a checked cloth's squares also contrast
// across any outline) does not.
func tableDiffers(img, table []byte, w, h int, q Quad, thresh int) float64 {
	return shareInside(w, h, q, func(i int) bool {
		for c := range 3 {
			if abs(int(img[i+c])-int(table[i+c])) >= thresh {
				return true
			}
		}
		return false
	})
}

// chromaStep is the least L1 distance between two colours' chromaticities
// (each channel's share of the three) that counts as another colour.
const chromaStep = 0.1

// chromaDiffers is tableDiffers by colour alone: the fraction of the
// points on a 2-pixel grid inside q where img's chromaticity differs from
// the empty table's by chromaStep or more. A change of light (a shade, a
// brighter lamp) changes brightness and leaves chromaticity.
func chromaDiffers(img, table []byte, w, h int, q Quad) float64 {
	return shareInside(w, h, q, func(i int) bool {
		si := float64(int(img[i])+int(img[i+1])+int(img[i+2])) + 1
		st := float64(int(table[i])+int(table[i+1])+int(table[i+2])) + 1
		d := 0.0
		for c := range 3 {
			d += math.Abs(float64(img[i+c])/si - float64(table[i+c])/st)
		}
		return d >= chromaStep
	})
}

// shareInside is the fraction of the points on a 2-pixel grid inside q (in
// a w x h BGR image) for which differs, given the point's byte offset, is
// true; 0 when no point lies inside.
func shareInside(w, h int, q Quad, differs func(i int) bool) float64 {
	b := boundsOf(q).Intersect(image.Rect(0, 0, w, h))
	in, n := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if !q.Contains(float64(x), float64(y)) {
				continue
			}
			in++
			if differs(3 * (y*w + x)) {
				n++
			}
		}
	}
	if in == 0 {
		return 0
	}
	return float64(n) / float64(in)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
