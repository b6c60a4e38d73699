package vision

// Attribution, part 4: naming who laid each commit from the seats' losses
// and the arms.

import (
	"ligretto/referee"
)

// pending is an observation in the attributor's queue, waiting to be
// passed on in order.
type pending struct {
	o    referee.Observation
	need bool           // a commit to attribute
	arms map[string]int // see Attribution.Arms
	done bool
}

// attributeQueued names who laid the commits waiting in the queue; final
// decides them with what is known now, without waiting for busy seats.
func (a *Attributor) attributeQueued(tMS int64, final bool) {
	for i := range a.queue {
		if p := &a.queue[i]; p.need && !p.done {
			a.attribute(p, tMS, final)
		}
	}
}

// attribute names who laid one commit, or leaves it waiting.
//
// A card gone from a seat's stack or row was played (a row card moved
// aside stays in the seat, C11), so one such loss of the face names the
// player. A card gone from the hand's pile may only have been covered by
// counting off, and a card revealed and played between two reads of a
// busy seat was never seen there at all: then the arm that reached the
// pile names the player, when it reached it alone and agrees with what
// the seats lost.
func (a *Attributor) attribute(p *pending, tMS int64, final bool) {
	f, t := *p.o.Card, p.o.TimeMS
	strong, weak, doubt := a.seatLosses(f, t)
	arm := loneArm(p.arms)
	expired := final || tMS-t >= a.cfg.HoldMS
	pick, evidence := a.pickLoss(p, strong, weak, doubt, arm, expired, tMS)
	if !expired && evidence == "" && len(strong) < 2 {
		return // wait for the busy seats
	}
	a.decide(p, tMS, append(strong, weak...), doubt, pick, evidence, arm)
}

// seatLoss is a seat's loss of the face of a commit.
type seatLoss struct {
	s *seatWatch
	l *loss
}

// seatLosses are, for a commit of face f at t, the seats that lost f
// around t from their deal (strong: a stack or a row) or from their
// hand's pile (weak), each with its likeliest loss, and the players whose
// seats showed f when last read and have not been read since (doubt).
func (a *Attributor) seatLosses(f referee.Face, t int64) (strong, weak []seatLoss, doubt []string) {
	for _, s := range a.seats {
		best := a.bestLoss(s, f, t)
		switch {
		case best != nil && best.dealt:
			strong = append(strong, seatLoss{s, best})
		case best != nil:
			weak = append(weak, seatLoss{s, best})
		case s.dirty && faceCounts(s.cards)[f] > 0:
			// It showed the face when last read and has not been read
			// since: it may have laid it.
			doubt = append(doubt, s.player)
		}
	}
	return strong, weak, doubt
}

// bestLoss is s's unused loss of f that fits a commit at t, preferring
// one from the deal, then the latest gone; nil if none fits.
func (a *Attributor) bestLoss(s *seatWatch, f referee.Face, t int64) *loss {
	var best *loss
	for i := range s.losses {
		l := &s.losses[i]
		if l.used || l.face != f || l.seenMS > t-a.cfg.FlightMS || l.goneMS < t-a.cfg.WindowMS {
			continue
		}
		if best == nil || (l.dealt && !best.dealt) || (l.dealt == best.dealt && l.goneMS > best.goneMS) {
			best = l
		}
	}
	return best
}

