package stream

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"ligretto/referee"
	"ligretto/referee/tiles"
)

// GameTiles is GameState.Game for the tile game.
const GameTiles = "tiles"

// TilesView is the tile game's table (rulebook 002) as viewers see it.
// GameState's common fields say the rest: phase, round, stopped_by,
// deadlock, players (back = frame style, total, last = the last round's
// points, live = this round's while counting), feed and match.
type TilesView struct {
	Rounds  int           `json:"rounds"`  // rounds agreed for the match (T6b)
	Players []TilesPlayer `json:"players"` // seat order
	// Stones are the four Ligretto stones, during and after a round.
	Stones []tiles.StoneView `json:"stones,omitempty"`
	// Winners of the last scored round: the finisher, or after a
	// deadlock the most cards laid (T5, T6a).
	Winners []string `json:"winners,omitempty"`
}

// TilesPlayer is one player's line of the tile scoreboard.
type TilesPlayer struct {
	Name  string      `json:"name"`
	Frame tiles.Frame `json:"frame"`
	// Laid counts the cards laid in the round (jokers apart); InPlay is
	// how many the player lays in it: 15 less their player board.
	Laid   int `json:"laid"`
	Jokers int `json:"jokers"`
	InPlay int `json:"in_play"`
	// Left is the count of cards not laid, once counted after the round.
	Left *int `json:"cards_left,omitempty"`
	// Faults are the round's wrong plays, each with its rule (T5b).
	Faults []tiles.Violation `json:"faults,omitempty"`
	// Points is this round's while counting (provisional), then the
	// last scored round's; nil before either.
	Points *int `json:"points,omitempty"`
	Total  int  `json:"total"`
	Board  int  `json:"board"` // cards on the player board, out of the next round (T5c)
}

// TilesGame is a Controller over the tile game's observed referee, which
// is not safe for concurrent use: every call goes through one mutex. The
// camera's loop feeds it through Referee; the console's actions become
// operator observations where the tile game has one.
type TilesGame struct {
	mu      sync.Mutex
	ref     *tiles.Referee
	roster  []tiles.Player
	feed    []FeedItem
	feedLen int
	version uint64
	changed chan struct{}
	now     func() time.Time
}

// NewTilesGame wraps ref. roster is who plays a match started from the
// console without players; nil means the simulator's four.
func NewTilesGame(ref *tiles.Referee, roster []tiles.Player) *TilesGame {
	if roster == nil {
		roster = tiles.DefaultPlayers(4)
	}
	return &TilesGame{ref: ref, roster: slices.Clone(roster), feedLen: DefaultFeedLen,
		changed: make(chan struct{}, 1), now: time.Now}
}

// Apply passes one observation to the referee and records its verdict in
// the feed. A refused observation changes nothing; its error is the
// referee's, marked for the API (ErrConflict, ErrInvalid).
func (g *TilesGame) Apply(o tiles.Observation) (tiles.Verdict, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v, err := g.ref.Apply(o)
	if err != nil {
		return v, tilesError(err)
	}
	if o.Kind == tiles.ObsMatch {
		g.roster = slices.Clone(o.Players)
	}
	player := v.Player
	if player == "" {
		player = o.Player
	}
	g.feed = append(g.feed, FeedItem{Seq: v.Seq, Round: g.ref.State().Round, Time: g.now(), Kind: referee.Kind(o.Kind), By: o.By,
		Status: referee.Status(v.Status), Rule: referee.Rule(v.Rule), Reason: v.Reason, Player: player, Unsure: v.Unsure})
	if n := len(g.feed) - g.feedLen; n > 0 {
		g.feed = slices.Delete(g.feed, 0, n)
	}
	g.version++
	select {
	case g.changed <- struct{}{}:
	default:
	}
	return v, nil
}

