package vision

// Voting: a pile's readings, frame by frame, towards its next commit.

import (
	"image"
	"math"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
)

// quietCrops marks the found piles seen, votes again for those that lie
// quiet and look as when last read, and cuts a crop to read for the
// quiet ones that changed (todo).
func (p *Pipeline) quietCrops(frame gocv.Mat, found []pileFind) (todo []pileFind, crops []model.Crop, err error) {
	// Quiet piles: little change since the last frame over their box.
	for _, m := range found {
		r := boundsOf(m.q).Inset(-2).Intersect(image.Rectangle{Max: image.Pt(p.rect.Cols(), p.rect.Rows())})
		quiet := !p.prev.Empty() && r.Dx() > 4 && r.Dy() > 4 && motionFraction(p.rect, p.prev, r) <= p.cfg.MaxMotion
		// Found in one of the last two frames: a pile at the edge of being
		// found (an arm's shadow touching it) is missed every other frame,
		// and a hand over it in the frame missed shows as motion now.
		seenBefore := m.pl.seen >= p.frame-2
		m.pl.seen = p.frame
		if !quiet || !seenBefore {
			m.pl.candidateFrames = 0
			continue
		}
		sig := signature(p.rect, m.q)
		if m.pl.hasRead && sigDiff(sig, m.pl.sig) < 0.03 {
			p.vote(m.pl)
			continue
		}
		m.pl.sig = sig
		c, err := cropFromCamera(frame, p.cameraQuad(m.q), p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
		if err != nil {
			return nil, nil, err
		}
		crops = append(crops, c)
		todo = append(todo, m)
	}
	return todo, crops, nil
}

// vote counts the pile's current reading towards a commit.
//
// Its thresholds (MinConfidence, OpenConfidence) compare the network's raw
// confidence, which they were tuned on; whether a reading is sure enough
// for a foul is the calibrated confidence's business (candidateSure, SureAt).
func (p *Pipeline) vote(pl *pile) {
	r := pl.reading
	f := r.Face()
	conf := float64(r.RawFaceConfidence())
	pl.back = r.IsBack()
	if !pl.back {
		pl.unsure = r.Unsure()
	}
	if !pl.back && pl.id == 0 && conf >= 0.2 && (pl.lowestSeen == 0 || f.Number < pl.lowestSeen) {
		pl.lowestSeen = f.Number
	}
	if pl.back || conf < p.cfg.MinConfidence {
		pl.candidateFrames = 0
		return
	}
	if pl.id == 0 {
		if pl.firstRead == nil {
			pl.firstRead = map[referee.Face]int{}
		}
		if _, ok := pl.firstRead[f]; !ok {
			pl.firstRead[f] = p.frame
		}
		if conf >= p.cfg.OpenConfidence && r.FaceConfidence() >= model.SureAt { // a bad first card is a foul (C6): only on a sure reading
			if pl.sureReads == nil {
				pl.sureReads = map[referee.Face]int{}
			}
			pl.sureReads[f]++
		}
	}
	next := pl.id > 0 && referee.FitsOn(pl.committed, f)
	if pl.id > 0 && f.Colour == pl.committed.Colour && f.Number > pl.committed.Number {
		pl.laterSeen[f.Number]++
	}
	if pl.id > 0 && !next && f != pl.committed && !p.cardSized(pl.quad) {
		// A surprise read from an outline smaller than a card (a
		// neighbour's arm cut it) or as big as two (a merge with a
		// neighbour) reads a part of a card: no foul is called on that.
		pl.candidateFrames = 0
		return
	}
	if f == pl.committed {
		pl.area, pl.whole = quadArea(pl.quad), pl.quad
	}
	if f == pl.candidate && pl.candidateFrames > 0 {
		pl.candidateFrames++
		pl.candidateConf = math.Max(pl.candidateConf, conf)
		pl.candidateSure = math.Max(pl.candidateSure, float64(r.FaceConfidence()))
	} else {
		pl.candidate, pl.candidateFrames, pl.candidateConf, pl.sureFromWhole = f, 1, conf, false
		pl.candidateSure = float64(r.FaceConfidence())
	}
	if conf >= p.cfg.OpenConfidence && !p.cutShort(pl) {
		pl.sureFromWhole = true
	}
}

// showsFace reports whether the pile's last reading is a face read at
// least OpenConfidence sure.
func (p *Pipeline) showsFace(pl *pile) bool {
	return !pl.back && float64(pl.reading.RawFaceConfidence()) >= p.cfg.OpenConfidence
}

// cutShortArea is the share of its last outline's area below which a
// pile's outline is cut short: a fingertip or a neighbour's hand at one end
// of the card cuts it, and the crop, missing most of the numeral turned at
// that end, can misread it sure. A new card's outline is often cut by the
// hand leaving it too, hence readsSure rather than a refusal.
const cutShortArea = 0.85

// cutShort reports whether the pile's outline is much smaller than when it
// last read its committed card.
func (p *Pipeline) cutShort(pl *pile) bool {
	return pl.area > 0 && quadArea(pl.quad) < cutShortArea*pl.area
}

// expected reports whether the pile's candidate is the card a legal play
// puts on it next, as the referee says (C6, C7, C8).
func (p *Pipeline) expected(pl *pile) bool {
	f := pl.candidate
	if pl.id == 0 {
		return referee.Starts(f)
	}
	return referee.FitsOn(pl.committed, f)
}

// seenBefore returns the highest card of the pile's colour read at least
// nextSeenFrames times since its last commit, when its candidate is a foul
// (another colour, or not higher): that card was laid before the foul.
func (p *Pipeline) seenBefore(pl *pile) (referee.Face, bool) {
	top, f := pl.committed, pl.candidate
	if p.expected(pl) || (f.Colour == top.Colour && f.Number > top.Number) {
		return referee.Face{}, false
	}
	for n := 10; n > top.Number; n-- {
		if pl.laterSeen[n] >= nextSeenFrames {
			return referee.Face{Colour: top.Colour, Number: n}, true
		}
	}
	return referee.Face{}, false
}

// nextSeenFrames is how many readings of a later card of a pile (not
// necessarily in a row) show that it was played, when a foul is committed
// over it before it was ever stable.
const nextSeenFrames = 2
