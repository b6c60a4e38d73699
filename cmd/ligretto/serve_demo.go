package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log/slog"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"ligretto/referee/sim"
	"ligretto/stream"
)

// The demo source is a placeholder until the simulated match is rendered
// as video: a moving test card with a frame counter, while the simulator
// plays a match that fills the scoreboard.
const (
	demoWidth  = 1280
	demoHeight = 720
	demoFPS    = 25
	demoSpeed  = 3 // the simulated match runs this many times faster than real time
)

// demoFrames draws the test card at demoFPS until ctx ends.
func demoFrames(ctx context.Context) <-chan stream.Frame {
	out := make(chan stream.Frame, 2)
	go func() {
		defer close(out)
		bg := demoBackground(demoWidth, demoHeight)
		tick := time.NewTicker(time.Second / demoFPS)
		defer tick.Stop()
		start := time.Now()
		for seq := uint64(0); ; seq++ {
			now := time.Now()
			img := image.NewRGBA(bg.Rect)
			copy(img.Pix, bg.Pix)
			drawDemo(img, seq, now.Sub(start))
			select {
			case out <- stream.Frame{Image: img, Seq: seq, Time: now}:
			case <-ctx.Done():
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

var demoBars = []color.RGBA{
	{192, 192, 192, 255}, {192, 192, 0, 255}, {0, 192, 192, 255}, {0, 192, 0, 255},
	{192, 0, 192, 255}, {192, 0, 0, 255}, {0, 0, 192, 255},
}

// demoBackground is the still part: colour bars over a table-green field
// with a grey ramp.
func demoBackground(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(color.RGBA{22, 82, 52, 255}), image.Point{}, draw.Src)
	barH := h / 3
	for i, c := range demoBars {
		r := image.Rect(i*w/len(demoBars), 0, (i+1)*w/len(demoBars), barH)
		draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	}
	for x := 0; x < w; x++ {
		v := uint8(x * 255 / (w - 1))
		for y := h - h/12; y < h; y++ {
			img.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	demoText(img, "LIGRETTO  DEMO SOURCE", image.Pt(40, barH+40), 4, color.RGBA{255, 255, 255, 255})
	demoText(img, "a placeholder for the annotated table view", image.Pt(40, barH+110), 2, color.RGBA{200, 220, 210, 255})
	return img
}

var demoCardColours = []color.RGBA{{229, 57, 53, 255}, {46, 157, 72, 255}, {30, 123, 224, 255}, {245, 197, 24, 255}}

// drawDemo draws what moves: a card bouncing across the table, the frame
// counter and the clock.
func drawDemo(img *image.RGBA, seq uint64, t time.Duration) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	const cw, ch = 120, 170
	span := func(n int, period float64) int { // a triangle wave over 0..n
		p := t.Seconds() / period
		f := p - float64(int(p))
		if f > 0.5 {
			f = 1 - f
		}
		return int(2 * f * float64(n))
	}
	x := span(w-cw, 7)
	y := h/3 + 150 + span(h-h/12-h/3-150-ch, 3.3)
	c := demoCardColours[int(t.Seconds()/2)%len(demoCardColours)]
	draw.Draw(img, image.Rect(x-4, y-4, x+cw+4, y+ch+4), image.NewUniform(color.RGBA{250, 250, 250, 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(x, y, x+cw, y+ch), image.NewUniform(c), image.Point{}, draw.Src)
	demoText(img, fmt.Sprint(int(t.Seconds())%10+1), image.Pt(x+cw/2-21, y+ch/2-40), 6, color.RGBA{255, 255, 255, 255})

	label := fmt.Sprintf("FRAME %07d  %s", seq, time.Now().Format("15:04:05.000"))
	const scale = 4
	lw := len(label)*7*scale + 32
	top := h - h/12 - 13*scale - 24
	draw.Draw(img, image.Rect(w-lw-20, top, w-20, top+13*scale+16), image.NewUniform(color.RGBA{0, 0, 0, 200}), image.Point{}, draw.Over)
	demoText(img, label, image.Pt(w-lw-4, top+6), scale, color.RGBA{255, 235, 59, 255})
}

// demoText draws s with the 7x13 bitmap font, scaled up by scale, with its
// top-left corner at at.
func demoText(dst *image.RGBA, s string, at image.Point, scale int, c color.RGBA) {
	face := basicfont.Face7x13
	small := image.NewAlpha(image.Rect(0, 0, 7*len(s), 13))
	d := font.Drawer{Dst: small, Src: image.Opaque, Face: face, Dot: fixed.P(0, 11)}
	d.DrawString(s)
	for y := 0; y < 13; y++ {
		for x := 0; x < small.Rect.Dx(); x++ {
			if small.AlphaAt(x, y).A < 128 {
				continue
			}
			r := image.Rect(at.X+x*scale, at.Y+y*scale, at.X+(x+1)*scale, at.Y+(y+1)*scale).Intersect(dst.Rect)
			draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
		}
	}
}

// playDemoMatches plays simulated matches against the clock, one after
// another, and passes what a camera would see to the game, until ctx ends.
// The operator may interfere (start a match, undo): observations the
// referee refuses then are skipped.
func playDemoMatches(ctx context.Context, game *stream.RefereeGame, log *slog.Logger) {
	for seed := uint64(1); ctx.Err() == nil; seed++ {
		start := time.Now()
		wait := func(ms int64) error {
			due := start.Add(time.Duration(float64(ms)/demoSpeed) * time.Millisecond)
			t := time.NewTimer(time.Until(due))
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		res, err := sim.Run(sim.Config{Players: 4, Seed: seed, Match: true, ErrorRate: 0.04}, func(e sim.Event) error {
			if err := wait(e.TimeMS); err != nil {
				return err
			}
			for i, o := range e.Observations() {
				if e.Kind == sim.EvRoundEnd && i > 0 {
					// Let spectators see the counting.
					if err := wait(e.TimeMS + int64(i)*400*demoSpeed); err != nil {
						return err
					}
				}
				if _, err := game.Apply(o); err != nil {
					log.Debug("demo observation refused", slog.String("kind", string(o.Kind)), slog.Any("err", err))
				}
			}
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Error("demo match failed", slog.Uint64("seed", seed), slog.Any("err", err))
		} else {
			log.Info("demo match over", slog.Uint64("seed", seed), slog.Any("totals", res.Totals))
		}
		select {
		case <-time.After(15 * time.Second):
		case <-ctx.Done():
			return
		}
	}
}
