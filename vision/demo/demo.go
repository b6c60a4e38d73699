// Package demo is the built-in source that needs no camera: simulated
// matches (referee/sim) rendered live as a camera would see them
// (vision/scene), one after another, with what a camera would observe
// passed on for the referee.
package demo

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/vision/scene"
)

// Config says what the demo plays and how fast.
type Config struct {
	Players   int     // 2..12
	Seed      uint64  // the first match's seed; each next match adds one
	FPS       float64 // frames per second
	Speed     float64 // simulated seconds per real second
	ErrorRate float64 // illegal plays on purpose, so the referee has something to call
	Deadlock  referee.DeadlockRule
	Scene     scene.Config
}

// DefaultConfig plays four players at real speed, 25 frames a second.
func DefaultConfig() Config {
	return Config{Players: 4, Seed: 1, FPS: 25, Speed: 1, ErrorRate: 0.03, Deadlock: referee.DeadlockRestart, Scene: scene.DefaultConfig()}
}

// Frame is one rendered frame: the picture, where the visible pile tops
// lie in it, and the simulated clock it shows.
type Frame struct {
	Image  *image.RGBA
	TimeMS int64
	Truth  []scene.CardTruth
	Match  int // which match of the run (1, 2, ...)
}

// Run plays matches until ctx ends. Each frame goes to frames (a new image
// each time: the receiver may keep it); each observation a camera would
// make goes to observe, when the frame that shows it is rendered. It
// returns ctx's error, or the first error of the simulator or renderer.
func Run(ctx context.Context, cfg Config, frames func(Frame), observe func(referee.Observation)) error {
	if cfg.FPS <= 0 || cfg.Speed <= 0 {
		return fmt.Errorf("demo: fps %v and speed %v must be positive", cfg.FPS, cfg.Speed)
	}
	for match := 1; ctx.Err() == nil; match++ {
		if err := playMatch(ctx, cfg, match, frames, observe); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func playMatch(ctx context.Context, cfg Config, match int, frames func(Frame), observe func(referee.Observation)) error {
	seed := cfg.Seed + uint64(match-1)
	var events []sim.Event
	if _, err := sim.Run(sim.Config{Players: cfg.Players, Seed: seed, Match: true, ErrorRate: cfg.ErrorRate, Deadlock: cfg.Deadlock},
		func(e sim.Event) error { events = append(events, e); return nil }); err != nil {
		return fmt.Errorf("demo match %d: %w", match, err)
	}
	sc, err := scene.New(cfg.Scene, referee.DefaultPlayers(cfg.Players), seed)
	if err != nil {
		return err
	}
	look := sc.Lookahead()
	start := sc.Start()
	applied, observed := 0, 0
	// The match is set up before the calibration preamble, so that
	// spectators see the players while the table is calibrated.
	if events[0].Kind == sim.EvMatch {
		if err := sc.Apply(events[0]); err != nil {
			return fmt.Errorf("demo match %d: %w", match, err)
		}
		for _, o := range events[0].Observations() {
			observe(o)
		}
		applied, observed = 1, 1
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / cfg.FPS))
	defer tick.Stop()
	t0 := time.Now()
	for {
		shown := start + int64(float64(time.Since(t0).Milliseconds())*cfg.Speed)
		// The scene needs events up to a lookahead past what it shows:
		// a card leaves the player's hand before it lands.
		for applied < len(events) && events[applied].TimeMS <= shown+look {
			if err := sc.Apply(events[applied]); err != nil {
				return fmt.Errorf("demo match %d: %w", match, err)
			}
			applied++
		}
		for observed < applied && events[observed].TimeMS <= shown {
			for _, o := range events[observed].Observations() {
				observe(o)
			}
			observed++
		}
		if observed == len(events) && shown > events[len(events)-1].TimeMS+5000 {
			return nil
		}
		img := image.NewRGBA(image.Rect(0, 0, cfg.Scene.Width, cfg.Scene.Height))
		truth, err := sc.RenderRGBA(shown, img)
		if err != nil {
			return err
		}
		annotate(img, truth)
		frames(Frame{Image: img, TimeMS: shown, Truth: truth, Match: match})
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var faceColours = map[referee.Colour]color.RGBA{
	referee.Red: {229, 57, 53, 255}, referee.Green: {46, 157, 72, 255},
	referee.Blue: {30, 123, 224, 255}, referee.Yellow: {245, 197, 24, 255},
}

// annotate outlines each pile top and labels it. The readings come from
// the simulation, not from vision: the demo shows what the referee is fed.
func annotate(img *image.RGBA, truth []scene.CardTruth) {
	for _, t := range truth {
		if t.Role != scene.RolePile {
			continue
		}
		c := faceColours[t.Card.Colour]
		if t.Hand {
			c = color.RGBA{255, 255, 255, 255}
		}
		for i := range 4 {
			a, b := t.Quad[i], t.Quad[(i+1)%4]
			line(img, int(a.X), int(a.Y), int(b.X), int(b.Y), c)
		}
		x, y := int(t.Quad[0].X), int(t.Quad[0].Y)-6
		label(img, fmt.Sprintf("#%d %s", t.Pile, t.Card.Face), x, y)
	}
	label(img, "DEMO: simulated table", 12, 20)
}

func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		x, y := x0+(x1-x0)*i/n, y0+(y1-y0)*i/n
		for d := -1; d <= 1; d++ {
			if (image.Point{x + d, y}).In(img.Rect) {
				img.SetRGBA(x+d, y, c)
			}
			if (image.Point{x, y + d}).In(img.Rect) {
				img.SetRGBA(x, y+d, c)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// label writes s in white on a dark box with its baseline at (x, y).
func label(img *image.RGBA, s string, x, y int) {
	r := image.Rect(x-2, y-12, x+7*len(s)+2, y+3).Intersect(img.Rect)
	draw.Draw(img, r, image.NewUniform(color.RGBA{0, 0, 0, 160}), image.Point{}, draw.Over)
	d := font.Drawer{Dst: img, Src: image.White, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
