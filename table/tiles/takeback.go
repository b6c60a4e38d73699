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
// the stone's move onto the given one assumed by the rules (passedOver),
// or as many and fewer rest on the camera erring (cost): a stone that
// stood elsewhere than the held card was laid at, a card missed.
// Seen at once, the loop gave the referee the card it could judge first;
// the stone's way, seen later, tells the order. The given card waits
// again, after the held one, for its stone's move. It reports whether it
// took one back.
func (l *Loop) takeBack(i int, o tiles.Observation) bool {
	t := l.playingTable()
	w := l.waiting[i]
	if t == nil || !w.held || l.finisher != nil || o.Stone < 1 || o.Stone > tiles.Stones || len(o.Fields) != 1 {
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
	// held one goes with the move seen (the given card counted by its
	// verdict alone, not if misplaced: leaning towards leaving it)
	u := t.Clone()
	to := fartherOf(e.card.Fields, e.from)
	_, x, err := u.CheckStone(o.Stone, to)
	if err != nil {
		return false
	}
	var now cost
	if e.v.Status == tiles.StatusViolation {
		now.wrong++
	}
	if x != nil {
		now.wrong++
	}
	u.ApplyStone(o.Stone, to, e.card.Player, x)
	held := weigh(u, []tried{c})
	if now = (cost{now.wrong + held.wrong, held.unseen}); now.wrong == 0 {
		return false
	}
	without, err := l.ref.Without(e.v.Seq)
	if err != nil || !weigh(without, []tried{c, {card: e.card}}).less(now) {
		return false
	}
	seq := e.v.Seq
	if !l.retract(e, max(o.TimeMS, l.now)) {
		return false
	}
	e.held, e.graceOnly, e.suspect, e.v, e.from, e.stone, e.grace = true, false, false, tiles.Verdict{}, tiles.Field{}, nil, l.now
	l.waiting = slices.Delete(l.waiting, k, k+1)
	l.waiting = slices.Insert(l.waiting, slices.Index(l.waiting, w)+1, e)
	l.noteUnsure(fmt.Sprintf("%d ms: %s card at %v taken back (#%d) and judged after %s card at %v: stone %d's way, seen after both, went onto that one first",
		o.TimeMS, possessive(e.card.Player), e.card.Fields, seq, possessive(w.card.Player), w.card.Fields, o.Stone))
	return true
}

// maxOver is how many held cards wentOverHeld tries on a stone's way.
const maxOver = 3

// wentOverHeld settles the held i-th card with stone o's move seen onto
// it when, wrong as things stand, it is legal after held cards seen with
// it laid at that stone first, in some order, each taking the stone by
// the rules: after the cards given at the stone, whose moves were not
// seen, the stone went over them unseen to the i-th. A held card waits
// for its stone's move, and one beside no stone until a stone's given
// card has moved (mustHold), so the order of cards a hand laid in turn at
// one stone is lost when the camera sees only the last stop. It reports
// whether it settled them.
func (l *Loop) wentOverHeld(i int, o tiles.Observation) bool {
	t := l.playingTable()
	w := l.waiting[i]
	if t == nil || !w.held || l.finisher != nil || o.Stone < 1 || o.Stone > tiles.Stones || len(o.Fields) != 1 {
		return false
	}
	var given, held []*waiting
	for _, e := range l.waiting {
		switch {
		case e == w:
		case !e.held && e.v.Stone == o.Stone:
			given = append(given, e)
		case e.held && e.stone == nil && e.card.Stone == 0 && len(held) < maxOver && (seenTogether(w.card, e.card) || onWay(w.card, e.card)):
			held = append(held, e)
		}
	}
	if len(held) == 0 {
		return false
	}
	u := t.Clone()
	for _, e := range given {
		to := e.card.Fields[0]
		if e.v.Rule != tiles.T3b {
			to = fartherOf(e.card.Fields, e.from)
		}
		_, x, err := u.CheckStone(o.Stone, to)
		if err != nil {
			return false
		}
		u.ApplyStone(o.Stone, to, e.card.Player, x)
	}
	c := tried{card: w.stonedBy(&o), seen: &o}
	if wrongIn(u, []tried{c}) == 0 {
		return false
	}
	way := firstWay(u, held, o.Stone, c)
	if way == nil {
		return false
	}
	for _, e := range given {
		l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == e })
		l.settle(e, nil)
	}
	for _, e := range way {
		l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == e })
		e.card.Stone = o.Stone
		l.settle(e, nil)
	}
	l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == w })
	l.settle(w, &o)
	return true
}

