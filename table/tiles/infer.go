package tiles

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"ligretto/referee/tiles"
)

// maxCalls is how many of the latest calls the loop keeps to draw.
const maxCalls = 5

// piece is a card or joker of this round as the referee judged it.
type piece struct {
	player string
	fields []tiles.Field
	status tiles.Status
	rule   tiles.Rule
	seen   int64 // first seen (reported, if not known)
	// inferred from its stone's move, not seen (missedCard)
	inferred bool
	// moved counts each stone's moves accepted this round before it was
	// judged
	moved [tiles.Stones]int
}

// seenAt is when the camera first saw o: reported, if it did not say.
func seenAt(o tiles.Observation) int64 {
	if o.SeenMS != 0 {
		return o.SeenMS
	}
	return o.TimeMS
}

// apply passes the watcher's observations to the referee, and what they
// imply that a camera cannot see.
//
// A stone's move names the stone its card was laid at (T3a: a stone
// always moves onto the new card) and comes some frames after the card.
// Every card waits OrderGraceMS for cards seen with it (orderByRules picks
// their order), a card wrong if judged now until togetherMS after it was
// first seen (mayMeetEarlier). A card whose stone the watcher did not name and that
// lies beside one stone then goes to the referee, which waits for that
// stone's move; a card that may relocate a blocked stone (T3b), lies beside
// several stones or near a card still waiting is held until a stone
// moves onto it (mustHold); a card seen after a held one waits for it
// (the order says who blocked a stone, T3b). A move not seen is assumed by the rules only
// when something needs the stone where it will be: the round's end, or
// StoneWaitMS gone by; without it, every later card at the stone would be
// judged against a stone no longer there. A card that was its player's
// last is followed, once its stone has moved, by their stop (T5a), the
// cards left and the round's end; what comes meanwhile waits. A round not
// scored when the next board appears ends as nobody able to lay (T6a).
func (l *Loop) apply(obs []tiles.Observation) {
	// Held cards are released after the whole batch: a card in it may
	// have been seen before them.
	l.applying++
	outer := l.rest
	defer func() {
		l.rest = outer
		if l.applying--; l.applying == 0 && l.releaseDue {
			l.releaseDue = false
			l.release()
		}
	}()
	obs = l.order(obs)
	for k, o := range obs {
		l.rest = obs[k+1:]
		o = l.named(o)
		switch o.Kind {
		case tiles.ObsLay, tiles.ObsStone, tiles.ObsJoker:
			l.lastPlay = max(l.lastPlay, o.TimeMS)
		case tiles.ObsRound:
			l.lastPlay = o.TimeMS
		}
		if l.finisher != nil && (o.Kind == tiles.ObsLay || o.Kind == tiles.ObsStone || o.Kind == tiles.ObsJoker) {
			switch {
			case o.Kind == tiles.ObsStone && l.finisher.under(o) && !l.finisher.moved:
				l.settle(l.finisher, &o)
			case o.Kind == tiles.ObsStone && l.stoneSeen(o):
			default:
				l.after = append(l.after, o)
			}
			continue
		}
		switch o.Kind {
		case tiles.ObsLay:
			if o.SeenLate {
				l.layLate(o)
				continue
			}
			l.flushBeside(o.Fields)
			since := max(o.TimeMS, l.now)
			i := l.place(o)
			// while a round is played, every card waits at least its grace
			// (orderByRules)
			if hold := l.mustHold(o, i); hold || l.playingTable() != nil {
				l.waiting = slices.Insert(l.waiting, i, &waiting{card: o, since: since, grace: since + OrderGraceMS, held: true, graceOnly: !hold,
					suspect: hold && !l.holds(o, i, false), last: l.lastCard(o)})
			} else {
				l.lay(o, since)
			}
			l.adopt(o.Fields)
			continue
		case tiles.ObsStone:
			var dealt bool
			if o, dealt = l.takeStone(o); dealt {
				continue
			}
		case tiles.ObsOwner:
			l.owned(o)
			continue
		default:
			l.flushOrphans(true)
			if o.Kind == tiles.ObsJoker {
				l.settleBeforeJoker(o)
			} else {
				l.settleAll()
			}
			l.finishNow()
			o = l.identifyJoker(o)
		}
		switch o.Kind {
		case tiles.ObsMatch:
			m := o
			l.match = &m
		case tiles.ObsRound:
			l.endRound(o.TimeMS, "the next board is on the table")
			if l.match != nil && l.ref.State().Phase == tiles.PhaseOver {
				// The agreed rounds are played (T6b) and the table deals
				// again: the next match, same players and settings.
				next := *l.match
				next.TimeMS = o.TimeMS
				l.log.Info("the match is over and the table deals again: a new match begins")
				_, _ = l.send(next) // a refusal is reported and logged by send
			}
			l.newRound()
		}
		v, err := l.send(o)
		if o.Kind == tiles.ObsJoker && err == nil {
			l.pieces = append(l.pieces, piece{player: o.Player, fields: o.Fields, status: v.Status, seen: seenAt(o)})
			l.adopt(o.Fields)
		}
	}
}

// takeStone deals with stone o's move before the referee hears of it:
// first a held card that blocked the stone it moves to relocate
// (blockedByHeld), two stones relocated at once and swapped
// (swappedOntoCalled); then a stop the hand made carrying it (carriedOver),
// the move onto a waiting card (stoneSeen), a move onto a field with no
// card known yet (an orphan, which waits for it). It reports whether it
// dealt with it; else it returns the move to send, its stone named by
// where it went.
func (l *Loop) takeStone(o tiles.Observation) (tiles.Observation, bool) {
	l.blockedByHeld(o)
	o = l.swappedOntoCalled(o)
	if l.carriedOver(o) || l.stoneSeen(o) {
		return o, true
	}
	o = l.identify(o)
	l.wentOverItsCard(o)
	if orphaned(l.playingTable(), o) {
		l.orphans = append(l.orphans, orphan{stone: o, since: l.now})
		return o, true
	}
	return o, false
}

// order puts a card that lies beside no stone after the cards seen with
// it that it lies by, and a stone's move after the card seen with it
// that it moved onto: seen in one frame, either may be reported first. A
// card a stone moved onto in the same frame is named for that stone, and
// keeps its place: the stone went over it to the cards after it.
func (l *Loop) order(obs []tiles.Observation) []tiles.Observation {
	out := slices.Clone(obs)
	for i := 0; i < len(out); i++ {
		o := out[i]
		if o.Kind != tiles.ObsStone || len(o.Fields) != 1 {
			continue
		}
		j := slices.IndexFunc(out[i+1:], func(c tiles.Observation) bool {
			return (c.Kind == tiles.ObsLay || c.Kind == tiles.ObsJoker) && c.TimeMS == o.TimeMS && slices.Contains(c.Fields, o.Fields[0])
		})
		if j >= 0 {
			moveAfter(out, i, j+i+1)
			i-- // the observation now at i is another
		}
	}
	// a card the camera saw a stone go onto in this batch was laid at it
	for i, o := range out {
		if o.Kind != tiles.ObsLay || o.Stone != 0 {
			continue
		}
		for _, s := range out[i+1:] {
			if s.Kind == tiles.ObsStone && s.TimeMS == o.TimeMS && len(s.Fields) == 1 && slices.Contains(o.Fields, s.Fields[0]) {
				out[i].Stone = s.Stone
				break
			}
		}
	}
	afterJokers(out)
	moved := map[[3]int64]bool{} // by time and first field: each card once
	for i := 0; i < len(out); i++ {
		o := out[i]
		if o.Kind != tiles.ObsLay || o.Stone != 0 || len(o.Fields) == 0 || len(stonesBeside(l.ref.State().Stones, o.Fields)) > 0 {
			continue
		}
		key := [3]int64{o.TimeMS, int64(o.Fields[0].X), int64(o.Fields[0].Y)}
		if moved[key] {
			continue
		}
		moved[key] = true
		w := waiting{card: o}
		last := -1
		for j := i + 1; j < len(out); j++ {
			if out[j].Kind == tiles.ObsLay && out[j].TimeMS == o.TimeMS && w.touches(out[j].Fields) {
				last = j
			}
		}
		if last > i {
			moveAfter(out, i, last)
			i-- // the card now at i is another
		}
	}
	return out
}

