package tiles

import (
	"fmt"
	"slices"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
)

// Config configures a Watcher.
type Config struct {
	Players  []tiles.Player // in seat order, each with their frame style
	Settings tiles.Settings
	StableMS int64 // how long a field must look the same before its change is believed (default 180)
}

// fieldTrack is one field's believed look and the candidate replacing it.
type fieldTrack struct {
	believed  look
	cand      look
	candSince int64
}

// Watcher turns frames into observations for tiles.Referee. It is not
// safe for concurrent use.
type Watcher struct {
	cfg     Config
	top     *topView
	board   *Board
	fields  [][]fieldTrack
	stones  [tiles.Stones]tiles.Field
	started bool
	pending map[tiles.Field]int64 // card halves newly believed, waiting for their partner
	// Unsure counts what was seen but not reported (unreadable frame, no partner).
	Unsure []string
	// Styles logs every frame style read, for diagnosis.
	Styles []string
}

// NewWatcher returns a watcher for cfg.
func NewWatcher(cfg Config) *Watcher {
	if cfg.StableMS <= 0 {
		cfg.StableMS = 180
	}
	return &Watcher{cfg: cfg, pending: map[tiles.Field]int64{}}
}

// Close frees the watcher's images.
func (w *Watcher) Close() {
	if w.top != nil {
		w.top.Close()
	}
}

// Board is the board found, or nil.
func (w *Watcher) Board() *Board { return w.board }

// Feed takes the next frame (BGR) shown at tMS and returns what it newly
// believes. Before the markers are found it returns ErrNoMarkers; until
// the board is found, nothing.
func (w *Watcher) Feed(frame gocv.Mat, tMS int64) ([]tiles.Observation, error) {
	if w.top == nil {
		t, err := newTopView(frame)
		if err != nil {
			return nil, err
		}
		w.top = t
	}
	if err := w.top.warp(frame); err != nil {
		return nil, err
	}
	if w.board == nil {
		return w.findBoard(tMS), nil
	}
	return w.track(tMS), nil
}

// findBoard looks for the board and the four stones on it.
func (w *Watcher) findBoard(tMS int64) []tiles.Observation {
	b, err := findBoard(w.top, len(w.cfg.Players))
	if err != nil {
		return nil
	}
	var stones []tiles.Field
	fields := make([][]fieldTrack, b.H)
	for y := range b.H {
		fields[y] = make([]fieldTrack, b.W)
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			l := lookOf(sampleField(w.top, b, f))
			if l.kind != lookFree || l.colour != b.Colour(f) {
				return nil
			}
			if l.stone {
				stones = append(stones, f)
			}
			fields[y][x] = fieldTrack{believed: l, cand: l, candSince: tMS}
		}
	}
	if len(stones) != tiles.Stones {
		return nil
	}
	w.board, w.fields = b, fields
	copy(w.stones[:], stones)
	var out []tiles.Observation
	if !w.started {
		w.started = true
		s := w.cfg.Settings
		out = append(out, tiles.Observation{Kind: tiles.ObsMatch, TimeMS: tMS, Players: slices.Clone(w.cfg.Players), Settings: &s, By: "camera"})
	}
	lay := b.Layout
	return append(out, tiles.Observation{Kind: tiles.ObsRound, TimeMS: tMS, Layout: &lay, Stones: stones, By: "camera"})
}

var sideStep = [4]tiles.Field{{X: 0, Y: -1}, {X: 1, Y: 0}, {X: 0, Y: 1}, {X: -1, Y: 0}}

// track classifies every field and reports the changes held long enough.
func (w *Watcher) track(tMS int64) []tiles.Observation {
	b := w.board
	var changed []tiles.Field
	for y := range b.H {
		for x := range b.W {
			f := tiles.Field{X: x, Y: y}
			ft := &w.fields[y][x]
			l := lookOf(sampleField(w.top, b, f))
			if l != ft.cand {
				ft.cand, ft.candSince = l, tMS
				continue
			}
			if l.kind == lookHidden || l == ft.believed || tMS-ft.candSince < w.cfg.StableMS {
				continue
			}
			old := ft.believed
			ft.believed = l
			if old.kind == lookFree && l.kind == lookCard {
				w.pending[f] = tMS
			}
			if old.kind == lookFree && l.kind == lookJoker {
				changed = append(changed, f)
			}
		}
	}
	out := w.lays(tMS)
	for _, f := range changed {
		out = append(out, w.joker(f, tMS)...)
	}
	return append(out, w.stoneMoves(tMS)...)
}

// lays pairs newly covered card halves into cards.
func (w *Watcher) lays(tMS int64) []tiles.Observation {
	var out []tiles.Observation
	keys := make([]tiles.Field, 0, len(w.pending))
	for f := range w.pending {
		keys = append(keys, f)
	}
	slices.SortFunc(keys, func(a, b tiles.Field) int { return (a.Y-b.Y)*100 + a.X - b.X })
	for _, f := range keys {
		if _, ok := w.pending[f]; !ok {
			continue
		}
		l := w.fields[f.Y][f.X].believed
		if l.open < 0 {
			continue
		}
		g := tiles.Field{X: f.X + sideStep[l.open].X, Y: f.Y + sideStep[l.open].Y}
		if _, ok := w.pending[g]; !ok {
			if tMS-w.pending[f] > 3000 {
				delete(w.pending, f)
				w.Unsure = append(w.Unsure, fmt.Sprintf("%d ms: card half at %v without its other half", tMS, f))
			}
			continue
		}
		m := w.fields[g.Y][g.X].believed
		if m.open < 0 || (m.open+2)%4 != l.open {
			continue
		}
		delete(w.pending, f)
		delete(w.pending, g)
		owner, why := w.owner(f, g)
		if owner == "" {
			w.Unsure = append(w.Unsure, fmt.Sprintf("%d ms: card at %v-%v: owner unsure (%s)", tMS, f, g, why))
			continue
		}
		out = append(out, tiles.Observation{Kind: tiles.ObsLay, TimeMS: tMS, Player: owner,
			Fields: []tiles.Field{f, g}, Colours: []tiles.Colour{l.colour, m.colour}, By: "camera"})
	}
	return out
}

// joker reports a joker newly on f, at the stone beside it.
func (w *Watcher) joker(f tiles.Field, tMS int64) []tiles.Observation {
	w.Unsure = append(w.Unsure, fmt.Sprintf("%d ms: joker at %v: its owner is not read yet", tMS, f))
	return nil
}

// stoneMoves reports a stone gone from one field and shown on another.
func (w *Watcher) stoneMoves(tMS int64) []tiles.Observation {
	var gone []int
	for i, f := range w.stones {
		l := w.fields[f.Y][f.X].believed
		if !l.stone {
			gone = append(gone, i)
		}
	}
	var came []tiles.Field
	for y := range w.board.H {
		for x := range w.board.W {
			f := tiles.Field{X: x, Y: y}
			if w.fields[y][x].believed.stone && !slices.Contains(w.stones[:], f) {
				came = append(came, f)
			}
		}
	}
	if len(gone) != 1 || len(came) != 1 || len(w.pending) > 0 {
		return nil
	}
	w.stones[gone[0]] = came[0]
	return []tiles.Observation{{Kind: tiles.ObsStone, TimeMS: tMS, Stone: gone[0] + 1, Fields: []tiles.Field{came[0]}, By: "camera"}}
}
