//go:build e2e

package tiles

import (
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
)

// The frame style reads on still frames of simulated matches, rendered as
// the e2e matches are (JPEG quality e2eQuality): cheaper than watching
// whole matches, and over many more pieces.
//
//	go test -tags e2e -run 'TilesVision_T' -v ./vision/tiles

// T4: a joker's frame, in full view once its stone has gone on, is read
// as its owner's style, or not at all: never as another's. A joker's
// dashes leave short gaps, so plain and dashed match it almost alike; the
// gaps' ink tells them apart (gapInk). The jokers are the simulator's, in
// 4-player rounds of the seeds below, rendered as a camera sees them.
func TestTilesVision_T4_JokerFrameRead(t *testing.T) {
	read := map[tiles.Frame]int{}
	jokers := map[tiles.Frame]int{}
	for seed := uint64(1); seed <= 30; seed++ {
		events, sc := stagedMatch(t, tilesim.Config{Players: 4, Seed: seed, Rounds: 6})
		players, frameOf := events[0].Players, framesOf(events[0].Players)
		var w *Watcher
		var dealt int64 // the watcher's round began
		mat := gocv.NewMat()
		for i, e := range events {
			if e.Kind == tilesim.EvRound {
				dealt = e.TimeMS
				if w != nil {
					w.Close()
				}
				w = nil
			}
			if e.Kind != tilesim.EvJoker {
				continue
			}
			// the stone goes on: the next lay at it, then the hand away
			var on *tilesim.Event
			for _, n := range events[i+1:] {
				if n.Kind == tilesim.EvLay && n.Stone == e.Stone {
					on = &n
					break
				}
				if n.Kind == tilesim.EvRoundEnd {
					break
				}
			}
			if on == nil || on.StoneTo == nil {
				continue
			}
			if w == nil { // the board, before any piece is down
				w = NewWatcher(Config{Players: players})
				for _, tm := range []int64{dealt, dealt + 300} {
					if _, err := sc.Render(tm, &mat); err != nil {
						t.Fatal(err)
					}
					if _, err := w.Feed(mat, tm); err != nil {
						t.Fatal(err)
					}
				}
				if w.Board() == nil {
					t.Fatalf("seed %d: no board found", seed)
				}
			}
			at := on.TimeMS + 2500
			if _, err := sc.Render(at, &mat); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Feed(mat, at); err != nil {
				t.Fatal(err)
			}
			j := e.Fields[0]
			if w.believed(j).kind != lookJoker && w.smp.look(w.pix, j).kind != lookJoker {
				continue // covered since, or a hand over it
			}
			p := w.jokerPiece(j)
			r := w.readStyle(p, 0, 0, 0)
			want := frameOf[e.Player]
			jokers[want]++
			if want == tiles.Plain || want == tiles.Dashed {
				pts := w.zonePoints(p, 0, 0, 0)
				againstColour(pts)
				ts := templates[[2]float64{p.hx, p.hy}]
				g := gapInk(pts, ts[0], ts[2], r.pose[2])
				if want == tiles.Plain && g < minPlainGaps || want == tiles.Dashed && (g < 0 || g > maxBrokenGaps) {
					t.Errorf("seed %d: %s joker on %v: the dashes' gaps hold %.2f of their ink", seed, want, j, g)
				}
			}
			switch r.style {
			case want:
				read[want]++
			case "":
				t.Logf("seed %d: %s's %s joker on %v not read: %v", seed, e.Player, want, j, r)
			default:
				t.Errorf("seed %d: %s's %s joker on %v read %s: %v", seed, e.Player, want, j, r.style, r)
			}
		}
		if w != nil {
			w.Close()
		}
		mat.Close()
	}
	t.Logf("jokers read by style: %v of %v", read, jokers)
	for _, f := range []tiles.Frame{tiles.Plain, tiles.Dashed} {
		if jokers[f] < 3 {
			t.Errorf("only %d %s jokers in sight: too few to tell", jokers[f], f)
		}
		if read[f] < jokers[f]*9/10 {
			t.Errorf("%d of %d %s jokers read", read[f], jokers[f], f)
		}
	}
}

