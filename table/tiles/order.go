package tiles

import (
	"slices"

	"ligretto/referee/tiles"
)

// OrderGraceMS is how long a card waits after it is reported before the
// referee hears it: a card first seen with it may come a frame or two
// later, and which of them was laid first decides whether each is legal.
// A card wrong if judged now waits longer (mayMeetEarlier).
const OrderGraceMS = seenOrderMS

// maxOrdered is how many cards seen at once are tried in every order
// (4! orders at most), and maxReorders how many times one release may
// change the order (each change restarts it).
const (
	maxOrdered  = 4
	maxReorders = 8
)

// orderByRules puts the cards held after the i-th one that the camera saw
// with it (seenTogether), and that could go to the referee now, in the
// order the rules allow best: the one with the fewest cards judged wrong
// (or laid where their stone did not stand), then the fewest judged at
// another stone than the one seen moving onto them (cost), then the
// order seen. Seen at once, either order is as likely, and a referee
// that calls a card wrong only because of the order it guessed is sure
// and wrong.
// The group then waits from i on as one block. It reports whether the
// order changed.
func (l *Loop) orderByRules(i int) bool {
	t := l.playingTable()
	if t == nil {
		return false
	}
	group := []int{i}
	for j := i + 1; j < len(l.waiting) && len(group) < maxOrdered; j++ {
		x := l.waiting[j]
		if x.held && together(l.waiting[i], x) && !l.holdsAt(x, i) {
			group = append(group, j)
		}
	}
	if len(group) < 2 {
		return false
	}
	cards := make([]tried, len(group))
	for k, j := range group {
		cards[k] = l.waiting[j].tried()
	}
	best, bestCost := []int(nil), weigh(t, cards)
	perm := make([]int, len(cards))
	for k := range perm {
		perm[k] = k
	}
	in := make([]tried, len(cards))
	for nextPerm(perm) {
		for k, p := range perm {
			in[k] = cards[p]
		}
		if c := weigh(t, in); c.less(bestCost) {
			best, bestCost = slices.Clone(perm), c
		}
	}
	if best == nil {
		return false
	}
	// the group as one block at i, in the best order; the rest after it
	// in their order
	ws := make([]*waiting, 0, len(l.waiting))
	ws = append(ws, l.waiting[:i]...)
	for _, p := range best {
		ws = append(ws, l.waiting[group[p]])
	}
	for j := i + 1; j < len(l.waiting); j++ {
		if !slices.Contains(group, j) {
			ws = append(ws, l.waiting[j])
		}
	}
	l.waiting = ws
	return true
}

// awaitsHeld reports whether the i-th waiting card, wrong if judged now,
// is right after another card seen with it (seenTogether) that is held
// for its stone's move: it waits for that card, and orderByRules then
// weighs the two orders (a blocked stone relocated and at once played on,
// the relocating card seen last).
func (l *Loop) awaitsHeld(i int) bool {
	t := l.playingTable()
	if t == nil {
		return false
	}
	c := l.waiting[i].tried()
	// c judged now, tried only when a card may go first (each try lays
	// a copy of the table); one before it goes first anyway
	wrong := -1
	for _, x := range l.waiting[i+1:] {
		if !x.held || !seenTogether(c.card, x.card) || !l.holdsAt(x, i) {
			continue
		}
		if wrong < 0 {
			wrong = wrongIn(t, []tried{c})
		}
		if wrong == 0 {
			return false
		}
		for _, y := range relocating(t, x.tried()) {
			if wrongIn(t, []tried{y, c}) < wrongIn(t, []tried{c, y}) {
				return true
			}
		}
	}
	return false
}

// mayMeetEarlier reports whether waiting card w, wrong if judged now,
// was first seen less than togetherMS ago: a card laid before it and
// seen with it may still be reported (a hand hid it longer), and make it
// legal (orderByRules, awaitsHeld). A wrong play waits that much longer
// for its call, and the cards seen after it wait behind it.
func (l *Loop) mayMeetEarlier(w *waiting) bool {
	t := l.playingTable()
	if t == nil || !w.held || l.now >= seenAt(w.card)+togetherMS {
		return false
	}
	n := wrongIn(t, []tried{w.tried()})
	return n > 0 && n < untakable
}

