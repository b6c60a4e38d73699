package tiles

import (
	"fmt"
	"io"
	"maps"
	"slices"
)

// Kind names an observation.
type Kind string

// The observations the observed model takes: what a camera above the
// table sees, and what the players say.
const (
	ObsMatch     Kind = "match"      // a match begins: Players, Settings
	ObsRound     Kind = "round"      // a round begins on Layout with the stones on Stones
	ObsLay       Kind = "lay"        // Player's card (its frame says whose; "" when not read) appeared on Fields showing Colours, at Stone if known
	ObsJoker     Kind = "joker"      // Player's joker appeared on Fields[0], at Stone
	ObsStone     Kind = "stone"      // Stone moved onto Fields[0]
	ObsStayed    Kind = "stayed"     // Stone stood where it was, in sight, long after the card on Fields was laid at it
	ObsStop      Kind = "stop"       // Player called "Ligretto Stopp" (T5a)
	ObsNoPlay    Kind = "no_play"    // nobody can lay a card: the round ends (T6a)
	ObsOwner     Kind = "owner"      // the card on Fields, laid for nobody, is Player's
	ObsCardsLeft Kind = "cards_left" // after the round: Player has Count cards not laid
	ObsRoundEnd  Kind = "round_end"  // the counts are in: score the round (T5)
	ObsRetract   Kind = "retract"    // the card judged at Retracts was laid after cards judged since: take it back, to be judged again
)

// Observation is one thing seen or said. Which fields matter depends on Kind.
type Observation struct {
	Kind   Kind  `json:"kind"`
	TimeMS int64 `json:"t_ms,omitempty"`
	SeenMS int64 `json:"seen_ms,omitempty"` // a lay or joker: when the camera first saw a part of it (0: not known)
	// a lay seen whole only long after it came (a stone or a hand hid a
	// half): the stone it was laid at, and where the stones stood, unknown
	SeenLate bool      `json:"seen_late,omitempty"`
	Player   string    `json:"player,omitempty"`
	Fields   []Field   `json:"fields,omitempty"`
	Colours  []Colour  `json:"colours,omitempty"`
	Card     int       `json:"card,omitempty"` // the card's ID, if known
	Stone    int       `json:"stone,omitempty"`
	Count    int       `json:"count,omitempty"`
	Players  []Player  `json:"players,omitempty"`
	Settings *Settings `json:"settings,omitempty"`
	Layout   *Layout   `json:"layout,omitempty"`
	Stones   []Field   `json:"stones,omitempty"`
	By       string    `json:"by,omitempty"`       // who reported it: camera, operator, sim
	Retracts int       `json:"retracts,omitempty"` // a retract: the Seq of the card taken back
	// Unsure says what the camera could not tell about it: it is one of
	// several ways that fit what was seen equally well, taken by a rule of
	// thumb.
	Unsure string `json:"unsure,omitempty"`
}

// Status classifies a verdict.
type Status string

// Verdict statuses.
const (
	StatusOK        Status = "ok"        // a legal play
	StatusViolation Status = "violation" // a wrong play; Rule says which
	StatusLate      Status = "late"      // a card after the stop: it does not count (T5a)
	StatusScored    Status = "scored"    // a round was scored
	StatusWarning   Status = "warning"   // a count disagrees with the board; scores stand by the count
	StatusInfo      Status = "info"      // anything else accepted
)

// Verdict is the referee's answer to one accepted observation.
type Verdict struct {
	Seq    int    `json:"seq"`
	Status Status `json:"status"`
	Rule   Rule   `json:"rule,omitempty"`
	Reason string `json:"reason"`
	Player string `json:"player,omitempty"` // who made the play judged
	Stone  int    `json:"stone,omitempty"`
	// Withdraws is the Seq of an earlier call of this round that this
	// verdict withdraws: the play was legal after all.
	Withdraws int `json:"withdraws,omitempty"`
	// Unsure is a call's doubt: the observation it judged was a guess
	// (Observation.Unsure), so the call may belong to another play.
	Unsure string `json:"unsure,omitempty"`
}

// Phase is where the observed match stands.
type Phase string

// The phases, in the order a round goes through them.
const (
	PhaseNoMatch  Phase = "no_match"
	PhaseBetween  Phase = "between_rounds"
	PhasePlaying  Phase = "playing"
	PhaseCounting Phase = "counting" // after the stop or a deadlock
	PhaseOver     Phase = "match_over"
)

