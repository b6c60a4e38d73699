package stream

import (
	"image"
	"time"

	"ligretto/referee"
)

// Controller is the game as the server sees it: the console and the control
// API call its actions, and viewers are sent its State whenever Changed
// fires. Implementations must be safe for concurrent use, and an action
// that fails must change nothing.
//
// Errors map to HTTP answers: ErrInvalid and referee.ErrInvalid,
// ErrIllegal, ErrUnknownPile, ErrUnknownPlayer give 422; ErrConflict,
// referee.ErrPhase and ErrNothingToUndo give 409; ErrUnsupported gives 501;
// anything else 500.
type Controller interface {
	// State returns a snapshot for viewers and the console.
	State() GameState
	// Changed is signalled (without blocking, coalesced) after every change.
	// The server is its only reader.
	Changed() <-chan struct{}

	// NewMatch begins a match with these players and settings.
	NewMatch(MatchSetup) error
	// StartRound begins the next round.
	StartRound() error
	// Stop calls "Ligretto stop" by hand; player may be "" if unknown.
	Stop(player string) error
	// OverridePile corrects what a pile shows.
	OverridePile(pile int, card referee.Face) error
	// Undo takes back the last observation.
	Undo() error
	// EnrolBack records which back design a player's deck has; it applies
	// to the next match.
	EnrolBack(player, back string) error
}

// NoPlayer is optionally implemented by a Controller whose game can end a
// round because nobody can play (the tile game, T6a): POST /api/noplay.
// Without it that route answers 501.
type NoPlayer interface {
	NoPlay() error
}

// Previewer is optionally implemented by a Controller that has its own
// calibration preview (the rectified table with zones drawn). Without it
// the console shows the newest source frame.
type Previewer interface {
	CalibrationPreview() (image.Image, error)
}

// MatchSetup is what NewMatch takes. With no Players, the roster of
// enrolled players is used.
type MatchSetup struct {
	Players  []referee.Player `json:"players,omitempty"`
	Settings referee.Settings `json:"settings"`
}

// GameState is what viewers receive on the DataChannel and what
// GET /api/state returns. Its JSON shape is the page's contract.
type GameState struct {
	Version uint64 `json:"version"` // increases with every change
	// Game is "tiles" for the tile game (rulebook 002, TilesGame); absent
	// for classic Ligretto, whose JSON is as it always was.
	Game    string             `json:"game,omitempty"`
	Phase   referee.Phase      `json:"phase"`
	Round   int                `json:"round"`
	Players []PlayerView       `json:"players"` // seat order
	Piles   []referee.PileView `json:"piles"`
	// Unsure lists the piles (IDs) whose top card the camera reads
	// unsure at the moment: the page shows "?" for them until it reads
	// them sure again.
	Unsure    []int  `json:"unsure,omitempty"`
	StoppedBy string `json:"stopped_by,omitempty"`
	Deadlock  bool   `json:"deadlock,omitempty"`
	// Feed holds the latest verdicts, oldest first, across rounds.
	Feed  []FeedItem `json:"feed"`
	Match MatchView  `json:"match"`
	// Roster is who will play the next match, with their enrolled backs.
	Roster []referee.Player `json:"roster"`
	// Tiles is the tile game's table; only with Game "tiles".
	Tiles *TilesView `json:"tiles,omitempty"`
}

// PlayerView is one player on the scoreboard.
type PlayerView struct {
	Name string `json:"name"`
	Back string `json:"back"`
	// Total is the official match total: scored rounds only (C16).
	Total int `json:"total"`
	// Live is this round's provisional score (C14) from the counts seen so
	// far after the stop; nil while it is not known.
	Live *int `json:"live,omitempty"`
	// Last is the score of the last scored round; nil before one.
	Last *int `json:"last,omitempty"`
}

// FeedItem is one verdict in the feed.
type FeedItem struct {
	Seq    int            `json:"seq"`
	Round  int            `json:"round"`
	Time   time.Time      `json:"time"`
	Kind   referee.Kind   `json:"kind"`
	By     string         `json:"by,omitempty"`
	Status referee.Status `json:"status"`
	Rule   referee.Rule   `json:"rule,omitempty"`
	Reason string         `json:"reason"`
	Pile   int            `json:"pile,omitempty"`
	// Player is whose play was judged (the tile game says so; classic
	// names the player in the reason).
	Player string `json:"player,omitempty"`
	// Unsure says why a call is a guess (the tile game: the camera could
	// not tell whose play was wrong); the page marks it.
	Unsure string `json:"unsure,omitempty"`
}

// MatchView is the match's progress.
type MatchView struct {
	Active   bool             `json:"active"`
	Settings referee.Settings `json:"settings"`
	Rounds   int              `json:"rounds_played"`
	Over     bool             `json:"over"`
	Winner   string           `json:"winner,omitempty"`
	Leader   string           `json:"leader,omitempty"` // highest total, if unique
}