// T1: every card in full view on the board at a round's end (no stone on
// it, not covered, no hand over it) is read as its owner's frame style,
// or not at all: never as another's. Dots far from a tilted camera blur
// towards a plain line; the gaps between them tell the two apart
// (gapInk). The cards are the simulator's, in 4-player matches (all four
// styles) rendered as a camera sees them, through JPEG.
func TestTilesVision_T1_CardFramesReadOrUnsure(t *testing.T) {
	read, cards := map[tiles.Frame]int{}, map[tiles.Frame]int{}
	inner := map[tiles.Frame][]float64{}
	// 101-106, 3 rounds, were not looked at before; 706's second round
	// has two dotted cards far from the camera that read almost plain
	// (the gaps were added for them): all of 706's must be read
	matches := []struct{ seed, rounds uint64 }{{101, 3}, {102, 3}, {103, 3}, {104, 3}, {105, 3}, {106, 3}, {706, 2}}
	for _, mt := range matches {
		seed := mt.seed
		events, sc := stagedMatch(t, tilesim.Config{Players: 4, Seed: seed, Rounds: int(mt.rounds), ErrorRate: e2eErrors})
		frameOf := framesOf(events[0].Players)
		mat := gocv.NewMat()
		for i, e := range events {
			if e.Kind != tilesim.EvRound {
				continue
			}
			laid, stones, w := roundAtItsEnd(t, events, i, sc, &mat)
			for _, c := range laid {
				f, g := c.fields[0], c.fields[1]
				if len(c.covered) > 0 || slices.Contains(stones, f) || slices.Contains(stones, g) ||
					w.smp.look(w.pix, f).kind != lookCard || w.smp.look(w.pix, g).kind != lookCard {
					continue
				}
				want := frameOf[c.player]
				cards[want]++
				r := w.readStyle(w.cardPiece(f, g), 0, 0, 0)
				// only a double frame has ink on its inner line
				pts := w.zonePoints(w.cardPiece(f, g), 0, 0, 0)
				againstColour(pts)
				ts := templates[[2]float64{cardHX, cardHY}]
				in := innerInk(pts, ts[0], ts[1], r.pose[0])
				inner[want] = append(inner[want], in)
				if want != tiles.Double && in >= minDoubleInner {
					t.Errorf("seed %d round %d: %s's %s card on %v-%v: %.2f of its outer line's ink on the inner line, as a double frame's", seed, e.Round, c.player, want, f, g, in)
				}
				switch r.style {
				case want:
					read[want]++
				case "":
					if seed == 706 {
						t.Errorf("seed %d round %d: %s's %s card on %v-%v not read: %v", seed, e.Round, c.player, want, f, g, r)
					} else {
						t.Logf("seed %d round %d: %s's %s card on %v-%v not read: %v", seed, e.Round, c.player, want, f, g, r)
					}
				default:
					t.Errorf("seed %d round %d: %s's %s card on %v-%v read %s: %v", seed, e.Round, c.player, want, f, g, r.style, r)
				}
			}
			w.Close()
		}
		mat.Close()
	}
	t.Logf("cards read by style: %v of %v", read, cards)
	for f, in := range inner {
		slices.Sort(in)
		t.Logf("%s: inner line ink from %.2f to %.2f", f, in[0], in[len(in)-1])
	}
	for f, n := range cards {
		if n < 50 || read[f] < n*98/100 {
			t.Errorf("%s: %d of %d cards read, want at least 98%% of at least 50", f, read[f], n)
		}
	}
	if len(cards) != 4 {
		t.Errorf("cards of %d styles in sight, want 4", len(cards))
	}
}

