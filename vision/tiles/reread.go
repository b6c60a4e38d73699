package tiles

import (
	"slices"

	"ligretto/referee/tiles"
)

// unowned is a card reported without an owner (its frame not read) whose
// frame is read again, from next, while it lies there.
type unowned struct {
	f, g  tiles.Field
	since int64
	next  int64
}

// reread takes the cards reported without an owner in emitted, and reads
// again the frames of those reported so far that lie in full view with
// no stone on them now (a stone or a hand over a frame is the usual
// reason it was not read); it reports the owner of each one read
// (tiles.ObsOwner), always after its card. A card with a half covered
// since (T2c) is read round the other half, as a covered card is when
// first seen (its first read may have taken in the cover's frame). One
// covered whole, or not read within rereadForMS, stays nobody's.
func (w *Watcher) reread(tMS int64, emitted []tiles.Observation) []tiles.Observation {
	for _, o := range emitted {
		if o.Kind == tiles.ObsLay && o.Player == "" && len(o.Fields) == 2 {
			w.readLater(o.Fields[0], o.Fields[1], tMS, tMS+readEveryMS)
		}
	}
	var out []tiles.Observation
	keep := w.unowned[:0]
	for _, u := range w.unowned {
		seen, covered, whole := w.shows(u.f, u.g)
		if tMS-u.since > rereadForMS || seen == covered {
			continue
		}
		if tMS >= u.next && !slices.Contains(w.stones[:], seen) && (!whole || !slices.Contains(w.stones[:], covered)) {
			u.next = tMS + readEveryMS
			var o string
			if whole {
				o, _ = w.owner(w.cardPiece(u.f, u.g), nil, u.f, u.g)
			} else {
				o, _ = w.coveredOwner(seen, covered)
			}
			if o != "" {
				out = append(out, tiles.Observation{Kind: tiles.ObsOwner, TimeMS: tMS, Player: o, Fields: []tiles.Field{u.f, u.g}, By: "camera"})
				continue
			}
		}
		keep = append(keep, u)
	}
	w.unowned = keep
	return out
}

// readLater reads the frame of the card on f and g again from next on,
// for rereadForMS from since.
func (w *Watcher) readLater(f, g tiles.Field, since, next int64) {
	if slices.ContainsFunc(w.unowned, func(u unowned) bool { return u.f == f && u.g == g || u.f == g && u.g == f }) {
		return
	}
	w.unowned = append(w.unowned, unowned{f: f, g: g, since: since, next: next})
}

// shows reports which halves of the card reported on f and g show: both
// (whole), or the one seen with the other covered by a later card, or
// none (seen == covered).
func (w *Watcher) shows(f, g tiles.Field) (seen, covered tiles.Field, whole bool) {
	a, b := w.content[f.Y][f.X], w.content[g.Y][g.X]
	mine := func(c cell, other tiles.Field) bool { return c.kind == lookCard && c.partner == other }
	switch {
	case mine(a, g) && mine(b, f):
		return f, g, true
	case mine(a, g) && b.kind == lookCard:
		return f, g, false
	case mine(b, f) && a.kind == lookCard:
		return g, f, false
	}
	return f, f, false
}
