package tiles

import "fmt"

// accepted is an observation the referee took, with its verdict.
type accepted struct {
	obs       Observation
	v         Verdict
	retracted bool // taken back by a later retract
}

// Without returns the table as it would stand had the card judged at seq
// never been laid, every other observation judged as it was; it changes
// nothing. It is ErrNotRetractable when the card cannot be taken back
// (decideRetract).
func (r *Referee) Without(seq int) (*Table, error) {
	g, err := r.foldWithout(seq)
	if err != nil {
		return nil, err
	}
	return g.table, nil
}

// decideRetract takes back the card judged at o.Retracts: a camera that
// saw cards in another order than they were laid learns the order from
// the stones' way after it judged them, and the card is judged again in
// its place. Only a card of this round whose absence leaves every other
// verdict as it was can be taken back (its stone's move not judged yet);
// a call on it is withdrawn with it.
func (r *Referee) decideRetract(o Observation) (Verdict, func(), error) {
	g, err := r.foldWithout(o.Retracts)
	if err != nil {
		return Verdict{}, nil, err
	}
	k := r.indexOf(o.Retracts)
	was := r.since[k]
	l := was.obs
	v := Verdict{Status: StatusInfo, Player: l.Player, Stone: was.v.Stone,
		Reason: fmt.Sprintf("%s's card at %v-%v (#%d) taken back: laid after cards judged since, it is judged again in its place", owner(l.Player), l.Fields[0], l.Fields[1], o.Retracts)}
	if was.v.Status == StatusViolation {
		v.Withdraws = o.Retracts
	}
	return v, func() {
		r.since[k].retracted = true
		r.g = g
	}, nil
}

// indexOf is the index in since of the observation accepted at seq, or -1.
func (r *Referee) indexOf(seq int) int {
	k := seq - (r.seq - len(r.since)) - 1
	if k < 0 || k >= len(r.since) {
		return -1
	}
	return k
}

// foldWithout folds the observations since the match began again,
// without the card judged at seq (nor those taken back before), and
// checks that every other verdict stays as it was.
func (r *Referee) foldWithout(seq int) (*game, error) {
	k := r.indexOf(seq)
	switch {
	case r.g.phase != PhasePlaying:
		return nil, fmt.Errorf("%w: no round is played (now %s)", ErrNotRetractable, r.g.phase)
	case k < 0:
		return nil, fmt.Errorf("%w: #%d is not of this match", ErrNotRetractable, seq)
	case r.since[k].obs.Kind != ObsLay:
		return nil, fmt.Errorf("%w: #%d is a %s, not a card", ErrNotRetractable, seq, r.since[k].obs.Kind)
	case r.since[k].retracted:
		return nil, fmt.Errorf("%w: #%d was taken back already", ErrNotRetractable, seq)
	}
	for _, a := range r.since[k+1:] {
		if a.obs.Kind == ObsRound {
			return nil, fmt.Errorf("%w: #%d is a card of an earlier round", ErrNotRetractable, seq)
		}
	}
	g := &game{phase: PhaseNoMatch}
	for i, a := range r.since {
		if i == k || a.retracted {
			continue
		}
		if a.obs.Kind == ObsRetract {
			g.verdicts = append(g.verdicts, a.v) // its card is left out already
			continue
		}
		v, commit, err := g.decide(a.obs)
		if err != nil {
			return nil, fmt.Errorf("%w: without #%d, #%d is refused: %w", ErrNotRetractable, seq, a.v.Seq, err)
		}
		v.Seq = a.v.Seq
		if v.Status == StatusViolation {
			v.Unsure = a.obs.Unsure
		}
		if v != a.v {
			return nil, fmt.Errorf("%w: without #%d, #%d is judged otherwise: %s", ErrNotRetractable, seq, a.v.Seq, v.Reason)
		}
		commit()
		g.verdicts = append(g.verdicts, v)
	}
	return g, nil
}

// keepRefused records o, which the rules refused, as an info verdict
// under the next seq, so that the log's later entries keep their
// numbers (Replay).
func (r *Referee) keepRefused(o Observation, reason string) {
	r.seq++
	v := Verdict{Seq: r.seq, Status: StatusInfo, Reason: reason, Player: o.Player}
	r.g.verdicts = append(r.g.verdicts, v)
	r.since = append(r.since, accepted{obs: o, v: v})
}
