package tiles

import "fmt"

// TogetherMS: cards a camera first saw this close together may have been
// laid in either order (a card may lie under the hand that laid it, or
// the next one, for most of a second).
const TogetherMS = 1000

// wayLength is how many of a stone's latest moves are kept to lay a card
// seen late before.
const wayLength = 4

// step is a card laid at a stone, legal or wrong for its colours alone
// (wrong), and the stone's move onto it (to, the farther field, T3a),
// from where it stood (at, with the duties on it then: a joker's
// reservation, T4a).
type step struct {
	lay   Lay
	at    StoneView
	to    Field
	seen  int64 // when the camera first saw the card (0: not known)
	moved bool
	wrong Rule // T2a or none
}

// stepLaid notes the card l judged j at its stone, first seen at seen: a
// card laid at it without a relocation, legal or only of the wrong
// colours (T2a: it lies by the stone and takes it all the same), starts
// the stone's next step; anything else breaks its way (nothing is laid
// before a card wrong otherwise or a relocation), as does a step before
// it whose move the stone did not make there. A card seen late names no
// stone, and leaves the ways alone.
func (g *game) stepLaid(l Lay, j Judgement, seen int64) {
	if j.Stone < 1 || j.Stone > Stones {
		return
	}
	s := j.Stone - 1
	at := g.table.stones[s]
	if n := len(g.ways[s]); n > 0 && (!g.ways[s][n-1].moved || g.ways[s][n-1].to != at.At) {
		g.ways[s] = nil
	}
	var wrong Rule
	if j.Violation != nil {
		wrong = j.Violation.Rule
	}
	if (wrong != "" && wrong != T2a) || j.Relocates || j.Misplaced {
		g.ways[s] = nil
		return
	}
	g.ways[s] = append(g.ways[s], step{lay: l, at: at, to: j.StoneTo, seen: seen, wrong: wrong})
	if len(g.ways[s]) > wayLength {
		g.ways[s] = g.ways[s][1:]
	}
}

// stepMoved notes stone (1..4) moved onto to, judged x: the move the last
// step awaits, or else one that breaks the stone's way.
func (g *game) stepMoved(stone int, to Field, x *Violation) {
	way := g.ways[stone-1]
	if n := len(way); n > 0 && !way[n-1].moved && x == nil && way[n-1].to == to {
		way[n-1].moved = true
		return
	}
	g.ways[stone-1] = nil
}

// overtaken finds the stone whose latest legal cards the card l, wrong
// where the stones stand now (T2b, T2d), fits before: a camera first saw
// it (at seen) within TogetherMS of the first of them, and laid before
// them at that stone it is legal, as every one of them stays, each taking
// the stone onto the field it went to. Seen that close, either order is
// as likely, and the stone went over it unseen. Cards not seen by a
// camera (seen 0: their order is known) never overtake. It returns the
// stone (1..4) and the first card it fits before.
func (g *game) overtaken(l Lay, seen int64) (int, Lay, bool) {
	if seen <= 0 {
		return 0, Lay{}, false
	}
	for s := 1; s <= Stones; s++ {
		way := g.ways[s-1]
		n := len(way)
		if n == 0 || !way[n-1].moved || g.table.pending[s-1] != nil || g.table.stones[s-1].At != way[n-1].to {
			continue
		}
		for i := n - 1; i >= 0; i-- {
			if way[i].seen > 0 && max(seen-way[i].seen, way[i].seen-seen) <= TogetherMS && fitsBefore(g.table, l, s, way[i:]) {
				return s, way[i].lay, true
			}
		}
	}
	return 0, Lay{}, false
}

// fitsBefore reports whether l, laid at stone s before the cards of way
// (taken off a copy of tb, the stone back where it stood before them),
// is legal, and then every card of way, each taking the stone where it
// went (one of the wrong colours stays wrong for that alone).
func fitsBefore(tb *Table, l Lay, s int, way []step) bool {
	t := tb.Clone()
	for _, st := range way {
		for _, f := range st.lay.Fields {
			t.pieces[t.board.index(f)] = Piece{}
		}
	}
	t.stones[s-1] = way[0].at
	t.stones[s-1].Owed = "" // a card was laid at it: not blocked
	t.relocatedOnto[s-1] = nil
	first := l
	first.Stone = s
	j, err := t.CheckLay(first)
	if err != nil || j.Violation != nil || j.Stone != s || j.Relocates || j.Misplaced {
		return false
	}
	t.ApplyLay(first, j)
	t.ApplyStone(s, j.StoneTo, first.Player, nil)
	for _, st := range way {
		next := st.lay
		next.Stone = s
		j, err := t.CheckLay(next)
		// (the stone's fields alternate in parity along its way, so a
		// card that still lies by it takes it where it went; checked all
		// the same)
		if err != nil || !sameWrong(j.Violation, st.wrong) || j.Stone != s || j.Relocates || j.Misplaced || j.StoneTo != st.to {
			return false
		}
		t.ApplyLay(next, j)
		t.ApplyStone(s, st.to, next.Player, nil)
	}
	return true
}

// overtakenVerdict is the verdict on l, laid at stone before the card
// next and gone over unseen. It names no stone: none awaits a move onto
// it.
func overtakenVerdict(l Lay, stone int, next Lay) Verdict {
	return Verdict{Status: StatusOK, Rule: T3a, Player: l.Player,
		Reason: fmt.Sprintf("%s laid %s-%s at %v-%v at stone %d before %s's card at %v-%v, seen with it: the stone went over it unseen",
			owner(l.Player), l.Colours[0], l.Colours[1], l.Fields[0], l.Fields[1], stone, owner(next.Player), next.Fields[0], next.Fields[1])}
}

// layOvertaken lays l, gone over by stone s (1..4) unseen: nothing awaits
// it, and the stone's way is not kept (l has no place in it). Another
// stone seen moving onto it after all takes it, laid at that stone
// (decideOvertakenReclaim).
func (g *game) layOvertaken(l Lay, s int, tMS int64) {
	g.table.ApplyLay(l, Judgement{})
	g.ways[s-1] = nil
	st := &stray{verdict: len(g.verdicts), lay: l, timeMS: tMS, late: true, over: s}
	g.strays[l.Fields[0]], g.strays[l.Fields[1]] = st, st
}

// sameWrong reports whether v is a violation of rule ("": none).
func sameWrong(v *Violation, rule Rule) bool {
	if v == nil {
		return rule == ""
	}
	return v.Rule == rule
}
