package tiles

import (
	"fmt"
	"slices"
	"strings"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
)

// score compares what a watcher reported with the timeline it watched.
type score struct {
	rounds, roundsRight int // rounds in the timeline, boards read right
	extraRounds         int // rounds reported beyond the timeline's
	matches             int // ObsMatch reported
	lays, laysRead      int
	unowned             int // lays made reported without an owner (counted missed too)
	jokers, jokersRead  int
	stones, stonesRead  int
	wrong               []string // rounds, lays or jokers reported that the simulation did not make
	wrongStones         []string // stone moves reported that the simulation did not make
	missed              []string // lays and jokers not reported
	wrongPlays          int      // lays marked with a violation in the timeline
	wrongPlaysRead      int
}

func (s score) String() string {
	return fmt.Sprintf("rounds %d/%d (+%d extra), lays %d/%d (%d more without an owner), jokers %d/%d, wrong plays read %d/%d, wrong %d; stone moves %d/%d, %d not made",
		s.roundsRight, s.rounds, s.extraRounds, s.laysRead, s.lays, s.unowned, s.jokersRead, s.jokers, s.wrongPlaysRead, s.wrongPlays, len(s.wrong),
		s.stonesRead, s.stones, len(s.wrongStones))
}

// fieldKey names a set of fields in a fixed order, with their colours.
func layKey(player string, fs []tiles.Field, cs []tiles.Colour) string {
	fs, cs = slices.Clone(fs), slices.Clone(cs)
	if len(fs) == 2 && len(cs) == 2 && (fs[1].Y < fs[0].Y || fs[1].Y == fs[0].Y && fs[1].X < fs[0].X) {
		fs[0], fs[1] = fs[1], fs[0]
		cs[0], cs[1] = cs[1], cs[0]
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.String()
	}
	return fmt.Sprintf("%s %v %s", player, fs, strings.Join(names, " "))
}

type roundTruth struct {
	layout  tiles.Layout
	stones  []tiles.Field
	lays    map[string]bool // key -> is a wrong play
	jokers  map[string]bool
	moveSeq [][2]tiles.Field
}

