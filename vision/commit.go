package vision

// The commit policy: when the piles' votes become observations, and the
// stop and the count after it.

import (
	"slices"
	"time"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
)

// commitPolicy turns the piles' votes into observations: the commits and
// the stop while playing, the count after the stop, and the next round.
func (p *Pipeline) commitPolicy(frame gocv.Mat, tMS int64) []referee.Observation {
	switch p.phase {
	case referee.PhasePlaying:
		return p.playObservations(frame, tMS)
	case referee.PhaseCounting:
		return p.afterStop(frame, tMS)
	}
	return nil
}

// playObservations calls the stop, or commits the piles whose candidates
// have enough votes.
func (p *Pipeline) playObservations(frame gocv.Mat, tMS int64) []referee.Observation {
	turning, stop := p.watchStop()
	if stop {
		p.phase = referee.PhaseCounting
		p.counted = false
		return nil
	}
	var obs []referee.Observation
	var adopted []*pile // finds that turned out to be lost piles (see lostPileUnder)
	for _, pl := range p.piles {
		if !p.readyToCommit(frame, pl, turning) {
			continue
		}
		f := pl.candidate
		if lost := p.lostPileUnder(pl, f); lost != nil {
			// Not a new pile: the card lies on a pile the tracker
			// lost, which takes this find's place.
			adopted = append(adopted, pl)
			pl = adoptLostPile(lost, pl)
			if f != pl.committed {
				obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
			}
		} else if pl.id == 0 {
			obs = append(obs, p.openPile(pl, f, tMS)...)
		} else {
			obs = append(obs, p.growPile(pl, f, tMS)...)
		}
		p.noteCommit(pl, f)
	}
	p.piles = slices.DeleteFunc(p.piles, func(pl *pile) bool { return slices.Contains(adopted, pl) })
	return obs
}

// watchStop counts the frames that look like the stop and reports whether
// it is called, and whether the piles are being turned over (most open
// piles gone from one frame to the next): no surprise is committed then.
//
// The stop: no pile shows its face any more (the piles were turned over
// and spread to be sorted by owner), and the centre is still. Stillness is
// required: hands over the piles also hide every face, and during play
// cards carried over the centre read as backs (backs fanned close are not
// found as cards, so backs cannot be required). Counting must wait for the
// spreading to end anyway. A face shows only if it reads as sure as a pile
// needs to open, and only where it is the pile's own card or its next: a
// spread back misread as a face must not hide the stop.
func (p *Pipeline) watchStop() (turning, stop bool) {
	visible, found := 0, 0
	for _, pl := range p.piles {
		if pl.id == 0 || pl.seen != p.frame {
			continue
		}
		found++
		if f := pl.reading.Face(); p.showsFace(pl) && (f == pl.committed || referee.FitsOn(pl.committed, f)) {
			visible++
		}
	}
	// What is read where most open piles were a frame ago is a back
	// misread (a C7 called on no play); hands over half the piles only
	// delay a foul's call.
	turning = p.openPiles() >= 2 && 2*found < p.openPiles()
	if p.openPiles() >= 2 && visible == 0 && p.centreMotion < stillCentre {
		p.backFrames++
	} else {
		p.backFrames = 0
	}
	if p.seatsDown >= seatChecks {
		// Over before two piles were opened (see watchSeats).
		p.backFrames = p.n.stop
	}
	return turning, p.backFrames >= p.n.stop
}

// readyToCommit reports whether the pile's candidate has the votes to be
// committed now.
func (p *Pipeline) readyToCommit(frame gocv.Mat, pl *pile, turning bool) bool {
	if pl.candidateFrames < p.framesNeeded(frame, pl) || pl.candidate == pl.committed {
		return false
	}
	if pl.id == 0 && pl.candidateConf < p.cfg.OpenConfidence && pl.candidateFrames < p.n.open {
		return false
	}
	return p.expected(pl) || p.surpriseHolds(frame, pl, turning)
}

// framesNeeded is how many quiet frames must read the pile's candidate:
// Stable, or SureStable once one read it sure from a whole outline (or
// the last whole outline reads it sure now, see readsSure).
func (p *Pipeline) framesNeeded(frame gocv.Mat, pl *pile) int {
	need := p.n.stable
	if p.n.sure > 0 && pl.candidateConf >= p.cfg.OpenConfidence && pl.candidateFrames >= p.n.sure && pl.candidateFrames < need &&
		(pl.sureFromWhole || pl.seen == p.frame && p.readsSure(frame, p.cameraQuad(pl.whole), pl.candidate)) {
		need = min(need, p.n.sure)
	}
	return need
}