// afterJokers puts a card after a joker seen with it that it lies
// beside, and after the stone's move onto that joker: the stone went
// over the joker onto the card (T4). A card the stone was seen moving
// onto before the joker keeps its place when the joker lies beside that
// stop: it was laid first, the joker at the stone on it. Else the stone
// could not have gone from there to the joker, and the card goes after
// it with that move.
func afterJokers(out []tiles.Observation) {
	for i := 0; i < len(out); i++ {
		o := out[i]
		if o.Kind != tiles.ObsLay {
			continue
		}
		last, stop := -1, -1
		var joker tiles.Field
	scan:
		for j := i + 1; j < len(out); j++ {
			switch c := out[j]; {
			case last < 0 && stop < 0 && c.Kind == tiles.ObsStone && len(c.Fields) == 1 && slices.Contains(o.Fields, c.Fields[0]):
				stop = j
			case c.Kind == tiles.ObsJoker && len(c.Fields) == 1 && slices.ContainsFunc(o.Fields, c.Fields[0].Adjacent):
				if stop >= 0 && c.Fields[0].Adjacent(out[stop].Fields[0]) {
					break scan // laid at the stone on the card
				}
				last, joker = j, c.Fields[0]
			case last >= 0 && c.Kind == tiles.ObsStone && len(c.Fields) == 1 && c.Fields[0] == joker:
				last = j
			}
		}
		if last > i {
			if stop >= 0 {
				moveAfter(out, stop, last) // the card's own move after it
				last--
			}
			moveAfter(out, i, last)
			i-- // the observation now at i is another
		}
	}
}

// moveAfter moves out[i] to j (> i), the ones between one step forward.
func moveAfter(out []tiles.Observation, i, j int) {
	o := out[i]
	copy(out[i:j], out[i+1:j+1])
	out[j] = o
}

// waiting is a card whose stone's move was not seen yet: held from the
// referee (its stone unknown), or given to it with the verdict v, its
// stone having stood on from.
type waiting struct {
	card  tiles.Observation
	since int64
	grace int64 // held: not given to the referee before this time
	held  bool
	// graceOnly: held for its grace alone; the stone seen moving onto it
	// does not name its stone (the referee finds the one it lies by)
	graceOnly bool
	// suspect: held only as its player may owe a blocked stone (mayOwe);
	// a card seen after it does not wait for it, unless it is the last
	suspect bool
	last    bool // held, and its player's last card if the held before it count
	moved   bool // the finisher: its stone's move was given
	v       tiles.Verdict
	from    tiles.Field
	// stone is the move seen onto a held card that waits for a card seen
	// before it
	stone *tiles.Observation
}

// under reports whether stone o moved onto w's card.
func (w *waiting) under(o tiles.Observation) bool {
	return len(o.Fields) == 1 && slices.Contains(w.card.Fields, o.Fields[0])
}

// stopDue reports whether the finisher w's stop is due: its stone moved
// (or StopWaitMS passed without), StopGraceMS passed since the card was
// reported and SeenGraceMS since the camera first saw it.
func (w *waiting) stopDue(tMS int64) bool {
	if !w.moved && tMS-w.since < StopWaitMS {
		return false
	}
	return tMS-w.since >= StopGraceMS && (w.card.SeenMS == 0 || tMS-w.card.SeenMS >= SeenGraceMS)
}

// touches reports whether a card on fs lies within two fields of w's
// card: it may be laid at w's stone where that is about to stand, or block
// it there (T3b, T3c: who blocked a stone depends on the order).
func (w *waiting) touches(fs []tiles.Field) bool {
	for _, f := range fs {
		for _, g := range w.card.Fields {
			if abs(f.X-g.X) <= 2 && abs(f.Y-g.Y) <= 2 {
				return true
			}
		}
	}
	return false
}

// stonesBeside lists the stones (1..4) that a card on fs could be laid
// at (T2b): those on a field next to one of its fields.
func stonesBeside(stones [tiles.Stones]tiles.StoneView, fs []tiles.Field) []int {
	var out []int
	for i, s := range stones {
		if slices.ContainsFunc(fs, s.At.Adjacent) {
			out = append(out, i+1)
		}
	}
	return out
}

// stoneSeen settles the card a stone moved onto, if one waits for it,
// and reports whether the move is dealt with (else it goes to the
// referee as it is).
func (l *Loop) stoneSeen(o tiles.Observation) bool {
	if len(o.Fields) == 1 {
		for i, a := range l.assumed {
			// the move the loop assumed, seen late (stones look alike); or,
			// once the next card turned it, the relocation seen late; or a
			// stop it assumed before that one
			if a != nil && (a.to == o.Fields[0] || a.turned && slices.Contains(a.on, o.Fields[0])) {
				l.assumed[i] = nil
				return true
			}
			if l.leftBehind(i, a, o) {
				return true
			}
			if k := slices.Index(a.before(), o.Fields[0]); k >= 0 && l.now-a.at <= 2*StoneWaitMS {
				a.earlier = a.earlier[k+1:] // an earlier stop, seen late
				return true
			}
		}
	}
	// the top card on the field: a later one covers an earlier (T2c)
	if i := lastIndexFunc(l.waiting, func(w *waiting) bool { return w.under(o) }); i >= 0 {
		w := l.waiting[i]
		if l.takeBack(i, o) {
			i = slices.Index(l.waiting, w)
		}
		if w.held && (l.seenAfterHeld(i, o.Stone) || l.rulesPutFirst(i, o)) {
			w.stone = &o // given with its card, in the order seen or the rules' (release)
			l.behindEarlierMoves(i)
			return true
		}
		if !l.wentOverHeld(i, o) {
			l.passedOver(i, o)
			l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == w })
			l.settle(w, &o)
		}
		l.releaseDue = true // at the batch's end (apply)
		return true
	}
	// A move onto a waiting card keeps the stone's assumed move: that card
	// was laid where it put the stone (turnAssumed), and the camera may
	// yet report the move late.
	if o.Stone >= 1 && o.Stone <= tiles.Stones {
		l.assumed[o.Stone-1] = nil
	}
	return false
}

// leftBehind reports whether stone o's stop is on the other field of the
// card the loop assumed stone i+1 onto (a), a card that stone has left
// since: the camera's late, rebuilt way of a move the loop made for it.
// A stone moves only onto a new card (T3a), so the stop is not judged as
// a move back; it is dropped and noted as unsure.
func (l *Loop) leftBehind(i int, a *assumedMove, o tiles.Observation) bool {
	t := l.playingTable()
	if a == nil || t == nil || !slices.Contains(a.on, o.Fields[0]) || t.Stones()[i].At == a.to {
		return false
	}
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d seen stopping on %v, on the card at %v it was taken onto (%v) and has left since: not a move back",
		o.TimeMS, i+1, o.Fields[0], a.on, a.to))
	return true
}

