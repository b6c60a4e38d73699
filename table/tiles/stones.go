package tiles

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"ligretto/referee/tiles"
)

// identify names the stone that moved by where it went. The four stones
// look alike: the watcher tells them apart only by following them, and
// two moving at once can be swapped. A stone moves only onto the card
// laid at it, so when the stone named cannot have gone where it went and
// exactly one other stone whose card is down can (its card's farther
// field, its joker, or the card relocating it), it was that one. A stone
// moved onto the nearer field of its own card stays a wrong move (T3a).
func (l *Loop) identify(o tiles.Observation) tiles.Observation {
	t := l.playingTable()
	if !stoneMove(t, o) {
		return o
	}
	if _, v, err := t.CheckStone(o.Stone, o.Fields[0]); err != nil || v == nil || l.ref.Reclaims(o.Stone, o.Fields[0], o.TimeMS) {
		return o
	}
	k := otherStone(o.Stone, func(s int) bool {
		_, v, err := t.CheckStone(s, o.Fields[0])
		return err == nil && v == nil && t.Awaited(s)
	})
	if k == 0 {
		return l.relocationSeenLate(o)
	}
	l.log.Info("a stone's move named by where it went", slog.Int64("t_ms", o.TimeMS),
		slog.Int("seen_as", o.Stone), slog.Int("stone", k), slog.String("to", o.Fields[0].String()))
	o.Stone = k
	return o
}

// relocationSeenLate names seen move o, which its stone cannot make, for
// the one stone the loop lately assumed onto one field of the card
// relocating it (T3b, assumeStone) that stands there still and may go
// onto o's, the other: the camera saw the relocation late, and the
// watcher had the two stones swapped since, so the swap is kept (rename)
// and noted as unsure.
func (l *Loop) relocationSeenLate(o tiles.Observation) tiles.Observation {
	if o.By != "camera" {
		return o
	}
	t, to := l.playingTable(), o.Fields[0]
	k := otherStone(o.Stone, func(s int) bool {
		a := l.assumed[s-1]
		if a == nil || !a.relocates || len(a.on) != 2 || a.to == to || !slices.Contains(a.on, to) || l.now-a.at > 2*StoneWaitMS ||
			t.Stones()[s-1].At != a.to || t.Awaited(s) {
			return false
		}
		_, v, err := t.CheckStone(s, to)
		return err == nil && v == nil
	})
	if k == 0 {
		return o
	}
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d seen moving onto %v, where it cannot go: taken as stone %d, assumed onto %v of the card relocating it, seen late onto its other field (stones swapped, T3b)",
		o.TimeMS, o.Stone, to, k, l.assumed[k-1].to))
	l.rename(o.Stone, k)
	l.assumed[k-1] = nil // seen now
	o.Stone = k
	return o
}

