package referee

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
)

// Kind names an observation.
type Kind string

// The observations the referee takes. Camera, simulator and operator all
// speak in these; corrections are observations too.
const (
	ObsMatch     Kind = "match"        // a match begins: Players, Settings
	ObsRound     Kind = "round"        // a round begins
	ObsPileNew   Kind = "pile_new"     // a new pile appeared at Pile showing Card, laid by Player if known
	ObsPileShows Kind = "pile_shows"   // pile Pile now shows Card, laid by Player if known
	ObsStop      Kind = "stop"         // "Ligretto stop", by Player if known (C13)
	ObsRestart   Kind = "restart"      // nobody could play; hands shuffled, play resumes (C17 restart)
	ObsDeadlock  Kind = "deadlock"     // nobody can play; the round ends (C17)
	ObsCentre    Kind = "centre_count" // after the stop: Count cards with Player's back in the centre
	ObsStackLeft Kind = "stack_left"   // after the stop: Count cards left in Player's Ligretto stack
	ObsRoundEnd  Kind = "round_end"    // the counts are complete: score the round (C14, C15)
	ObsOverride  Kind = "override"     // operator: pile Pile really shows Card
	ObsUndo      Kind = "undo"         // operator: take back the last observation
)

// Observation is one thing seen or said. Which fields matter depends on Kind.
type Observation struct {
	Kind     Kind      `json:"kind"`
	TimeMS   int64     `json:"t_ms,omitempty"` // when it was seen, from the start of the source
	Pile     int       `json:"pile,omitempty"` // pile ID (position), >= 1
	Card     *Face     `json:"card,omitempty"`
	Player   string    `json:"player,omitempty"`
	Back     string    `json:"back,omitempty"` // counts may name the back design instead of the player
	Count    int       `json:"count,omitempty"`
	Players  []Player  `json:"players,omitempty"`
	Settings *Settings `json:"settings,omitempty"`
	By       string    `json:"by,omitempty"` // who reported it: camera, operator, sim
}

// Status classifies a verdict.
type Status string

// Verdict statuses.
const (
	StatusOK        Status = "ok"        // accepted, legal
	StatusInferred  Status = "inferred"  // legal, with unseen cards in between
	StatusViolation Status = "violation" // a rule was broken; Rule says which
	StatusLate      Status = "late"      // a card after the stop: it does not count (C13)
	StatusOverride  Status = "override"  // an operator correction
	StatusUndone    Status = "undone"    // an observation taken back
	StatusScored    Status = "scored"    // a round was scored
	StatusWarning   Status = "warning"   // a check failed (C15); scores stand
	StatusInfo      Status = "info"      // anything else accepted
)