// surpriseHolds reports whether a candidate that is not the card the pile
// expects (a foul, a jump, a bad start) may be committed: it is looked at
// twice, and not while the piles are turned over.
func (p *Pipeline) surpriseHolds(frame gocv.Mat, pl *pile, turning bool) bool {
	if turning || pl.candidateFrames < p.n.surprise || pl.candidateConf < p.cfg.OpenConfidence {
		return false
	}
	if pl.candidateSure < model.SureAt || pl.reading.Unsure() {
		// No foul on an unsure reading (C6, C7, C8 are called on what
		// the camera is sure of): a card read under model.SureAt waits
		// for a sure reading, in this frame, and is left out if none
		// comes.
		return false
	}
	if pl.seen == p.frame && !p.readsAlike(frame, p.cameraQuad(pl.quad), pl.candidate) {
		// An outline that takes in a strip of the card below reads
		// wrong (see readsAlike): look again. (A candidate becomes sure
		// only in a frame its pile was found in, so the check sees the
		// card it is about.)
		pl.candidateFrames = 0
		return false
	}
	return true
}

// adoptLostPile gives the lost pile the find's place and votes, and
// returns it.
func adoptLostPile(lost, find *pile) *pile {
	lost.x, lost.y, lost.quad, lost.seen = find.x, find.y, find.quad, find.seen
	lost.sig, lost.reading, lost.hasRead, lost.back = find.sig, find.reading, find.hasRead, find.back
	lost.candidate, lost.candidateFrames, lost.candidateConf, lost.sureFromWhole = find.candidate, find.candidateFrames, find.candidateConf, find.sureFromWhole
	lost.candidateSure, lost.unsure = find.candidateSure, find.unsure
	lost.laterSeen = [11]int{}
	return lost
}

// openPile commits a new pile's first card f. A first card that cannot
// start a pile (C6) is reported as is only when no 1 can lie under it (see
// StrictStarts); else the pile is reported as its 1, or as a bad start read
// there before f covered it, with f shown on it.
func (p *Pipeline) openPile(pl *pile, f referee.Face, tMS int64) []referee.Observation {
	p.nextID++
	pl.id = p.nextID
	first := f
	readAfter := p.frame - pl.born
	if at, ok := pl.firstRead[f]; ok {
		readAfter = at - pl.born
	}
	glimpsedBelow := pl.lowestSeen > 0 && pl.lowestSeen < f.Number // a 1 or a lower card
	strict := p.cfg.StrictStarts && !glimpsedBelow && p.bareSeesCard(pl) && pl.bareAge <= p.n.bare && pl.bareAge+readAfter <= p.n.bare
	if debugStart != nil && !referee.Starts(f) {
		debugStart(pl.id, f, pl.bareAge, p.frame-pl.born, readAfter, pl.lowestSeen)
	}
	if !referee.Starts(f) && !strict {
		first = referee.Face{Colour: f.Colour, Number: 1}
		if g, ok := p.badFirst(pl, f); ok {
			first = g
		}
	}
	obs := []referee.Observation{{Kind: referee.ObsPileNew, TimeMS: tMS, Pile: pl.id, Card: &first, By: "camera"}}
	if first != f {
		obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
	}
	return obs
}

// growPile commits f on an open pile, after the later card of the pile
// read before f covered it, if any (see seenBefore).
func (p *Pipeline) growPile(pl *pile, f referee.Face, tMS int64) []referee.Observation {
	var obs []referee.Observation
	if seen, ok := p.seenBefore(pl); ok {
		// It was played first: a 10 then a card on it breaks C8, not C7.
		obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &seen, By: "camera"})
	}
	return append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
}

// noteCommit records f as the pile's top, and the outline that read it.
func (p *Pipeline) noteCommit(pl *pile, f referee.Face) {
	if pl.committed == (referee.Face{}) {
		p.noteCardArea(quadArea(pl.quad))
	}
	pl.committed = f
	pl.area, pl.whole = quadArea(pl.quad), pl.quad
	pl.laterSeen = [11]int{}
}