// swappedOntoCalled names stone o's move onto a card called as laid
// beside no stone (T2b) for stone j when the watcher swapped two stones
// relocated at once: the stone named is blocked and owed by another
// player, who has a card held that relocates it, while the called card's
// player laid a card at stone j, still awaiting its move, that blocks j
// once it stands on it, so that the called card relocates j (T3b). Two
// relocations as the rules want are likelier than a blocked stone taken
// onto another player's card and its debtor's relocation laid beside no
// stone. j's move onto its card, unseen, is assumed, the two stones
// renamed, and the guess noted as unsure.
func (l *Loop) swappedOntoCalled(o tiles.Observation) tiles.Observation {
	t := l.playingTable()
	if t == nil || o.By != "camera" || len(o.Fields) != 1 || o.Stone < 1 || o.Stone > tiles.Stones || !l.ref.Reclaims(o.Stone, o.Fields[0], o.TimeMS) {
		return o
	}
	i := lastIndexFunc(l.pieces, func(p piece) bool { return slices.Contains(p.fields, o.Fields[0]) }) // the top card
	if i < 0 || l.pieces[i].rule != tiles.T2b || l.pieces[i].status != tiles.StatusViolation {
		return o
	}
	called, k := l.pieces[i], o.Stone
	debtor := t.Stones()[k-1].Owed
	if debtor == "" || debtor == called.player || !l.relocationHeld(t, debtor, k) {
		return o
	}
	for n, w := range l.waiting {
		j := w.v.Stone
		if w.held || j < 1 || j > tiles.Stones || j == k || w.card.Player != called.player || !t.Awaited(j) || len(w.card.Fields) != 2 {
			continue
		}
		u := t.Clone()
		u.ApplyStone(j, fartherOf(w.card.Fields, w.from), w.card.Player, nil)
		if u.Stones()[j-1].Owed != called.player {
			continue
		}
		l.noteUnsure(fmt.Sprintf("%d ms: stone %d seen moving onto %s card at %v, called beside no stone, though %s blocked it and holds a card relocating it: taken as stone %d, which %s card at %v blocks once the stone stands on it, unseen (two relocations at once, stones swapped, T3b)",
			o.TimeMS, k, possessive(called.player), called.fields, debtor, j, possessive(w.card.Player), w.card.Fields))
		l.waiting = slices.Delete(l.waiting, n, n+1)
		l.settle(w, nil) // its move, unseen, as the rules make it
		l.rename(k, j)
		o.Stone = j
		return o
	}
	return o
}

// relocationHeld reports whether player has a card held that relocates
// blocked stone (T3b) on t.
func (l *Loop) relocationHeld(t *tiles.Table, player string, stone int) bool {
	return slices.ContainsFunc(l.waiting, func(w *waiting) bool {
		lay, ok := layOf(w.card)
		if !w.held || w.card.Player != player || !ok {
			return false
		}
		lay.Stone = stone
		j, err := t.CheckLay(lay)
		return err == nil && j.Relocates && j.Stone == stone && j.Violation == nil
	})
}

// identifyLay names the stone card was laid at by where it lies, given
// the stone's move seen onto it. The watcher names both by the stone it
// saw move, and may have swapped two stones that moved at once
// (identify); the referee would then take the card as laid where the
// stone named stood unseen (Misplaced), and judge every later card
// against the swapped stones. When one other stone, not awaiting a card
// of its own, takes the card by the rules and the move seen fits it
// (onto its farther field, or either field of a relocation, T3b), the
// card and the move are that stone's: one the card lies by first, then
// one its player blocked, then one another player blocked (T3c); of two
// alike, the watcher's name stands. A relocation of a blocked stone its
// player cannot owe (T3b) is tried only at one they blocked: two
// relocations at once, swapped; or a card with a wrong stop at one stone
// seen relocating another, whose debtor relocates it at once
// (swappedWithDebtor). A swap the loop carried (names) that
// alone makes the card wrong gives way to the watcher's own name. Either
// way is a guess, so a rename is noted as unsure.
func (l *Loop) identifyLay(card tiles.Observation, move *tiles.Observation) (tiles.Observation, *tiles.Observation) {
	t := l.playingTable()
	if t == nil || card.Kind != tiles.ObsLay || card.Stone < 1 || card.Stone > tiles.Stones || len(card.Fields) != 2 || len(card.Colours) != 2 ||
		move == nil || move.Stone != card.Stone || len(move.Fields) != 1 {
		return card, move
	}
	check := func(s int) (tiles.Judgement, error) {
		return t.CheckLay(tiles.Lay{Player: card.Player, Card: card.Card, Fields: [2]tiles.Field(card.Fields), Colours: [2]tiles.Colour(card.Colours), Stone: s})
	}
	if seen := l.unnamed(card.Stone); seen != card.Stone && spares(check, card.Stone, seen, t.Stones()[seen-1].At, card.Fields) && !l.seenMovingElsewhere(seen, card) {
		return l.renamed(card, move, seen, fmt.Sprintf("%d ms: %s's card at %v is wrong at stone %d, the name the loop gave the watcher's stone %d since a swap, and not at stone %d: taken as stone %d's",
			card.TimeMS, card.Player, card.Fields, card.Stone, seen, seen, seen))
	}
	j, err := check(card.Stone)
	if !l.mayBeSwapped(card, j, err) {
		return card, move
	}
	to := move.Fields[0]
	by := otherStones(t, card, to, check)
	if !j.Misplaced { // a relocation: only at a stone its player blocked
		by[0], by[2] = nil, nil
	}
	for _, ss := range by {
		if len(ss) > 1 {
			ss = l.leftSince(ss, seenAt(card))
		}
		if len(ss) > 1 {
			return card, move
		}
		if len(ss) == 1 {
			return l.renamed(card, move, ss[0], fmt.Sprintf("%d ms: %s's card at %v and the stone's move onto %v seen as stone %d's, which stands on %v: taken as stone %d's, which the card lies by or relocates (stones swapped)",
				card.TimeMS, card.Player, card.Fields, to, card.Stone, t.Stones()[card.Stone-1].At, ss[0]))
		}
	}
	if k, by := l.swappedWithDebtor(card, to, j, check); k > 0 {
		return l.renamed(card, move, k, fmt.Sprintf("%d ms: %s's card at %v seen relocating stone %d, which %s blocked and relocated at once with the card at %v seen under stone %d: taken as stone %d's, which the card lies by, its move onto the nearer field (T3a; stones swapped)",
			card.TimeMS, card.Player, card.Fields, card.Stone, by.Player, by.Fields, k, k))
	}
	return card, move
}