// State is a copy of what the referee knows, for display and tests.
type State struct {
	Phase     Phase                  `json:"phase"`
	Round     int                    `json:"round"`
	Stones    [Stones]StoneView      `json:"stones"`
	Laid      map[string]int         `json:"laid,omitempty"`
	Faults    map[string][]Violation `json:"faults,omitempty"`
	StoppedBy string                 `json:"stopped_by,omitempty"`
	Deadlock  bool                   `json:"deadlock"`
	Left      map[string]int         `json:"cards_left,omitempty"`
	Verdicts  []Verdict              `json:"verdicts"` // this round's, oldest first
	Match     *MatchResult           `json:"match,omitempty"`
}

// game is the state folded from the observations.
type game struct {
	match    *Match
	phase    Phase
	round    int
	table    *Table
	stopper  string
	deadlock bool
	left     map[string]int
	verdicts []Verdict
	strays   map[Field]*stray // this round's cards called as laid beside no stone or at a corner, by field
	ways     [Stones][]step   // each stone's latest legal cards and moves this round (overtaken)
}

// Referee is the observed model: it takes observations, decides every
// play, and appends each accepted observation with its verdict to a log.
// It is not safe for concurrent use.
type Referee struct {
	g   *game
	seq int
	log io.Writer
	// since are the observations accepted since the match began, with
	// their verdicts: a retract folds them again without the card.
	since []accepted
}

// Option configures a Referee.
type Option func(*Referee)

// WithLog appends every accepted observation and verdict to w as JSON
// lines, one Write per line, so that a killed process loses at most that line.
func WithLog(w io.Writer) Option { return func(r *Referee) { r.log = w } }

