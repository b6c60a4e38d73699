//go:build e2e

package vision

// Diagnostics for the end-to-end rounds: what the rendered truth says the
// camera could have seen, beside what the pipeline made of it.

import (
	"fmt"
	"image"
	"image/color"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// truthPiles is what the camera could have seen of each true pile: frames
// by the depth of its top card, and of those the frames with nothing over
// it. The truth lists only each pile's top, so the last frame's is kept.
type truthPiles struct {
	piles map[int]*truthPile
	last  []scene.CardTruth
}

type truthPile struct {
	first         referee.Face
	frames, clear [maxTrueDepth]int
}

// maxTrueDepth bounds the depths kept: ten cards and a few fouls on them
// (a card on a 10 breaks C8 and still lies there).
const maxTrueDepth = 16

func (tp *truthPiles) observe(tr []scene.CardTruth) {
	tp.last = tr
	if tp.piles == nil {
		tp.piles = map[int]*truthPile{}
	}
	for _, c := range tr {
		if c.Role != scene.RolePile || c.Depth >= maxTrueDepth {
			continue
		}
		p := tp.piles[c.Pile]
		if p == nil {
			p = &truthPile{}
			tp.piles[c.Pile] = p
		}
		if c.Depth == 0 {
			p.first = c.Card.Face
		}
		p.frames[c.Depth]++
		if c.Occluded == 0 && !c.Hand {
			p.clear[c.Depth]++
		}
	}
}

// logPilesShowing logs the history of every true pile whose top is f.
func (tp *truthPiles) logPilesShowing(t *testing.T, f referee.Face) {
	t.Helper()
	for _, c := range tp.last {
		if p := tp.piles[c.Pile]; c.Role == scene.RolePile && c.Card.Face == f && p != nil {
			d := min(c.Depth+1, maxTrueDepth)
			t.Logf("    true pile %d: first card %v; frames by top depth %v, clear of hands %v", c.Pile, p.first, p.frames[:d], p.clear[:d])
		}
	}
}

// foulTracer follows each injected foul while it is its pile's top
// (E2E_TRACE_FOULS): frames in view and clear of hands, frames found by
// the finder, and the readings of the tracked pile there. With dump, it writes the rectified centre
// (and the empty table) to /tmp/e2e when the foul is clear but not found.
// A nil tracer does nothing.
type foulTracer struct {
	injected []sim.Injected
	traces   []foulTrace
	seed     uint64
	dump     bool
}

type foulTrace struct {
	top, clear, found int
	readings          map[string]int
}

func (ft *foulTracer) observe(k int, tr []scene.CardTruth, p *Pipeline) {
	if ft == nil || p.phase != referee.PhasePlaying {
		return
	}
	var quads []Quad
	for i, in := range ft.injected {
		for _, c := range tr {
			if c.Role != scene.RolePile || c.Pile != in.Pile || c.Card.Face != in.Card || int64(k)*1000/testFPS < in.TimeMS {
				continue
			}
			if quads == nil {
				quads = p.findCards()
			}
			tc := &ft.traces[i]
			if tc.readings == nil {
				tc.readings = map[string]int{}
			}
			tc.top++
			clear := c.Occluded == 0 && !c.Hand
			if clear {
				tc.clear++
			}
			var x, y float64 // centre work pixels, as in TestDiagTrack
			for _, pt := range c.Quad {
				w := p.view.toWork.Apply(calibrationPoint(pt.X, pt.Y))
				x += (w.X - float64(p.view.centre.Min.X)) / 4
				y += (w.Y - float64(p.view.centre.Min.Y)) / 4
			}
			hit := false
			for _, q := range quads {
				if qx, qy := q.Centre(); (qx-x)*(qx-x)+(qy-y)*(qy-y) < 8*8 {
					tc.found++
					hit = true
					break
				}
			}
			if !hit && clear && tc.clear%30 == 5 && ft.dump {
				ft.dumpMiss(p, quads, x, y, in.Pile, k)
			}
			for _, pl := range p.piles {
				if (pl.x-x)*(pl.x-x)+(pl.y-y)*(pl.y-y) < 8*8 && pl.seen == p.frame {
					key := fmt.Sprintf("#%d top %v", pl.id, pl.committed)
					if pl.hasRead {
						key += fmt.Sprintf(" reads %v", pl.reading.Face())
					}
					if !p.cardSized(pl.quad) {
						key += " (not card-sized)"
					}
					tc.readings[key]++
				}
			}
		}
	}
}

func (ft *foulTracer) dumpMiss(p *Pipeline, quads []Quad, x, y float64, pile, k int) {
	gocv.IMWrite(fmt.Sprintf("/tmp/e2e/foulraw_%d_%d_%d.png", ft.seed, pile, k), p.rect)
	if bg := p.bg.Region(p.view.centre); !bg.Empty() {
		gocv.IMWrite(fmt.Sprintf("/tmp/e2e/bg_%d.png", ft.seed), bg)
		bg.Close()
	}
	img := p.rect.Clone()
	defer img.Close()
	for _, q := range quads {
		pv := gocv.NewPointsVectorFromPoints([][]image.Point{q[:]})
		gocv.Polylines(&img, pv, true, color.RGBA{255, 0, 255, 0}, 1)
		pv.Close()
	}
	gocv.Circle(&img, image.Pt(int(x), int(y)), 4, color.RGBA{0, 255, 255, 0}, 2)
	gocv.IMWrite(fmt.Sprintf("/tmp/e2e/foul_%d_%d_%d.png", ft.seed, pile, k), img)
}

func (ft *foulTracer) log(t *testing.T) {
	t.Helper()
	if ft == nil {
		return
	}
	for i, tc := range ft.traces {
		in := ft.injected[i]
		t.Logf("foul %v on pile %d at %d ms (%s): its pile's top for %d frames, %d clear of hands, found in %d; tracked: %v", in.Card, in.Pile, in.TimeMS, in.Rule, tc.top, tc.clear, tc.found, tc.readings)
	}
}