// swappedWithDebtor finds the stone k card was laid at when the watcher
// swapped it with the blocked stone the card is seen relocating (j),
// which its player does not owe: the player who blocked that stone has
// a card held that relocates it, seen under stone k with this card, and
// card lies by stone k, moved onto its nearer field (T3a), while stone
// k, as named, cannot take the debtor's card (takes). The debtor's
// relocation, as it must be, and one wrong stop are likelier than the
// debtor's stone relocated by another player and stone k gone onto a
// card not laid at it. by is the debtor's card, waiting or reported
// with card after it.
func (l *Loop) swappedWithDebtor(card tiles.Observation, to tiles.Field, j tiles.Judgement, check func(int) (tiles.Judgement, error)) (int, tiles.Observation) {
	t := l.playingTable()
	if !j.Relocates || j.Stone != card.Stone || card.Player == "" || !slices.Contains(card.Fields, to) {
		return 0, tiles.Observation{}
	}
	owed := t.Stones()[card.Stone-1].Owed
	if owed == "" || owed == card.Player {
		return 0, tiles.Observation{}
	}
	k := otherStone(card.Stone, func(s int) bool {
		jk, err := check(s)
		return err == nil && jk.Violation == nil && jk.Stone == s && !jk.Relocates && !jk.Misplaced && jk.StoneTo != to && !t.Awaited(s)
	})
	if k == 0 {
		return 0, tiles.Observation{}
	}
	debtors := func(c tiles.Observation, move *tiles.Observation) bool {
		return c.Player == owed && move != nil && move.Stone == k && len(move.Fields) == 1 && slices.Contains(c.Fields, move.Fields[0]) &&
			!slices.Equal(c.Fields, card.Fields) && max(seenAt(c)-seenAt(card), seenAt(card)-seenAt(c)) <= wayMS &&
			relocates(t, c, card.Stone) && !takes(t, c, k, move.Fields[0])
	}
	for _, w := range l.waiting {
		if w.held && debtors(w.card, w.stone) {
			return k, w.card
		}
	}
	// or reported with it, after it
	for i, c := range l.rest {
		if c.Kind != tiles.ObsLay {
			continue
		}
		for _, m := range l.rest[i+1:] {
			if m := l.named(m); m.Kind == tiles.ObsStone && debtors(c, &m) {
				return k, c
			}
		}
	}
	return 0, tiles.Observation{}
}