// lastIndexFunc is the index of the last element of s satisfying f, or -1.
func lastIndexFunc[E any](s []E, f func(E) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// behindEarlierMoves puts the held cards that the stone of the held i-th
// card (its move just seen) was seen moving onto before, after i, just
// before it, in their order: the camera saw its way, card by card, in the
// order they were laid.
func (l *Loop) behindEarlierMoves(i int) {
	w := l.waiting[i]
	var before, rest []*waiting
	for _, x := range l.waiting[i+1:] {
		if x.held && x.stone != nil && x.stone.Stone == w.stone.Stone {
			before = append(before, x)
		} else {
			rest = append(rest, x)
		}
	}
	if len(before) == 0 {
		return
	}
	ws := append(slices.Clone(l.waiting[:i]), before...)
	l.waiting = append(append(ws, w), rest...)
}

// wentOverItsCard settles, with the move the rules make, the card a
// stone awaits when the camera sees it move onto a card called wrong for
// where it lies, which it would take once that move is made: it went over
// its own card too briefly to be seen, then on (to a card laid at it
// there, or relocated onto one, T3b, reported before the card it passed).
func (l *Loop) wentOverItsCard(o tiles.Observation) {
	if len(o.Fields) != 1 || !l.ref.ReclaimsOnward(o.Stone, o.Fields[0], o.TimeMS) {
		return
	}
	for _, w := range l.waiting {
		if !w.held && w.v.Stone == o.Stone { // o is onto another card: stoneSeen took those onto w's
			l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == w })
			l.settle(w, l.assumeStone(w.card, w.v, w.from)) // seen going on: it did not stay
			l.assumed[o.Stone-1] = nil                      // the stone seen went on from there
			l.releaseDue = true
			return
		}
	}
}

// blockedByHeld settles, with the move the rules make, a held card that
// lies by stone o when o moves onto a card called wrong (T2b, T2d) that
// the stone takes as its relocation once that card blocked it
// (ReclaimsAfter): the held card, reported after the one called, was
// laid first, and its player relocated the stone they blocked (T3b).
func (l *Loop) blockedByHeld(o tiles.Observation) {
	if len(o.Fields) != 1 || o.Stone < 1 || o.Stone > tiles.Stones || l.ref.Reclaims(o.Stone, o.Fields[0], o.TimeMS) {
		return
	}
	for _, w := range l.waiting {
		lay, ok := layOf(w.card)
		if !w.held || w.stone != nil || !ok {
			continue
		}
		lay.Stone = o.Stone
		if !l.ref.ReclaimsAfter(lay, o.Fields[0], o.TimeMS) {
			continue
		}
		l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == w })
		w.card.Stone = o.Stone
		l.noteUnsure(fmt.Sprintf("%d ms: stone %d seen moving onto %v, where a card was called wrong: %s's card at %v, reported since, was laid at it first and blocked it, and the card called relocated it (T3b)",
			o.TimeMS, o.Stone, o.Fields[0], possessive(w.card.Player), w.card.Fields))
		l.settle(w, nil)
		l.releaseDue = true
		return
	}
}

// layLate gives a card seen late to the referee at once: its stone is
// not known, so nothing waits for it.
func (l *Loop) layLate(o tiles.Observation) {
	if !l.lateOverUnread(o) {
		l.lay(o, max(o.TimeMS, l.now))
		l.adopt(o.Fields)
	}
}

// lateOverUnread takes a card seen late on a field of a card the loop
// has for nobody (its frame unread, or inferred from its stone's move,
// missedCard): on the same fields, the late sighting reads whose it is;
// on others, the loop's card was a guess the late one corrects, and
// neither is laid again. It reports whether it dealt with the card.
func (l *Loop) lateOverUnread(o tiles.Observation) bool {
	for _, p := range l.pieces {
		if p.player != "" || !slices.ContainsFunc(p.fields, func(f tiles.Field) bool { return slices.Contains(o.Fields, f) }) {
			continue
		}
		if len(p.fields) == 2 && slices.Contains(o.Fields, p.fields[0]) && slices.Contains(o.Fields, p.fields[1]) {
			if o.Player != "" {
				l.owned(tiles.Observation{Kind: tiles.ObsOwner, TimeMS: o.TimeMS, Player: o.Player, Fields: p.fields, By: o.By})
			}
			return true
		}
		l.noteUnsure(fmt.Sprintf("%d ms: %s card at %v, seen late, lies on the card at %v taken as laid for nobody: not laid again",
			o.TimeMS, possessive(o.Player), o.Fields, p.fields))
		return true
	}
	return false
}

// seenAfterHeld reports whether a held card the camera saw before the
// i-th waiting one, which stone (1..4, as the camera named it) was just
// seen moving onto, waits before it. One beside that stone does not: the
// stone went onto the i-th first, so it came first (T3a: a stone moves
// onto each card laid at it), unless that stone was seen onto it before.
// A stone named for none the i-th lies by may be any of those.
func (l *Loop) seenAfterHeld(i, stone int) bool {
	st := l.ref.State().Stones
	by := stonesBeside(st, l.waiting[i].card.Fields)
	if slices.Contains(by, stone) {
		by = []int{stone}
	}
	return slices.ContainsFunc(l.waiting[:i], func(e *waiting) bool {
		if e.held && e.stone != nil && e.stone.Stone == stone {
			return true // the stone was seen onto e before: e came first
		}
		return e.held && (waitsFor(e.card, l.waiting[i].card) || (e.graceOnly || l.mayMeetEarlier(e)) && !seenBefore(l.waiting[i].card, e.card)) &&
			!slices.ContainsFunc(stonesBeside(st, e.card.Fields), func(s int) bool { return slices.Contains(by, s) })
	})
}

// passedOver settles, with the moves the rules make, the cards waiting
// before the i-th one at the stone that moved onto it (o) and near it: a
// stone moves onto each new card (T3a), so it went over theirs first,
// too briefly for the camera.
func (l *Loop) passedOver(i int, o tiles.Observation) {
	w := l.waiting[i]
	stone := o.Stone
	if !w.held {
		stone = w.v.Stone
	}
	var over []*waiting
	for _, e := range l.waiting[:i] {
		if !e.held && e.v.Stone == stone && w.touches(e.card.Fields) {
			over = append(over, e)
		}
	}
	for _, e := range over {
		l.waiting = slices.DeleteFunc(l.waiting, func(x *waiting) bool { return x == e })
		l.settle(e, nil)
	}
}

// passOver settles, with the moves the rules make, the cards given
// before the held i-th one at the stone seen moving onto it (passedOver),
// and reports whether there were any.
func (l *Loop) passOver(i int) bool {
	n := len(l.waiting)
	l.passedOver(i, *l.waiting[i].stone)
	return len(l.waiting) < n
}

// place is where card o goes among the waiting cards: after those the
// camera saw first, but never before one the referee has judged, nor
// before a held card whose move of o's stone came before o (the stone
// stood on that card first: the watcher reports a stone's stops in
// order).
func (l *Loop) place(o tiles.Observation) int {
	i := len(l.waiting)
	for i > 0 && l.waiting[i-1].held && !l.waiting[i-1].graceOnly && seenBefore(o, l.waiting[i-1].card) && !l.waiting[i-1].stoneFirst(o) {
		i--
	}
	return i
}

// stoneFirst reports whether w's stone's move, seen already, is that of
// the stone card o is named for.
func (w *waiting) stoneFirst(o tiles.Observation) bool {
	return w.stone != nil && o.Stone != 0 && w.stone.Stone == o.Stone
}

// seenOrderMS: first sightings closer than this do not say which card
// came first (a hand hides one for a frame or two). Cards that wait
// together are tried in every order over a longer span (togetherMS).
const seenOrderMS = 200

// seenBefore reports whether the camera first saw a clearly before b
// (both known, seenOrderMS apart).
func seenBefore(a, b tiles.Observation) bool {
	return a.SeenMS != 0 && b.SeenMS != 0 && a.SeenMS+seenOrderMS < b.SeenMS
}

