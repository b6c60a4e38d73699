package tiles

import (
	"fmt"
	"slices"

	"ligretto/referee/tiles"
)

// takeBack takes back from the referee the card given at stone o (just
// seen moving onto the held i-th card) whose move the camera has not
// seen yet, when the two were seen together and the stone's way says the
// held one came first: with it first, and the given one after it, fewer
// cards are wrong (or laid where their stone did not stand) than with
// the stone's move onto the given one assumed by the rules (passedOver).
// Seen at once, the loop gave the referee the card it could judge first;
// the stone's way, seen later, tells the order. The given card waits
// again, after the held one, for its stone's move. It reports whether it
// took one back.
func (l *Loop) takeBack(i int, o tiles.Observation) bool {
	t := l.playingTable()
	w := l.waiting[i]
	if t == nil || !w.held || o.Stone < 1 || o.Stone > tiles.Stones || len(o.Fields) != 1 {
		return false
	}
	k := lastIndexFunc(l.waiting[:i], func(e *waiting) bool {
		return !e.held && e != l.finisher && e.v.Stone == o.Stone && e.v.Seq > 0 && e.v.Rule != tiles.T3b && seenTogether(e.card, w.card)
	})
	if k < 0 {
		return false
	}
	e := l.waiting[k]
	c := tried{card: w.stonedBy(&o), seen: &o}
	// as it stands: the given card's stone moves by the rules, then the
	// held one goes with the move seen
	u := t.Clone()
	to := fartherOf(e.card.Fields, e.from)
	_, x, err := u.CheckStone(o.Stone, to)
	if err != nil {
		return false
	}
	now := 0
	if e.v.Status == tiles.StatusViolation {
		now++
	}
	if x != nil {
		now++
	}
	u.ApplyStone(o.Stone, to, e.card.Player, x)
	now += wrongIn(u, []tried{c})
	without, err := l.ref.Without(e.v.Seq)
	if err != nil || wrongIn(without, []tried{c, {card: e.card}}) >= now {
		return false
	}
	seq := e.v.Seq
	if _, err := l.send(tiles.Observation{Kind: tiles.ObsRetract, TimeMS: max(o.TimeMS, l.now), Retracts: seq,
		Player: e.card.Player, Fields: e.card.Fields, By: "loop"}); err != nil {
		return false
	}
	if p := lastIndexFunc(l.pieces, func(p piece) bool { return slices.Equal(p.fields, e.card.Fields) }); p >= 0 {
		l.pieces = slices.Delete(l.pieces, p, p+1)
	}
	e.held, e.graceOnly, e.suspect, e.v, e.from, e.stone, e.grace = true, false, false, tiles.Verdict{}, tiles.Field{}, nil, l.now
	l.waiting = slices.Delete(l.waiting, k, k+1)
	l.waiting = slices.Insert(l.waiting, slices.Index(l.waiting, w)+1, e)
	l.noteUnsure(fmt.Sprintf("%d ms: %s card at %v taken back (#%d) and judged after %s card at %v: stone %d's way, seen after both, went onto that one first",
		o.TimeMS, possessive(e.card.Player), e.card.Fields, seq, possessive(w.card.Player), w.card.Fields, o.Stone))
	return true
}