// otherStones lists the stones other than card's, not awaiting a card
// of their own, that take card by the rules (check) with their move onto
// to: those it lies by, those its player blocked, those another player
// blocked (T3c).
func otherStones(t *tiles.Table, card tiles.Observation, to tiles.Field, check func(int) (tiles.Judgement, error)) (by [3][]int) {
	for s := 1; s <= tiles.Stones; s++ {
		if s == card.Stone || t.Awaited(s) {
			continue
		}
		j, err := check(s)
		if err != nil || j.Violation != nil || j.Misplaced || j.Stone != s ||
			to != j.StoneTo && !(j.Relocates && slices.Contains(card.Fields, to)) {
			continue
		}
		k := 0
		if j.Relocates {
			k = 1
			if t.Stones()[s-1].Owed != card.Player {
				k = 2
			}
		}
		by[k] = append(by[k], s)
	}
	return by
}

// leftSince keeps of stones ss those the camera has not seen on their
// fields since t: the others stood still, and none of them is the stone
// that moved. All of them if that keeps none.
func (l *Loop) leftSince(ss []int, t int64) []int {
	st := l.playingTable().Stones()
	moved := slices.DeleteFunc(slices.Clone(ss), func(s int) bool { return l.watch.StoodOn(st[s-1].At) >= t })
	if len(moved) == 0 {
		return ss
	}
	return moved
}

// mayBeSwapped reports whether card, judged j (err) at the stone named,
// may have been laid at another stone the watcher swapped with it: it
// lies where that stone did not stand (Misplaced), or it relocates a
// blocked stone its player cannot owe (T3b), or is only suspected of
// owing while the player held to owe it relocated a stone at once
// (judged, or held with card and relocating that stone), while one they
// blocked may wait: two relocations at once.
func (l *Loop) mayBeSwapped(card tiles.Observation, j tiles.Judgement, err error) bool {
	switch {
	case err != nil:
		return false
	case j.Misplaced:
		return true
	case !j.Relocates || card.Player == "":
		return false
	case !slices.Contains(l.owing[card.Stone-1].by, card.Player):
		return true
	}
	t := l.playingTable()
	owed := t.Stones()[card.Stone-1].Owed
	together := func(seen int64) bool { return max(seen-seenAt(card), seenAt(card)-seen) <= togetherMS }
	return owed != "" && owed != card.Player && (slices.ContainsFunc(l.pieces, func(p piece) bool {
		return p.player == owed && p.rule == tiles.T3b && p.status == tiles.StatusOK && together(p.seen)
	}) || slices.ContainsFunc(l.waiting, func(w *waiting) bool {
		return w.held && w.card.Player == owed && together(seenAt(w.card)) && relocates(t, w.card, card.Stone)
	}))
}

// takes reports whether card, laid at stone, is legal there with the
// stone's move onto to, its farther field (T3a).
func takes(t *tiles.Table, card tiles.Observation, stone int, to tiles.Field) bool {
	j, ok := judgedAt(t, card, stone)
	return ok && j.Violation == nil && !j.Misplaced && j.Stone == stone && j.StoneTo == to
}

// relocates reports whether card, laid at stone, relocates it legally
// (T3b).
func relocates(t *tiles.Table, card tiles.Observation, stone int) bool {
	j, ok := judgedAt(t, card, stone)
	return ok && j.Violation == nil && j.Relocates && j.Stone == stone
}

// judgedAt is how the referee would judge card laid at stone; false if
// it cannot take it.
func judgedAt(t *tiles.Table, card tiles.Observation, stone int) (tiles.Judgement, bool) {
	lay, ok := layOf(card)
	if !ok {
		return tiles.Judgement{}, false
	}
	lay.Stone = stone
	j, err := t.CheckLay(lay)
	return j, err == nil
}

