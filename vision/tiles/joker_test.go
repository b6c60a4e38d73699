package tiles

import (
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
)

// T4: a joker's frame, in full view once its stone has gone on, is read
// as its owner's style, or not at all: never as another's. A joker's
// dashes leave short gaps, so plain and dashed match it almost alike; the
// gaps' ink tells them apart (gapInk). The jokers are the simulator's, in
// 4-player rounds of the seeds below, rendered as a camera sees them.
func TestTilesVision_T4_JokerFrameRead(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the frames of many jokers")
	}
	read := map[tiles.Frame]int{}
	jokers := map[tiles.Frame]int{}
	for seed := uint64(1); seed <= 30; seed++ {
		var events []tilesim.Event
		if _, err := tilesim.Run(tilesim.Config{Players: 4, Seed: seed, Rounds: 6}, func(e tilesim.Event) error {
			events = append(events, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		players := events[0].Players
		frameOf := map[string]tiles.Frame{}
		for _, p := range players {
			frameOf[p.Name] = p.Frame
		}
		cfg := scene.DefaultConfig()
		cfg.Preamble = false
		sc, err := rtiles.New(cfg, players, seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if err := sc.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
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
					throughJPEG(t, &mat)
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
			throughJPEG(t, &mat)
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
				if want == tiles.Plain && g < minPlainGaps || want == tiles.Dashed && (g < 0 || g > maxDashedGaps) {
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

// throughJPEG compresses the frame as a camera's Motion JPEG does (the
// encoder's default quality, 95) and decodes it again.
func throughJPEG(t *testing.T, mat *gocv.Mat) {
	t.Helper()
	buf, err := gocv.IMEncode(gocv.JPEGFileExt, *mat)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	img, err := gocv.IMDecode(buf.GetBytes(), gocv.IMReadColor)
	if err != nil {
		t.Fatal(err)
	}
	mat.Close()
	*mat = img
}
