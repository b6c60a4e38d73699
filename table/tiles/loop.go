// Package tiles runs one table of the tile game (rulebook 002): frames
// from a source (a camera, a video, a folder of images) go through
// vision/tiles' Watcher, its observations go to the referee, and what a
// camera cannot hear is inferred from the board: the stop when a
// player's laid cards reach what they have in play (T5a), then the cards
// left and the round's end; a round that ends with nobody finishing is
// taken as nobody able to lay (T6a). It is the tile game's counterpart of
// package table; importers alias it (ttable).
package tiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	"ligretto/table"
	vtiles "ligretto/vision/tiles"
)

// Referee takes the loop's observations. *tiles.Referee is one.
type Referee interface {
	Apply(tiles.Observation) (tiles.Verdict, error)
	State() tiles.State
	// Table is the round's table, to ask what a move would mean
	// (CheckStone, CheckLay) without making it: a copy, or one that
	// changes only through Apply.
	Table() *tiles.Table
	// Reclaims says whether a stone's move onto a field takes the card
	// there, called wrong, as laid at that stone after all.
	Reclaims(stone int, f tiles.Field, tMS int64) bool
	// ReclaimsOnward is Reclaims for a stone awaiting its move onto its
	// own card, once that move is made.
	ReclaimsOnward(stone int, f tiles.Field, tMS int64) bool
	// ReclaimsAfter is Reclaims once a card laid at the stone, not judged
	// yet, has blocked it.
	ReclaimsAfter(l tiles.Lay, f tiles.Field, tMS int64) bool
	// Without is the table had the card judged at seq not been laid, to
	// weigh taking it back (tiles.ObsRetract) without doing so.
	Without(seq int) (*tiles.Table, error)
}

// Verdict is one observation (seen, or inferred by the loop: By "loop")
// and what the referee said of it, or Err when it refused it.
type Verdict struct {
	Obs     tiles.Observation
	Verdict tiles.Verdict
	Err     error
}

// Config says how the loop runs a table.
type Config struct {
	Players  []tiles.Player // seat order with frame styles
	Settings tiles.Settings
	// Annotate draws the board as read, the stones, the latest calls and
	// the scores on each frame.
	Annotate bool
	// OnFrame gets every frame after the loop looked at it (Image is
	// valid only during the call).
	OnFrame   func(table.Frame)
	OnVerdict func(Verdict)
	Log       *slog.Logger // nil: none
}

// StopWaitMS is how long the loop waits for the stone's move onto a
// player's last card before it calls their stop (T5a): the referee takes
// no stone once the stop is called, and the move may be wrong (T3a).
const StopWaitMS = 2500

// StopGraceMS is how long the loop waits after a player's last card and
// its stone before it calls their stop, and SeenGraceMS how long after
// the camera first saw that card: the camera may report a card it first
// saw before the last one (or with it, CallDelayMS) seconds later (its
// stone, or its frame, read later); such a card counts.
const (
	StopGraceMS = 1500
	SeenGraceMS = 4500
)

// StopHoldMS is how long after the camera first saw a player's last
// card their stop waits at most for what the camera saw before that card
// and has not made out yet (a card half whose other half a stone or a
// hand hides, a stone gone from its field and not seen anywhere else):
// a card laid before the last one counts, however late it shows whole.
const StopHoldMS = 8000

// QuietEndMS: a source that ends this long after the last card, joker or
// stone's move ends a round nobody was seen to finish as nobody able to
// lay (T6a), as the next board would; one that ends sooner was cut off
// mid-round, and that round is not scored.
const QuietEndMS = 10000

// CallDelayMS: "Ligretto Stopp" comes after the last card is down, by
// the finisher's reaction; a card the camera first saw this little after
// the last one was laid before the call, and counts: the hand that laid
// it hides it while it carries the stone onto it and withdraws, up to a
// second after it landed, where the last card may show at once.
const CallDelayMS = 1000

// StoneWaitMS is how long the loop waits for a card's stone to move
// before it assumes the move the rules make: the camera may see a stone
// only seconds after its card (a stone relocated across the board, T3b).
const StoneWaitMS = 5000

// ErrConfig means the loop's configuration is unusable.
var ErrConfig = errors.New("table/tiles: bad configuration")

// Loop runs a tile-game table. It is not safe for concurrent use.
type Loop struct {
	cfg   Config
	ref   Referee
	log   *slog.Logger
	watch *vtiles.Watcher
	match *tiles.Observation // the match opened, for the next one
	// waiting are the cards whose stones' moves were not seen yet, in
	// the order seen; finisher is a player's last card, awaiting its
	// stone before the stop, and after what came meanwhile.
	waiting  []*waiting
	finisher *waiting
	after    []tiles.Observation
	// orphans are stones' moves onto fields where no card is known yet.
	orphans []orphan
	// earlyOwners are owners read before their card, which the loop
	// infers from its stone's move (missedCard).
	earlyOwners []tiles.Observation
	// assumed are the stones' moves the loop assumed, not yet seen.
	assumed [tiles.Stones]*assumedMove
	seq     uint64
	// seenUnsure counts the watcher's Unsure lines already logged.
	seenUnsure int
	unsure     []string
	calls      []string          // the latest calls, newest last
	pieces     []piece           // this round's cards and jokers as judged
	moved      [tiles.Stones]int // each stone's moves accepted this round
	// owing lists, per blocked stone, who may owe it (noteOwed)
	owing [tiles.Stones]owing
	// names are the referee's names this round for the watcher's stones
	// (names[k] for its stone k+1), which differ once it swapped two
	// (identifyLay)
	names      [tiles.Stones]int
	seen       bool // the batch applied is the watcher's (applySeen)
	view       *imageView
	status     string
	now        int64               // the latest frame's time
	lastPlay   int64               // the latest card, joker or stone's move seen, or the round's start
	applying   int                 // apply's depth: release waits for the batch's end
	rest       []tiles.Observation // the batch's observations after the one applied
	releaseDue bool
}