// firstWay is the shortest order of some of the held cards, each laid at
// stone and taking it by the rules, after which c is judged with nothing
// wrong on u; nil if none.
func firstWay(u *tiles.Table, held []*waiting, stone int, c tried) []*waiting {
	var best []*waiting
	var try func(way []*waiting, left []*waiting)
	try = func(way []*waiting, left []*waiting) {
		if len(way) > 0 && (best == nil || len(way) < len(best)) {
			cards := make([]tried, 0, len(way)+1)
			for _, e := range way {
				x := e.card
				x.Stone = stone
				cards = append(cards, tried{card: x})
			}
			if wrongIn(u, append(cards, c)) == 0 {
				best = slices.Clone(way)
				return
			}
		}
		for k, e := range left {
			rest := slices.Concat(left[:k], left[k+1:])
			try(append(way, e), rest)
		}
	}
	try(nil, held)
	return best
}

// relocationInstead takes back from the referee w's card, given at the
// stone it lies by, when blocked stone s is seen moving onto it instead
// (move) while that stone's own move is still awaited, and its player
// may owe s (mayOwe): the card relocated s (T3b, T3c). Who blocked s
// depends on the order of cards seen together, which the camera cannot
// tell, and a card beside one stone is not held for a player who only may
// owe one (holds). Taken so only when the move is wrong as things stand
// and nothing is wrong with the card relocating s; w is then held, to be
// given again named for s. It reports whether it took the card back.
func (l *Loop) relocationInstead(w *waiting, move *tiles.Observation) bool {
	t := l.playingTable()
	if t == nil || w.held || move == nil || len(move.Fields) != 1 || w.card.Stone != 0 || w.v.Seq == 0 || w.v.Rule == tiles.T3b {
		return false
	}
	s, f := move.Stone, move.Fields[0]
	if s < 1 || s > tiles.Stones || s == w.v.Stone || t.Stones()[s-1].Owed == "" || !slices.Contains(l.owing[s-1].by, w.card.Player) {
		return false
	}
	if _, x, err := t.CheckStone(s, f); err != nil || x == nil {
		return false // the move is legal as it is
	}
	without, err := l.ref.Without(w.v.Seq)
	if err != nil {
		return false
	}
	card := w.card
	card.Stone = s
	if lay, ok := layOf(card); !ok {
		return false
	} else if j, err := without.CheckLay(lay); err != nil || !j.Relocates || j.Violation != nil || wrongIn(without, []tried{{card: card, seen: move}}) > 0 {
		return false
	}
	seq := w.v.Seq
	if !l.retract(w, max(move.TimeMS, l.now)) {
		return false
	}
	l.noteUnsure(fmt.Sprintf("%d ms: %s card at %v taken back (#%d) from stone %d, which had not moved: blocked stone %d, which %s may owe, was seen moving onto it (T3b, T3c)",
		move.TimeMS, possessive(w.card.Player), w.card.Fields, seq, w.v.Stone, s, w.card.Player))
	// named for s by the move (stonedBy), not left to the referee
	w.held, w.graceOnly, w.suspect, w.v, w.from = true, false, false, tiles.Verdict{}, tiles.Field{}
	return true
}

// retract takes back from the referee the card given for w, and reports
// whether it could. Its piece goes first: the retract's verdict notes who
// may owe a stone from the pieces (noteOwed).
func (l *Loop) retract(w *waiting, tMS int64) bool {
	pieces := l.pieces
	if p := lastIndexFunc(l.pieces, func(p piece) bool { return slices.Equal(p.fields, w.card.Fields) }); p >= 0 {
		l.pieces = slices.Delete(slices.Clone(l.pieces), p, p+1)
	}
	if _, err := l.send(tiles.Observation{Kind: tiles.ObsRetract, TimeMS: tMS, Retracts: w.v.Seq,
		Player: w.card.Player, Fields: w.card.Fields, By: "loop"}); err != nil {
		l.pieces = pieces
		return false
	}
	return true
}