// pickLoss chooses the loss that names who laid commit p, and the
// evidence for it: none ("") if the seats and the arm do not agree
// enough; EvidenceArm, with no loss, when only the arm can say, once the
// commit has waited long enough (expired).
func (a *Attributor) pickLoss(p *pending, strong, weak []seatLoss, doubt []string, arm string, expired bool, tMS int64) (pick *seatLoss, evidence string) {
	t := p.o.TimeMS
	switch {
	case len(strong) == 1 && len(doubt) == 0 && (len(weak) == 0 || !a.sameFaceNearby(p)):
		pick, evidence = &strong[0], EvidenceDeal
	case len(strong) > 1 && arm != "":
		// Two seats lost the face from their deal (two decks' cards
		// played at once): the arm says whose reached this pile.
		for i := range strong {
			if strong[i].s.player == arm {
				pick, evidence = &strong[i], EvidenceDealArm
			}
		}
	case len(strong) == 0 && len(weak) == 1 && len(doubt) == 0 && a.othersIdle(weak[0].s, t, tMS):
		// Nobody else's cards changed around the play: the seat that lost
		// the face from its hand's pile laid it.
		pick, evidence = &weak[0], EvidenceHand
	case len(strong) == 0 && arm != "" && (len(doubt) == 0 || (len(doubt) == 1 && doubt[0] == arm)):
		for i := range weak {
			if weak[i].s.player == arm {
				pick, evidence = &weak[i], EvidenceHandArm
			}
		}
		if len(weak) == 0 && expired && a.cfg.ArmOnly && a.othersArmsSeen(arm) {
			evidence = EvidenceArm // no seat was seen losing it: only the arm
		}
	}
	return pick, evidence
}

// decide records the attribution of commit p, decided at tMS: the player
// of the picked loss (now used) or the lone arm, sure, with the evidence;
// or, with no evidence, unsure among the candidates (the seats that lost
// the face) and the doubtful seats. A seat's attribution also teaches
// whether the camera sees that player's arm.
func (a *Attributor) decide(p *pending, tMS int64, candidates []seatLoss, doubt []string, pick *seatLoss, evidence, arm string) {
	arms := p.arms
	at := Attribution{TimeMS: p.o.TimeMS, Pile: p.o.Pile, Card: *p.o.Card, DecidedMS: tMS, Arms: arms}
	for _, c := range candidates {
		at.Candidates = append(at.Candidates, c.s.player)
	}
	switch {
	case pick != nil:
		pick.l.used = true
		at.Player, at.SeenMS, at.GoneMS = pick.s.player, pick.l.seenMS, pick.l.goneMS
	case evidence == EvidenceArm:
		at.Player = arm
	default:
		at.Candidates = append(at.Candidates, doubt...)
	}
	if evidence == EvidenceDeal || evidence == EvidenceDealArm {
		// Learn whether the camera sees this player's arm.
		a.armTried[at.Player]++
		if arms[at.Player] > 0 {
			a.armSeen[at.Player]++
		}
	}
	if at.Player != "" {
		at.Sure, at.Evidence = true, evidence
		p.o.Player = at.Player
		a.live[at.Player]++
	}
	a.atts = append(a.atts, at)
	p.done = true
}

// othersIdle reports whether every seat but s was seen unchanged from
// before the card of a commit at t could have left it until now: none of
// them can have laid it unseen.
func (a *Attributor) othersIdle(s *seatWatch, t, now int64) bool {
	for _, o := range a.seats {
		if o != s && (o.dirty || o.readAt < 0 || o.changedAt >= t-a.cfg.FlightMS-idleMS) {
			return false
		}
	}
	return true
}

// othersArmsSeen reports whether the arm of every player but who was seen
// on the piles where their cards were surely attributed by their seat.
func (a *Attributor) othersArmsSeen(who string) bool {
	for _, s := range a.seats {
		if n := a.armTried[s.player]; s.player != who && (n < 2 || 5*a.armSeen[s.player] < 4*n) {
			return false
		}
	}
	return true
}

// sameFaceNearby reports whether another commit of the same face lies within the
// window of p: then two seats' losses of it may belong to either.
func (a *Attributor) sameFaceNearby(p *pending) bool {
	for i := range a.queue {
		q := &a.queue[i]
		if q != p && q.need && *q.o.Card == *p.o.Card && abs64(q.o.TimeMS-p.o.TimeMS) <= a.cfg.WindowMS {
			return true
		}
	}
	for _, at := range a.atts {
		if at.Card == *p.o.Card && abs64(at.TimeMS-p.o.TimeMS) <= a.cfg.WindowMS {
			return true
		}
	}
	return false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