// identifyJoker names the stone joker o was laid at by where it lies, as
// identifyLay does for a card: the stone the watcher saw move onto it may
// be another that moved at once, swapped. A joker beside no field of the
// stone named but beside exactly one other stone's, not awaiting a card
// of its own, where it fits (T4c), was laid there; the swap is kept
// (rename) and noted as unsure.
func (l *Loop) identifyJoker(o tiles.Observation) tiles.Observation {
	t := l.playingTable()
	if t == nil || o.Kind != tiles.ObsJoker || o.Stone < 1 || o.Stone > tiles.Stones || len(o.Fields) != 1 || !t.Board().On(o.Fields[0]) ||
		t.Stones()[o.Stone-1].At.Adjacent(o.Fields[0]) {
		return o
	}
	k := otherStone(o.Stone, func(s int) bool {
		v, err := t.CheckJoker(o.Player, o.Fields[0], s)
		return err == nil && v == nil && !t.Awaited(s)
	})
	if k == 0 {
		return o
	}
	l.noteUnsure(fmt.Sprintf("%d ms: %s's joker on %v seen as laid at stone %d, which stands on %v: taken as stone %d's, which it lies by (stones swapped)",
		o.TimeMS, o.Player, o.Fields[0], o.Stone, t.Stones()[o.Stone-1].At, k))
	l.rename(o.Stone, k)
	o.Stone = k
	return o
}

// otherStone is the one stone (1..4) other than named that fits; 0 if
// none, or if two do: the watcher's name then stands.
func otherStone(named int, fits func(s int) bool) int {
	k := 0
	for s := 1; s <= tiles.Stones; s++ {
		if s == named || !fits(s) {
			continue
		}
		if k != 0 {
			return 0
		}
		k = s
	}
	return k
}

// renamed is card and its move given to stone s, the swap noted (rename)
// and said to be unsure (why).
func (l *Loop) renamed(card tiles.Observation, move *tiles.Observation, s int, why string) (tiles.Observation, *tiles.Observation) {
	l.noteUnsure(why)
	l.rename(card.Stone, s)
	m := *move
	card.Stone, m.Stone = s, s
	return card, &m
}

// applySeen applies a batch the watcher reported, each observation
// under the referee's names for its stones (names) as they stand when it
// comes: a card of the batch may rename them for the ones after it.
func (l *Loop) applySeen(obs []tiles.Observation) {
	l.seen = true
	defer func() { l.seen = false }()
	l.apply(obs)
}

// named is o under the referee's stone names if the watcher reported it
// (applySeen), not if the loop applies it again.
func (l *Loop) named(o tiles.Observation) tiles.Observation {
	if l.seen && l.applying == 1 && o.Stone >= 1 && o.Stone <= tiles.Stones {
		o.Stone = l.names[o.Stone-1]
	}
	return o
}

// spares reports whether the watcher's own name for a card's stone,
// seen, spares it the call the loop's name (names) makes: the swap did
// not last. By a card missed at that stone (Misplaced) only if one
// missed card could have brought it from where it stands (at) beside
// the card: a stone far off did not come, and the swap lasted.
func spares(check func(int) (tiles.Judgement, error), named, seen int, at tiles.Field, card []tiles.Field) bool {
	j, err := check(named)
	js, errs := check(seen)
	if err != nil || j.Violation == nil || errs != nil || js.Violation != nil {
		return false
	}
	return !js.Misplaced || j.Misplaced || slices.ContainsFunc(card, func(f tiles.Field) bool { return oneCardOff(at, f) })
}

// oneCardOff reports whether a stone on a, taken onto a card laid beside
// it (two fields on at most), stands beside f.
func oneCardOff(a, f tiles.Field) bool { return abs(a.X-f.X)+abs(a.Y-f.Y) <= 3 }

