package tiles

import (
	"slices"

	"ligretto/referee/tiles"
)

// owned takes the owner the camera read late for a card it reported
// laid for nobody: a card still held gets it before the referee hears
// it; else the referee gives the card to its owner (and their fault, if
// it was called wrong). If that was the owner's last card, their stop
// follows (T5a).
func (l *Loop) owned(o tiles.Observation) {
	for _, w := range l.waiting {
		if w.held && w.card.Player == "" && slices.Equal(w.card.Fields, o.Fields) {
			w.card.Player = o.Player
			return
		}
	}
	if slices.ContainsFunc(l.orphans, func(x orphan) bool { return slices.Contains(o.Fields, x.stone.Fields[0]) }) {
		// a card seen only as its stone's move: the owner waits for the
		// card the loop will infer (missedCard)
		l.earlyOwners = append(l.earlyOwners, o)
		return
	}
	if _, err := l.send(o); err != nil {
		return // refused: reported and logged by send
	}
	for i := len(l.pieces) - 1; i >= 0; i-- {
		if p := &l.pieces[i]; p.player == "" && slices.Equal(p.fields, o.Fields) {
			p.player = o.Player
			break
		}
	}
	if l.finisher == nil && l.finished(o) {
		l.flushOrphans(true)
		l.settleAll()
		l.checkFinished(o, max(o.TimeMS, l.now))
	}
}

// ownInferred gives the card just inferred on fs (missedCard), its stone
// on to, the owner read before it, if any: the camera read the card with
// its stone on to, whichever field the loop took for its other half.
func (l *Loop) ownInferred(fs []tiles.Field, to tiles.Field) {
	for i, o := range l.earlyOwners {
		if slices.Contains(o.Fields, to) {
			l.earlyOwners = slices.Delete(l.earlyOwners, i, i+1)
			o.Fields = fs
			l.owned(o)
			return
		}
	}
}