// waitsFor reports whether card o, first seen not clearly before the held
// card h (both known), goes to the referee after it.
func waitsFor(h, o tiles.Observation) bool {
	return h.SeenMS != 0 && o.SeenMS != 0 && !seenBefore(o, h)
}

// mustHold reports whether card o waits for its stone: the watcher did
// not name it and o lies beside several stones, or beside one or none
// and its player may owe a blocked one (which one moves onto it says);
// or o lies by one of the first n waiting cards or at its stone (where
// the stones stand is not known until that card's stone has moved), or
// one of them that is held may be its player's last (what comes after is
// late, T5a) or was not seen clearly after o: held cards go to the
// referee in the order seen, which says who blocked a stone (T3b) and so
// who may relocate it.
func (l *Loop) mustHold(o tiles.Observation, n int) bool { return l.holds(o, n, true) }

// holds is mustHold, counting mayOwe only with suspects.
func (l *Loop) holds(o tiles.Observation, n int, suspects bool) bool {
	for _, w := range l.waiting[:n] {
		if w.touches(o.Fields) || (o.Stone != 0 && !w.held && w.v.Stone == o.Stone) || (w.held && !w.graceOnly && (w.last || !w.suspect && waitsFor(w.card, o))) {
			return true
		}
	}
	if o.Stone != 0 {
		return false
	}
	stones := l.ref.State().Stones
	beside := stonesBeside(stones, o.Fields)
	for _, w := range l.waiting[:n] {
		if !w.held && slices.Contains(beside, w.v.Stone) {
			return true // beside a stone about to move
		}
	}
	switch len(beside) {
	case 0:
		// a relocation (T3b), else a wrong play (T2b, or T2d at the stone
		// that goes onto it, if it meets several at a corner); a card
		// before it may block a stone yet, and one seen with the card
		// that blocked a stone may have come after it (T3c: mayOwe)
		return owes(stones, o.Player) || suspects && l.mayOwe(o.Player) || n > 0 || atCorners(stones, o.Fields) > 1
	case 1:
		// its player may be relocating a blocked stone here (T3b); a
		// relocation here by one who only may owe it (mayOwe) is not
		// waited for
		return owes(stones, o.Player)
	}
	return true
}

// atCorners counts the stones whose field a card on fs meets at a corner
// alone (T2d).
func atCorners(stones [tiles.Stones]tiles.StoneView, fs []tiles.Field) int {
	n := 0
	for _, s := range stones {
		if slices.ContainsFunc(fs, s.At.Diagonal) {
			n++
		}
	}
	return n
}

// owes reports whether player must relocate a blocked stone (T3b).
func owes(stones [tiles.Stones]tiles.StoneView, player string) bool {
	for _, s := range stones {
		if s.Owed == player {
			return true
		}
	}
	return false
}

// release gives the referee the held cards that need not wait any more:
// the stones they lie by are known now.
func (l *Loop) release() {
	reordered := 0
	for i := 0; i < len(l.waiting) && l.finisher == nil; i++ {
		w := l.waiting[i]
		if !w.held || l.now < w.grace {
			continue
		}
		if w.stone != nil && l.passOver(i) {
			i = -1 // from the start: the stones have changed
			continue
		}
		if card := w.stoned(); l.mustHold(card, i) { // (named for the stone seen onto it, it waits for no move)
			w.graceOnly = false // held now for what it waits for
			w.suspect = !l.holds(card, i, false)
			continue
		}
		if l.awaitsHeld(i) {
			continue
		}
		if reordered < maxReorders && l.orderByRules(i) {
			reordered++
			i = -1
			continue
		}
		if l.mayMeetEarlier(w) {
			break // (the cards after it wait too: judged in the order seen)
		}
		switch {
		case w.stone != nil: // its stone's move seen already
			l.waiting = slices.Delete(l.waiting, i, i+1)
			l.settle(w, nil)
		case !l.give(w, w.card) || l.takeLast(w): // no stone to await (refused, late, none), or the last card
			l.waiting = slices.Delete(l.waiting, i, i+1)
		}
		i = -1 // from the start: the stones have changed
	}
}

// settleAll settles every waiting card, in the order seen.
func (l *Loop) settleAll() {
	ws := l.waiting
	l.waiting = nil
	for _, w := range ws {
		l.settle(w, nil)
	}
}

// settleBeforeJoker settles the waiting cards before joker o, in the
// order seen, but for a card away from the joker's field whose stone is
// not the joker's and whose move was not seen yet: it is given to the
// referee if held, and goes on awaiting its stone's move, which the
// joker does not touch (a relocation seen seconds after its card, T3b,
// may yet show the card another stone's).
func (l *Loop) settleBeforeJoker(o tiles.Observation) {
	ws := l.waiting
	l.waiting = nil
	for _, w := range ws {
		apart := w.stone == nil && !w.last && w != l.finisher && !slices.ContainsFunc(o.Fields, func(f tiles.Field) bool { return slices.ContainsFunc(w.card.Fields, f.Adjacent) })
		switch {
		case apart && !w.held && w.v.Seq != 0 && w.v.Stone != o.Stone:
			l.waiting = append(l.waiting, w)
		case apart && w.held && w.card.Stone != o.Stone:
			if l.give(w, w.card) {
				if w.v.Stone == o.Stone {
					l.unseenMove(w)
					continue
				}
				l.waiting = append(l.waiting, w)
			}
		default:
			l.settle(w, nil)
		}
	}
}

// settle gives a waiting card to the referee if it was held, then its
// stone's move: the one seen (stone, or w.stone), or (nil) the one the
// rules make. A held card that was its player's last becomes the
// finisher.
func (l *Loop) settle(w *waiting, stone *tiles.Observation) {
	if stone == nil {
		stone = w.stone
	}
	l.relocationInstead(w, stone)
	if w.held {
		card := w.stonedBy(stone)
		l.turnAssumed(card) // first: a stone the loop turns takes the card by the rules
		card, stone = l.identifyLay(card, stone)
		if card.Stone != w.card.Stone {
			l.checkStale(card, card.Stone)
		}
		if !l.give(w, card) {
			// called as laid beside no stone (T2b), a card the camera saw
			// its stone move onto was laid at that stone after all: the
			// referee stood it elsewhere, and takes the move (a stray);
			// taken as gone over unseen by another stone, it was laid at
			// this one
			if stone != nil && len(stone.Fields) == 1 && (l.calledBesideNoStone(card) || l.wentOverUnseen(card)) &&
				l.ref.Reclaims(stone.Stone, stone.Fields[0], stone.TimeMS) {
				_, _ = l.send(*stone)
			}
			return
		}
		if l.takeLast(w) && stone == nil {
			return // the stop waits for the stone (tick)
		}
	}
	stone = l.relocatedOnto(w, stone)
	if stone == nil {
		l.unseenMove(w)
	} else {
		_, _ = l.send(l.identify(*stone)) // a refusal is reported and logged by send
	}
	if w == l.finisher {
		w.moved = true // the stop follows after StopGraceMS (tick)
	}
}

