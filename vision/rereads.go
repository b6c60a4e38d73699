package vision

// Re-reads: extra crops of a pile's card before a commit rests on one
// reading.

import (
	"image"
	"math"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// readsSure reports whether the card in q (camera pixels) reads f at least
// OpenConfidence sure. A sure reading from an outline cut short is taken
// at once only if the pile's last whole outline reads it too: a card laid
// square on a ragged pile shrinks the outline and reads alike from both, a
// cut crop's misread does not (the whole outline shows both ends of the
// card).
func (p *Pipeline) readsSure(frame gocv.Mat, q Quad, f referee.Face) bool {
	c, err := cropFromCamera(frame, q, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
	if err != nil {
		return false
	}
	preds, err := p.pred.Classify([]model.Crop{c})
	if err != nil {
		return false
	}
	p.t.Crops++
	r := preds[0]
	return !r.IsBack() && r.Face() == f && float64(r.RawFaceConfidence()) >= p.cfg.OpenConfidence
}

// alikeShift is how far, as a fraction of the card's length, readsAlike
// moves the crop towards either end.
const alikeShift = 0.06

// readsAlike reports whether the card in q (camera pixels) still reads f
// from crops moved a little towards either end of the card. A pile's
// outline can take in a strip of the card below it, where the top card
// lies offset: the crop then loses the end of the numeral turned at the
// far end, and the network can read it sure and wrong. A card truly there
// reads the same from both. Only a surprise (a foul, a jump, a bad start)
// pays for the two extra crops.
func (p *Pipeline) readsAlike(frame gocv.Mat, q Quad, f referee.Face) bool {
	o := find.OrderCorners(q)
	// o[0]->o[3] runs along a long side.
	dx, dy := float64(o[3].X-o[0].X)*alikeShift, float64(o[3].Y-o[0].Y)*alikeShift
	var crops []model.Crop
	for _, sign := range []float64{-1, 1} {
		var m Quad
		for i, c := range o {
			m[i] = image.Pt(int(math.Round(float64(c.X)+sign*dx)), int(math.Round(float64(c.Y)+sign*dy)))
		}
		c, err := cropFromCamera(frame, m, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
		if err != nil {
			return false
		}
		crops = append(crops, c)
	}
	preds, err := p.pred.Classify(crops)
	if err != nil {
		return false
	}
	p.t.Crops += len(crops)
	for _, r := range preds {
		if r.IsBack() || r.Face() != f {
			return false
		}
	}
	return true
}
