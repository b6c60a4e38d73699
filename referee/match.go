package referee

import (
	"fmt"
	"maps"
	"slices"
)

// DeadlockRule chooses what a deadlock does (C17).
type DeadlockRule string

// The two readings of the rulebooks (C17).
const (
	// DeadlockLeader (rulebooks 000, 001): the player leading at that moment
	// wins the match. The round is scored as it stands first.
	DeadlockLeader DeadlockRule = "leader"
	// DeadlockRestart (rulebook 003): everyone shuffles their hand and play
	// resumes.
	DeadlockRestart DeadlockRule = "restart"
)

// ParseDeadlockRule reads "leader" or "restart".
func ParseDeadlockRule(s string) (DeadlockRule, error) {
	switch r := DeadlockRule(s); r {
	case DeadlockLeader, DeadlockRestart:
		return r, nil
	}
	return "", fmt.Errorf("%w: deadlock rule %q (want leader or restart)", ErrInvalid, s)
}

// DefaultTarget is the score that ends a match (C16).
const DefaultTarget = 99

// Settings are the match options agreed before play.
type Settings struct {
	Target   int          `json:"target"`   // points that end the match; 0 means 99
	Rounds   int          `json:"rounds"`   // a fixed number of rounds instead of a target (rulebook 004); 0 for none
	Deadlock DeadlockRule `json:"deadlock"` // "" means leader
	Advanced bool         `json:"advanced"` // C18
}

func (s Settings) withDefaults() Settings {
	if s.Target == 0 {
		s.Target = DefaultTarget
	}
	if s.Deadlock == "" {
		s.Deadlock = DeadlockLeader
	}
	return s
}

// Validate checks the settings after defaults are applied.
func (s Settings) Validate() error {
	s = s.withDefaults()
	if s.Target < 1 {
		return fmt.Errorf("%w: target %d must be positive", ErrInvalid, s.Target)
	}
	if s.Rounds < 0 {
		return fmt.Errorf("%w: rounds %d must not be negative", ErrInvalid, s.Rounds)
	}
	if _, err := ParseDeadlockRule(string(s.Deadlock)); err != nil {
		return err
	}
	return nil
}

// Player is a seat at the match: a name and the back design of their deck.
type Player struct {
	Name string `json:"name"`
	Back string `json:"back"`
}

// Match adds round scores up (C16) and decides the winner. It is not safe
// for concurrent use.
type Match struct {
	players  []Player
	settings Settings
	rounds   []RoundResult
	totals   map[string]int
	over     bool
	winner   string
}

// NewMatch checks the players (C1: distinct names and backs; C2: 2..12)
// and the settings.
func NewMatch(players []Player, s Settings) (*Match, error) {
	names := make([]string, len(players))
	backs := map[string]string{}
	for i, p := range players {
		names[i] = p.Name
		if p.Back == "" {
			return nil, fmt.Errorf("%w: player %q has no back design", ErrInvalid, p.Name)
		}
		if other, dup := backs[p.Back]; dup {
			return nil, violation(C1, "%s and %s both have back %q: every back must be distinct", other, p.Name, p.Back)
		}
		backs[p.Back] = p.Name
	}
	if err := checkPlayers(names); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	m := &Match{players: slices.Clone(players), settings: s.withDefaults(), totals: map[string]int{}}
	for _, n := range names {
		m.totals[n] = 0
	}
	return m, nil
}

// DefaultPlayers names n players P1..Pn with the first n back designs.
func DefaultPlayers(n int) []Player {
	ps := make([]Player, 0, n)
	for i := range min(n, len(BackDesigns)) {
		ps = append(ps, Player{Name: fmt.Sprintf("P%d", i+1), Back: BackDesigns[i]})
	}
	return ps
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

// Settings returns the settings in force, with defaults filled in.
func (m *Match) Settings() Settings { return m.settings }

// Totals returns a copy of the running totals.
func (m *Match) Totals() map[string]int { return maps.Clone(m.totals) }

// Rounds returns a copy of the scored rounds.
func (m *Match) Rounds() []RoundResult { return slices.Clone(m.rounds) }

// Over reports whether the match is decided or finished.
func (m *Match) Over() bool { return m.over }

// Winner returns the winner once the match is decided; "" while it is not,
// or when a match of fixed rounds ended level.
func (m *Match) Winner() string { return m.winner }

// Record adds a scored round. The match ends (C16) after the round in which
// someone reaches the target, won by the highest total; a tie for the top
// plays on. With a fixed number of rounds it ends after the last one. A
// deadlock under the leader rule (C17) ends it at once, won by the leader.
func (m *Match) Record(r RoundResult) error {
	if m.over {
		return fmt.Errorf("%w: the match is over", ErrPhase)
	}
	for name := range r.Players {
		if _, ok := m.totals[name]; !ok {
			return fmt.Errorf("%w: %q in round result", ErrUnknownPlayer, name)
		}
	}
	m.rounds = append(m.rounds, r)
	for name, p := range r.Players {
		m.totals[name] += p.Score
	}
	leader, unique := m.leader()
	switch {
	case r.Deadlock && m.settings.Deadlock == DeadlockLeader:
		m.over = true
		if unique {
			m.winner = leader
		}
	case m.settings.Rounds > 0:
		if len(m.rounds) >= m.settings.Rounds {
			m.over = true
			if unique {
				m.winner = leader
			}
		}
	case m.totals[leader] >= m.settings.Target && unique:
		m.over, m.winner = true, leader
	}
	return nil
}

// leader returns the player with the highest total, and whether nobody shares it.
func (m *Match) leader() (string, bool) {
	best, unique := "", false
	for _, p := range m.players {
		t := m.totals[p.Name]
		switch {
		case best == "" || t > m.totals[best]:
			best, unique = p.Name, true
		case t == m.totals[best]:
			unique = false
		}
	}
	return best, unique
}

// MatchResult is the whole of result.json.
type MatchResult struct {
	Players  []string          `json:"players"`
	Backs    map[string]string `json:"backs"`
	Settings Settings          `json:"settings"`
	Rounds   []RoundResult     `json:"rounds"`
	Totals   map[string]int    `json:"totals"`
	Winner   *string           `json:"winner"`
	Over     bool              `json:"over"`
}

// Result summarises the match so far.
func (m *Match) Result() MatchResult {
	res := MatchResult{Players: m.Names(), Backs: map[string]string{}, Settings: m.settings,
		Rounds: m.Rounds(), Totals: m.Totals(), Over: m.over}
	if res.Rounds == nil {
		res.Rounds = []RoundResult{}
	}
	for _, p := range m.players {
		res.Backs[p.Name] = p.Back
	}
	if m.winner != "" {
		w := m.winner
		res.Winner = &w
	}
	return res
}