// New makes a loop for the players and settings (checked as the referee
// would: 2-4 players, distinct names and frames, T1) that tells ref what
// it sees and infers.
func New(cfg Config, ref Referee) (*Loop, error) {
	if ref == nil {
		return nil, fmt.Errorf("%w: a referee is required", ErrConfig)
	}
	if _, err := tiles.NewMatch(cfg.Players, cfg.Settings); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l := &Loop{cfg: cfg, ref: ref, log: cfg.Log, status: "waiting for the first frame", names: sameNames()}
	l.watch = vtiles.NewWatcher(vtiles.Config{Players: cfg.Players, Settings: cfg.Settings})
	return l, nil
}

// Close frees the loop's images.
func (l *Loop) Close() {
	l.watch.Close()
}

// sourceEnded settles what waits and ends a round that was still
// playing: by its finisher if one can be inferred, or, after a quiet
// table (QuietEndMS), as nobody able to lay (T6a).
func (l *Loop) sourceEnded() {
	l.flushOrphans(true)
	l.settleAll()
	l.finishNow()
	if l.now-l.lastPlay >= QuietEndMS {
		l.endRound(l.now, fmt.Sprintf("the source ended %d s after the last play", (l.now-l.lastPlay)/1000))
	} else {
		l.inferFinisher(l.now)
	}
}

// Unsure returns what the loop saw or inferred but did not report or
// guess, oldest first: the watcher's unsure readings and the loop's own.
func (l *Loop) Unsure() []string { return append([]string(nil), l.unsure...) }

// Run reads src until it ends (nil), breaks (its error, after every frame
// before the break was refereed) or ctx ends (table.ErrStopped).
func (l *Loop) Run(ctx context.Context, src table.Source) error {
	frame := gocv.NewMat()
	defer frame.Close()
	for {
		if ctx.Err() != nil {
			return table.ErrStopped
		}
		shot, err := src.Next(&frame)
		if errors.Is(err, io.EOF) {
			l.sourceEnded()
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return table.ErrStopped
			}
			return fmt.Errorf("table/tiles: the source broke after %d frames: %w", l.seq, err)
		}
		if err := l.Step(&frame, shot); err != nil {
			return err
		}
	}
}

// Step looks at one frame: the watcher reads it, the referee hears what
// it saw and what the loop infers, then the frame is annotated and handed
// on. A frame that cannot be read (no markers in sight, a hand over the
// board) is not an error: the loop waits for the next.
func (l *Loop) Step(frame *gocv.Mat, shot table.Shot) error {
	if shot.NewTable {
		l.newTable()
	}
	l.seq++
	l.status = ""
	if frame.Empty() {
		l.status = "an empty frame"
	} else {
		obs, err := l.watch.Feed(*frame, shot.TimeMS)
		switch {
		case errors.Is(err, vtiles.ErrNoMarkers):
			l.status = "looking for the four table markers"
		case err != nil:
			l.status = "frame not read: " + err.Error()
			l.log.Debug("frame not read", slog.Uint64("frame", l.seq), slog.Any("err", err))
		case l.watch.Board() == nil:
			l.status = "looking for the board and its four stones"
		}
		l.applySeen(obs)
		l.takeUnsure()
	}
	l.tick(shot.TimeMS)
	if l.cfg.Annotate {
		l.annotate(frame, shot)
	}
	if l.cfg.OnFrame != nil {
		l.cfg.OnFrame(table.Frame{Image: *frame, Shot: shot, Seq: l.seq, Calibrating: l.watch.Board() == nil})
	}
	return nil
}

// newTable starts the watcher afresh: the table under the camera changed.
func (l *Loop) newTable() {
	if ph := l.ref.State().Phase; ph == tiles.PhasePlaying || ph == tiles.PhaseCounting {
		l.log.Warn("the table changed in the middle of a round; that round is not scored", slog.String("phase", string(ph)))
	}
	l.waiting, l.finisher, l.after, l.orphans = nil, nil, nil, nil // the old table's cards
	l.watch.Close()
	l.watch = vtiles.NewWatcher(vtiles.Config{Players: l.cfg.Players, Settings: l.cfg.Settings})
	l.seenUnsure = 0
	l.view = nil
	l.newRound()
}

// newRound forgets what the loop inferred about the last round's pieces
// and stones. Names the loop gave the watcher's stones while that round
// settled go too: the watcher names the new board's afresh.
func (l *Loop) newRound() {
	l.pieces, l.assumed, l.earlyOwners, l.owing = nil, [tiles.Stones]*assumedMove{}, nil, [tiles.Stones]owing{}
	l.moved = [tiles.Stones]int{}
	l.names = sameNames()
}

// takeUnsure logs the watcher's new unsure readings.
func (l *Loop) takeUnsure() {
	for _, u := range l.watch.Unsure[l.seenUnsure:] {
		l.noteUnsure(u)
	}
	l.seenUnsure = len(l.watch.Unsure)
}

func (l *Loop) noteUnsure(s string) {
	l.unsure = append(l.unsure, s)
	l.log.Info("unsure", slog.String("what", s))
}