// T2c: a card whose one half another card covers is read from the frame
// round its other half alone (the covered half masked, as coveredOwner
// reads it), as its owner's style, or not at all: never as another's.
// The cards are those covered in 4-player matches with many wrong plays
// (a third), read at each round's end where the half left is in full
// view.
func TestTilesVision_T2c_CoveredCardFramesReadOrUnsure(t *testing.T) {
	read, cards := 0, 0
	for seed := uint64(201); seed <= 212; seed++ {
		events, sc := stagedMatch(t, tilesim.Config{Players: 4, Seed: seed, Rounds: 2, ErrorRate: 0.33})
		frameOf := framesOf(events[0].Players)
		mat := gocv.NewMat()
		for i, e := range events {
			if e.Kind != tilesim.EvRound {
				continue
			}
			laid, stones, w := roundAtItsEnd(t, events, i, sc, &mat)
			for _, c := range laid {
				if len(c.covered) != 1 {
					continue
				}
				g := c.covered[0]
				f := c.fields[0]
				if f == g {
					f = c.fields[1]
				}
				if slices.Contains(stones, f) || w.smp.look(w.pix, f).kind != lookCard {
					continue
				}
				want := frameOf[c.player]
				cards++
				mx, my := w.board.At(g, 0, 0) // as coveredOwner reads it
				switch r := w.readStyle(w.cardPiece(f, g), mx, my, coveredMaskMM); r.style {
				case want:
					read++
				case "":
					t.Logf("seed %d round %d: %s's %s card on %v, %v covered, not read: %v", seed, e.Round, c.player, want, f, g, r)
				default:
					t.Errorf("seed %d round %d: %s's %s card on %v, %v covered, read %s: %v", seed, e.Round, c.player, want, f, g, r.style, r)
				}
			}
			w.Close()
		}
		mat.Close()
	}
	t.Logf("covered cards read: %d of %d", read, cards)
	if cards < 50 || read < cards*95/100 {
		t.Errorf("%d of %d covered cards read, want at least 95%% of at least 50", read, cards)
	}
}

// laidCard is a card of a simulated round, with its fields that later
// pieces covered.
type laidCard struct {
	player  string
	fields  []tiles.Field
	covered []tiles.Field
}

// roundAtItsEnd replays the round that events[i] begins: its cards, the
// fields its stones end on, and a watcher that found its board and was
// shown the table 1.5 s after the round's end.
func roundAtItsEnd(t *testing.T, events []tilesim.Event, i int, sc *rtiles.Scene, mat *gocv.Mat) ([]*laidCard, []tiles.Field, *Watcher) {
	t.Helper()
	e := events[i]
	var laid []*laidCard
	stones := slices.Clone(e.Stones)
	end := int64(-1)
	for _, n := range events[i+1:] {
		if n.Kind == tilesim.EvRoundEnd {
			end = n.TimeMS
			break
		}
		if n.Kind != tilesim.EvLay && n.Kind != tilesim.EvJoker {
			continue
		}
		for _, c := range laid {
			for _, f := range n.Fields {
				if slices.Contains(c.fields, f) {
					c.covered = append(c.covered, f)
				}
			}
		}
		if n.Kind == tilesim.EvLay {
			laid = append(laid, &laidCard{player: n.Player, fields: n.Fields})
			if n.StoneTo != nil && n.Stone >= 1 {
				stones[n.Stone-1] = *n.StoneTo
			}
		} else if n.Stone >= 1 {
			stones[n.Stone-1] = n.Fields[0]
		}
	}
	if end < 0 {
		t.Fatalf("round %d without its end", e.Round)
	}
	w := NewWatcher(Config{Players: events[0].Players})
	for _, tm := range []int64{e.TimeMS, e.TimeMS + 300, end + 1500} {
		if _, err := sc.Render(tm, mat); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Feed(*mat, tm); err != nil {
			t.Fatal(err)
		}
	}
	if w.Board() == nil {
		t.Fatalf("round %d: no board found", e.Round)
	}
	return laid, stones, w
}

