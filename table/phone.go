package table

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gocv.io/x/gocv"
)

// Phone is the source of a camera that publishes its pictures to the
// server (a phone on a stand, over WHIP): the server's decoder hands it
// each picture (it implements stream.Ingest), the loop reads them. Only
// the newest picture waits: when the loop is behind, older ones are
// dropped (and counted), so the referee stays live. When the phone drops,
// Next waits for it to come back, and the match goes on: the clock runs
// on from the source's start, so no time is counted twice.
type Phone struct {
	ctx   context.Context
	log   *slog.Logger
	start time.Time

	mu      sync.Mutex
	pending *phonePicture
	ready   chan struct{} // signalled when pending is set

	live      atomic.Bool
	connects  atomic.Int64
	dropped   atomic.Uint64
	delivered atomic.Uint64
}

// phonePicture is one picture as contiguous I420 (or RGBA when the
// decoder gave another kind of image).
type phonePicture struct {
	w, h int
	i420 []byte
	rgba *image.RGBA
	at   time.Time
}

// NewPhone makes a phone source that gives frames until ctx ends.
func NewPhone(ctx context.Context, log *slog.Logger) *Phone {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Phone{ctx: ctx, log: log, start: time.Now(), ready: make(chan struct{}, 1)}
}

// IngestFrame takes one decoded picture; it copies it and never blocks.
func (p *Phone) IngestFrame(img image.Image, at time.Time) {
	pic := &phonePicture{at: at}
	b := img.Bounds()
	pic.w, pic.h = b.Dx(), b.Dy()
	if pic.w < 2 || pic.h < 2 {
		p.dropped.Add(1)
		return
	}
	if y, ok := img.(*image.YCbCr); ok && y.SubsampleRatio == image.YCbCrSubsampleRatio420 && pic.w%2 == 0 && pic.h%2 == 0 {
		pic.i420 = make([]byte, pic.w*pic.h*3/2)
		o := 0
		for r := 0; r < pic.h; r++ {
			o += copy(pic.i420[o:o+pic.w], y.Y[y.YOffset(b.Min.X, b.Min.Y+r):])
		}
		cw, ch := pic.w/2, pic.h/2
		for _, plane := range [][]byte{y.Cb, y.Cr} {
			for r := 0; r < ch; r++ {
				off := y.COffset(b.Min.X, b.Min.Y+2*r)
				o += copy(pic.i420[o:o+cw], plane[off:])
			}
		}
	} else {
		pic.rgba = image.NewRGBA(image.Rect(0, 0, pic.w, pic.h))
		draw.Draw(pic.rgba, pic.rgba.Rect, img, b.Min, draw.Src)
	}
	p.mu.Lock()
	if p.pending != nil {
		p.dropped.Add(1)
	}
	p.pending = pic
	p.mu.Unlock()
	select {
	case p.ready <- struct{}{}:
	default:
	}
}

// IngestLive hears the phone connect and leave.
func (p *Phone) IngestLive(live bool) {
	was := p.live.Swap(live)
	switch {
	case live && !was:
		n := p.connects.Add(1)
		if n > 1 {
			p.log.Info("the phone camera is back; the match goes on", slog.Int64("connections", n))
		} else {
			p.log.Info("the phone camera is publishing")
		}
	case !live && was:
		p.log.Warn("the phone camera dropped; waiting for it to come back")
	}
}

// Live says whether a phone is publishing now.
func (p *Phone) Live() bool { return p.live.Load() }

// Dropped counts pictures dropped because the loop was behind, or too
// small to use.
func (p *Phone) Dropped() uint64 { return p.dropped.Load() }

// Reconnects counts the times the phone came back after it dropped.
func (p *Phone) Reconnects() int { return max(int(p.connects.Load())-1, 0) }

// Next waits for the next picture.
func (p *Phone) Next(dst *gocv.Mat) (Shot, error) {
	for {
		p.mu.Lock()
		pic := p.pending
		p.pending = nil
		p.mu.Unlock()
		if pic != nil {
			if err := pic.bgr(dst); err != nil {
				return Shot{}, err
			}
			p.delivered.Add(1)
			return Shot{TimeMS: max(pic.at.Sub(p.start).Milliseconds(), 0)}, nil
		}
		select {
		case <-p.ready:
		case <-p.ctx.Done():
			return Shot{}, p.ctx.Err()
		}
	}
}

// Close ends nothing: the server owns the connection.
func (p *Phone) Close() error { return nil }

func (pic *phonePicture) bgr(dst *gocv.Mat) error {
	if pic.i420 != nil {
		yuv, err := gocv.NewMatFromBytes(pic.h*3/2, pic.w, gocv.MatTypeCV8UC1, pic.i420)
		if err != nil {
			return fmt.Errorf("%w: phone picture: %v", ErrSource, err)
		}
		defer yuv.Close()
		gocv.CvtColor(yuv, dst, gocv.ColorYUVToBGRIYUV)
		return nil
	}
	rgba, err := gocv.NewMatFromBytes(pic.h, pic.w, gocv.MatTypeCV8UC4, pic.rgba.Pix)
	if err != nil {
		return fmt.Errorf("%w: phone picture: %v", ErrSource, err)
	}
	defer rgba.Close()
	gocv.CvtColor(rgba, dst, gocv.ColorRGBAToBGR)
	return nil
}
