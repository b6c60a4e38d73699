package tiles

import (
	"fmt"
	"slices"
)

// strayWindowMS is how soon after a card called wrong for where it lies
// (T2b, T2d) a stone moving onto it shows that it was laid at that stone
// after all.
const strayWindowMS = 10000

// stray is a card judged as laid beside no stone (T2b), or meeting the
// corner stone's field at a corner alone (T2d): the verdict that called
// it, by index in the round's verdicts.
type stray struct {
	verdict int
	lay     Lay
	timeMS  int64
	fault   Violation
	corner  int  // T2d: the stone it met at a corner (1..4); 0 for T2b
	late    bool // a card seen late, not called: a stone moving onto it takes it
	// a card taken as gone over unseen by this stone (overtaken), not
	// called: another stone moving onto it took it, laid at that stone,
	// as judged from where it stands (decideOvertakenReclaim)
	over int
	// the card's stone was seen standing beside it all along (decideStayed):
	// only a move seen takes it, not where the stone stands
	stayed bool
}

// strayAt finds the stray card on f that stone (1..4) may have moved
// onto: the stone has no card awaiting it nor relocates onto a card laid
// for it (CheckStone judges those), and the card was laid lately. A card
// called T2d is another stone's only if that stone was blocked (carried
// over to a new place, T3b, it made the card no wrong play, whoever owed
// the stone) or now stands beside it (it came there after the call: the
// card was laid at it, after a card seen later). The corner stone moving
// onto it is the wrong play itself, as is another stone whose field it
// meets at a corner (takenFrom). If the camera swapped the corner
// stone's name with that of a stone beside the card, the call is lost;
// keeping the corner stone's name called legal cards wrong (1361 r2).
func (g *game) strayAt(stone int, f Field, tMS int64) *stray {
	return g.strayOn(g.table, stone, f, tMS)
}

// strayOn is strayAt on table t.
func (g *game) strayOn(t *Table, stone int, f Field, tMS int64) *stray {
	s := g.strays[f]
	if s == nil || t.Awaited(stone) || (s.corner == 0 && t.relocatedBy(stone, f) > 0) || tMS-s.timeMS > strayWindowMS {
		return nil
	}
	if s.corner != 0 && (stone == s.corner || !t.Blocked(stone) && !besideCard(t.stones[stone-1].At, s.lay.Fields)) {
		return nil
	}
	if p, _ := t.Piece(f); p.Kind != PieceCard || p.Owner != s.lay.Player {
		return nil // covered since
	}
	return s
}

// decideReclaim judges stone o moving onto stray card s: a stone moves
// only onto a card laid at it (T3a), so the card was laid at that stone,
// which stood elsewhere than the referee had it (a card laid at it was
// missed), or a blocked stone relocated onto it (T3b), or it came beside
// the card after the call. The T2b or T2d call is withdrawn; the card's
// colours are judged now (T2a), and, for a card that lies by the stone
// where the referee has it (it came beside the card after the call), the
// colour the stone went onto (T3a).
func (g *game) decideReclaim(o Observation, s *stray) (Verdict, func()) {
	l, from := s.lay, g.table.stones[o.Stone-1].At
	far, near := farther(l.Fields, from)
	beside := from.Adjacent(near) // the stone came beside the card after the call
	if s.over != 0 && s.over != o.Stone {
		return g.decideOvertakenReclaim(o, s)
	}
	v := Verdict{Status: StatusOK, Rule: T3a, Player: l.Player, Stone: o.Stone, Withdraws: g.verdicts[s.verdict].Seq}
	switch {
	case s.late:
		v.Withdraws = 0
		v.Reason = fmt.Sprintf("stone %d onto %s's card at %v-%v, seen late: laid at that stone", o.Stone, owner(l.Player), l.Fields[0], l.Fields[1])
	case beside:
		v.Reason = fmt.Sprintf("stone %d onto %s's card at %v-%v, which it came beside after the call: laid at that stone, so the %s call is withdrawn",
			o.Stone, owner(l.Player), l.Fields[0], l.Fields[1], s.fault.Rule)
	case s.corner != 0 || l.Player != "" && g.table.stones[o.Stone-1].Owed == l.Player:
		v.Rule = T3b
		v.Reason = fmt.Sprintf("blocked stone %d from %v onto %s's card at %v-%v: a relocation, so the %s call is withdrawn",
			o.Stone, from, owner(l.Player), l.Fields[0], l.Fields[1], s.fault.Rule)
	default:
		v.Reason = fmt.Sprintf("stone %d onto %s's card at %v-%v: laid at that stone after all (the referee had it on %v), so the %s call is withdrawn",
			o.Stone, owner(l.Player), l.Fields[0], l.Fields[1], from, s.fault.Rule)
	}
	x := g.table.checkColours(l)
	if x == nil && !s.late && beside && o.Fields[0] == near {
		// it lies by the stone where the referee has it: onto its farther colour
		x = violation(T3a, "stone %d goes onto the farther colour at %v, not to %v", o.Stone, far, near)
	}
	if x != nil {
		v.Status, v.Rule, v.Reason = StatusViolation, x.Rule, v.Reason+"; but "+x.Reason
	}
	return v, func() {
		for _, f := range l.Fields {
			delete(g.strays, f)
		}
		if s.corner != 0 {
			g.table.forget(s.corner, l.Fields) // before the move: block judges the corner stone too
		}
		g.table.reclaim(o.Stone, o.Fields[0], l.Player, s.fault, x)
		g.ways[o.Stone-1] = nil
	}
}

