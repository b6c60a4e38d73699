package main

import (
	"context"
	"log/slog"
	"time"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/vision/demo"
)

// demoFrames is the built-in source: simulated matches rendered live as a
// camera above the table would see them, calibrated and refereed through
// the vision pipeline (vision/demo). The annotated frames go to the
// stream; what the pipeline observes goes to the referee game. A frame
// the server is not ready for is dropped, so the picture stays live. The
// operator may interfere (start a match, undo): observations the referee
// refuses then are logged and skipped.
func demoFrames(ctx context.Context, cfg demo.Config, game *stream.RefereeGame, log *slog.Logger) <-chan stream.Frame {
	out := make(chan stream.Frame, 1)
	cfg.Log = log
	go func() {
		defer close(out)
		var seq uint64
		err := demo.Run(ctx, cfg, func(f demo.Frame) {
			seq++
			select {
			case out <- stream.Frame{Image: f.Image, Seq: seq, Time: time.Now()}:
			default: // the encoder is busy: this frame is skipped
			}
		}, gameReferee{game})
		if err != nil && ctx.Err() == nil {
			log.Error("demo source stopped", slog.Any("err", err))
		}
	}()
	return out
}

// gameReferee lets the demo feed the game and draw the referee's state.
type gameReferee struct{ g *stream.RefereeGame }

func (r gameReferee) Apply(o referee.Observation) (referee.Verdict, error) { return r.g.Apply(o) }
func (r gameReferee) State() referee.State                                 { return r.g.RefereeState() }