// relocatedOnto is the move of w's stone, just given its card, seen
// stopping on one field of that card: onto the other instead when the
// next card at that stone (held with the move seen onto it, or so in this
// batch) is wrong from the field seen and not from the other, and the
// other takes the stone too. Either field takes a relocated stone (T3b);
// a stone laid at goes onto the farther (T3a), and one seen on the
// nearer is turned only when the next card is legal from the farther.
// The hand that sets a stone down may be seen passing over the first
// field; the turn is noted as unsure.
func (l *Loop) relocatedOnto(w *waiting, stone *tiles.Observation) *tiles.Observation {
	t := l.playingTable()
	if t == nil || stone == nil || w.v.Status != tiles.StatusOK || w.v.Stone != stone.Stone ||
		len(stone.Fields) != 1 || len(w.card.Fields) != 2 || !slices.Contains(w.card.Fields, stone.Fields[0]) {
		return stone
	}
	seen, other := stone.Fields[0], w.card.Fields[0]
	if other == seen {
		other = w.card.Fields[1]
	}
	relocation := w.v.Rule == tiles.T3b
	if !relocation && other != fartherOf(w.card.Fields, w.from) {
		return stone // on the farther field, as it goes
	}
	next := l.nextAt(w, stone.Stone)
	if next == nil {
		return stone
	}
	// the wrong cards after the stone stops on f, the stop itself
	// untakable if wrong (a relocation) or counted as one (a card laid at)
	from := func(f tiles.Field) int {
		u := t.Clone()
		_, v, err := u.CheckStone(stone.Stone, f)
		if err != nil || v != nil && relocation {
			return untakable
		}
		u.ApplyStone(stone.Stone, f, w.card.Player, v)
		if v != nil {
			return 1 + wrongIn(u, next)
		}
		return wrongIn(u, next)
	}
	// a card laid at: only a next card legal from the farther field and
	// wrong from the nearer says the stop seen was not the stone's
	if onOther, onSeen := from(other), from(seen); onOther >= onSeen || !relocation && (onOther > 0 || onSeen < 2) {
		return stone
	}
	why := "the card at it relocating it (T3b)"
	if !relocation {
		why = "the card laid at it, the nearer field (T3a)"
	}
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d seen stopping on %v of %s %s at %v: taken onto %v, where the next card at it lies by it",
		stone.TimeMS, stone.Stone, seen, possessive(w.card.Player), why, w.card.Fields, other))
	turned := *stone
	turned.Fields = []tiles.Field{other}
	return &turned
}

// nextAt is the next card at stone after w's: held with the move seen
// onto it, or seen with its move later in this batch; nil if none.
func (l *Loop) nextAt(w *waiting, stone int) []tried {
	// a joker in this batch may lie between (T4): no next card is sure
	if slices.ContainsFunc(l.rest, func(o tiles.Observation) bool { return o.Kind == tiles.ObsJoker }) {
		return nil
	}
	// the stone's next move seen after these, if onto card c
	moveOnto := func(c tiles.Observation, after []tiles.Observation) *tiles.Observation {
		for _, m := range after {
			if m = l.named(m); m.Kind == tiles.ObsStone && m.Stone == stone && len(m.Fields) == 1 {
				if !slices.Contains(c.Fields, m.Fields[0]) {
					return nil
				}
				return &m
			}
		}
		return nil
	}
	for _, x := range l.waiting {
		c := x.stoned()
		if x == w || !x.held || c.Stone != stone && c.Stone != 0 {
			continue
		}
		if m := cmp.Or(x.stone, moveOnto(c, l.rest)); m != nil && m.Stone == stone && len(m.Fields) == 1 && slices.Contains(c.Fields, m.Fields[0]) {
			c.Stone = stone
			return []tried{{card: c, seen: m}}
		}
	}
	for k, e := range l.rest {
		if e = l.named(e); e.Kind == tiles.ObsLay && e.Stone == stone {
			if m := moveOnto(e, l.rest[k+1:]); m != nil {
				return []tried{{card: e, seen: m}}
			}
			return nil
		}
	}
	return nil
}

// calledBesideNoStone reports whether card, just given, was called as
// laid beside no stone (T2b).
func (l *Loop) calledBesideNoStone(card tiles.Observation) bool {
	return l.justJudged(card, tiles.StatusViolation, tiles.T2b)
}

// wentOverUnseen reports whether the referee took card, just given, as
// legal without moving a stone onto it: laid at a stone before a card
// seen with it, the stone went over it unseen.
func (l *Loop) wentOverUnseen(card tiles.Observation) bool {
	return l.justJudged(card, tiles.StatusOK, tiles.T3a)
}

// justJudged reports whether the last piece given is card, judged status
// under rule.
func (l *Loop) justJudged(card tiles.Observation, status tiles.Status, rule tiles.Rule) bool {
	n := len(l.pieces)
	return n > 0 && l.pieces[n-1].rule == rule && l.pieces[n-1].status == status && slices.Equal(l.pieces[n-1].fields, card.Fields)
}

// give sends a card to the referee and notes its verdict in w; it
// reports whether the card's stone is to move (a card judged, not late,
// refused or taken as one the loop inferred). A judged card that moves
// no stone may still be its player's last (lastUnmoved).
func (l *Loop) give(w *waiting, card tiles.Observation) bool {
	if l.inferredTwin(card) {
		l.lastUnmoved(w) // its stone moved already; the last card still ends the round (T5a)
		return false
	}
	l.turnAssumed(card)
	before := l.ref.State().Stones
	v, err := l.send(card)
	if err != nil {
		return false
	}
	l.pieces = append(l.pieces, piece{player: card.Player, fields: card.Fields, status: v.Status, rule: v.Rule, seen: seenAt(card), moved: l.moved})
	if v.Status == tiles.StatusLate || v.Stone < 1 || v.Stone > tiles.Stones {
		l.lastUnmoved(w) // a card beside no stone (T2b) may still be the last
		return false
	}
	w.held, w.v, w.from = false, v, before[v.Stone-1].At
	return true
}

// inferredTwin takes card as the one the loop laid for nobody from its
// stone's move (missedCard) when it lies on that card's fields with
// colours that fit them: the camera saw it late, it is not a second card
// over the first (T2c). The referee learns whose it is; whether it was
// their last is left to the caller (give), which may be releasing the
// waiting cards. It reports whether it took the card.
func (l *Loop) inferredTwin(card tiles.Observation) bool {
	t := l.playingTable()
	if t == nil || card.Kind != tiles.ObsLay || len(card.Fields) != 2 || len(card.Colours) != 2 {
		return false
	}
	i := slices.IndexFunc(l.pieces, func(p piece) bool {
		return p.inferred && p.player == "" && len(p.fields) == 2 && slices.Contains(card.Fields, p.fields[0]) && slices.Contains(card.Fields, p.fields[1])
	})
	if i < 0 || !t.ColoursFit([2]tiles.Field(card.Fields), [2]tiles.Colour(card.Colours)) {
		return false // other colours: a card the loop did not infer
	}
	p := &l.pieces[i]
	p.inferred = false
	if card.Player != "" {
		if _, err := l.send(tiles.Observation{Kind: tiles.ObsOwner, TimeMS: card.TimeMS, Player: card.Player, Fields: p.fields, By: card.By}); err == nil {
			p.player = card.Player
		}
	}
	return true
}

// lay gives a card whose stone is known (the watcher named it, or only
// one stands beside it) to the referee; its stone's move is awaited, and
// then the stop if it was the player's last card. The wait runs from
// since.
func (l *Loop) lay(o tiles.Observation, since int64) {
	w := &waiting{card: o, since: since}
	if l.give(w, o) && !l.takeLast(w) {
		l.waiting = append(l.waiting, w)
	}
}

// lastUnmoved makes w the finisher if its card, which moves no stone
// (beside none, T2b), was its player's last: it still ends the round
// (T5a), after StopGraceMS.
func (l *Loop) lastUnmoved(w *waiting) {
	if l.takeLast(w) {
		w.moved = true
	}
}

// takeLast makes w the finisher if its card was its player's last and
// there is none yet, and reports whether it did.
func (l *Loop) takeLast(w *waiting) bool {
	if l.finisher != nil || !l.finished(w.card) {
		return false
	}
	l.finisher = w
	return true
}