// relocating is card x as it may go to the referee: as it is, and, named
// for no stone, named for each blocked stone (its move, still to come,
// may name it: anyone may relocate a stone whose blocker is not sure,
// T3c).
func relocating(t *tiles.Table, x tried) []tried {
	out := []tried{x}
	if x.card.Stone != 0 {
		return out
	}
	for k, s := range t.Stones() {
		if s.Owed != "" {
			y := x
			y.card.Stone = k + 1
			out = append(out, y)
		}
	}
	return out
}

// rulesPutFirst reports whether another card seen with the held i-th one
// (seenTogether), held or reported later in this batch, goes before it
// by the rules: with the i-th named for stone o (just seen moving onto
// it), fewer cards are wrong when that one comes first, or as many and
// fewer are judged at another stone than the one seen onto them (cost).
// The move then waits with its card, and orderByRules puts the two in
// that order: settled at once, the i-th would be judged against where its
// stone stood before the other card took it.
func (l *Loop) rulesPutFirst(i int, o tiles.Observation) bool {
	t := l.playingTable()
	if t == nil {
		return false
	}
	w := l.waiting[i]
	c := tried{card: w.stonedBy(&o), seen: &o}
	var others []tried
	for j, e := range l.waiting {
		if j != i && e.held && (seenTogether(w.card, e.card) || onWay(w.card, e.card)) {
			others = append(others, e.tried())
		}
	}
	for _, e := range l.rest {
		if e.Kind == tiles.ObsLay && !e.SeenLate && (seenTogether(w.card, e) || onWay(w.card, e)) {
			others = append(others, tried{card: l.named(e)})
		}
	}
	for _, x := range others {
		if weigh(t, []tried{x, c}).less(weigh(t, []tried{c, x})) {
			return true
		}
	}
	return false
}

// togetherMS: cards first seen closer than this may have been laid in
// either order, when the rules say which it was.
const togetherMS = tiles.TogetherMS

// seenTogether reports whether the camera first saw a and b (reported,
// when it did not say) within togetherMS of each other: which came first
// it cannot tell.
func seenTogether(a, b tiles.Observation) bool {
	ta, tb := a.SeenMS, b.SeenMS
	if ta == 0 || tb == 0 {
		ta, tb = a.TimeMS, b.TimeMS
	}
	return max(ta-tb, tb-ta) <= togetherMS
}

// wayMS: a card the camera saw a stone move onto, and another it first
// saw up to this much later within two fields of it, may have been laid
// in either order: the hand that laid the other may hide it for two
// seconds while the next card is laid at the stone it took. The stone's
// move says the first card was laid at a stone (none goes onto a card
// laid by none, T2b), so when only the other order explains the move,
// it is the one taken.
const wayMS = 2 * togetherMS

// onWay reports whether card b, first seen up to wayMS after card a
// (whose stone the camera saw move onto it) and lying within two fields
// of it, may have been laid before it: a hand hid it. One seen before a
// goes before it anyway.
func onWay(a, b tiles.Observation) bool {
	ta, tb := seenAt(a), seenAt(b)
	if tb < ta || tb-ta > wayMS {
		return false
	}
	for _, f := range a.Fields {
		for _, g := range b.Fields {
			if abs(f.X-g.X) <= 2 && abs(f.Y-g.Y) <= 2 {
				return true
			}
		}
	}
	return false
}

// together reports whether waiting cards w and x may go to the referee in
// either order: seen together, or one's stone seen moving onto it and
// the other on that stone's way (onWay).
func together(w, x *waiting) bool {
	return seenTogether(w.card, x.card) || w.stone != nil && onWay(w.card, x.card) || x.stone != nil && onWay(x.card, w.card)
}

// holdsAt reports whether w, were it the i-th waiting card, would wait
// for something other than its grace.
func (l *Loop) holdsAt(w *waiting, i int) bool {
	return w.stone == nil && l.mustHold(w.card, i)
}

// stoned is w's card as settle gives it: named for the stone seen moving
// onto it, if any, unless it waits for its grace alone.
func (w *waiting) stoned() tiles.Observation { return w.stonedBy(w.stone) }

// stonedBy is w's card named as stoned names it, for the move s onto it.
func (w *waiting) stonedBy(s *tiles.Observation) tiles.Observation {
	c := w.card
	if s != nil && c.Stone == 0 && !w.graceOnly {
		c.Stone = s.Stone
	}
	return c
}