// seenMovingElsewhere reports whether stone s (1..4) was seen moving
// onto another field than card's, a move that waits with its card or
// comes in the same batch: the other stone of a swap the loop carried,
// moving by its swapped name, which says the swap lasted.
func (l *Loop) seenMovingElsewhere(s int, card tiles.Observation) bool {
	if slices.ContainsFunc(l.waiting, func(w *waiting) bool {
		return w.stone != nil && w.stone.Stone == s && !slices.Equal(w.card.Fields, card.Fields)
	}) {
		return true
	}
	return slices.ContainsFunc(l.rest, func(o tiles.Observation) bool {
		return o.Kind == tiles.ObsStone && l.named(o).Stone == s && len(o.Fields) == 1 && !slices.Contains(card.Fields, o.Fields[0])
	})
}

// unnamed is the watcher's name for the stone the referee calls s.
func (l *Loop) unnamed(s int) int {
	for k, n := range l.names {
		if n == s {
			return k + 1
		}
	}
	return s
}

// rename notes that the stone the referee calls from is the one it calls
// to, and the other way round: the watcher swapped the two, and goes on
// naming them so. What it reported before and the loop still holds
// (cards waiting, their moves, orphaned moves, what waits for the stop)
// was named by the old names, and is renamed too: a second card of the
// swap, reported with the first, must not swap the two back.
func (l *Loop) rename(from, to int) {
	swap := func(s *int) {
		switch *s {
		case from:
			*s = to
		case to:
			*s = from
		}
	}
	held := slices.Clone(l.waiting)
	if l.finisher != nil && !slices.Contains(held, l.finisher) {
		held = append(held, l.finisher)
	}
	for _, w := range held {
		swap(&w.card.Stone)
		if w.stone != nil {
			swap(&w.stone.Stone)
		}
	}
	for i := range l.orphans {
		swap(&l.orphans[i].stone.Stone)
	}
	for i := range l.after {
		swap(&l.after[i].Stone)
	}
	for k := range l.names {
		swap(&l.names[k])
	}
}

// sameNames are the watcher's stone names as the referee's: a new board's.
func sameNames() (n [tiles.Stones]int) {
	for k := range n {
		n[k] = k + 1
	}
	return n
}

// OrphanWaitMS is how long a stone's move onto a field where no card is
// known waits for the card: the watcher may report a card a frame or more
// after the stone's move onto it.
const OrphanWaitMS = 1500

// orphan is a stone's move onto a field where no card is known yet.
type orphan struct {
	stone tiles.Observation
	since int64
}

// stoneMove reports whether o is a stone's move onto a field of t's
// board, t a round being played.
func stoneMove(t *tiles.Table, o tiles.Observation) bool {
	return t != nil && o.Kind == tiles.ObsStone && o.Stone >= 1 && o.Stone <= tiles.Stones && len(o.Fields) == 1 && t.Board().On(o.Fields[0])
}

// orphaned reports whether stone o moved onto a free field of t with no
// card laid at it: the card is reported later, or was missed (missedCard).
func orphaned(t *tiles.Table, o tiles.Observation) bool {
	if !stoneMove(t, o) || t.Awaited(o.Stone) || !t.Free(o.Fields[0]) {
		return false
	}
	_, v, err := t.CheckStone(o.Stone, o.Fields[0])
	return err == nil && v != nil
}

// takeOrphans removes the waiting stone moves that due picks, and returns
// them in the order seen.
func (l *Loop) takeOrphans(due func(orphan) bool) []tiles.Observation {
	var out []tiles.Observation
	l.orphans = slices.DeleteFunc(l.orphans, func(o orphan) bool {
		if due(o) {
			out = append(out, o.stone)
			return true
		}
		return false
	})
	return out
}

// adopt applies the waiting stone moves onto one of fs, a card just seen.
func (l *Loop) adopt(fs []tiles.Field) {
	if found := l.takeOrphans(func(o orphan) bool { return slices.Contains(fs, o.stone.Fields[0]) }); len(found) > 0 {
		l.apply(found)
	}
}

