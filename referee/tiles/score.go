package tiles

import "slices"

// Tally is one player's round as counted after the stop.
type Tally struct {
	Laid      int  // cards laid on the board (jokers not counted)
	CardsLeft int  // cards not laid: in hand and on the discard pile
	Fault     bool // laid wrongly at least once (T5b)
}

// PlayerRound is one player's line of a scored round.
type PlayerRound struct {
	Laid      int  `json:"laid"`
	CardsLeft int  `json:"cards_left"`
	Fault     bool `json:"fault,omitempty"`
	Points    int  `json:"points"`
	Aside     int  `json:"aside"`      // cards put on the player board this round (T5c)
	TakenBack int  `json:"taken_back"` // cards taken back from it (T5e)
	Board     int  `json:"board"`      // cards on the player board for the next round
}

// RoundResult is a scored round, in the shape of result.json.
type RoundResult struct {
	StoppedBy *string                `json:"stopped_by"`
	Deadlock  bool                   `json:"deadlock"` // nobody could lay (T6a)
	Winners   []string               `json:"winners"`  // the finisher, or the most cards laid (T6a)
	Players   map[string]PlayerRound `json:"players"`
	Checks    []Violation            `json:"checks,omitempty"` // counts that disagree with the board; scores stand
}

// maxBoard keeps at least one card in play: the text says nothing of a
// full player board, and a round with nothing to lay could not be played.
const maxBoard = CardsPerPlayer - 1

// Score applies T5 (or T6a after a deadlock) to the tallies. names is the
// seat order, boards the cards on each player board before the round.
//   - The finisher (T5a), or after a deadlock every player with the most
//     cards laid (T6a; the text has no tie-break, so all of them), takes 2.
//   - Of the others, the fewest cards left take 1 each (T5c); with 2
//     players nobody does (T5d). The rest take 0 and put 2 cards aside.
//   - A player who laid wrongly takes nothing and puts nothing aside (T5b),
//     and cannot be the winner.
//   - If then every player board holds cards, everyone takes 2 back (T5e).
func Score(names []string, boards map[string]int, stopper string, deadlock bool, tallies map[string]Tally) RoundResult {
	res := RoundResult{Deadlock: deadlock, Players: make(map[string]PlayerRound, len(names)), Winners: []string{}}
	if stopper != "" {
		s := stopper
		res.StoppedBy = &s
	}
	res.Winners = winners(names, stopper, deadlock, tallies)
	var rest []string
	for _, n := range names {
		if !tallies[n].Fault && !slices.Contains(res.Winners, n) {
			rest = append(rest, n)
		}
	}
	fewest := -1
	if len(names) > 2 {
		for _, n := range rest {
			if l := tallies[n].CardsLeft; fewest < 0 || l < fewest {
				fewest = l
			}
		}
	}
	everyone := true
	for _, n := range names {
		tl := tallies[n]
		p := PlayerRound{Laid: tl.Laid, CardsLeft: tl.CardsLeft, Fault: tl.Fault, Board: boards[n]}
		switch {
		case tl.Fault:
		case slices.Contains(res.Winners, n):
			p.Points = 2
		case tl.CardsLeft == fewest:
			p.Points = 1
		default:
			p.Aside = min(2, maxBoard-p.Board)
			p.Board += p.Aside
		}
		everyone = everyone && p.Board > 0
		res.Players[n] = p
	}
	if everyone {
		for n, p := range res.Players {
			p.TakenBack = min(2, p.Board)
			p.Board -= p.TakenBack
			res.Players[n] = p
		}
	}
	return res
}

// winners: the finisher if they laid rightly; after a deadlock, the
// rightful players with the most cards laid.
func winners(names []string, stopper string, deadlock bool, tallies map[string]Tally) []string {
	out := []string{}
	if !deadlock {
		if stopper != "" && !tallies[stopper].Fault {
			out = append(out, stopper)
		}
		return out
	}
	most := -1
	for _, n := range names {
		if t := tallies[n]; !t.Fault && t.Laid > most {
			most = t.Laid
		}
	}
	for _, n := range names {
		if t := tallies[n]; !t.Fault && t.Laid == most {
			out = append(out, n)
		}
	}
	return out
}