// lastCard reports whether card o, after the player's cards held before
// it, would be their last.
func (l *Loop) lastCard(o tiles.Observation) bool {
	st := l.ref.State()
	if st.Phase != tiles.PhasePlaying || st.Match == nil || o.Player == "" {
		return false
	}
	n := st.Laid[o.Player] + 1
	for _, w := range l.waiting {
		if w.held && w.card.Player == o.Player {
			n++
		}
	}
	return n >= st.Match.InPlay(o.Player)
}

// finished reports whether the card's player has laid all their cards
// in play.
func (l *Loop) finished(o tiles.Observation) bool {
	st := l.ref.State()
	return o.Player != "" && st.Phase == tiles.PhasePlaying && st.Match != nil && st.Laid[o.Player] >= st.Match.InPlay(o.Player)
}

// finishNow gives the finisher's stone the move the rules make, and
// calls the stop.
func (l *Loop) finishNow() {
	if w := l.finisher; w != nil {
		if !w.moved {
			l.unseenMove(w)
		}
		l.finish()
	}
}

// finish calls the finisher's stop and scores the round, after the
// cards seen before their last (held ones at the stone the referee takes
// them for), then applies what came after it.
func (l *Loop) finish() {
	fin := l.finisher
	l.finisher = nil
	early := l.laidBefore(fin.card)
	l.apply(early)
	l.finisher = nil // another player's last card among them: after the stop
	var after []tiles.Observation
	ws := l.waiting
	l.waiting = nil
	for _, w := range ws {
		switch {
		case w.card.TimeMS <= fin.card.TimeMS:
			l.settle(w, nil)
		case w.held && countsBefore(w.card, fin.card):
			// held behind the last card, laid before the stop
			if !slices.ContainsFunc(early, func(o tiles.Observation) bool {
				return o.TimeMS == w.card.TimeMS && slices.Equal(o.Fields, w.card.Fields)
			}) {
				l.noteCounted(w.card, fin.card)
			}
			l.settle(w, nil)
		case w.held:
			after = append(after, w.card) // seen after the last card: late
		}
	}
	l.checkFinished(fin.card, max(fin.card.TimeMS, l.now))
	after = append(after, l.after...)
	l.after = nil
	l.apply(after)
}

// laidBefore takes from the observations that came after last (a
// player's last card) the cards the camera first saw no later than it,
// or another player's before the stop was called (CallDelayMS), and the
// stones' moves onto them: laid before the stop, they count. (The
// finisher's own piece seen just after their last card was laid before
// it, at the same stone: judged after it, it would be called wrong.)
func (l *Loop) laidBefore(last tiles.Observation) []tiles.Observation {
	if last.SeenMS == 0 {
		return nil
	}
	var early, rest []tiles.Observation
	var fields []tiles.Field
	for _, o := range l.after {
		switch {
		case (o.Kind == tiles.ObsLay || o.Kind == tiles.ObsJoker) && countsBefore(o, last):
			l.noteCounted(o, last)
			early = append(early, o)
			fields = append(fields, o.Fields...)
		case o.Kind == tiles.ObsStone && len(o.Fields) == 1 && slices.Contains(fields, o.Fields[0]):
			early = append(early, o)
		default:
			rest = append(rest, o)
		}
	}
	l.after = rest
	return early
}

// countsBefore reports whether card o, reported after last (a player's
// last card), was laid before the stop: first seen no later than last, or
// another player's before the stop was called (CallDelayMS).
func countsBefore(o, last tiles.Observation) bool {
	return o.SeenMS != 0 && last.SeenMS != 0 &&
		(o.SeenMS <= last.SeenMS || o.SeenMS <= last.SeenMS+CallDelayMS && o.Player != last.Player)
}

// noteCounted notes as unsure a card that counts though first seen after
// last (countsBefore).
func (l *Loop) noteCounted(o, last tiles.Observation) {
	if o.SeenMS > last.SeenMS {
		l.noteUnsure(fmt.Sprintf("%d ms: %s's card at %v first seen %d ms after %s's last card: laid before the stop was called, it counts (T5a)",
			o.TimeMS, o.Player, o.Fields, o.SeenMS-last.SeenMS, last.Player))
	}
}

// checkStale notes when the stone that moved onto a card does not
// stand beside it as the referee has it: a card laid at that stone
// before was missed, and the call on this card may be wrong.
func (l *Loop) checkStale(card tiles.Observation, stone int) {
	if stone < 1 || stone > tiles.Stones {
		return
	}
	sv := l.ref.State().Stones[stone-1]
	if sv.Owed != "" {
		return // blocked: it goes onto a card laid anywhere (T3b)
	}
	at := sv.At
	for _, f := range card.Fields {
		if abs(f.X-at.X)+abs(f.Y-at.Y) <= 1 {
			return
		}
	}
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d moved onto %s's card at %v but stands on %v as the referee has it: a card laid at it was probably not seen, and this card's call may be wrong",
		card.TimeMS, stone, card.Player, card.Fields, at))
}

// StayedMS: a stone still seen standing where it stood this long after
// the card laid at it was first seen did not move onto it: a player
// moves the stone as soon as the card is down (T3a).
const StayedMS = 2000

// LandedMS: a card first seen this soon after its fields were last seen
// free was laid in that span; one hidden longer (under hands) may have
// come seconds before, and a stone gone over it unseen since.
const LandedMS = 1500

// unseenMove gives the referee what became of w's stone, not seen moving
// onto w's card: if it stayed where it stood (stayed), the card was a
// wrong play; else the stone made the move the rules make, unseen
// (assumeStone).
func (l *Loop) unseenMove(w *waiting) {
	if l.stayed(w) {
		o := tiles.Observation{Kind: tiles.ObsStayed, TimeMS: max(w.card.TimeMS, l.now), Stone: w.v.Stone, Fields: w.card.Fields, By: "loop"}
		if v, err := l.send(o); err == nil {
			l.rejudge(w.card.Fields[0], v)
			return
		}
	}
	_, _ = l.send(l.identify(*l.assumeStone(w.card, w.v, w.from)))
}

// stayed reports whether the stone w's legal card was laid at was seen
// standing where it stood StayedMS after the card was first seen, and
// no stone on the card from StayedMS before: the only stone beside it,
// it never moved onto it. The card must have been first seen within
// LandedMS of its fields last showing free: when it was laid is known.
func (l *Loop) stayed(w *waiting) bool {
	if w.v.Status != tiles.StatusOK || w.v.Rule == tiles.T3b || w.card.SeenMS == 0 || l.watch == nil ||
		l.watch.StoodOn(w.from) < w.card.SeenMS+StayedMS {
		return false
	}
	for _, f := range w.card.Fields {
		if free := l.watch.SeenFree(f); l.watch.StoodOn(f) >= w.card.SeenMS-StayedMS || free > w.card.SeenMS || w.card.SeenMS-free > LandedMS {
			return false
		}
	}
	t := l.ref.Table()
	if t == nil {
		return false
	}
	// A stone on its start field may have gone onto the card and come
	// back on a card laid over that field since, its half under the
	// stone: the other half, seen alone beside it, tells.
	if _, card := t.Piece(w.from); !card && l.watch.HalfTowards(w.from) {
		return false
	}
	return slices.Equal(stonesBeside(t.Stones(), w.card.Fields), []int{w.v.Stone})
}