// stagedMatch simulates a match and stages it for rendering as the e2e
// matches are (no preamble), every event applied.
func stagedMatch(t *testing.T, cfg tilesim.Config) ([]tilesim.Event, *rtiles.Scene) {
	t.Helper()
	var events []tilesim.Event
	if _, err := tilesim.Run(cfg, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sc := scene.DefaultConfig()
	sc.Preamble = false
	sc.JPEGQuality = e2eQuality
	s, err := rtiles.New(sc, events[0].Players, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := s.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	return events, s
}

// framesOf maps each player's name to their frame style.
func framesOf(players []tiles.Player) map[string]tiles.Frame {
	m := map[string]tiles.Frame{}
	for _, p := range players {
		m[p.Name] = p.Frame
	}
	return m
}

// T1: a plain card under its stone, seen from 0.5 s to 4 s after it was
// laid, is never read as double: masked round the stone, its frame
// matches double best, but only at about 0.36, and below minScore the ink
// on a double frame's inner line is as unsure as the match (held-out
// 1021's second round: read double once, the card counted for the other
// player).
func TestTilesVision_T1_PlainCardUnderItsStoneNotReadDouble(t *testing.T) {
	events, sc := stagedMatch(t, tilesim.Config{Players: 2, Seed: 1021, Rounds: 2, ErrorRate: e2eErrors})
	k := slices.IndexFunc(events, func(e tilesim.Event) bool {
		return e.Round == 2 && e.Kind == tilesim.EvLay && e.Player == "P1" && slices.Contains(e.Fields, tiles.Field{X: 4, Y: 1}) && slices.Contains(e.Fields, tiles.Field{X: 4, Y: 2})
	})
	r := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Round == 2 && e.Kind == tilesim.EvRound })
	if k < 0 || r < 0 || events[k].StoneTo == nil {
		t.Fatal("seed 1021 has no plain card on (4,1)-(4,2) in round 2")
	}
	lay := events[k]
	w := NewWatcher(Config{Players: events[0].Players})
	defer w.Close()
	mat := gocv.NewMat()
	defer mat.Close()
	reads := 0
	for _, tm := range []int64{events[r].TimeMS, events[r].TimeMS + 300} {
		if _, err := sc.Render(tm, &mat); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Feed(mat, tm); err != nil {
			t.Fatal(err)
		}
	}
	if w.Board() == nil {
		t.Fatal("no board found")
	}
	for tm := lay.TimeMS + 500; tm <= lay.TimeMS+4000; tm += 67 {
		if _, err := sc.Render(tm, &mat); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Feed(mat, tm); err != nil {
			t.Fatal(err)
		}
		mx, my := w.stoneCentre(*lay.StoneTo)
		rd := w.readStyle(w.cardPiece(lay.Fields[0], lay.Fields[1]), mx, my, stoneMaskMM)
		reads++
		if rd.style == tiles.Double {
			t.Errorf("%d ms: P1's plain card read double: %v", tm, rd)
		}
	}
	t.Logf("%d reads", reads)
}

// T1: a double card whose match another style comes close to is read
// double on the ink of its inner line (innerInk). Dev 904's round 1: a
// blue and red card on the board's top edge matches plain a little
// better than double, both under 0.5, and its inner line is almost as
// dark as its outer one (in the video double came first at 0.43-0.45;
// read for nobody, the round's counts were off). Dev 1066's round 2: double
// 0.68, plain 0.63; in the video its inner ink read 0.38, under the
// floor of 0.5 there was then (here 0.51).
func TestTilesVision_T1_DoubleCardReadOnItsInnerLine(t *testing.T) {
	for _, c := range []struct {
		players int
		seed    uint64
		round   int
		card    [2]tiles.Field
	}{
		{3, 904, 1, [2]tiles.Field{{X: 4, Y: 0}, {X: 5, Y: 0}}},
		{3, 1066, 2, [2]tiles.Field{{X: 10, Y: 2}, {X: 10, Y: 3}}},
	} {
		events, sc := stagedMatch(t, tilesim.Config{Players: c.players, Seed: c.seed, Rounds: 2, ErrorRate: e2eErrors})
		i := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Kind == tilesim.EvRound && e.Round == c.round })
		if i < 0 {
			t.Fatalf("seed %d has no round %d", c.seed, c.round)
		}
		mat := gocv.NewMat()
		_, stones, w := roundAtItsEnd(t, events, i, sc, &mat)
		f, g := c.card[0], c.card[1]
		if slices.Contains(stones, f) || slices.Contains(stones, g) {
			t.Fatalf("seed %d: a stone on the card at %v-%v", c.seed, f, g)
		}
		r := w.readStyle(w.cardPiece(f, g), 0, 0, 0) // w reads mat's pixels
		mat.Close()
		t.Logf("seed %d round %d, the card at %v-%v: %v", c.seed, c.round, f, g, r)
		if r.style != tiles.Double {
			t.Errorf("seed %d round %d: the double card at %v-%v read %q: %v", c.seed, c.round, f, g, r.style, r)
		}
	}
}
