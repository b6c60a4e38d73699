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
