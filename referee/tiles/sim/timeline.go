package sim

import (
	"slices"

	"ligretto/referee/tiles"
)

// EventKind names a timeline event.
type EventKind string

// Timeline events: the physical actions at the table.
const (
	EvMatch    EventKind = "match"     // Players and Settings
	EvRound    EventKind = "round"     // a round is set up: Layout, the stones on Stones, every player's Seats
	EvDiscard  EventKind = "discard"   // Player turned Card up; it fits nowhere (or went unseen): onto the discard pile
	EvRecycle  EventKind = "recycle"   // Player's hand was empty: the discard pile turned over is the new hand
	EvLay      EventKind = "lay"       // Player laid Card on Fields (its colours in order) at Stone, and moved it to StoneTo
	EvJoker    EventKind = "joker"     // Player laid a joker on Fields[0] at Stone, and moved it there
	EvStop     EventKind = "stop"      // Player called "Ligretto Stopp" (T5a)
	EvNoPlay   EventKind = "no_play"   // nobody can lay: the round ends (T6a)
	EvRoundEnd EventKind = "round_end" // Result scores the round
	EvMatchEnd EventKind = "match_end" // Totals and Winner
)

// Event is one line of timeline.jsonl. TimeMS counts from the start of the
// match, so that a whole match renders as one video.
type Event struct {
	TimeMS  int64         `json:"t_ms"`
	Round   int           `json:"round,omitempty"`
	Kind    EventKind     `json:"kind"`
	Player  string        `json:"player,omitempty"`
	Card    *tiles.Card   `json:"card,omitempty"`
	Fields  []tiles.Field `json:"fields,omitempty"`
	Stone   int           `json:"stone,omitempty"`
	StoneTo *tiles.Field  `json:"stone_to,omitempty"` // nil when no stone moved (a card away from every stone)
	// Violation marks a wrong play made on purpose, with the rule it breaks
	// (in the card, or in the stone's move).
	Violation *tiles.Violation   `json:"violation,omitempty"`
	Layout    *tiles.Layout      `json:"layout,omitempty"`
	Stones    []tiles.Field      `json:"stones,omitempty"`
	Seats     []tiles.Seat       `json:"seats,omitempty"`
	Result    *tiles.RoundResult `json:"result,omitempty"`
	Players   []tiles.Player     `json:"players,omitempty"`
	Settings  *tiles.Settings    `json:"settings,omitempty"`
	Totals    map[string]int     `json:"totals,omitempty"`
	Winner    *string            `json:"winner,omitempty"`
}

// Observations translates an event into what a camera above the table
// sees of it, in the observed model's vocabulary. Hidden actions (turning
// a card, the discard pile) give none. A lay names the stone it was laid
// at: the camera sees which stone the player's hand moves next.
func (e Event) Observations() []tiles.Observation {
	switch e.Kind {
	case EvMatch:
		return []tiles.Observation{{Kind: tiles.ObsMatch, TimeMS: e.TimeMS, Players: e.Players, Settings: e.Settings, By: "sim"}}
	case EvRound:
		return []tiles.Observation{{Kind: tiles.ObsRound, TimeMS: e.TimeMS, Layout: e.Layout, Stones: e.Stones, By: "sim"}}
	case EvLay:
		out := []tiles.Observation{{Kind: tiles.ObsLay, TimeMS: e.TimeMS, Player: e.Player, Fields: e.Fields,
			Colours: e.Card.Colours[:], Card: e.Card.ID, Stone: e.Stone, By: "sim"}}
		if e.StoneTo != nil {
			out = append(out, tiles.Observation{Kind: tiles.ObsStone, TimeMS: e.TimeMS, Stone: e.Stone, Fields: []tiles.Field{*e.StoneTo}, By: "sim"})
		}
		return out
	case EvJoker:
		return []tiles.Observation{
			{Kind: tiles.ObsJoker, TimeMS: e.TimeMS, Player: e.Player, Fields: e.Fields, Stone: e.Stone, By: "sim"},
			{Kind: tiles.ObsStone, TimeMS: e.TimeMS, Stone: e.Stone, Fields: e.Fields, By: "sim"},
		}
	case EvStop:
		return []tiles.Observation{{Kind: tiles.ObsStop, TimeMS: e.TimeMS, Player: e.Player, By: "sim"}}
	case EvNoPlay:
		return []tiles.Observation{{Kind: tiles.ObsNoPlay, TimeMS: e.TimeMS, By: "sim"}}
	case EvRoundEnd:
		var out []tiles.Observation
		names := make([]string, 0, len(e.Result.Players))
		for n := range e.Result.Players {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			out = append(out, tiles.Observation{Kind: tiles.ObsCardsLeft, TimeMS: e.TimeMS, Player: n, Count: e.Result.Players[n].CardsLeft, By: "sim"})
		}
		return append(out, tiles.Observation{Kind: tiles.ObsRoundEnd, TimeMS: e.TimeMS, By: "sim"})
	}
	return nil
}