// afterStop counts the cards once the table is still after the stop, a
// few steps a frame, and starts the next round once the centre is empty.
func (p *Pipeline) afterStop(frame gocv.Mat, tMS int64) []referee.Observation {
	if p.counted {
		return p.nextRound(tMS)
	}
	if p.counting == nil {
		if !p.waitedAfterStop() {
			return nil
		}
		p.counting = p.newCountJob(frame, tMS)
	}
	// Steps of the count while the frame, with another step as long
	// as the last, stays within countBudget; at least one, so that it
	// ends, and all that is left once it has taken countFrames, so
	// that it ends in time on a loaded machine too (a video may end
	// a few seconds after the stop).
	p.counting.frames++
	last := p.counting.frames >= countFrames
	for {
		s0 := time.Now()
		if p.counting.step(p) || !last && time.Since(p.frameStart)+time.Since(s0) >= countBudget {
			break
		}
	}
	if !p.counting.done() {
		return nil
	}
	j := p.counting
	obs := p.countObservations(j.centre, j.stack, j.tMS)
	j.Close()
	p.counting, p.counted = nil, true
	return obs
}

// nextRound starts the next round once the centre is empty again.
func (p *Pipeline) nextRound(tMS int64) []referee.Observation {
	if !p.centreEmpty() {
		return nil
	}
	p.piles, p.nextID, p.backFrames = nil, 0, 0
	p.seatsDown, p.rowsSeen = 0, false
	p.bare = bareMap{}
	p.phase = referee.PhasePlaying
	return []referee.Observation{{Kind: referee.ObsRound, TimeMS: tMS, By: "camera"}}
}

// badFirst finds a bad start (C6) under a pile's first committed card f:
// a lower card of f's colour, not a 1, read sure at least badFirstReads
// times (too few for a surprise: f covered it first), first read within
// BareWindow of the spot being bare, on a spot where the bare map sees
// cards and where nothing lower was glimpsed. A legal pile's 1, 2, ...
// cannot reach that number so soon after bare table, so the card read
// there was the pile's first.
func (p *Pipeline) badFirst(pl *pile, f referee.Face) (referee.Face, bool) {
	if !p.cfg.StrictStarts || pl.bareAge > p.n.bare || !p.bareSeesCard(pl) {
		return referee.Face{}, false
	}
	var best referee.Face
	for g, n := range pl.sureReads {
		at, ok := pl.firstRead[g]
		if !ok || n < badFirstReads || g.Colour != f.Colour || g.Number <= 1 || g.Number >= f.Number || pl.bareAge+at-pl.born > p.n.bare {
			continue
		}
		if best.Number == 0 || g.Number < best.Number {
			best = g
		}
	}
	if best.Number == 0 || pl.lowestSeen < best.Number {
		return referee.Face{}, false
	}
	return best, true
}

// bareSeesCard reports whether the bare map sees the pile's card now. A
// card it takes for table (a green card on green felt) could have lain
// there unseen before, so no bad start is called on it.
func (p *Pipeline) bareSeesCard(pl *pile) bool { return p.bare.bareNow(pl.quad, p.frame) < 0.2 }

// badFirstReads is how many sure readings badFirst needs of a covered
// bad start: one fewer than a surprise in plain view needs.
const badFirstReads = 3

// debugStart, when set (by diagnostic tests), hears of every new pile
// whose first card read is not a 1.
var debugStart func(pile int, first referee.Face, bareAge, sinceBorn, readAfter, lowestSeen int)

// waitedAfterStop counts the frames on from the stop's StopWait of still
// ones and reports whether three more have passed: the count waits that
// long.
func (p *Pipeline) waitedAfterStop() bool {
	p.backFrames++
	return p.backFrames >= p.n.stop+3
}

// stillCentre is the most of the centre that may change between two
// frames for it to count as still (no hands moving over it).
const stillCentre = 0.003

// countBudget is how long a frame may take, from the start of Process,
// before the count after a stop leaves its next steps to the next frames
// (each frame does one step at least). A frame every 33 ms at 30 fps, and
// the spectators' view must not stall while the scores are counted.
const countBudget = 20 * time.Millisecond

// countFrames is how many frames the count may take at most: 3 s at 30
// fps, well within the time a table needs before the next round.
const countFrames = 90