// New returns a referee with no match yet.
func New(opts ...Option) *Referee {
	r := &Referee{g: &game{phase: PhaseNoMatch}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Apply decides one observation. A malformed or out-of-place observation
// is an error (ErrInvalid, ErrPhase, ErrUnknownPlayer) and changes nothing.
// An accepted one is logged, then folded into the state; its verdict says
// whether the play was legal and, if not, which rule it broke.
func (r *Referee) Apply(o Observation) (Verdict, error) {
	decide := r.g.decide
	if o.Kind == ObsRetract {
		decide = r.decideRetract
	}
	v, commit, err := decide(o)
	if err != nil {
		return Verdict{}, err
	}
	v.Seq = r.seq + 1
	if v.Status == StatusViolation {
		v.Unsure = o.Unsure
	}
	if r.log != nil {
		line, err := encodeEntry(Entry{Seq: v.Seq, Obs: o, Verdict: v})
		if err != nil {
			return Verdict{}, err
		}
		if _, err := r.log.Write(line); err != nil {
			return Verdict{}, fmt.Errorf("append to referee log: %w", err)
		}
	}
	r.seq++
	commit()
	r.g.verdicts = append(r.g.verdicts, v)
	if o.Kind == ObsMatch {
		r.since = r.since[:0]
	}
	r.since = append(r.since, accepted{obs: o, v: v})
	return v, nil
}

// State returns a copy of what the referee knows now.
func (r *Referee) State() State {
	g := r.g
	s := State{Phase: g.phase, Round: g.round, StoppedBy: g.stopper, Deadlock: g.deadlock,
		Left: maps.Clone(g.left), Verdicts: slices.Clone(g.verdicts)}
	if g.table != nil {
		s.Stones, s.Laid, s.Faults = g.table.Stones(), g.table.Laid(), g.table.Faults()
	}
	s.Match = r.Match()
	return s
}

// Table returns the round's table, or nil before the first round. Read it only.
func (r *Referee) Table() *Table { return r.g.table }

// Match returns the match result so far, or nil before a match begins.
func (r *Referee) Match() *MatchResult {
	if r.g.match == nil {
		return nil
	}
	m := r.g.match.Result()
	return &m
}

func (g *game) hasPlayer(name string) bool { return g.match != nil && g.match.Seat(name) >= 0 }

// decide computes the verdict for o and a commit that folds it in. It
// changes nothing itself, so a failed log write loses nothing.
func (g *game) decide(o Observation) (Verdict, func(), error) {
	switch o.Kind {
	case ObsMatch:
		return g.decideMatch(o)
	case ObsRound:
		return g.decideRound(o)
	case ObsLay:
		return g.decideLay(o)
	case ObsJoker:
		return g.decideJoker(o)
	case ObsStone:
		return g.decideStone(o)
	case ObsStayed:
		return g.decideStayed(o)
	case ObsStop, ObsNoPlay:
		return g.decideEnd(o)
	case ObsOwner:
		return g.decideOwner(o)
	case ObsCardsLeft:
		return g.decideCount(o)
	case ObsRoundEnd:
		return g.decideRoundEnd()
	}
	return Verdict{}, nil, fmt.Errorf("%w: observation kind %q", ErrInvalid, o.Kind)
}

func (g *game) decideMatch(o Observation) (Verdict, func(), error) {
	if g.phase == PhasePlaying || g.phase == PhaseCounting {
		return Verdict{}, nil, fmt.Errorf("%w: a match cannot begin during a round", ErrPhase)
	}
	var s Settings
	if o.Settings != nil {
		s = *o.Settings
	}
	m, err := NewMatch(o.Players, s)
	if err != nil {
		return Verdict{}, nil, err
	}
	return Verdict{Status: StatusInfo, Rule: T6b, Reason: fmt.Sprintf("match of %d players over %d rounds", len(o.Players), m.Settings().Rounds)},
		func() { *g = game{match: m, phase: PhaseBetween} }, nil
}

func (g *game) decideRound(o Observation) (Verdict, func(), error) {
	if g.phase != PhaseBetween {
		return Verdict{}, nil, fmt.Errorf("%w: a round begins only between rounds (now %s)", ErrPhase, g.phase)
	}
	if o.Layout == nil || len(o.Stones) != Stones {
		return Verdict{}, nil, fmt.Errorf("%w: a round needs the board layout and the 4 stones' places", ErrInvalid)
	}
	want, _, _ := PartsFor(len(g.match.players))
	if len(o.Layout.Parts) != want {
		return Verdict{}, nil, fmt.Errorf("%w: %d board parts for %d players, want %d (T1)", ErrInvalid, len(o.Layout.Parts), len(g.match.players), want)
	}
	b, err := NewBoard(*o.Layout)
	if err != nil {
		return Verdict{}, nil, err
	}
	t, err := NewTable(b, [Stones]Field(o.Stones), g.match.settings.StrictOrientation)
	if err != nil {
		return Verdict{}, nil, err
	}
	return Verdict{Status: StatusInfo, Reason: fmt.Sprintf("round %d begins", g.round+1)}, func() {
		g.round++
		g.phase, g.table = PhasePlaying, t
		g.stopper, g.deadlock, g.left, g.verdicts, g.strays = "", false, map[string]int{}, nil, map[Field]*stray{}
		g.ways = [Stones][]step{}
	}, nil
}

// playing checks that a play can be judged now: an error outside a
// round, a late verdict after the stop (T5a).
func (g *game) playing(o Observation) (*Verdict, error) {
	if g.phase != PhasePlaying && g.phase != PhaseCounting {
		return nil, fmt.Errorf("%w: %s outside a round (now %s)", ErrPhase, o.Kind, g.phase)
	}
	if o.Player != "" && !g.hasPlayer(o.Player) {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPlayer, o.Player)
	}
	switch g.phase {
	case PhasePlaying:
		return nil, nil
	case PhaseCounting:
		return &Verdict{Status: StatusLate, Rule: T5a, Player: o.Player, Stone: o.Stone,
			Reason: fmt.Sprintf("%s after the round ended: it does not count", o.Kind)}, nil
	}
	return nil, fmt.Errorf("%w: %s outside a round (now %s)", ErrPhase, o.Kind, g.phase)
}

func (g *game) decideLay(o Observation) (Verdict, func(), error) {
	if late, err := g.playing(o); late != nil || err != nil {
		return deref(late), func() {}, err
	}
	if len(o.Fields) != 2 || len(o.Colours) != 2 {
		return Verdict{}, nil, fmt.Errorf("%w: a card covers 2 fields with 2 colours, not %d and %d", ErrInvalid, len(o.Fields), len(o.Colours))
	}
	l := Lay{Player: o.Player, Card: o.Card, Fields: [2]Field(o.Fields), Colours: [2]Colour(o.Colours), Stone: o.Stone}
	check := g.table.CheckLay
	if o.SeenLate {
		l.Stone, check = 0, g.table.CheckLate
	}
	j, err := check(l)
	if err != nil {
		return Verdict{}, nil, err
	}
	v := Verdict{Status: StatusOK, Player: o.Player, Stone: j.Stone,
		Reason: fmt.Sprintf("%s laid %s-%s at %v-%v", owner(o.Player), l.Colours[0], l.Colours[1], l.Fields[0], l.Fields[1])}
	if o.SeenLate {
		v.Reason += ", seen late: the stone it was laid at is not judged"
	}
	if j.Relocates {
		v.Rule, v.Reason = T3b, v.Reason+fmt.Sprintf(", a free place for blocked stone %d", j.Stone)
	}
	if j.Misplaced {
		v.Reason += fmt.Sprintf(" at stone %d, not where the referee had it (%v): a card laid at it was missed", j.Stone, g.table.stones[j.Stone-1].At)
	}
	if j.Violation != nil {
		if !o.SeenLate && wrongWhereItLies(j) {
			if s, next, ok := g.overtaken(l, o.SeenMS); ok {
				return overtakenVerdict(l, s, next), func() { g.layOvertaken(l, s, o.TimeMS) }, nil
			}
		}
		v.Status, v.Rule, v.Reason = StatusViolation, j.Violation.Rule, j.Violation.Reason
	}
	return v, func() {
		g.stepLaid(l, j, o.SeenMS)
		g.table.ApplyLay(l, j)
		s := &stray{verdict: len(g.verdicts), lay: l, timeMS: o.TimeMS}
		switch {
		case wrongWhereItLies(j):
			s.fault, s.corner = *j.Violation, j.Stone
		case o.SeenLate && j.Violation == nil: // its stone may not have moved yet
			s.late = true
		default:
			return
		}
		g.strays[l.Fields[0]], g.strays[l.Fields[1]] = s, s
	}, nil
}

// wrongWhereItLies reports whether j calls a card wrong only for where
// it lies against the stones: beside none (T2b), or at a corner of one
// (T2d). Where they stood may have been other than the referee had them.
func wrongWhereItLies(j Judgement) bool {
	return j.Violation != nil && (j.Stone == 0 && j.Violation.Rule == T2b || j.Violation.Rule == T2d)
}

func (g *game) decideJoker(o Observation) (Verdict, func(), error) {
	if late, err := g.playing(o); late != nil || err != nil {
		return deref(late), func() {}, err
	}
	if len(o.Fields) != 1 {
		return Verdict{}, nil, fmt.Errorf("%w: a joker covers 1 field, not %d", ErrInvalid, len(o.Fields))
	}
	x, err := g.table.CheckJoker(o.Player, o.Fields[0], o.Stone)
	if err != nil {
		return Verdict{}, nil, err
	}
	v := Verdict{Status: StatusOK, Rule: T4c, Player: o.Player, Stone: o.Stone, Reason: fmt.Sprintf("%s laid a joker at %v by stone %d", o.Player, o.Fields[0], o.Stone)}
	if x != nil {
		v.Status, v.Rule, v.Reason = StatusViolation, x.Rule, x.Reason
	}
	return v, func() { g.table.ApplyJoker(o.Player, o.Fields[0], o.Stone, x) }, nil
}

func (g *game) decideStone(o Observation) (Verdict, func(), error) {
	if late, err := g.playing(o); late != nil || err != nil {
		return deref(late), func() {}, err
	}
	if len(o.Fields) != 1 {
		return Verdict{}, nil, fmt.Errorf("%w: a stone stands on 1 field, not %d", ErrInvalid, len(o.Fields))
	}
	if o.Stone >= 1 && o.Stone <= Stones {
		if s := g.strayAt(o.Stone, o.Fields[0], o.TimeMS); s != nil {
			v, commit := g.decideReclaim(o, s)
			return v, commit, nil
		}
	}
	who, x, err := g.table.CheckStone(o.Stone, o.Fields[0])
	if err != nil {
		return Verdict{}, nil, err
	}
	v := Verdict{Status: StatusOK, Rule: T3a, Player: who, Stone: o.Stone, Reason: fmt.Sprintf("stone %d onto %v", o.Stone, o.Fields[0])}
	k := g.table.takenFrom(o.Stone, o.Fields[0])
	switch {
	case k > 0 && g.table.pending[k-1].wrong:
		v.Reason = fmt.Sprintf("stone %d onto %v: %s's card there was laid at it, not at stone %d, whose field it meets at a corner too", o.Stone, o.Fields[0], owner(who), k)
	case k > 0:
		v.Reason = fmt.Sprintf("stone %d onto %v: %s's card there was laid at it, not at stone %d, which it lies beside too", o.Stone, o.Fields[0], owner(who), k)
	case g.table.turned(o.Stone, o.Fields[0]) != nil:
		v.Rule, v.Reason = T3b, fmt.Sprintf("stone %d onto %v, the other field of %s's card it was relocated onto", o.Stone, o.Fields[0], who)
	}
	if x != nil {
		v.Status, v.Rule, v.Reason = StatusViolation, x.Rule, x.Reason
	}
	return v, func() {
		g.stepMoved(o.Stone, o.Fields[0], x)
		g.table.ApplyStone(o.Stone, o.Fields[0], who, x)
		g.settleStray(o.Stone, o.Fields[0])
		if k > 0 {
			g.settleStray(k, o.Fields[0]) // called at stone k's corner, taken by this one
		}
	}, nil
}

// decideEnd ends the round: a stop (T5a; a stop with cards left is the
// caller's fault) or nobody able to lay (T6a).
func (g *game) decideEnd(o Observation) (Verdict, func(), error) {
	if g.phase != PhasePlaying {
		return Verdict{}, nil, fmt.Errorf("%w: %s outside a round (now %s)", ErrPhase, o.Kind, g.phase)
	}
	if o.Kind == ObsNoPlay {
		return Verdict{Status: StatusInfo, Rule: T6a, Reason: "nobody can lay a card: the round ends, the most cards laid wins it"},
			func() { g.phase, g.deadlock = PhaseCounting, true }, nil
	}
	if !g.hasPlayer(o.Player) {
		return Verdict{}, nil, fmt.Errorf("%w: %q called stop", ErrUnknownPlayer, o.Player)
	}
	v := Verdict{Status: StatusInfo, Rule: T5a, Player: o.Player, Reason: o.Player + " called Ligretto Stopp: the round ends"}
	var x *Violation
	if laid, in := g.table.laid[o.Player], g.match.InPlay(o.Player); laid < in {
		x = violation(T5a, "%s called Ligretto Stopp with %d of %d cards laid", o.Player, laid, in)
		v.Status, v.Reason = StatusViolation, x.Reason+"; the round ends"
	}
	return v, func() {
		g.phase, g.stopper = PhaseCounting, o.Player
		if x != nil {
			g.table.faults[o.Player] = append(g.table.faults[o.Player], *x)
		}
	}, nil
}

func (g *game) decideCount(o Observation) (Verdict, func(), error) {
	if g.phase != PhaseCounting {
		return Verdict{}, nil, fmt.Errorf("%w: cards are counted only after the round ends (now %s)", ErrPhase, g.phase)
	}
	if !g.hasPlayer(o.Player) {
		return Verdict{}, nil, fmt.Errorf("%w: %q", ErrUnknownPlayer, o.Player)
	}
	if o.Count < 0 || o.Count > CardsPerPlayer {
		return Verdict{}, nil, fmt.Errorf("%w: %d cards left for %s is impossible", ErrInvalid, o.Count, o.Player)
	}
	return Verdict{Status: StatusInfo, Player: o.Player, Reason: fmt.Sprintf("%s: %d cards left", o.Player, o.Count)},
		func() { g.left[o.Player] = o.Count }, nil
}

// decideRoundEnd scores the round. A player not counted is taken to hold
// what the board says they did not lay; a count that disagrees with the
// board is a warning, and the count stands.
func (g *game) decideRoundEnd() (Verdict, func(), error) {
	if g.phase != PhaseCounting {
		return Verdict{}, nil, fmt.Errorf("%w: a round is scored only after it ends (now %s)", ErrPhase, g.phase)
	}
	tallies := map[string]Tally{}
	var checks []Violation
	for _, n := range g.match.Names() {
		laid := g.table.laid[n]
		expect := max(0, g.match.InPlay(n)-laid)
		left, counted := g.left[n]
		if !counted {
			left = expect
		} else if left != expect {
			checks = append(checks, *violation(T1, "%s counts %d cards left, but laid %d of %d", n, left, laid, g.match.InPlay(n)))
		}
		tallies[n] = Tally{Laid: laid, CardsLeft: left, Fault: len(g.table.faults[n]) > 0}
	}
	res := g.match.Score(g.stopper, g.deadlock, tallies)
	res.Checks = checks
	v := Verdict{Status: StatusScored, Rule: T5c, Reason: fmt.Sprintf("round %d scored", g.round)}
	if len(checks) > 0 {
		v = Verdict{Status: StatusWarning, Rule: T1, Reason: checks[0].Reason + "; scores stand by the count"}
	}
	return v, func() {
		_ = g.match.Record(res) // cannot fail: the players are the match's, the phase was checked
		g.phase = PhaseBetween
		if g.match.Over() {
			g.phase = PhaseOver
		}
	}, nil
}

func deref(v *Verdict) Verdict {
	if v == nil {
		return Verdict{}
	}
	return *v
}
