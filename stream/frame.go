package stream

import (
	"context"
	"image"
	"time"
)

// Frame is one annotated picture for spectators. The server encodes it;
// the sender must not change Image after sending it.
type Frame struct {
	// Image is the picture. *image.RGBA and 4:2:0 *image.YCbCr are encoded
	// without a generic conversion; other types work, slowly. Its size may
	// change between frames (the encoder restarts).
	Image image.Image
	// Seq numbers the frames from the source, increasing.
	Seq uint64
	// Time is when the picture was taken (or drawn). The zero time means now.
	Time time.Time
}

// FrameSource delivers frames until ctx ends; it then closes the channel.
// The server always encodes the newest frame waiting and drops older ones,
// so a slow encoder adds no delay.
type FrameSource interface {
	Frames(ctx context.Context) <-chan Frame
}

// FrameSourceFunc adapts a function to FrameSource.
type FrameSourceFunc func(ctx context.Context) <-chan Frame

// Frames calls f.
func (f FrameSourceFunc) Frames(ctx context.Context) <-chan Frame { return f(ctx) }
