package tiles

import (
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
}

// apply passes the watcher's observations to the referee, and what they
// imply that a camera cannot see. Cards are held until the stone that
// moves onto them (T3a: a stone always moves onto the new card), which
// names the stone a card was laid at (the referee would guess it from the
// card's place, and a relocated blocked stone, T3b, fools the guess); a
// stone seen moving onto no held card belongs to a card given already and
// goes first. A card whose stone does not come within StopWaitMS, or that
// is followed by anything but cards and stones, goes without it. A card
// that was its player's last is followed by their stop (T5a), the cards
// left and the round's end; a round not scored when the next board
// appears ends as nobody able to lay (T6a).
func (l *Loop) apply(obs []tiles.Observation) {
	for _, o := range obs {
		switch o.Kind {
		case tiles.ObsLay:
			l.held = append(l.held, held{obs: o, since: max(o.TimeMS, l.now)})
			continue
		case tiles.ObsStone:
			if o.Stone >= 1 && o.Stone <= tiles.Stones && len(o.Fields) == 1 {
				a := l.assumed[o.Stone-1]
				l.assumed[o.Stone-1] = nil
				if a != nil && *a == o.Fields[0] {
					continue // the move the loop assumed, seen late
				}
			}
			if i := l.heldUnder(o); i >= 0 {
				l.flushHeld(i)
				h := l.held[0].obs
				l.held = l.held[1:]
				if h.Stone == 0 {
					h.Stone = o.Stone
				}
				l.checkStale(h, o.Stone)
				l.lay(h, &o)
				continue
			}
		default:
			l.flushHeld(len(l.held))
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
			l.pieces, l.assumed = nil, [tiles.Stones]*tiles.Field{}
		}
		v, err := l.send(o)
		if o.Kind == tiles.ObsJoker && err == nil {
			l.pieces = append(l.pieces, piece{player: o.Player, fields: o.Fields, status: v.Status})
		}
	}
}

// held is a card waiting for its stone, and when it was seen.
type held struct {
	obs   tiles.Observation
	since int64
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

// heldUnder is the first held card the stone moved onto, or -1.
func (l *Loop) heldUnder(stone tiles.Observation) int {
	if len(stone.Fields) != 1 {
		return -1
	}
	for i, h := range l.held {
		if slices.Contains(h.obs.Fields, stone.Fields[0]) {
			return i
		}
	}
	return -1
}

// lay applies a held card and the stone move that came with it (nil:
// none), then calls the stop if it was the player's last card.
func (l *Loop) lay(o tiles.Observation, stone *tiles.Observation) {
	before := l.ref.State().Stones
	v, err := l.send(o)
	if err == nil {
		l.pieces = append(l.pieces, piece{player: o.Player, fields: o.Fields, status: v.Status})
	}
	if stone == nil && err == nil && v.Status != tiles.StatusLate && v.Stone > 0 && v.Stone <= tiles.Stones {
		stone = l.assumeStone(o, v, before[v.Stone-1].At)
	}
	if stone != nil {
		_, _ = l.send(*stone) // a refusal is reported and logged by send
	}
	if err == nil && v.Status != tiles.StatusLate {
		l.checkFinished(o, max(o.TimeMS, l.now))
	}
}

// assumeStone is the move a card's stone makes by the rules when the
// camera did not see it (a stone on a card's half is hard to see): onto
// the card's field away from where it stood (T3a), or its first field
// for a relocation (T3b). Without it, every later card at that stone
// would be judged against a stone that is no longer there, and called
// wrong; assuming the legal move can only miss a wrong one (T3a), which
// the loop says is unsure.
func (l *Loop) assumeStone(o tiles.Observation, v tiles.Verdict, from tiles.Field) *tiles.Observation {
	to := o.Fields[0]
	if v.Rule != tiles.T3b {
		for _, f := range o.Fields {
			if d := abs(f.X-from.X) + abs(f.Y-from.Y); d > 1 {
				to = f
			}
		}
	}
	l.assumed[v.Stone-1] = &to
	l.noteUnsure(fmt.Sprintf("%d ms: stone %d's move onto %s's card at %v not seen: taken onto %v (T3a)", o.TimeMS, v.Stone, o.Player, o.Fields, to))
	return &tiles.Observation{Kind: tiles.ObsStone, TimeMS: max(o.TimeMS, l.now), Stone: v.Stone, Fields: []tiles.Field{to}, By: "loop"}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// flushHeld applies the first n held cards, in the order seen, without
// their stones.
func (l *Loop) flushHeld(n int) {
	for range n {
		h := l.held[0].obs
		l.held = l.held[1:]
		l.lay(h, nil)
	}
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
	}
	if l.cfg.OnVerdict != nil {
		l.cfg.OnVerdict(Verdict{Obs: o, Verdict: v, Err: err})
	}
	return v, err
}

func callText(v tiles.Verdict) string {
	s := string(v.Status)
	if v.Rule != "" {
		s += " " + string(v.Rule)
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
	if _, err := l.send(tiles.Observation{Kind: tiles.ObsStop, TimeMS: tMS, Player: o.Player, By: "loop"}); err != nil {
		return
	}
	l.count(tMS)
}

// tick applies the cards held long enough without their stones.
func (l *Loop) tick(tMS int64) {
	l.now = max(l.now, tMS)
	n := 0
	for n < len(l.held) && tMS-l.held[n].since >= StopWaitMS {
		n++
	}
	l.flushHeld(n)
}

// endRound ends a round the camera saw no end of: nobody was seen to lay
// their last card, so nobody could lay (T6a). If in truth someone did and
// the camera missed some of their cards, this is wrong; it is logged as
// unsure with what each player was seen to lay.
func (l *Loop) endRound(tMS int64, why string) {
	st := l.ref.State()
	switch st.Phase {
	case tiles.PhasePlaying:
		var seen []string
		for _, n := range st.Match.Players {
			seen = append(seen, fmt.Sprintf("%s %d of %d", n, st.Laid[n], st.Match.InPlay(n)))
		}
		l.noteUnsure(fmt.Sprintf("%d ms: round %d ended (%s) with nobody seen to lay all their cards (%s): taken as nobody able to lay (T6a)",
			tMS, st.Round, why, strings.Join(seen, ", ")))
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
