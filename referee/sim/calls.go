package sim

import "ligretto/referee"

// Call is a violation a referee reported, at timeline time.
type Call struct {
	TimeMS int64
	Rule   referee.Rule
}

// CallScore is how a referee's calls compare with the illegal plays the
// bots made on purpose.
type CallScore struct {
	Right int // injected plays called with their rule
	Wrong int // injected plays called with another rule
	// False are the calls paired with no injected play: legal plays
	// called violations.
	False []Call
}

// Pairing window: a call comes after its illegal play (the card flies,
// lands and must lie still before a camera commits it), rarely more than a
// few seconds after; a little before allows for frame timing.
const callBeforeMS, callAfterMS = 500, 6000

// ScoreCalls pairs each call with the latest unpaired injected play from
// callBeforeMS before to callAfterMS after it, those of the same rule
// first. Counting by rule alone would let a false call of a rule cancel a
// missed play of that rule.
func ScoreCalls(injected []Injected, calls []Call) CallScore {
	used := make([]bool, len(injected))
	pair := func(c Call, sameRule bool) bool {
		best := -1
		for i, in := range injected {
			if !used[i] && c.TimeMS >= in.TimeMS-callBeforeMS && c.TimeMS <= in.TimeMS+callAfterMS && (in.Rule == c.Rule) == sameRule &&
				(best < 0 || in.TimeMS > injected[best].TimeMS) {
				best = i
			}
		}
		if best >= 0 {
			used[best] = true
		}
		return best >= 0
	}
	var s CallScore
	var rest []Call
	for _, c := range calls {
		if pair(c, true) {
			s.Right++
		} else {
			rest = append(rest, c)
		}
	}
	for _, c := range rest {
		if pair(c, false) {
			s.Wrong++
		} else {
			s.False = append(s.False, c)
		}
	}
	return s
}