// flushOrphans gives the referee the stone moves that waited long enough
// for a card (all of them with all), each after the card it must have
// moved onto (missedCard).
func (l *Loop) flushOrphans(all bool) {
	l.flushIf(func(o orphan) bool { return all || l.now-o.since >= OrphanWaitMS })
}

// flushBeside gives the referee the stone moves seen in earlier frames
// onto a field beside card fs (not under it): the card may be laid at
// that stone where it stands now, so it must be judged after the move.
// (Seen in the same frame, the card under the stone may come next.)
func (l *Loop) flushBeside(fs []tiles.Field) {
	l.flushIf(func(o orphan) bool {
		to := o.stone.Fields[0]
		if o.since >= l.now || slices.Contains(fs, to) {
			return false
		}
		for _, f := range fs {
			if abs(f.X-to.X) <= 1 && abs(f.Y-to.Y) <= 1 {
				return true
			}
		}
		return false
	})
}

func (l *Loop) flushIf(due func(orphan) bool) {
	for _, o := range l.takeOrphans(due) {
		l.missedCard(o)
		_, _ = l.send(o) // a refusal is reported and logged by send
	}
}

// missedCard lays, for nobody, the card that stone o moved onto when no
// card was seen laid at it: a stone moves only onto a new card (T3a), so
// one was laid and the camera missed it. Without it the referee would
// call the move wrong, keep the stone where it was, and call every later
// card laid at the stone's true place wrong. The card is placed where the
// rules put it: on a free field next to the stone's old place and next to
// where it went (of two such, after a diagonal move, the first that is
// legal: the stone's place, which matters most, is the same either way);
// when there is none, or the stone was blocked (its card may lie
// anywhere, T3b), nothing is inferred. The card counts for nobody, so the
// round's scores are not sure: the loop says so.
func (l *Loop) missedCard(o tiles.Observation) {
	t := l.playingTable()
	if !orphaned(t, o) {
		return
	}
	s, to, b := t.Stones()[o.Stone-1], o.Fields[0], t.Board()
	if s.Owed != "" {
		return
	}
	for _, a := range s.At.Neighbours() {
		if !a.Adjacent(to) || !b.On(a) || !t.Free(a) || b.Colour(a) == b.Colour(to) {
			continue
		}
		fs, cs := [2]tiles.Field{a, to}, [2]tiles.Colour{b.Colour(a), b.Colour(to)}
		j, err := t.CheckLay(tiles.Lay{Fields: fs, Colours: cs, Stone: o.Stone})
		if err != nil || j.Violation != nil || j.Stone != o.Stone || j.StoneTo != to {
			continue
		}
		card := tiles.Observation{Kind: tiles.ObsLay, TimeMS: o.TimeMS, Fields: fs[:], Colours: cs[:], Stone: o.Stone, By: "loop"}
		if v, err := l.send(card); err != nil || v.Status != tiles.StatusOK {
			return
		}
		l.pieces = append(l.pieces, piece{fields: card.Fields, status: tiles.StatusOK, inferred: true})
		l.noteUnsure(fmt.Sprintf("%d ms: stone %d moved to %v with no card seen laid at it: a card at %v-%v was missed, laid for nobody (whose it was is not known, so the round's counts may be short)",
			o.TimeMS, o.Stone, to, fs[0], fs[1]))
		l.ownInferred(card.Fields, to)
		return
	}
}

// playingTable is the referee's table while a round is played, else nil.
func (l *Loop) playingTable() *tiles.Table {
	if l.ref.State().Phase != tiles.PhasePlaying {
		return nil
	}
	return l.ref.Table()
}

