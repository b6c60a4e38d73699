package vision

// The pipeline's configuration.

import (
	"time"

	"ligretto/referee"
)

// PipelineConfig tunes the tracker. Start from DefaultPipelineConfig.
//
// Its waits and windows are times, counted in frames at the rate of the
// frames given to Process (FPS, or measured from their times; see
// frames).
type PipelineConfig struct {
	// FPS is the rate of the frames given to Process. 0 (the default):
	// measured from the frames' times over the last seconds, which is
	// the rate the pipeline sees even when a live source drops frames.
	FPS float64
	// Stable is how long consecutive quiet frames must agree on a pile's
	// reading before it is committed, when none of them was sure (see
	// SureStable): two unsure frames under a fingertip can agree on a
	// misread.
	Stable time.Duration
	// SureStable is how long quiet frames suffice when one of them read
	// the candidate at least OpenConfidence sure: a sure reading of the
	// card a pile expects commits in the first quiet frame after a hand
	// lifts (a foul still needs SurpriseStable).
	SureStable time.Duration
	// MinConfidence is the least face confidence a reading needs.
	MinConfidence float64
	// OpenConfidence and OpenStable guard opening a pile (a false opening
	// is a false violation): its first reading commits after Stable quiet
	// frames only when one of them was at least OpenConfidence sure, else
	// after OpenStable. A card in a seat counts as a face only at
	// OpenConfidence too (readSeats).
	OpenConfidence float64
	OpenStable     time.Duration
	// MaxMotion is the largest fraction of a pile's box that may change
	// between frames for it to count as quiet (not under a moving hand).
	MaxMotion float64
	// StopWait is how long the centre must show face-down cards (the
	// count after a stop) before counting starts.
	StopWait time.Duration
	// A new pile whose first card read is not a 1 breaks C6 only if no 1
	// can lie under it: with StrictStarts (the default) it is reported as
	// is when that card was first read at most BareWindow after its spot
	// was last seen as bare table, no 1 or lower card (of any colour:
	// colours are misread) was glimpsed there however unsurely, and the
	// bare-table map sees the card itself (it may not see a green card on
	// green felt, so it may not have seen a 1 either). A 1 laid, seen by
	// the others and answered with a 2 takes longer than BareWindow,
	// which lies just short of the quickest legal pile whose 1 the camera
	// missed. A hand over the spot is not bare table even when it has the
	// table's colour (see tableTexture). Otherwise the pile is
	// reported as its 1 with the rest inferred, since a legal play must
	// never be reported as a violation.
	StrictStarts bool
	BareWindow   time.Duration
	// SurpriseStable is how long quiet frames (one of them at least
	// OpenConfidence sure) a reading needs when it is not the expected
	// next card (the next number of the pile's colour, or a 1 on a new
	// pile): a jump, a foul or a bad start. A card still settling, a
	// glimpse of a neighbour, or a 10 read as a 1 for a frame or two must
	// not become a violation, while a foul covered quickly by the next
	// card is read only a few times.
	// The reading must also hold from crops moved along the card
	// (readsAlike), which is what keeps a sure misread from a call.
	SurpriseStable time.Duration
	// FitPiles finds the centre's cards against the calibration's empty
	// table (find.Cards with Fit: closes outlines on yellow-on-beige edges,
	// fits cards into heaps of touching or overlapping piles). Off by
	// default: it finds many more pile tops, but the extra finds still
	// cause a few false violations in the simulated rounds.
	FitPiles bool
	// Attribute watches the seats too (see Attributor): pile commits name
	// who laid the card, and a stack seen empty calls the stop. Off by
	// default: a false stop would end a round early.
	Attribute bool
	// Settings of the match the referee is told.
	Settings referee.Settings
}

// DefaultPipelineConfig suits 15-60 fps. Its times come out as the frame
// counts it was tuned with at 30 fps (3, 1, 5, 8, 22 and 4 frames).
func DefaultPipelineConfig() PipelineConfig {
	return PipelineConfig{Stable: 100 * time.Millisecond, SureStable: 33 * time.Millisecond, MinConfidence: 0.5, OpenConfidence: 0.9,
		OpenStable: 167 * time.Millisecond, MaxMotion: 0.01, StopWait: 267 * time.Millisecond, StrictStarts: true,
		BareWindow: 733 * time.Millisecond, SurpriseStable: 133 * time.Millisecond}
}
