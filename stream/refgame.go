package stream

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"ligretto/referee"
)

// DefaultFeedLen is how many verdicts GameState.Feed keeps.
const DefaultFeedLen = 40

// RefereeGame is a Controller over the observed referee, which is not safe
// for concurrent use: every call goes through one mutex. The vision
// pipeline (on a camera, or on the demo's rendered table) calls Apply; the
// console's actions become operator observations.
type RefereeGame struct {
	mu      sync.Mutex
	ref     *referee.Referee
	roster  []referee.Player
	feed    []FeedItem
	feedLen int
	version uint64
	changed chan struct{}
	now     func() time.Time
	unsure  []int // piles read unsure (SetUnsure)
}

// NewRefereeGame wraps ref. roster is who plays the next match started from
// the console; nil means four default players.
func NewRefereeGame(ref *referee.Referee, roster []referee.Player) *RefereeGame {
	if roster == nil {
		roster = referee.DefaultPlayers(4)
	}
	return &RefereeGame{ref: ref, roster: slices.Clone(roster), feedLen: DefaultFeedLen,
		changed: make(chan struct{}, 1), now: time.Now}
}

// Apply passes one observation to the referee and records its verdict in
// the feed. A refused observation changes nothing and is returned as the
// referee's error.
func (g *RefereeGame) Apply(o referee.Observation) (referee.Verdict, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.applyLocked(o)
}

func (g *RefereeGame) applyLocked(o referee.Observation) (referee.Verdict, error) {
	v, err := g.ref.Apply(o)
	if err != nil {
		return v, err
	}
	if o.Kind == referee.ObsMatch {
		g.roster = slices.Clone(o.Players)
	}
	g.feed = append(g.feed, FeedItem{Seq: v.Seq, Round: g.ref.State().Round, Time: g.now(), Kind: o.Kind, By: o.By,
		Status: v.Status, Rule: v.Rule, Reason: v.Reason, Pile: v.Pile})
	if n := len(g.feed) - g.feedLen; n > 0 {
		g.feed = slices.Delete(g.feed, 0, n)
	}
	g.touchLocked()
	return v, nil
}

func (g *RefereeGame) touchLocked() {
	g.version++
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// Changed implements Controller.
func (g *RefereeGame) Changed() <-chan struct{} { return g.changed }

// NewMatch implements Controller.
func (g *RefereeGame) NewMatch(s MatchSetup) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	players := s.Players
	if len(players) == 0 {
		players = g.roster
	}
	settings := s.Settings
	_, err := g.applyLocked(referee.Observation{Kind: referee.ObsMatch, Players: slices.Clone(players), Settings: &settings, By: "operator"})
	return err
}

// StartRound implements Controller.
func (g *RefereeGame) StartRound() error {
	_, err := g.Apply(referee.Observation{Kind: referee.ObsRound, By: "operator"})
	return err
}

// Stop implements Controller.
func (g *RefereeGame) Stop(player string) error {
	_, err := g.Apply(referee.Observation{Kind: referee.ObsStop, Player: player, By: "operator"})
	return err
}

// OverridePile implements Controller.
func (g *RefereeGame) OverridePile(pile int, card referee.Face) error {
	_, err := g.Apply(referee.Observation{Kind: referee.ObsOverride, Pile: pile, Card: &card, By: "operator"})
	return err
}

// Undo implements Controller.
func (g *RefereeGame) Undo() error {
	_, err := g.Apply(referee.Observation{Kind: referee.ObsUndo, By: "operator"})
	return err
}

// EnrolBack implements Controller: the roster's player gets this back
// design from the next match on.
func (g *RefereeGame) EnrolBack(player, back string) error {
	back = strings.TrimSpace(back)
	if back == "" || len(back) > 40 || strings.IndexFunc(back, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("%w: back design %q (want 1 to 40 printable characters)", ErrInvalid, back)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	i := slices.IndexFunc(g.roster, func(p referee.Player) bool { return p.Name == player })
	if i < 0 {
		return fmt.Errorf("%w: %q is not on the roster", referee.ErrUnknownPlayer, player)
	}
	for _, p := range g.roster {
		if p.Back == back && p.Name != player {
			return fmt.Errorf("%w: back %q is enrolled for %s already (C1: backs must differ)", ErrInvalid, back, p.Name)
		}
	}
	if g.roster[i].Back == back {
		return nil
	}
	g.roster[i].Back = back
	g.touchLocked()
	return nil
}

// SetUnsure records which piles' tops the camera reads unsure now
// (GameState.Unsure); viewers hear of it only when the list changes.
func (g *RefereeGame) SetUnsure(piles []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if slices.Equal(g.unsure, piles) {
		return
	}
	g.unsure = slices.Clone(piles)
	g.touchLocked()
}

// RefereeState returns the referee's own state: what a source that
// annotates its frames with the calls (the demo) draws.
func (g *RefereeGame) RefereeState() referee.State {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ref.State()
}

// State implements Controller.
func (g *RefereeGame) State() GameState {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.ref.State()
	gs := GameState{Version: g.version, Phase: st.Phase, Round: st.Round, Piles: st.Piles, StoppedBy: st.StoppedBy,
		Deadlock: st.Deadlock, Feed: slices.Clone(g.feed), Roster: slices.Clone(g.roster), Players: []PlayerView{}}
	if gs.Piles == nil {
		gs.Piles = []referee.PileView{}
	}
	for _, id := range g.unsure {
		if slices.ContainsFunc(gs.Piles, func(p referee.PileView) bool { return p.ID == id }) {
			gs.Unsure = append(gs.Unsure, id)
		}
	}
	if gs.Feed == nil {
		gs.Feed = []FeedItem{}
	}
	if m := st.Match; m != nil {
		gs.Match = MatchView{Active: true, Settings: m.Settings, Rounds: len(m.Rounds), Over: m.Over}
		if m.Winner != nil {
			gs.Match.Winner = *m.Winner
		}
		best, unique := "", false
		for _, name := range m.Players {
			pv := PlayerView{Name: name, Back: m.Backs[name], Total: m.Totals[name]}
			if n := len(m.Rounds); n > 0 {
				if ps, ok := m.Rounds[n-1].Players[name]; ok {
					pv.Last = ptr(ps.Score)
				}
			}
			c, hasC := st.Centre[name]
			s, hasS := st.StackLeft[name]
			if st.Phase == referee.PhaseCounting && (hasC || hasS) {
				pv.Live = ptr(referee.Score(c, s).Score)
			}
			gs.Players = append(gs.Players, pv)
			switch t := m.Totals[name]; {
			case best == "" || t > m.Totals[best]:
				best, unique = name, true
			case t == m.Totals[best]:
				unique = false
			}
		}
		if unique && len(m.Rounds) > 0 {
			gs.Match.Leader = best
		}
	}
	return gs
}

func ptr[T any](v T) *T { return &v }