// Verdict is the referee's answer to one accepted observation.
type Verdict struct {
	Seq      int    `json:"seq"`
	Status   Status `json:"status"`
	Rule     Rule   `json:"rule,omitempty"`
	Reason   string `json:"reason"`
	Pile     int    `json:"pile,omitempty"`
	Inferred int    `json:"inferred,omitempty"` // cards played unseen between two tops
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

// PileView is a pile as seen from above.
type PileView struct {
	ID         int  `json:"id"`
	Top        Face `json:"top"`
	Cards      int  `json:"cards"`      // cards seen or inferred on it
	Violations int  `json:"violations"` // illegal cards laid on it
	Closed     bool `json:"closed"`
}

// State is a copy of what the referee knows, for display and tests.
type State struct {
	Phase     Phase          `json:"phase"`
	Round     int            `json:"round"`
	Piles     []PileView     `json:"piles"`
	StoppedBy string         `json:"stopped_by,omitempty"`
	Deadlock  bool           `json:"deadlock"`
	Centre    map[string]int `json:"centre,omitempty"`
	StackLeft map[string]int `json:"stack_left,omitempty"`
	// Live counts, per player, the cards of this round's pile observations
	// that named who laid them: an unofficial running score (C14's +1 per
	// centre card). Cards seen without a player, or inferred, are not in
	// it; the count after the stop stays the official score.
	Live     map[string]int `json:"live,omitempty"`
	Verdicts []Verdict      `json:"verdicts"` // this round's, oldest first
	Match    *MatchResult   `json:"match,omitempty"`
}

// table is the state folded from the observations.
type table struct {
	match     *Match
	phase     Phase
	round     int
	piles     map[int]*PileView
	stoppedBy string
	deadlock  bool
	centre    map[string]int
	stackLeft map[string]int
	live      map[string]int
	verdicts  []Verdict
}

func newTable() *table { return &table{phase: PhaseNoMatch} }

// Referee is the observed model: it takes observations, decides every play,
// and appends each accepted observation with its verdict to a log. It is
// not safe for concurrent use.
type Referee struct {
	t       *table
	seq     int
	applied []Observation // the effective observations, for undo
	seqs    []int         // the log seq of each applied observation
	log     io.Writer
}

// Option configures a Referee.
type Option func(*Referee)

// WithLog appends every accepted observation and verdict to w as JSON lines,
// one Write per line, so that a killed process loses at most that line.
func WithLog(w io.Writer) Option { return func(r *Referee) { r.log = w } }

// New returns a referee with no match yet.
func New(opts ...Option) *Referee {
	r := &Referee{t: newTable()}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Apply decides one observation. A malformed or out-of-place observation is
// rejected with an error (ErrInvalid, ErrPhase, ErrUnknownPile, ...) and
// changes nothing. An accepted one is logged, then folded into the state;
// its verdict says whether the play was legal and, if not, which rule it broke.
func (r *Referee) Apply(o Observation) (Verdict, error) {
	if o.Kind == ObsUndo {
		return r.undo(o)
	}
	v, commit, err := r.t.decide(o)
	if err != nil {
		return Verdict{}, err
	}
	v.Seq = r.seq + 1
	if err := r.write(o, v); err != nil {
		return Verdict{}, err
	}
	r.seq++
	commit()
	r.t.verdicts = append(r.t.verdicts, v)
	r.applied = append(r.applied, o)
	r.seqs = append(r.seqs, v.Seq)
	return v, nil
}

func (r *Referee) undo(o Observation) (Verdict, error) {
	if len(r.applied) == 0 {
		return Verdict{}, ErrNothingToUndo
	}
	last := r.applied[len(r.applied)-1]
	v := Verdict{Seq: r.seq + 1, Status: StatusUndone, Reason: fmt.Sprintf("took back the last observation (%s)", last.Kind), Pile: last.Pile}
	if err := r.write(o, v); err != nil {
		return Verdict{}, err
	}
	r.seq++
	r.applied, r.seqs = r.applied[:len(r.applied)-1], r.seqs[:len(r.seqs)-1]
	r.t = refold(r.applied, r.seqs)
	r.t.verdicts = append(r.t.verdicts, v)
	return v, nil
}

// refold rebuilds the state from scratch; the observations were accepted
// before, so none fails now. seqs keeps their verdicts' log numbers.
func refold(obs []Observation, seqs []int) *table {
	t := newTable()
	for i, o := range obs {
		v, commit, err := t.decide(o)
		if err != nil {
			continue
		}
		commit()
		v.Seq = seqs[i]
		t.verdicts = append(t.verdicts, v)
	}
	return t
}

func (r *Referee) write(o Observation, v Verdict) error {
	if r.log == nil {
		return nil
	}
	line, err := encodeEntry(Entry{Seq: v.Seq, Obs: o, Verdict: v})
	if err != nil {
		return err
	}
	if _, err := r.log.Write(line); err != nil {
		return fmt.Errorf("append to referee log: %w", err)
	}
	return nil
}

// State returns a copy of what the referee knows now.
func (r *Referee) State() State {
	t := r.t
	s := State{Phase: t.phase, Round: t.round, StoppedBy: t.stoppedBy, Deadlock: t.deadlock,
		Centre: maps.Clone(t.centre), StackLeft: maps.Clone(t.stackLeft), Live: maps.Clone(t.live), Verdicts: slices.Clone(t.verdicts)}
	for _, id := range t.pileIDs() {
		s.Piles = append(s.Piles, *t.piles[id])
	}
	if t.match != nil {
		m := t.match.Result()
		s.Match = &m
	}
	return s
}

// Match returns the match result so far, or nil before a match begins.
func (r *Referee) Match() *MatchResult {
	if r.t.match == nil {
		return nil
	}
	m := r.t.match.Result()
	return &m
}

func (t *table) pileIDs() []int {
	ids := slices.Collect(maps.Keys(t.piles))
	sort.Ints(ids)
	return ids
}

func (t *table) ownerOf(back string) string {
	for _, p := range t.match.Players() {
		if p.Back == back {
			return p.Name
		}
	}
	return ""
}

func (t *table) hasPlayer(name string) bool {
	return t.match != nil && slices.Contains(t.match.Names(), name)
}

// decide computes the verdict for o and a commit that folds it into t. It
// changes nothing itself, so a failed log write loses nothing.
func (t *table) decide(o Observation) (Verdict, func(), error) {
	none := func() {}
	switch o.Kind {
	case ObsMatch:
		return t.decideMatch(o)

	case ObsRound:
		if t.phase != PhaseBetween {
			return Verdict{}, nil, fmt.Errorf("%w: a round begins only between rounds (now %s)", ErrPhase, t.phase)
		}
		return Verdict{Status: StatusInfo, Reason: fmt.Sprintf("round %d begins", t.round+1)}, func() {
			t.round++
			t.phase = PhasePlaying
			t.piles, t.centre, t.stackLeft, t.live = map[int]*PileView{}, map[string]int{}, map[string]int{}, map[string]int{}
			t.stoppedBy, t.deadlock, t.verdicts = "", false, nil
		}, nil

	case ObsPileNew, ObsPileShows, ObsOverride:
		return t.decidePile(o)

	case ObsStop:
		if t.phase != PhasePlaying {
			return Verdict{}, nil, fmt.Errorf("%w: stop outside a round", ErrPhase)
		}
		if o.Player != "" && !t.hasPlayer(o.Player) {
			return Verdict{}, nil, fmt.Errorf("%w: %q called stop", ErrUnknownPlayer, o.Player)
		}
		who := o.Player
		if who == "" {
			who = "a player"
		}
		return Verdict{Status: StatusInfo, Rule: C13, Reason: who + " called Ligretto stop: the round ends"},
			func() { t.phase, t.stoppedBy = PhaseCounting, o.Player }, nil

	case ObsRestart:
		if t.phase != PhasePlaying {
			return Verdict{}, nil, fmt.Errorf("%w: restart outside a round", ErrPhase)
		}
		if t.match.Settings().Deadlock != DeadlockRestart {
			return Verdict{}, nil, fmt.Errorf("%w: this match plays deadlocks by the %q rule, not restart (C17)", ErrPhase, t.match.Settings().Deadlock)
		}
		return Verdict{Status: StatusInfo, Rule: C17, Reason: "nobody could play: hands shuffled, play resumes"}, none, nil

	case ObsDeadlock:
		if t.phase != PhasePlaying {
			return Verdict{}, nil, fmt.Errorf("%w: deadlock outside a round", ErrPhase)
		}
		reason := "nobody can play: the round ends"
		if t.match.Settings().Deadlock == DeadlockLeader {
			reason += "; the leader after counting wins the match"
		}
		return Verdict{Status: StatusInfo, Rule: C17, Reason: reason},
			func() { t.phase, t.deadlock = PhaseCounting, true }, nil

	case ObsCentre, ObsStackLeft:
		return t.decideCount(o)

	case ObsRoundEnd:
		return t.decideRoundEnd()
	}
	return Verdict{}, nil, fmt.Errorf("%w: observation kind %q", ErrInvalid, o.Kind)
}

// decideMatch begins a match, before the first or after the last round.
func (t *table) decideMatch(o Observation) (Verdict, func(), error) {
	if t.phase != PhaseNoMatch && t.phase != PhaseOver && t.phase != PhaseBetween {
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
	return Verdict{Status: StatusInfo, Reason: fmt.Sprintf("match of %d players, target %d", len(o.Players), m.Settings().Target)},
		func() { *t = table{match: m, phase: PhaseBetween} }, nil
}

// decideCount takes one player's count after the stop: the cards in the
// centre (ObsCentre) or left in the Ligretto stack (ObsStackLeft).
func (t *table) decideCount(o Observation) (Verdict, func(), error) {
	if t.phase != PhaseCounting {
		return Verdict{}, nil, fmt.Errorf("%w: cards are counted only after the stop (now %s)", ErrPhase, t.phase)
	}
	if o.Player == "" && o.Back != "" {
		o.Player = t.ownerOf(o.Back)
		if o.Player == "" {
			return Verdict{}, nil, fmt.Errorf("%w: no player has back %q", ErrUnknownPlayer, o.Back)
		}
	}
	if !t.hasPlayer(o.Player) {
		return Verdict{}, nil, fmt.Errorf("%w: %q", ErrUnknownPlayer, o.Player)
	}
	if o.Count < 0 || o.Count > 40 || (o.Kind == ObsStackLeft && o.Count > 10) {
		return Verdict{}, nil, fmt.Errorf("%w: %s count %d for %s is impossible", ErrInvalid, o.Kind, o.Count, o.Player)
	}
	m, what := t.centre, "cards in the centre"
	if o.Kind == ObsStackLeft {
		m, what = t.stackLeft, "cards left in the Ligretto stack"
	}
	return Verdict{Status: StatusInfo, Reason: fmt.Sprintf("%s: %d %s", o.Player, o.Count, what)},
		func() { m[o.Player] = o.Count }, nil
}

// decideRoundEnd scores the counted round into the match.
func (t *table) decideRoundEnd() (Verdict, func(), error) {
	if t.phase != PhaseCounting {
		return Verdict{}, nil, fmt.Errorf("%w: a round is scored only after the stop (now %s)", ErrPhase, t.phase)
	}
	res := t.score()
	v := Verdict{Status: StatusScored, Rule: C14, Reason: fmt.Sprintf("round %d scored", t.round)}
	if len(res.Checks) > 0 {
		v = Verdict{Status: StatusWarning, Rule: C15, Reason: res.Checks[0].Reason + "; scores stand by the count"}
	}
	return v, func() {
		_ = t.match.Record(res) // cannot fail: the players are the match's, the phase was checked
		t.phase = PhaseBetween
		if t.match.Over() {
			t.phase = PhaseOver
		}
	}, nil
}

// decidePile judges a pile observation with the shared pile rules.
func (t *table) decidePile(o Observation) (Verdict, func(), error) {
	if o.Card == nil || !o.Card.Valid() {
		return Verdict{}, nil, fmt.Errorf("%w: %s needs a card with a colour and a number 1..10", ErrInvalid, o.Kind)
	}
	if o.Pile < 1 {
		return Verdict{}, nil, fmt.Errorf("%w: pile %d (IDs start at 1)", ErrInvalid, o.Pile)
	}
	f := *o.Card
	p, exists := t.piles[o.Pile]
	switch {
	case t.phase == PhaseCounting && o.Kind != ObsOverride:
		// C13: physically there, but it does not count; the pile keeps its top.
		return Verdict{Status: StatusLate, Rule: C13, Pile: o.Pile, Reason: fmt.Sprintf("%s after the stop: it does not count", f)}, func() {}, nil
	case t.phase != PhasePlaying && t.phase != PhaseCounting:
		return Verdict{}, nil, fmt.Errorf("%w: pile seen outside a round (now %s)", ErrPhase, t.phase)
	case o.Kind == ObsPileNew && exists:
		return Verdict{}, nil, fmt.Errorf("%w: pile %d exists already", ErrInvalid, o.Pile)
	case o.Kind == ObsPileShows && !exists:
		return Verdict{}, nil, fmt.Errorf("%w: %d", ErrUnknownPile, o.Pile)
	case o.Player != "" && o.Kind != ObsOverride && !t.hasPlayer(o.Player):
		return Verdict{}, nil, fmt.Errorf("%w: %q laid a card", ErrUnknownPlayer, o.Player)
	}

	if o.Kind == ObsOverride {
		return Verdict{Status: StatusOverride, Pile: o.Pile, Reason: fmt.Sprintf("operator: pile %d shows %s", o.Pile, f)}, func() {
			if p == nil {
				p = &PileView{ID: o.Pile}
				t.piles[o.Pile] = p
			}
			p.Top, p.Cards, p.Closed = f, f.Number, f.Number >= 10
		}, nil
	}
	if o.Kind == ObsPileNew {
		v := Verdict{Status: StatusOK, Pile: o.Pile, Reason: fmt.Sprintf("new pile %d: %s", o.Pile, f)}
		bad := 0
		if x := CheckStart(f); x != nil {
			v, bad = Verdict{Status: StatusViolation, Rule: x.Rule, Pile: o.Pile, Reason: x.Reason}, 1
		}
		v.Reason += laidBy(o.Player)
		return v, func() {
			t.piles[o.Pile] = &PileView{ID: o.Pile, Top: f, Cards: 1, Violations: bad, Closed: f.Number >= 10}
			t.countLive(o.Player)
		}, nil
	}

	// ObsPileShows on an existing pile.
	if f == p.Top {
		return Verdict{Status: StatusInfo, Pile: o.Pile, Reason: fmt.Sprintf("pile %d still shows %s", o.Pile, f)}, func() {}, nil
	}
	added, v := 1, Verdict{Status: StatusOK, Pile: o.Pile, Reason: fmt.Sprintf("%s on %s", f, p.Top)}
	if x := CheckPlace(p.Top, f); x != nil {
		if x.Rule == C7 && f.Colour == p.Top.Colour && f.Number > p.Top.Number+1 && !p.Closed {
			// Cards played too fast to be seen: legal, and inferred.
			added = f.Number - p.Top.Number
			v = Verdict{Status: StatusInferred, Pile: o.Pile, Inferred: added - 1,
				Reason: fmt.Sprintf("%s on %s: %d card(s) played unseen", f, p.Top, added-1)}
		} else {
			v = Verdict{Status: StatusViolation, Rule: x.Rule, Pile: o.Pile, Reason: x.Reason}
		}
	}
	v.Reason += laidBy(o.Player)
	return v, func() {
		p.Top, p.Cards, p.Closed = f, p.Cards+added, f.Number >= 10
		if v.Status == StatusViolation {
			p.Violations++
		}
		t.countLive(o.Player) // the card seen, not the inferred ones: nobody saw who laid those
	}, nil
}

// laidBy names who laid a card, for a verdict's reason.
func laidBy(player string) string {
	if player == "" {
		return ""
	}
	return ", laid by " + player
}

// countLive adds a card laid by player to the live score. An illegal card
// counts too: it lies in the centre, and C14 counts every centre card.
func (t *table) countLive(player string) {
	if player == "" {
		return
	}
	if t.live == nil {
		t.live = map[string]int{}
	}
	t.live[player]++
}

// score applies C14 to the counts and C15 to the piles.
func (t *table) score() RoundResult {
	res := RoundResult{Deadlock: t.deadlock, Players: map[string]PlayerScore{}}
	if t.stoppedBy != "" {
		s := t.stoppedBy
		res.StoppedBy = &s
	}
	for _, name := range t.match.Names() {
		res.Players[name] = Score(t.centre[name], t.stackLeft[name])
	}
	for _, id := range t.pileIDs() {
		p := t.piles[id]
		res.Piles = append(res.Piles, PileSummary{ID: id, Colour: p.Top.Colour, Top: p.Top.Number, Cards: p.Cards})
	}
	if v := res.CheckConsistency(); v != nil {
		res.Checks = append(res.Checks, *v)
	}
	return res
}
