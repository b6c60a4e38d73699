package vision

import (
	"fmt"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// seatSides is what the seats show: per seat (in calibration order), how
// many cards found in its zone read as faces and as backs.
type seatSides struct {
	faces, backs []int
}

// readSeats finds the cards in each seat's zone of frame and reads which
// side is up. During play every seat shows faces (its row, the top of its
// Ligretto stack); in the count after a round the stacks lie spread face
// down and the rows are gone. It stops reading once enough faces were
// read (0: read every card).
func (p *Pipeline) readSeats(frame gocv.Mat, enough int) (seatSides, error) {
	c, err := p.findSeatCards(frame)
	if err != nil {
		return seatSides{}, err
	}
	return p.readSeatCards(c, enough)
}

// seatCards are the cards found in the seats' zones of one frame, cut
// to crops, with the seat of each.
type seatCards struct {
	frame  int // the pipeline's frame index they were cut from
	crops  []model.Crop
	seatOf []int
}

// findSeatCards finds the cards in each seat's zone of frame and cuts
// them out (the first half of readSeats).
func (p *Pipeline) findSeatCards(frame gocv.Mat) (seatCards, error) {
	out := seatCards{frame: p.frame}
	p.view.rectifyFull(frame, &p.full)
	// Fitted against the empty table (where it fits the image): a row's
	// cards touch, and by their edges alone they merge into one outline
	// that fits no card.
	quads := find.Cards(p.full, againstTable(&p.bg, nil, true))
	for _, q := range quads {
		x, y := q.Centre()
		at := calibration.Point{X: x / p.view.scale, Y: y / p.view.scale}
		seat := -1
		for i, st := range p.cal.Seats {
			if st.Zone.Contains(at) {
				seat = i
				break
			}
		}
		if seat < 0 {
			continue // the centre, or between zones
		}
		var cam Quad
		for i, c := range q {
			cam[i] = p.view.fullToCamera(float64(c.X), float64(c.Y))
		}
		c, err := cropFromCamera(frame, cam, p.cal.WhiteBalance, p.mcfg.Width, p.mcfg.Height)
		if err != nil {
			return out, fmt.Errorf("read seats: %w", err)
		}
		out.crops = append(out.crops, c)
		out.seatOf = append(out.seatOf, seat)
	}
	return out, nil
}

// readSeatCards reads which side of the seats' cards is up (the second
// half of readSeats).
func (p *Pipeline) readSeatCards(c seatCards, enough int) (seatSides, error) {
	n := len(p.cal.Seats)
	s := seatSides{faces: make([]int, n), backs: make([]int, n)}
	faces := 0
	for at := 0; at < len(c.crops) && (enough <= 0 || faces < enough); at += seatBatch {
		batch := c.crops[at:min(at+seatBatch, len(c.crops))]
		preds, err := p.pred.Classify(batch)
		if err != nil {
			return s, fmt.Errorf("read seats: %w", err)
		}
		p.t.Crops += len(batch)
		for i, pr := range preds {
			switch {
			case pr.IsBack():
				s.backs[c.seatOf[at+i]]++
			case float64(pr.RawFaceConfidence()) >= p.cfg.OpenConfidence:
				// Only a sure face: in the count an outline fitted
				// across two spread backs can read as a face half
				// sure, and one such face would hold the count off.
				// During play a row shows five clear faces.
				s.faces[c.seatOf[at+i]]++
				faces++
			}
		}
	}
	return s, nil
}

// seatBatch is how many seat cards readSeats reads at once: during play
// the first batch already holds faces, and the rest need not be read.
const seatBatch = 8

// How often, and how many times in a row, the seats must show the count
// before a round with fewer than two piles is taken as over. A read costs
// 20-30 ms with 12 players (BenchmarkReadSeats): every 8th frame it adds
// 3-4 ms a frame, and only until the second pile is opened.
const (
	seatEvery  = 8 // frames
	seatChecks = 3
)

// watchSeats looks for the count in the seats while fewer than two piles
// are open. A round that ends in a deadlock (C17) that early turns no
// piles over, so decide's stop test (the open piles show no face) never
// sees it end. The count shows in the seats: no face anywhere, the stacks
// spread face down. A round whose rows were never seen (the cards are
// still being dealt, face down) is not taken for one that ended.
func (p *Pipeline) watchSeats(frame gocv.Mat) error {
	if p.phase != referee.PhasePlaying || p.openPiles() >= 2 {
		p.seatCards = nil
		return nil
	}
	if (p.frame+1)%seatEvery == 0 {
		// The seats' cards are found a frame ahead of the check and read
		// in it: done in one frame, the two held it three times as long
		// as the others.
		c, err := p.findSeatCards(frame)
		if err != nil {
			return err
		}
		p.seatCards = &c
		return nil
	}
	if p.frame%seatEvery != 0 {
		return nil
	}
	cards := p.seatCards
	p.seatCards = nil
	if p.centreMotion >= stillCentre {
		p.seatsDown = 0
		return nil
	}
	enough := 1 // one face: still playing
	if !p.rowsSeen {
		enough = len(p.cal.Seats)
	}
	var s seatSides
	var err error
	if cards != nil && cards.frame == p.frame-1 {
		s, err = p.readSeatCards(*cards, enough)
	} else {
		s, err = p.readSeats(frame, enough)
	}
	if err != nil {
		return err
	}
	faces, withBacks := 0, 0
	for i := range s.faces {
		faces += s.faces[i]
		if s.backs[i] > 0 {
			withBacks++
		}
	}
	if faces >= len(s.faces) {
		p.rowsSeen = true
	}
	if p.rowsSeen && faces == 0 && 2*withBacks >= len(s.faces) {
		p.seatsDown++
	} else {
		p.seatsDown = 0
	}
	return nil
}

// openPiles counts the piles the referee was told of.
func (p *Pipeline) openPiles() int {
	n := 0
	for _, pl := range p.piles {
		if pl.id > 0 {
			n++
		}
	}
	return n
}