// tilesError marks the tile referee's refusals with the API's sentinels:
// a wrong moment is 409, a wrong argument 422.
func tilesError(err error) error {
	switch {
	case errors.Is(err, tiles.ErrPhase), errors.Is(err, tiles.ErrNotRetractable):
		return fmt.Errorf("%w: %w", ErrConflict, err)
	case errors.Is(err, tiles.ErrInvalid), errors.Is(err, tiles.ErrUnknownPlayer), errors.Is(err, tiles.ErrIllegal):
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return err
}

// RefereeState returns the referee's own state.
func (g *TilesGame) RefereeState() tiles.State {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ref.State()
}

// Referee returns the game as the camera loop's referee (Apply, and the
// referee's own State): Controller's State is the viewers'.
func (g *TilesGame) Referee() TilesReferee { return TilesReferee{g} }

// TilesReferee is a TilesGame seen as a tile referee.
type TilesReferee struct{ g *TilesGame }

// Apply passes o to the game (TilesGame.Apply).
func (r TilesReferee) Apply(o tiles.Observation) (tiles.Verdict, error) { return r.g.Apply(o) }

// State returns the referee's own state.
func (r TilesReferee) State() tiles.State { return r.g.RefereeState() }

// Table returns a copy of the round's table (nil before the first round),
// for the loop to ask what a move would mean.
func (r TilesReferee) Table() *tiles.Table {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if t := r.g.ref.Table(); t != nil {
		return t.Clone()
	}
	return nil
}

// Without returns the table had the card judged at seq not been laid
// (tiles.Referee.Without).
func (r TilesReferee) Without(seq int) (*tiles.Table, error) {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.ref.Without(seq)
}

// Reclaims asks the referee whether a stone's move would take a card
// called wrong as laid at that stone after all.
func (r TilesReferee) Reclaims(stone int, f tiles.Field, tMS int64) bool {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.ref.Reclaims(stone, f, tMS)
}

// ReclaimsOnward asks the referee whether a stone's move would take a
// card called wrong once the stone went over its own card.
func (r TilesReferee) ReclaimsOnward(stone int, f tiles.Field, tMS int64) bool {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.ref.ReclaimsOnward(stone, f, tMS)
}

// ReclaimsAfter asks the referee whether a stone's move would take a
// card called wrong once a card laid at it, not judged yet, had blocked
// it.
func (r TilesReferee) ReclaimsAfter(l tiles.Lay, f tiles.Field, tMS int64) bool {
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	return r.g.ref.ReclaimsAfter(l, f, tMS)
}

// Changed implements Controller.
func (g *TilesGame) Changed() <-chan struct{} { return g.changed }

// NewMatch implements Controller. A player's back names their frame
// style (plain, double, dashed, dotted); settings.rounds is the match's
// length (T6b, 0 for 6). The classic settings (target, deadlock,
// advanced) mean nothing here and are ignored: the console sends them
// whatever the game.
func (g *TilesGame) NewMatch(s MatchSetup) error {
	g.mu.Lock()
	players := slices.Clone(g.roster)
	g.mu.Unlock()
	if len(s.Players) > 0 {
		players = make([]tiles.Player, len(s.Players))
		for i, p := range s.Players {
			players[i] = tiles.Player{Name: p.Name, Frame: tiles.Frame(p.Back)}
		}
	}
	_, err := g.Apply(tiles.Observation{Kind: tiles.ObsMatch, Players: players, Settings: &tiles.Settings{Rounds: s.Settings.Rounds}, By: "operator"})
	return err
}

// StartRound implements Controller: not in the tile game, whose round
// begins when the camera sees the board laid out and the stones set.
func (g *TilesGame) StartRound() error {
	return fmt.Errorf("%w: the camera begins a tile round when it sees the board and the stones", ErrUnsupported)
}

// Stop implements Controller: player called "Ligretto Stopp" (T5a).
func (g *TilesGame) Stop(player string) error {
	if player == "" {
		return fmt.Errorf("%w: say who called Ligretto Stopp (T5a)", ErrInvalid)
	}
	_, err := g.Apply(tiles.Observation{Kind: tiles.ObsStop, Player: player, By: "operator"})
	return err
}

// NoPlay implements NoPlayer: nobody can lay a card, the round ends (T6a).
func (g *TilesGame) NoPlay() error {
	_, err := g.Apply(tiles.Observation{Kind: tiles.ObsNoPlay, By: "operator"})
	return err
}

// OverridePile implements Controller: the tile game has no piles.
func (g *TilesGame) OverridePile(int, referee.Face) error {
	return fmt.Errorf("%w: the tile game has no centre piles", ErrUnsupported)
}

// Undo implements Controller: the tile referee takes nothing back.
func (g *TilesGame) Undo() error {
	return fmt.Errorf("%w: the tile referee cannot take an observation back", ErrUnsupported)
}

// EnrolBack implements Controller: tile cards have no backs; a player's
// frame style is given with the match.
func (g *TilesGame) EnrolBack(string, string) error {
	return fmt.Errorf("%w: tile cards are told apart by their frames, given with the match", ErrUnsupported)
}

// State implements Controller.
func (g *TilesGame) State() GameState {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.ref.State()
	gs := GameState{Version: g.version, Game: GameTiles, Phase: referee.Phase(st.Phase), Round: st.Round, StoppedBy: st.StoppedBy,
		Deadlock: st.Deadlock, Piles: []referee.PileView{}, Players: []PlayerView{}, Feed: slices.Clone(g.feed), Roster: []referee.Player{}}
	if gs.Feed == nil {
		gs.Feed = []FeedItem{}
	}
	for _, p := range g.roster {
		gs.Roster = append(gs.Roster, referee.Player{Name: p.Name, Back: string(p.Frame)})
	}
	m := st.Match
	if m == nil {
		return gs
	}
	tv := &TilesView{Rounds: m.Settings.Rounds, Players: []TilesPlayer{}}
	if st.Round > 0 {
		tv.Stones = st.Stones[:]
	}
	var last *tiles.RoundResult
	if n := len(m.Rounds); n > 0 {
		last = &m.Rounds[n-1]
		tv.Winners = last.Winners
	}
	// A round scored leaves the between-rounds table as it was: its
	// lines are the round's result.
	scored := last != nil && (st.Phase == tiles.PhaseBetween || st.Phase == tiles.PhaseOver)
	live := livePoints(st, m)
	gs.Match = MatchView{Active: true, Settings: referee.Settings{Rounds: m.Settings.Rounds}, Rounds: len(m.Rounds), Over: m.Over}
	if m.Winner != nil {
		gs.Match.Winner = *m.Winner
	}
	best, unique := "", false
	table := g.ref.Table()
	for _, name := range m.Players {
		tp := TilesPlayer{Name: name, Frame: m.Frames[name], Laid: st.Laid[name], Faults: st.Faults[name], Total: m.Totals[name],
			Board: m.Boards[name], InPlay: m.InPlay(name)}
		pv := PlayerView{Name: name, Back: string(m.Frames[name]), Total: m.Totals[name]}
		if table != nil {
			tp.Jokers = table.JokersLaid(name)
		}
		if n, ok := st.Left[name]; ok {
			tp.Left = ptr(n)
		}
		if scored {
			pr := last.Players[name]
			tp.InPlay, tp.Left = pr.Laid+pr.CardsLeft, ptr(pr.CardsLeft)
		}
		if last != nil {
			pv.Last, tp.Points = ptr(last.Players[name].Points), ptr(last.Players[name].Points)
		}
		if p, ok := live[name]; ok {
			pv.Live, tp.Points = ptr(p), ptr(p)
		}
		gs.Players = append(gs.Players, pv)
		tv.Players = append(tv.Players, tp)
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
	gs.Tiles = tv
	return gs
}

// livePoints scores the round being counted as the referee will (T5,
// T6a): a player not counted yet holds what they did not lay. Nil
// outside the count.
func livePoints(st tiles.State, m *tiles.MatchResult) map[string]int {
	if st.Phase != tiles.PhaseCounting {
		return nil
	}
	tallies := map[string]tiles.Tally{}
	for _, n := range m.Players {
		left, ok := st.Left[n]
		if !ok {
			left = max(0, m.InPlay(n)-st.Laid[n])
		}
		tallies[n] = tiles.Tally{Laid: st.Laid[n], CardsLeft: left, Fault: len(st.Faults[n]) > 0}
	}
	res := tiles.Score(m.Players, m.Boards, st.StoppedBy, st.Deadlock, tallies)
	out := make(map[string]int, len(res.Players))
	for n, p := range res.Players {
		out[n] = p.Points
	}
	return out
}