// tried is a card as orderByRules lays it: named for its stone, with the
// stone's move the camera saw onto it, if any.
type tried struct {
	card tiles.Observation
	seen *tiles.Observation
}

func (w *waiting) tried() tried { return tried{card: w.stoned(), seen: w.stone} }

// wrongIn counts the cards judged wrong, or laid at a stone that stood
// elsewhere or other than the one seen moving onto it (unless that stone
// takes it by the rules), and the stones' moves judged wrong, when cards
// are laid on a copy of t in this order, each stone moving where the
// camera saw it go, else as the rules make it; a relocated stone not seen
// yet on the field that makes fewest wrong after it (either will do,
// T3b). A card the referee cannot take counts as more than all.
func wrongIn(t *tiles.Table, cards []tried) int { return weigh(t, cards).wrong }

// cost is what laying cards in an order costs: the wrong wrongIn counts,
// and of those the cards judged at another stone than the one the camera
// saw move onto them, or at a stone that stood elsewhere (Misplaced: a
// card laid at it missed). Of two orders as wrong, the one where the
// stones went as seen is likelier: the other rests on the camera erring,
// and its stone's move is called too (T3a, a move with no card).
type cost struct{ wrong, unseen int }

func (c cost) less(d cost) bool {
	return c.wrong < d.wrong || c.wrong == d.wrong && c.unseen < d.unseen
}

func weigh(t *tiles.Table, cards []tried) cost {
	if len(cards) == 0 {
		return cost{}
	}
	t = t.Clone()
	c, rest := cards[0], cards[1:]
	o := c.card
	lay, ok := layOf(o)
	if !ok {
		return cost{wrong: untakable}
	}
	j, err := t.CheckLay(lay)
	if err != nil {
		return cost{wrong: untakable}
	}
	var n cost
	if j.Violation != nil || j.Misplaced {
		n.wrong++
	}
	if j.Misplaced {
		n.unseen++
	}
	then := func(t *tiles.Table) cost {
		if m := weigh(t, rest); m.wrong < untakable {
			return cost{n.wrong + m.wrong, n.unseen + m.unseen}
		}
		return cost{wrong: untakable}
	}
	t.ApplyLay(lay, j)
	if j.Stone <= 0 {
		return then(t)
	}
	if c.seen != nil && c.seen.Stone != 0 && c.seen.Stone != j.Stone && len(c.seen.Fields) == 1 {
		if _, v, err := t.CheckStone(c.seen.Stone, c.seen.Fields[0]); err == nil && v == nil {
			t.ApplyStone(c.seen.Stone, c.seen.Fields[0], o.Player, nil) // it takes the card (T3a)
			return then(t)
		}
		n.wrong++ // the camera saw another stone move onto it
		n.unseen++
	}
	if c.seen != nil && c.seen.Stone == j.Stone && len(c.seen.Fields) == 1 && c.seen.Fields[0] != j.StoneTo && slices.Contains(o.Fields, c.seen.Fields[0]) {
		if _, v, err := t.CheckStone(j.Stone, c.seen.Fields[0]); err == nil {
			if v != nil {
				n.wrong++
			}
			t.ApplyStone(j.Stone, c.seen.Fields[0], o.Player, v)
			return then(t)
		}
	}
	if c.seen == nil && j.Relocates && len(rest) > 0 {
		best := cost{wrong: untakable}
		for _, f := range lay.Fields {
			u := t.Clone()
			u.ApplyStone(j.Stone, f, o.Player, nil)
			if m := then(u); m.less(best) {
				best = m
			}
		}
		return best
	}
	t.ApplyStone(j.Stone, j.StoneTo, o.Player, nil)
	return then(t)
}

// untakable is wrongIn's count when the referee cannot take a card.
const untakable = 1 << 20

// nextPerm steps p to the next permutation in lexical order and reports
// whether there was one.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

// layOf is the card o reports, as the referee takes it.
func layOf(o tiles.Observation) (tiles.Lay, bool) {
	if len(o.Fields) != 2 || len(o.Colours) != 2 {
		return tiles.Lay{}, false
	}
	return tiles.Lay{Player: o.Player, Card: o.Card, Fields: [2]tiles.Field(o.Fields), Colours: [2]tiles.Colour(o.Colours), Stone: o.Stone}, true
}
