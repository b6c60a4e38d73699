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

// decide turns the piles' votes into observations.
func (p *Pipeline) decide(frame gocv.Mat, tMS int64) []referee.Observation {
	var obs []referee.Observation
	switch p.phase {
	case referee.PhasePlaying:
		var adopted []*pile // finds that turned out to be lost piles (see lostPileUnder)
		defer func() {
			p.piles = slices.DeleteFunc(p.piles, func(pl *pile) bool { return slices.Contains(adopted, pl) })
		}()
		// The stop: no pile shows its face any more (the piles were
		// turned over and spread to be sorted by owner), and the centre
		// is still. Stillness is required: hands over the piles also hide
		// every face, and during play cards carried over the centre read
		// as backs (backs fanned close are not found as cards, so backs
		// cannot be required). Counting must wait for the spreading to
		// end anyway. A face shows only if it reads as sure as a pile
		// needs to open: a spread back read as a face half sure (a blue
		// 1, 0.3-0.57, over a turned pile, 4 players seed 15) must not
		// hide the stop for good.
		// A face shows only where it is the pile's own card or its next:
		// a surprise read when the piles have just been turned over and
		// spread (a back misread as a face) must not hide the stop.
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
		// Most open piles gone from one frame to the next (turned over and
		// spread for the count, 8 players seed 22: 1 of 17 still found, a
		// spread red back with white rings over it read as a red 1 1.0
		// sure), no surprise is committed: what is read there now is a
		// back misread (a C7 called on no play). Hands over half the piles
		// only delay a foul's call.
		turning := p.openPiles() >= 2 && 2*found < p.openPiles()
		if p.openPiles() >= 2 && visible == 0 && p.centreMotion < stillCentre {
			p.backFrames++
		} else {
			p.backFrames = 0
		}
		if p.seatsDown >= seatChecks {
			// Over before two piles were opened (see watchSeats).
			p.backFrames = p.cfg.StopFrames
		}
		if p.backFrames >= p.cfg.StopFrames {
			p.phase = referee.PhaseCounting
			p.counted = false
			return nil
		}
		for _, pl := range p.piles {
			need := p.cfg.Stable
			if p.cfg.SureStable > 0 && pl.candidateConf >= p.cfg.OpenConfidence && pl.candidateFrames >= p.cfg.SureStable && pl.candidateFrames < need &&
				(pl.sureFromWhole || pl.seen == p.frame && p.readsSure(frame, p.cameraQuad(pl.whole), pl.candidate)) {
				need = min(need, p.cfg.SureStable)
			}
			if pl.candidateFrames < need || pl.candidate == pl.committed {
				continue
			}
			if pl.id == 0 && pl.candidateConf < p.cfg.OpenConfidence && pl.candidateFrames < p.cfg.OpenStable {
				continue
			}
			if !p.expected(pl) && (turning || pl.candidateFrames < p.cfg.SurpriseStable || pl.candidateConf < p.cfg.OpenConfidence) {
				continue // look twice before calling a foul or a jump, and not while the piles are turned over
			}
			if !p.expected(pl) && (pl.candidateSure < model.SureAt || pl.reading.Unsure()) {
				// No foul on an unsure reading (C6, C7, C8 are called on
				// what the camera is sure of): a card read under
				// model.SureAt waits for a sure reading, in this frame,
				// and is left out if none comes.
				continue
			}
			if !p.expected(pl) && pl.seen == p.frame && !p.readsAlike(frame, p.cameraQuad(pl.quad), pl.candidate) {
				// An outline that takes in a strip of the card below reads
				// wrong (see readsAlike): look again. (A candidate becomes
				// sure only in a frame its pile was found in, so the check
				// sees the card it is about.)
				pl.candidateFrames = 0
				continue
			}
			f := pl.candidate
			if lost := p.lostPileUnder(pl, f); lost != nil {
				// Not a new pile: the card lies on a pile the tracker
				// lost, which takes this find's place.
				lost.x, lost.y, lost.quad, lost.seen = pl.x, pl.y, pl.quad, pl.seen
				lost.sig, lost.reading, lost.hasRead, lost.back = pl.sig, pl.reading, pl.hasRead, pl.back
				lost.candidate, lost.candidateFrames, lost.candidateConf, lost.sureFromWhole = pl.candidate, pl.candidateFrames, pl.candidateConf, pl.sureFromWhole
				lost.candidateSure, lost.unsure = pl.candidateSure, pl.unsure
				lost.laterSeen = [11]int{}
				adopted = append(adopted, pl)
				pl = lost
				if f != pl.committed {
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
				}
			} else if pl.id == 0 {
				p.nextID++
				pl.id = p.nextID
				first := f
				readAfter := p.frame - pl.born
				if at, ok := pl.firstRead[f]; ok {
					readAfter = at - pl.born
				}
				glimpsedBelow := pl.lowestSeen > 0 && pl.lowestSeen < f.Number // a 1 or a lower card
				strict := p.cfg.StrictStarts && !glimpsedBelow && p.bareSeesCard(pl) && pl.bareAge <= p.cfg.BareFrames && pl.bareAge+readAfter <= p.cfg.BareFrames
				if debugStart != nil && f.Number != 1 {
					debugStart(pl.id, f, pl.bareAge, p.frame-pl.born, readAfter, pl.lowestSeen)
				}
				if f.Number != 1 && !strict {
					// The 1 under it was missed (see StrictStarts), unless
					// a bad start was read there before this card covered it.
					first = referee.Face{Colour: f.Colour, Number: 1}
					if g, ok := p.badFirst(pl, f); ok {
						first = g
					}
				}
				obs = append(obs, referee.Observation{Kind: referee.ObsPileNew, TimeMS: tMS, Pile: pl.id, Card: &first, By: "camera"})
				if first != f {
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
				}
			} else {
				if seen, ok := p.seenBefore(pl); ok {
					// A legal card of the pile was read before this foul
					// covered it: it was played first (a 10 then a card on
					// it breaks C8, not C7).
					obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &seen, By: "camera"})
				}
				obs = append(obs, referee.Observation{Kind: referee.ObsPileShows, TimeMS: tMS, Pile: pl.id, Card: &f, By: "camera"})
			}
			if pl.committed == (referee.Face{}) {
				p.noteCardArea(quadArea(pl.quad))
			}
			pl.committed = f
			pl.area, pl.whole = quadArea(pl.quad), pl.quad
			pl.laterSeen = [11]int{}
		}
	case referee.PhaseCounting:
		if p.counted {
			// The next round: the centre is empty again.
			if p.centreEmpty() {
				p.piles, p.nextID, p.backFrames = nil, 0, 0
				p.seatsDown, p.rowsSeen = 0, false
				p.bare = bareMap{}
				p.phase = referee.PhasePlaying
				obs = append(obs, referee.Observation{Kind: referee.ObsRound, TimeMS: tMS, By: "camera"})
			}
			return obs
		}
		if p.counting == nil {
			if p.stillFor() < 3 {
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
		obs = p.countObservations(j.centre, j.stack, j.tMS)
		j.Close()
		p.counting, p.counted = nil, true
	}
	return obs
}

// badFirst finds a bad start (C6) under a pile's first committed card f:
// a lower card of f's colour, not a 1, read sure at least badFirstReads
// times (too few for a surprise: f covered it first), first read within
// BareFrames of the spot being bare, on a spot where the bare map sees
// cards and where nothing lower was glimpsed. A legal pile's 1, 2, ...
// cannot reach that number so soon after bare table, so the card read
// there was the pile's first.
func (p *Pipeline) badFirst(pl *pile, f referee.Face) (referee.Face, bool) {
	if !p.cfg.StrictStarts || pl.bareAge > p.cfg.BareFrames || !p.bareSeesCard(pl) {
		return referee.Face{}, false
	}
	var best referee.Face
	for g, n := range pl.sureReads {
		at, ok := pl.firstRead[g]
		if !ok || n < badFirstReads || g.Colour != f.Colour || g.Number <= 1 || g.Number >= f.Number || pl.bareAge+at-pl.born > p.cfg.BareFrames {
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

// stillFor counts the frames on from the stop's StopFrames still ones and
// reports 3 once three more have passed: the count waits that long.
func (p *Pipeline) stillFor() int {
	if p.backFrames++; p.backFrames < p.cfg.StopFrames+3 {
		return 0
	}
	return 3
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
