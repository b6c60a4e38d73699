package tiles

import (
	"fmt"
	"maps"
	"slices"
)

// DefaultRounds is the length of a match the rulebook suggests (T6b).
const DefaultRounds = 6

// Settings are what the players agree before the match.
type Settings struct {
	Rounds int `json:"rounds"` // rounds in the match; 0 means 6 (T6b)
	// StrictOrientation counts a card laid with its colours swapped as a
	// fault (T2e). The rulebook leaves it to the table (hint 4); off by default.
	StrictOrientation bool `json:"strict_orientation,omitempty"`
}

func (s Settings) withDefaults() Settings {
	if s.Rounds == 0 {
		s.Rounds = DefaultRounds
	}
	return s
}

// Validate checks the settings.
func (s Settings) Validate() error {
	if s.Rounds < 0 {
		return fmt.Errorf("%w: rounds %d must not be negative", ErrInvalid, s.Rounds)
	}
	return nil
}

// Player is a seat: a name and the frame style of their cards.
type Player struct {
	Name  string `json:"name"`
	Frame Frame  `json:"frame"`
}

// DefaultPlayers names n players P1..Pn with the frames in order.
func DefaultPlayers(n int) []Player {
	ps := make([]Player, 0, n)
	for i := range min(n, len(Frames)) {
		ps = append(ps, Player{Name: fmt.Sprintf("P%d", i+1), Frame: Frames[i]})
	}
	return ps
}

// Match adds rounds up over the agreed number (T6b) and carries each
// player board from round to round (T5c, T5e). It is not safe for
// concurrent use.
type Match struct {
	players  []Player
	settings Settings
	rounds   []RoundResult
	totals   map[string]int
	boards   map[string]int
}

// NewMatch checks the players (2..4, distinct names and frames; T1) and
// the settings.
func NewMatch(players []Player, s Settings) (*Match, error) {
	if _, _, err := PartsFor(len(players)); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &Match{players: slices.Clone(players), settings: s.withDefaults(), totals: map[string]int{}, boards: map[string]int{}}
	frames := map[Frame]bool{}
	for _, p := range players {
		if p.Name == "" {
			return nil, fmt.Errorf("%w: a player without a name", ErrInvalid)
		}
		if _, dup := m.totals[p.Name]; dup {
			return nil, fmt.Errorf("%w: two players named %q", ErrInvalid, p.Name)
		}
		if !p.Frame.Valid() || frames[p.Frame] {
			return nil, fmt.Errorf("%w: player %q's frame %q: each player needs one of plain, double, dashed, dotted, and no two the same (T1)", ErrInvalid, p.Name, p.Frame)
		}
		frames[p.Frame] = true
		m.totals[p.Name] = 0
	}
	return m, nil
}

// Players returns the players in seat order.
func (m *Match) Players() []Player { return slices.Clone(m.players) }

// Names returns the players' names in seat order.
func (m *Match) Names() []string {
	out := make([]string, len(m.players))
	for i, p := range m.players {
		out[i] = p.Name
	}
	return out
}

// Seat returns the player's seat (0..3), or -1.
func (m *Match) Seat(name string) int {
	return slices.IndexFunc(m.players, func(p Player) bool { return p.Name == name })
}

// Settings returns the settings with defaults filled in.
func (m *Match) Settings() Settings { return m.settings }

// Boards returns the cards on each player board, put aside for the next round.
func (m *Match) Boards() map[string]int { return maps.Clone(m.boards) }

// InPlay returns how many cards the player lays in the next round.
func (m *Match) InPlay(name string) int { return CardsPerPlayer - m.boards[name] }

// Totals returns the running totals.
func (m *Match) Totals() map[string]int { return maps.Clone(m.totals) }

// Rounds returns the scored rounds.
func (m *Match) Rounds() []RoundResult { return slices.Clone(m.rounds) }

// Over reports whether the agreed rounds are played.
func (m *Match) Over() bool { return len(m.rounds) >= m.settings.Rounds }

// Score scores a round from the tallies against the current boards (see Score).
func (m *Match) Score(stopper string, deadlock bool, tallies map[string]Tally) RoundResult {
	return Score(m.Names(), m.boards, stopper, deadlock, tallies)
}

// Record adds a scored round: its points to the totals, its boards for
// the next round.
func (m *Match) Record(r RoundResult) error {
	if m.Over() {
		return fmt.Errorf("%w: the match's %d rounds are played", ErrPhase, m.settings.Rounds)
	}
	for name := range r.Players {
		if _, ok := m.totals[name]; !ok {
			return fmt.Errorf("%w: %q in round result", ErrUnknownPlayer, name)
		}
	}
	m.rounds = append(m.rounds, r)
	for name, p := range r.Players {
		m.totals[name] += p.Points
		m.boards[name] = p.Board
	}
	return nil
}

// Winner returns the player with the most points once the match is over;
// "" before, or when the top is shared (the text names no tie-break).
func (m *Match) Winner() string {
	if !m.Over() {
		return ""
	}
	best, unique := "", false
	for _, p := range m.players {
		switch t := m.totals[p.Name]; {
		case best == "" || t > m.totals[best]:
			best, unique = p.Name, true
		case t == m.totals[best]:
			unique = false
		}
	}
	if !unique {
		return ""
	}
	return best
}

// MatchResult is the whole of result.json.
type MatchResult struct {
	Players  []string         `json:"players"`
	Frames   map[string]Frame `json:"frames"`
	Settings Settings         `json:"settings"`
	Rounds   []RoundResult    `json:"rounds"`
	Totals   map[string]int   `json:"totals"`
	Boards   map[string]int   `json:"boards"`
	Winner   *string          `json:"winner"`
	Over     bool             `json:"over"`
}

// InPlay returns how many cards the player lays in the current (or next)
// round: the 15 less those on their player board (T5c). A watcher that
// cannot hear the stop calls it when a player's laid cards reach this.
func (r MatchResult) InPlay(name string) int { return CardsPerPlayer - r.Boards[name] }

// Result summarises the match so far.
func (m *Match) Result() MatchResult {
	res := MatchResult{Players: m.Names(), Frames: map[string]Frame{}, Settings: m.settings,
		Rounds: m.Rounds(), Totals: m.Totals(), Boards: m.Boards(), Over: m.Over()}
	if res.Rounds == nil {
		res.Rounds = []RoundResult{}
	}
	for _, p := range m.players {
		res.Frames[p.Name] = p.Frame
		res.Boards[p.Name] = m.boards[p.Name]
	}
	if w := m.Winner(); w != "" {
		res.Winner = &w
	}
	return res
}