// decideOvertakenReclaim judges stone o moving onto card s, taken as
// laid at stone s.over before a card seen with it and gone over unseen:
// the camera saw another stone take it, so it was laid at that one, from
// where it stands. It is judged so now (a card at a corner of it, T2d,
// is called; one at a blocked stone relocates it, T3b).
func (g *game) decideOvertakenReclaim(o Observation, s *stray) (Verdict, func()) {
	l := s.lay
	t := g.table.Clone()
	for _, f := range l.Fields {
		t.pieces[t.board.index(f)] = Piece{}
	}
	at := l
	at.Stone = o.Stone
	v := Verdict{Status: StatusOK, Rule: T3a, Player: l.Player, Stone: o.Stone,
		Reason: fmt.Sprintf("stone %d onto %s's card at %v-%v: laid at it, not at stone %d before the card seen with it", o.Stone, owner(l.Player), l.Fields[0], l.Fields[1], s.over)}
	var x *Violation
	switch j, err := t.CheckLay(at); {
	case err != nil || j.Stone != o.Stone:
		// it judges the card at another stone: only its colours are sure
		x = g.table.checkColours(l)
	case j.Relocates:
		v.Rule, x = T3b, j.Violation
	default:
		x = j.Violation
	}
	if x != nil {
		v.Status, v.Rule, v.Reason = StatusViolation, x.Rule, v.Reason+"; "+x.Reason
	}
	return v, func() {
		for _, f := range l.Fields {
			delete(g.strays, f)
		}
		g.table.reclaim(o.Stone, o.Fields[0], l.Player, Violation{}, x)
		g.ways[o.Stone-1] = nil
	}
}

// besideCard reports whether a stone on f stands beside a field of the
// card on fs (a full edge).
func besideCard(f Field, fs [2]Field) bool { return f.Adjacent(fs[0]) || f.Adjacent(fs[1]) }

// reclaim moves stone onto a card that was judged laid beside no stone,
// replacing that fault of player's with x (nil: none).
func (t *Table) reclaim(stone int, to Field, player string, fault Violation, x *Violation) {
	if player == "" {
		if p, ok := t.Piece(to); ok {
			delete(t.unownedFaults, p.Seq)
			if x != nil {
				t.unownedFaults[p.Seq] = *x
			}
		}
	} else {
		fs := t.faults[player]
		if i := slices.Index(fs, fault); i >= 0 {
			fs = slices.Delete(fs, i, i+1)
		}
		if x != nil {
			fs = append(fs, *x)
		}
		t.faults[player] = fs
		if len(fs) == 0 {
			delete(t.faults, player)
		}
	}
	t.ApplyStone(stone, to, player, nil)
}

// forget drops the wait of stone (1..4) for the card on fs: another stone
// went onto it.
func (t *Table) forget(stone int, fs [2]Field) {
	if p := t.pending[stone-1]; p != nil && slices.Equal(p.fields, fs[:]) {
		t.pending[stone-1] = nil
	}
}

// Reclaims reports whether stone (1..4) moving onto f at tMS would take a
// card called as laid beside no stone or at a corner (T2b, T2d) as laid
// at it after all: that stone's name, as the camera gave it, stands. Not
// a card whose stone stayed beside it (decideStayed): its standing there
// says nothing, though a move onto it still takes it.
func (r *Referee) Reclaims(stone int, f Field, tMS int64) bool {
	if r.g.phase != PhasePlaying || stone < 1 || stone > Stones {
		return false
	}
	s := r.g.strayAt(stone, f, tMS)
	return s != nil && !s.stayed
}

// ReclaimsOnward reports whether stone (1..4), awaiting its move onto
// the card laid at it, moving onto f at tMS would take a card called as
// laid beside no stone or at a corner (T2b, T2d) as laid at it, once it
// went over its own card (T3a: it moves onto each card laid at it).
func (r *Referee) ReclaimsOnward(stone int, f Field, tMS int64) bool {
	g := r.g
	if g.phase != PhasePlaying || stone < 1 || stone > Stones || !g.table.Awaited(stone) {
		return false
	}
	p := g.table.pending[stone-1]
	t := g.table.Clone()
	t.ApplyStone(stone, p.to, p.player, nil)
	return g.strayOn(t, stone, f, tMS) != nil
}

// ReclaimsAfter reports whether, had card l been laid legally at its
// stone (l.Stone, 1..4) and that stone moved onto its farther field
// (T3a), the stone moving onto f at tMS would take a card called as laid
// beside no stone or at a corner (T2b, T2d) as laid at it (Reclaims): l
// blocked the stone, and the card called was its relocation (T3b).
func (r *Referee) ReclaimsAfter(l Lay, f Field, tMS int64) bool {
	g := r.g
	if g.phase != PhasePlaying || l.Stone < 1 || l.Stone > Stones || g.table.Awaited(l.Stone) {
		return false
	}
	t := g.table.Clone()
	j, err := t.CheckLay(l)
	if err != nil || j.Violation != nil || j.Misplaced || j.Relocates || j.Stone != l.Stone {
		return false
	}
	t.ApplyLay(l, j)
	t.ApplyStone(l.Stone, j.StoneTo, l.Player, nil)
	return g.strayOn(t, l.Stone, f, tMS) != nil
}

// settleStray forgets the card called T2d on f once its corner stone has
// moved onto it: that stone took it, no other can.
func (g *game) settleStray(stone int, f Field) {
	if s := g.strays[f]; s != nil && s.corner == stone {
		for _, x := range s.lay.Fields {
			delete(g.strays, x)
		}
	}
}
