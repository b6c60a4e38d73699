package vision

// Matching the frame's finds to the tracked piles.

import (
	"image"
	"math"
	"slices"

	"ligretto/calibration"
	"ligretto/referee"
)

// pileFind is a pile found in the current frame, with its outline.
type pileFind struct {
	pl *pile
	q  Quad
}

// matchFinds matches the frame's finds to the piles by position, starting
// piles on still finds that match none, and adds the piles heldPiles keeps
// while playing.
func (p *Pipeline) matchFinds(quads []Quad) []pileFind {
	var found []pileFind
	reach := 0.45 * calibration.CardWMM * WorkPxPerMM
	// Finds that never became a pile are forgotten once out of sight.
	p.piles = slices.DeleteFunc(p.piles, func(pl *pile) bool { return pl.id == 0 && p.frame-pl.seen > forgetFrames })
	for _, q := range quads {
		x, y := q.Centre()
		// A known pile first: a find on a hand or arm nearby must not
		// take a real pile's place.
		var best *pile
		for _, known := range []bool{true, false} {
			bd := reach
			for _, pl := range p.piles {
				if d := math.Hypot(pl.x-x, pl.y-y); (pl.id > 0) == known && d < bd {
					best, bd = pl, d
				}
			}
			if best != nil {
				break
			}
		}
		if best == nil {
			// Only a still find may start a pile: a card lies still, a
			// hand or an arm (often card-shaped at this scale) moves.
			r := boundsOf(q).Inset(-2).Intersect(image.Rectangle{Max: image.Pt(p.rect.Cols(), p.rect.Rows())})
			if p.prev.Empty() || r.Dx() <= 4 || r.Dy() <= 4 || motionFraction(p.rect, p.prev, r) > p.cfg.MaxMotion {
				continue
			}
			if !p.differsFromTable(q) {
				continue
			}
			// Still now, as the quiet test below would find: its reading
			// may count from this frame (seen as if in the last one too).
			best = &pile{x: x, y: y, settled: -1, born: p.frame, seen: p.frame - 1, bareAge: p.bare.bareAge(q, p.frame)}
			p.piles = append(p.piles, best)
		}
		best.x, best.y, best.quad = 0.7*best.x+0.3*x, 0.7*best.y+0.3*y, q
		found = append(found, pileFind{best, q})
	}
	if p.phase == referee.PhasePlaying {
		found = append(found, p.heldPiles(found)...)
	}
	return found
}

// holdContrast is the least borderContrast of a pile's card that the
// finder lost and heldPiles keeps: a clear card beside an arm, not one a
// hand or fingers lie over.
const holdContrast = 0.9

// holdDiffers is the least tableDiffers of a pile's card that heldPiles
// keeps.
const holdDiffers = 0.8

// heldPiles finds again, near their last outlines, the committed piles
// the finder lost this frame whose card still stands out all round from
// what lies beside it (see clearOutline) and differs from the empty table
// under it: a card whose outline joins an arm's lying beside it. Piles
// found are left alone, and so is a spot a find already covers. Until the
// empty table is relit (the first frames) it finds none.
func (p *Pipeline) heldPiles(found []pileFind) []pileFind {
	w, h := p.rect.Cols(), p.rect.Rows()
	if p.bareBg.Cols() != w || p.bareBg.Rows() != h || !p.bareBg.IsContinuous() || !p.rect.IsContinuous() {
		return nil
	}
	img, err1 := p.rect.DataPtrUint8()
	table, err2 := p.bareBg.DataPtrUint8()
	if err1 != nil || err2 != nil {
		return nil
	}
	var held []pileFind
	for _, pl := range p.piles {
		if pl.id == 0 {
			continue
		}
		if slices.ContainsFunc(found, func(f pileFind) bool { return f.pl == pl || f.q.Contains(pl.x, pl.y) }) {
			continue
		}
		q, c := clearOutline(img, w, h, pl.quad, fgThreshold)
		if c < holdContrast || tableDiffers(img, table, w, h, q, fgThreshold) < holdDiffers {
			continue
		}
		pl.quad = q
		held = append(held, pileFind{pl, q})
	}
	return held
}

// lostPileUnder returns the committed pile that a find never committed,
// pl, about to commit f, lies on: one of f's colour, not above it, not found
// in this frame, whose centre is less than lostPileReach from pl's. Cards
// of two piles do not lie that close; outlines that take in a touching
// neighbour draw a pile's tracked centre aside, past the reach of the
// finds of its own card, and that card, found where it truly lies, would
// start a second pile on it, called a bad start (C6).
func (p *Pipeline) lostPileUnder(pl *pile, f referee.Face) *pile {
	if pl.id != 0 {
		return nil
	}
	var best *pile
	bd := lostPileReach * calibration.CardWMM * WorkPxPerMM
	for _, q := range p.piles {
		if q.id == 0 || q.seen == p.frame || q.committed.Colour != f.Colour || q.committed.Number > f.Number {
			continue
		}
		if d := math.Hypot(q.x-pl.x, q.y-pl.y); d < bd {
			best, bd = q, d
		}
	}
	return best
}

// lostPileReach is how close, in card widths, a find's centre must lie to
// a lost pile's for lostPileUnder.
const lostPileReach = 0.6
