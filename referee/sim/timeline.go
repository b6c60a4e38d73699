package sim

import (
	"slices"

	"ligretto/referee"
)

// EventKind names a timeline event.
type EventKind string

// Timeline events: the physical actions at the table.
const (
	EvMatch    EventKind = "match"     // players and settings
	EvRound    EventKind = "round"     // a round is dealt: Seats holds every player's cards
	EvPlay     EventKind = "play"      // Card from Player's From onto Pile (NewPile: starts it); Refill fills a row gap
	EvRowLay   EventKind = "row_lay"   // C18: Card from From onto row slot ToRow (1-based)
	EvCountOff EventKind = "count_off" // Player counted off three hand cards; Card is now visible
	EvRecycle  EventKind = "recycle"   // Player turned the counted-off cards over (C12); Hand is set if they cut it
	EvStop     EventKind = "stop"      // Player called "Ligretto stop" (C13)
	EvRestart  EventKind = "restart"   // deadlock: Hands shuffled, play resumes (C17)
	EvDeadlock EventKind = "deadlock"  // deadlock: the round ends (C17)
	EvRoundEnd EventKind = "round_end" // Result scores the round
	EvMatchEnd EventKind = "match_end" // Totals and Winner
)

// Event is one line of timeline.jsonl. TimeMS counts from the start of the
// match, so that a whole match renders as one video.
type Event struct {
	TimeMS    int64                     `json:"t_ms"`
	Round     int                       `json:"round,omitempty"`
	Kind      EventKind                 `json:"kind"`
	Player    string                    `json:"player,omitempty"`
	Card      *referee.Card             `json:"card,omitempty"`
	From      *referee.Source           `json:"from,omitempty"`
	Pile      int                       `json:"pile,omitempty"`
	NewPile   bool                      `json:"new_pile,omitempty"`
	ToRow     int                       `json:"to_row,omitempty"`
	Refill    *referee.Card             `json:"refill,omitempty"`
	Violation *referee.Violation        `json:"violation,omitempty"`
	StackLeft int                       `json:"stack_left,omitempty"`
	Seats     []referee.Seat            `json:"seats,omitempty"`
	Hands     map[string][]referee.Card `json:"hands,omitempty"` // restart: each player's shuffled hand, top last
	Hand      []referee.Card            `json:"hand,omitempty"`  // recycle with a cut: the new hand, top last
	Result    *referee.RoundResult      `json:"result,omitempty"`
	Players   []referee.Player          `json:"players,omitempty"`
	Settings  *referee.Settings         `json:"settings,omitempty"`
	Totals    map[string]int            `json:"totals,omitempty"`
	Winner    *string                   `json:"winner,omitempty"`
}

// Observations translates an event into what a camera above the table sees
// of it, in the referee's observed vocabulary: piles appearing and growing,
// the stop, and after it the counts of backs. Hidden actions (counting off
// the hand, row lays) give none.
func (e Event) Observations() []referee.Observation {
	switch e.Kind {
	case EvMatch:
		return []referee.Observation{{Kind: referee.ObsMatch, TimeMS: e.TimeMS, Players: e.Players, Settings: e.Settings, By: "sim"}}
	case EvRound:
		return []referee.Observation{{Kind: referee.ObsRound, TimeMS: e.TimeMS, By: "sim"}}
	case EvPlay:
		f := e.Card.Face
		k := referee.ObsPileShows
		if e.NewPile {
			k = referee.ObsPileNew
		}
		return []referee.Observation{{Kind: k, TimeMS: e.TimeMS, Pile: e.Pile, Card: &f, By: "sim"}}
	case EvStop:
		return []referee.Observation{{Kind: referee.ObsStop, TimeMS: e.TimeMS, Player: e.Player, By: "sim"}}
	case EvRestart:
		return []referee.Observation{{Kind: referee.ObsRestart, TimeMS: e.TimeMS, By: "sim"}}
	case EvDeadlock:
		return []referee.Observation{{Kind: referee.ObsDeadlock, TimeMS: e.TimeMS, By: "sim"}}
	case EvRoundEnd:
		var out []referee.Observation
		for _, name := range sortedKeys(e.Result.Players) {
			p := e.Result.Players[name]
			out = append(out,
				referee.Observation{Kind: referee.ObsCentre, TimeMS: e.TimeMS, Player: name, Count: p.Centre, By: "sim"},
				referee.Observation{Kind: referee.ObsStackLeft, TimeMS: e.TimeMS, Player: name, Count: p.StackLeft, By: "sim"})
		}
		return append(out, referee.Observation{Kind: referee.ObsRoundEnd, TimeMS: e.TimeMS, By: "sim"})
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