// inferFinisher ends a round whose finisher was not seen: when exactly
// one player is short of their cards in play by no more than the cards
// laid for nobody this round (frames not read, cards missed), those cards
// were theirs, the last of them their last (T5a). It gives them the
// newest such cards, calls their stop and scores the round, and reports
// whether it did; the loop says it is unsure.
func (l *Loop) inferFinisher(tMS int64) bool {
	st := l.ref.State()
	if st.Phase != tiles.PhasePlaying || st.Match == nil {
		return false
	}
	var unowned []int // indexes into l.pieces, newest first
	for i := len(l.pieces) - 1; i >= 0; i-- {
		if p := l.pieces[i]; p.player == "" && len(p.fields) == 2 {
			unowned = append(unowned, i)
		}
	}
	who, short := "", 0
	for _, n := range st.Match.Players {
		k := st.Match.InPlay(n) - st.Laid[n]
		if k < 1 || k > len(unowned) {
			continue
		}
		if who != "" {
			return false // two could have finished
		}
		who, short = n, k
	}
	if who == "" {
		return false
	}
	for _, i := range unowned[:short] {
		if _, err := l.send(tiles.Observation{Kind: tiles.ObsOwner, TimeMS: tMS, Player: who, Fields: l.pieces[i].fields, By: "loop"}); err != nil {
			return false
		}
		l.pieces[i].player = who
	}
	l.noteUnsure(fmt.Sprintf("%d ms: round %d: nobody was seen to lay their last card, but %s was %d short and %d card(s) were laid for nobody: taken as %s's, and %s as the finisher (T5a)",
		tMS, st.Round, who, short, len(unowned), who, who))
	l.checkFinished(tiles.Observation{Player: who}, tMS)
	return true
}

// carriedOver reports whether stone o's stop on a card the referee would
// take as laid at it after all (called T2b or T2d, or seen late:
// Reclaims), or on one it cannot go onto (a card laid before, T3a), is a
// hand carrying the blocked stone over that card to a relocation (T3b).
// So it is when the stone is blocked, the card's player cannot owe it
// (owing), and a card of one who may owe it, beside that card or
// meeting it at a corner, waits or comes later in this batch with the
// stone's move onto it. The stop is then dropped, and noted as unsure.
// (A move onto the relocation seen only in a later frame is not waited
// for.)
func (l *Loop) carriedOver(o tiles.Observation) bool {
	t := l.ref.Table() // Reclaims checks the phase
	if !stoneMove(t, o) {
		return false
	}
	f, owed := o.Fields[0], t.Stones()[o.Stone-1].Owed
	if owed == "" {
		return false
	}
	if !l.ref.Reclaims(o.Stone, f, o.TimeMS) {
		if _, v, err := t.CheckStone(o.Stone, f); err != nil || v == nil {
			return false
		}
	}
	by := l.owing[o.Stone-1].by
	if !slices.Contains(by, owed) {
		by = append([]string{owed}, by...)
	}
	p, ok := t.Piece(f)
	if !ok || p.Owner == "" || slices.Contains(by, p.Owner) {
		return false
	}
	onto := func(c tiles.Observation) bool {
		if c.Kind != tiles.ObsLay || !slices.Contains(by, c.Player) || !slices.ContainsFunc(c.Fields, func(g tiles.Field) bool { return g.Adjacent(f) || g.Diagonal(f) }) {
			return false
		}
		return slices.ContainsFunc(l.rest, func(s tiles.Observation) bool {
			s = l.named(s)
			return s.Kind == tiles.ObsStone && s.Stone == o.Stone && len(s.Fields) == 1 && slices.Contains(c.Fields, s.Fields[0])
		})
	}
	if !slices.ContainsFunc(l.waiting, func(w *waiting) bool { return w.held && onto(w.card) }) && !slices.ContainsFunc(l.rest, onto) {
		return false
	}
	l.noteUnsure(fmt.Sprintf("%d ms: blocked stone %d seen on %s's card at %v on its way to a relocation by %s: taken as carried over it (T3b)", o.TimeMS, o.Stone, p.Owner, f, strings.Join(by, " or ")))
	return true
}
