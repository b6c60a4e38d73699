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
// camera above the table would see them (vision/demo). Frames go to the
// stream; what a camera would observe goes to the referee game. A frame
// the server is not ready for is dropped, so the picture stays live. The
// operator may interfere (start a match, undo): observations the referee
// refuses then are logged and skipped.
func demoFrames(ctx context.Context, cfg demo.Config, game *stream.RefereeGame, log *slog.Logger) <-chan stream.Frame {
	out := make(chan stream.Frame, 1)
	go func() {
		defer close(out)
		var seq uint64
		err := demo.Run(ctx, cfg, func(f demo.Frame) {
			seq++
			select {
			case out <- stream.Frame{Image: f.Image, Seq: seq, Time: time.Now()}:
			default: // the encoder is busy: this frame is skipped
			}
		}, func(o referee.Observation) {
			if _, err := game.Apply(o); err != nil {
				log.Debug("demo observation refused", slog.String("kind", string(o.Kind)), slog.Any("err", err))
			}
		})
		if err != nil && ctx.Err() == nil {
			log.Error("demo source stopped", slog.Any("err", err))
		}
	}()
	return out
}
