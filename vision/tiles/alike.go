package tiles

import "ligretto/referee/tiles"

// A card laid exactly over a card of its colours, on the same two fields
// and turned the same way (T2c), shows no new colour: only its frame, the
// owner's style, tells it from the card it covers. The stone moved onto
// it is the sign to look: a stone comes down only on a new card.

// cardKey names the card on fields f and g, in either order.
func cardKey(f, g tiles.Field) [2]tiles.Field {
	if fieldOrder(f, g) > 0 {
		f, g = g, f
	}
	return [2]tiles.Field{f, g}
}

// noteOwners keeps the owners reported for cards, by their fields.
func (w *Watcher) noteOwners(out []tiles.Observation) {
	for _, o := range out {
		if (o.Kind == tiles.ObsLay || o.Kind == tiles.ObsOwner) && len(o.Fields) == 2 {
			w.owners[cardKey(o.Fields[0], o.Fields[1])] = o.Player
		}
	}
}

// alikeRead is a frame read asked for the card under a stone: for the
// stone seen there since since, next read at next, done once decided.
type alikeRead struct {
	since, next int64
	done        bool
}

// coveredAlike looks, for a stone on f with nothing new under it, at the
// frame of the card it stands on, when a stone has left a field beside
// that card: read as another player's than the card reported there, a
// card of the same colours was laid over it, and its halves are new.
func (w *Watcher) coveredAlike(f tiles.Field, tMS int64) {
	c := w.content[f.Y][f.X]
	if c.kind != lookCard {
		return
	}
	g := c.partner
	if !w.on(g) || w.content[g.Y][g.X].kind != lookCard || w.content[g.Y][g.X].partner != f {
		return
	}
	was, ok := w.owners[cardKey(f, g)]
	if !ok || was == "" || w.believed(g) != w.expected(g) {
		return // the card's other half must show as reported
	}
	since := w.cameSince[f]
	r, ok := w.alike[f]
	if !ok || r.since != since {
		r = alikeRead{since: since}
	}
	if r.done || tMS < r.next || !w.stoneLeftBeside(f, g) {
		w.alike[f] = r
		return
	}
	r.next = tMS + readEveryMS
	o, _ := w.owner(w.cardPiece(g, f), &f, g, f)
	w.alike[f] = r
	if o == "" {
		return
	}
	r.done = true
	w.alike[f] = r
	if o == was {
		return
	}
	w.halves[g] = since
	w.unsure(tMS, "a stone on %v, on %s's card at %v-%v, whose frame now reads as %s's: a card of its colours laid over it", f, was, g, f, o)
}

// stoneLeftBeside reports whether a stone has left a field that shares
// an edge with f or g.
func (w *Watcher) stoneLeftBeside(f, g tiles.Field) bool {
	for i := range w.goneSince {
		s := w.stones[i]
		if s != f && s != g && (touch(s, f) || touch(s, g)) {
			return true
		}
	}
	return false
}