// scoreWatch scores the observations obs against the timeline events.
func scoreWatch(events []tilesim.Event, obs []tiles.Observation) score {
	var s score
	var rounds []*roundTruth
	var cur *roundTruth
	var simStones [tiles.Stones]tiles.Field
	for _, e := range events {
		switch e.Kind {
		case tilesim.EvRound:
			cur = &roundTruth{layout: *e.Layout, stones: e.Stones, lays: map[string]bool{}, jokers: map[string]bool{}}
			copy(simStones[:], e.Stones)
			rounds = append(rounds, cur)
		case tilesim.EvLay:
			cur.lays[layKey(e.Player, e.Fields, e.Card.Colours[:])] = e.Violation != nil
			if e.Violation != nil {
				s.wrongPlays++
			}
			if e.StoneTo != nil {
				cur.moveSeq = append(cur.moveSeq, [2]tiles.Field{simStones[e.Stone-1], *e.StoneTo})
				simStones[e.Stone-1] = *e.StoneTo
			}
		case tilesim.EvJoker:
			cur.jokers[fmt.Sprint(e.Player, e.Fields)] = true
			cur.moveSeq = append(cur.moveSeq, [2]tiles.Field{simStones[e.Stone-1], e.Fields[0]})
			simStones[e.Stone-1] = e.Fields[0]
		}
	}
	s.rounds = len(rounds)
	for _, r := range rounds {
		s.lays += len(r.lays)
		s.jokers += len(r.jokers)
		s.stones += len(r.moveSeq)
	}
	ri := -1
	var seen map[string]bool
	var camStones []tiles.Field
	var moves map[[2]tiles.Field]int
	for _, o := range obs {
		switch o.Kind {
		case tiles.ObsMatch:
			s.matches++
		case tiles.ObsRound:
			ri++
			seen = map[string]bool{}
			camStones = slices.Clone(o.Stones)
			if ri >= len(rounds) {
				s.extraRounds++
				continue
			}
			r := rounds[ri]
			moves = map[[2]tiles.Field]int{}
			for _, m := range r.moveSeq {
				moves[m]++
			}
			a, b := slices.Clone(o.Stones), slices.Clone(r.stones)
			sortFields(a)
			sortFields(b)
			if o.Layout != nil && fmt.Sprint(*o.Layout) == fmt.Sprint(r.layout) && fmt.Sprint(a) == fmt.Sprint(b) {
				s.roundsRight++
			} else {
				s.wrong = append(s.wrong, fmt.Sprintf("round %d: board or stones read wrong (stones %v, want %v)", ri+1, o.Stones, r.stones))
			}
		case tiles.ObsLay, tiles.ObsJoker:
			if ri < 0 || ri >= len(rounds) {
				s.wrong = append(s.wrong, fmt.Sprintf("%s outside a round", o.Kind))
				continue
			}
			r := rounds[ri]
			if o.Kind == tiles.ObsLay && o.Player == "" {
				made := false // by any player, the same fields and colours
				for k := range r.lays {
					if strings.HasSuffix(k, layKey("", o.Fields, o.Colours)) {
						made = true
					}
				}
				if !made {
					s.wrong = append(s.wrong, fmt.Sprintf("round %d, %d ms: an unowned lay %s not made", ri+1, o.TimeMS, layKey("", o.Fields, o.Colours)))
				} else {
					s.unowned++
				}
				continue
			}
			key := layKey(o.Player, o.Fields, o.Colours)
			set := r.lays
			if o.Kind == tiles.ObsJoker {
				key = fmt.Sprint(o.Player, o.Fields)
				set = r.jokers
			}
			bad, ok := set[key]
			switch {
			case !ok || seen[key]:
				s.wrong = append(s.wrong, fmt.Sprintf("round %d, %d ms: %s %s not made", ri+1, o.TimeMS, o.Kind, key))
			case o.Kind == tiles.ObsJoker:
				s.jokersRead++
			default:
				s.laysRead++
				if bad {
					s.wrongPlaysRead++
				}
			}
			seen[key] = true
		case tiles.ObsOwner:
			fs := slices.Clone(o.Fields)
			sortFields(fs)
			made := false // the card read late was that player's
			if ri >= 0 && ri < len(rounds) {
				for k := range rounds[ri].lays {
					made = made || strings.HasPrefix(k, fmt.Sprintf("%s %v ", o.Player, fs))
				}
			}
			if !made {
				s.wrong = append(s.wrong, fmt.Sprintf("round %d, %d ms: owner %s of %v, not their card", ri+1, o.TimeMS, o.Player, o.Fields))
			}
		case tiles.ObsStone:
			if ri < 0 || ri >= len(rounds) || o.Stone < 1 || o.Stone > len(camStones) {
				s.wrongStones = append(s.wrongStones, "a stone move outside a round")
				continue
			}
			m := [2]tiles.Field{camStones[o.Stone-1], o.Fields[0]}
			camStones[o.Stone-1] = o.Fields[0]
			if moves[m] > 0 {
				moves[m]--
				s.stonesRead++
			} else {
				s.wrongStones = append(s.wrongStones, fmt.Sprintf("round %d, %d ms: stone %d from %v to %v", ri+1, o.TimeMS, o.Stone, m[0], m[1]))
			}
		}
	}
	// what was missed
	ri = -1
	reported := map[int]map[string]bool{}
	for _, o := range obs {
		switch o.Kind {
		case tiles.ObsRound:
			ri++
			reported[ri] = map[string]bool{}
		case tiles.ObsLay:
			if ri >= 0 {
				reported[ri][layKey(o.Player, o.Fields, o.Colours)] = true
			}
		case tiles.ObsJoker:
			if ri >= 0 {
				reported[ri][fmt.Sprint(o.Player, o.Fields)] = true
			}
		}
	}
	for i, r := range rounds {
		for _, set := range []map[string]bool{r.lays, r.jokers} {
			keys := make([]string, 0, len(set))
			for k := range set {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if !reported[i][k] {
					s.missed = append(s.missed, fmt.Sprintf("round %d: %s", i+1, k))
				}
			}
		}
	}
	return s
}

func sortFields(fs []tiles.Field) {
	slices.SortFunc(fs, func(a, b tiles.Field) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		return a.X - b.X
	})
}