// assumeStone is the move a card's stone makes by the rules when the
// camera did not see it (a stone on a card's half is hard to see): onto
// the card's field farther from where it stood (T3a; a card meeting it at
// a corner has both away from it), or its first field for a relocation
// (T3b). Without it, every later card at that stone
// would be judged against a stone that is no longer there, and called
// wrong; assuming the legal move can only miss a wrong one (T3a), which
// the loop says is unsure.
func (l *Loop) assumeStone(o tiles.Observation, v tiles.Verdict, from tiles.Field) *tiles.Observation {
	to := o.Fields[0]
	if v.Rule != tiles.T3b {
		to = fartherOf(o.Fields, from)
	}
	prev := l.assumed[v.Stone-1]
	l.assumed[v.Stone-1] = &assumedMove{to: to, on: slices.Clone(o.Fields), relocates: v.Rule == tiles.T3b, at: l.now}
	if prev != nil && l.now-prev.at <= 2*StoneWaitMS {
		earlier := append(prev.earlier, prev.to)
		l.assumed[v.Stone-1].earlier = earlier[max(0, len(earlier)-maxEarlier):]
	}
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d's move onto %s's card at %v not seen: taken onto %v (T3a)", o.TimeMS, v.Stone, o.Player, o.Fields, to))
	return &tiles.Observation{Kind: tiles.ObsStone, TimeMS: max(o.TimeMS, l.now), Stone: v.Stone, Fields: []tiles.Field{to}, By: "loop"}
}

// possessive names a card's owner ("" when its frame was not read).
func possessive(player string) string {
	if player == "" {
		return "an unread frame's"
	}
	return player + "'s"
}

// fartherOf is the field of fs farther from a stone on from (T3a).
func fartherOf(fs []tiles.Field, from tiles.Field) tiles.Field {
	to, far := fs[0], -1
	for _, f := range fs {
		if d := (f.X-from.X)*(f.X-from.X) + (f.Y-from.Y)*(f.Y-from.Y); d > far {
			to, far = f, d
		}
	}
	return to
}

// takeStrays makes, as the round ends, the move of a stone onto a card
// called as laid beside no stone (T2b) that the stone has come beside
// since: the card was laid at it once it came, and seen first (a hand
// hid the card that brought it), and the stone would have moved onto it
// next (T3a). The referee withdraws the call, as for a move seen, within
// its window after the call (a round seen to end long after, on the next
// board, keeps it). Not a card whose colours are not its fields': laid
// at no stone, it is wrong where it lies; laid at the stone, it would
// be wrong for its colours (T2a) and its move unseen too. Nor by a
// stone that moved twice or more since the call: two cards laid before
// the one called and both seen after it is more than a hand hides.
func (l *Loop) takeStrays(tMS int64) {
	stones := l.ref.State().Stones
	t := l.ref.Table()
	for _, p := range l.pieces {
		if p.rule != tiles.T2b || p.status != tiles.StatusViolation || len(p.fields) != 2 || !t.CardFits([2]tiles.Field(p.fields)) {
			continue
		}
		for _, s := range stonesBeside(stones, p.fields) {
			to := fartherOf(p.fields, stones[s-1].At)
			if l.moved[s-1]-p.moved[s-1] > 1 || !l.ref.Reclaims(s, to, tMS) {
				continue
			}
			l.noteUnsure(fmt.Sprintf("%d ms: %s card at %v, called T2b, lies by stone %d, which came there since: taken as laid at it, the stone's move onto %v not seen before the round ended (T3a)",
				tMS, possessive(p.player), p.fields, s, to))
			_, _ = l.send(tiles.Observation{Kind: tiles.ObsStone, TimeMS: tMS, Stone: s, Fields: []tiles.Field{to}, By: "loop"})
			stones = l.ref.State().Stones
			break
		}
	}
}

// assumedMove is a stone's move the loop assumed: onto to, on the card
// on; relocates when that card relocates it (T3b), where either field
// could take it; turned when the next card showed it stood on the other
// (turnAssumed).
type assumedMove struct {
	to        tiles.Field
	on        []tiles.Field
	relocates bool
	turned    bool
	// earlier are the stone's last stops the loop assumed before, each
	// within 2*StoneWaitMS of the next, not seen yet: the camera may
	// report its way late, stop by stop (until 2*StoneWaitMS after at,
	// when this one was assumed)
	earlier []tiles.Field
	at      int64
}

// maxEarlier is how many of a stone's earlier assumed stops are kept.
const maxEarlier = 3

// before lists a's earlier stops (none for nil).
func (a *assumedMove) before() []tiles.Field {
	if a == nil {
		return nil
	}
	return a.earlier
}

// turnAssumed turns a stone the loop assumed onto one field of the card
// relocating it (T3b) onto the other, when card lies by no stone where
// the stones stand (T2b, T2d) or where its stone did not stand
// (Misplaced), and lies by it beside the other field, fitting there or
// wrong for its colours alone (T2a): the player may have put it on
// either, and calling where card lies wrong would rest on the loop's
// guess alone.
func (l *Loop) turnAssumed(card tiles.Observation) {
	t := l.playingTable()
	lay, ok := layOf(card)
	if t == nil || card.Kind != tiles.ObsLay || !ok || wrongIn(t, []tried{{card: card}}) == 0 {
		return
	}
	if j, err := t.CheckLay(lay); err != nil || liesBy(j) {
		return
	}
	for i, a := range l.assumed {
		if a == nil || !a.relocates || len(a.on) != 2 || t.Awaited(i+1) || t.Stones()[i].At != a.to {
			continue
		}
		other := a.on[0]
		if other == a.to {
			other = a.on[1]
		}
		turned := t.Clone()
		who, v, err := turned.CheckStone(i+1, other)
		if err != nil || v != nil {
			continue
		}
		turned.ApplyStone(i+1, other, who, nil)
		// the card must be laid at this stone
		if j, err := turned.CheckLay(lay); err != nil || !liesBy(j) || j.Stone != i+1 {
			continue
		}
		a.to, a.turned = other, true
		l.noteUnsure(fmt.Sprintf("%d ms: stone %d's relocation onto %v was not seen: %s's card at %v lies by it only beside %v, so it stood there (T3b)",
			card.TimeMS, i+1, a.on, card.Player, card.Fields, other))
		_, _ = l.send(tiles.Observation{Kind: tiles.ObsStone, TimeMS: max(card.TimeMS, l.now), Stone: i + 1, Fields: []tiles.Field{other}, By: "loop"})
		return
	}
}

// liesBy reports whether a card judged j lies by its stone, wrong only
// for its colours (T2a), if at all.
func liesBy(j tiles.Judgement) bool {
	return j.Stone > 0 && !j.Misplaced && !j.Relocates && (j.Violation == nil || j.Violation.Rule == tiles.T2a)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// send gives one observation to the referee and reports the answer.
func (l *Loop) send(o tiles.Observation) (tiles.Verdict, error) {
	v, err := l.ref.Apply(o)
	if err != nil {
		l.log.Warn("observation refused", slog.String("kind", string(o.Kind)), slog.Int64("t_ms", o.TimeMS),
			slog.String("player", o.Player), slog.Any("err", err))
		l.call(fmt.Sprintf("%s refused: %v", o.Kind, err))
	} else {
		l.log.Debug("verdict", slog.String("kind", string(o.Kind)), slog.Int64("t_ms", o.TimeMS),
			slog.String("status", string(v.Status)), slog.String("rule", string(v.Rule)), slog.String("reason", v.Reason))
		if o.Kind != tiles.ObsCardsLeft {
			l.call(callText(v))
		}
		if v.Withdraws > 0 && len(o.Fields) == 1 {
			l.rejudge(o.Fields[0], v)
		}
		l.noteOwed(o)
		if o.Kind == tiles.ObsStone && o.Stone >= 1 && o.Stone <= tiles.Stones {
			l.moved[o.Stone-1]++
		}
	}
	if l.cfg.OnVerdict != nil {
		l.cfg.OnVerdict(Verdict{Obs: o, Verdict: v, Err: err})
	}
	return v, err
}

// noteOwed records, for each stone blocked with o (anew, or again on
// another field), who may owe it: the player the referee has owing it,
// and those whose cards the camera saw within togetherMS of that
// player's latest card. Which of cards seen together came first it
// cannot tell, and so who blocked the stone (T3b, T3c).
func (l *Loop) noteOwed(o tiles.Observation) {
	// the table, not State: State copies every verdict so far, and this
	// runs on every observation
	t := l.ref.Table()
	if t == nil {
		return
	}
	for i, s := range t.Stones() {
		switch {
		case s.Owed == "":
			l.owing[i] = owing{}
		case len(l.owing[i].by) == 0 || l.owing[i].by[0] != s.Owed || l.owing[i].at != s.At:
			l.owing[i] = owing{by: l.suspects(s.Owed, o), at: s.At}
		}
	}
}

// owing is who may owe a blocked stone on at: the player the referee
// has owing it first.
type owing struct {
	by []string
	at tiles.Field
}

// suspects lists player (first) and the players of the cards seen
// within togetherMS of player's latest card or joker: o, if it is one,
// else the newest of this round's pieces.
func (l *Loop) suspects(player string, o tiles.Observation) []string {
	cards := slices.Clone(l.pieces)
	if o.Kind == tiles.ObsLay || o.Kind == tiles.ObsJoker {
		cards = append(cards, piece{player: o.Player, seen: seenAt(o)})
	}
	out := []string{player}
	k := len(cards) - 1
	for k >= 0 && cards[k].player != player {
		k--
	}
	if k < 0 {
		return out
	}
	t0 := cards[k].seen
	for _, p := range cards {
		if p.player != "" && !slices.Contains(out, p.player) && max(p.seen-t0, t0-p.seen) <= togetherMS {
			out = append(out, p.player)
		}
	}
	return out
}

// mayOwe reports whether player may owe a blocked stone (noteOwed).
func (l *Loop) mayOwe(player string) bool {
	return slices.ContainsFunc(l.owing[:], func(ow owing) bool { return slices.Contains(ow.by, player) })
}

// rejudge marks the newest piece on f as v judged it: v withdrew a call
// on it.
func (l *Loop) rejudge(f tiles.Field, v tiles.Verdict) {
	for i := len(l.pieces) - 1; i >= 0; i-- {
		if slices.Contains(l.pieces[i].fields, f) {
			l.pieces[i].status, l.pieces[i].rule = v.Status, v.Rule
			return
		}
	}
}

func callText(v tiles.Verdict) string {
	s := string(v.Status)
	if v.Rule != "" {
		s += " " + string(v.Rule)
	}
	if v.Unsure != "" {
		s += "?" // a guess (the referee's JSON and the pages say why)
	}
	return s + ": " + v.Reason
}

func (l *Loop) call(s string) {
	l.calls = append(l.calls, s)
	if len(l.calls) > maxCalls {
		l.calls = l.calls[len(l.calls)-maxCalls:]
	}
}

// checkFinished calls the stop for a player whose laid cards reached
// their cards in play: they have nothing left to lay (T5a). Then it
// scores the round.
func (l *Loop) checkFinished(o tiles.Observation, tMS int64) {
	st := l.ref.State()
	if st.Phase != tiles.PhasePlaying || st.Match == nil {
		return
	}
	if laid, in := st.Laid[o.Player], st.Match.InPlay(o.Player); laid < in {
		return
	}
	l.takeStrays(tMS)
	if _, err := l.send(tiles.Observation{Kind: tiles.ObsStop, TimeMS: tMS, Player: o.Player, By: "loop"}); err != nil {
		return
	}
	l.count(tMS)
}

// tick settles the cards that waited long enough for their stones.
func (l *Loop) tick(tMS int64) {
	l.now = max(l.now, tMS)
	l.flushOrphans(false)
	if l.finisher == nil && slices.ContainsFunc(l.waiting, func(w *waiting) bool { return w.held && w.grace <= tMS }) {
		l.release()
	}
	for {
		if fin := l.finisher; fin != nil {
			if !fin.stopDue(tMS) || l.awaitsBefore(fin, tMS) {
				return // the rest waits for the stop
			}
			l.finishNow()
		}
		i := slices.IndexFunc(l.waiting, func(w *waiting) bool { return tMS-w.since >= StoneWaitMS })
		if i < 0 {
			return
		}
		l.settleWaitedOut(i)
		l.release()
	}
}

// awaitsBefore reports whether the finisher fin's stop waits for what
// the camera saw before their last card and has not made out yet, at
// most StopHoldMS after it first saw that card.
func (l *Loop) awaitsBefore(fin *waiting, tMS int64) bool {
	seen := fin.card.SeenMS
	return seen > 0 && tMS-seen < StopHoldMS && l.watch.Awaits(seen+CallDelayMS)
}

// settleWaitedOut settles the i-th waiting card, which has waited
// StoneWaitMS, and first the held cards before it that lie near it and
// wait for nothing but their order (their stone's move seen): they were
// laid before it. A held card goes to the referee after the stones of the
// cards given before it, seen clearly before it, have moved (by the
// rules, unseen): their stones moved as those cards were laid, and a
// stone blocked so makes it a relocation (T3b), not a card beside no
// stone (T2b).
func (l *Loop) settleWaitedOut(i int) {
	w := l.waiting[i]
	var first, rest []*waiting
	for _, x := range l.waiting[:i] {
		switch {
		case x.held && x.stone != nil && x.touches(w.card.Fields):
			first = append(first, x)
		case w.held && !x.held && x.v.Stone != 0 && seenBefore(x.card, w.card):
			first = append(first, x)
		default:
			rest = append(rest, x)
		}
	}
	l.waiting = append(rest, l.waiting[i+1:]...)
	order := append(first, w)
	for k, x := range order {
		if l.finisher != nil { // a last card among them: the rest wait for the stop
			l.waiting = append(slices.Clone(order[k:]), l.waiting...)
			return
		}
		l.settle(x, nil)
	}
}

// endRound ends a round the camera saw no end of: nobody was seen to lay
// their last card, so nobody could lay (T6a). If in truth someone did and
// the camera missed some of their cards, this is wrong; it is logged as
// unsure with what each player was seen to lay.
func (l *Loop) endRound(tMS int64, why string) {
	st := l.ref.State()
	switch st.Phase {
	case tiles.PhasePlaying:
		if l.inferFinisher(tMS) {
			return
		}
		var seen []string
		for _, n := range st.Match.Players {
			seen = append(seen, fmt.Sprintf("%s %d of %d", n, st.Laid[n], st.Match.InPlay(n)))
		}
		l.noteUnsure(fmt.Sprintf("%d ms: round %d ended (%s) with nobody seen to lay all their cards (%s): taken as nobody able to lay (T6a)",
			tMS, st.Round, why, strings.Join(seen, ", ")))
		l.takeStrays(tMS)
		if _, err := l.send(tiles.Observation{Kind: tiles.ObsNoPlay, TimeMS: tMS, By: "loop"}); err != nil {
			return
		}
		l.count(tMS)
	case tiles.PhaseCounting:
		l.count(tMS)
	}
}

// count reports every player's cards left as the board says (in play
// less laid) and scores the round.
func (l *Loop) count(tMS int64) {
	st := l.ref.State()
	if st.Phase != tiles.PhaseCounting || st.Match == nil {
		return
	}
	for _, n := range st.Match.Players {
		left := max(0, st.Match.InPlay(n)-st.Laid[n])
		_, _ = l.send(tiles.Observation{Kind: tiles.ObsCardsLeft, TimeMS: tMS, Player: n, Count: left, By: "loop"})
	}
	_, _ = l.send(tiles.Observation{Kind: tiles.ObsRoundEnd, TimeMS: tMS, By: "loop"})
}
