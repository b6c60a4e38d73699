//go:build e2e

package tiles

import (
	"path/filepath"
	"slices"
	"testing"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
	"ligretto/table"
)

// The loop on rendered rounds, as a camera sees them (15 frames/s, JPEG
// quality 90, or through a Motion JPEG video: refereeVideo), from the
// round's start:
//
//	go test -tags e2e -run 'Loop_T2b_CardBeforeItsStoneCame|Loop_T2c_CardCoveredAtOnce|Loop_T2b_CardItsStoneWasSeen|Loop_T3b_TwoRelocationsAtOnceSwappedWhileOneWaits|Loop_T3a_StoneBackOnItsStartField|Loop_T3a_StonesSwappedWhileTheirDebtor|Loop_T3b_CardCalledAtACornerRelocated|Loop_T2d_CardGoneOverUnseen|Loop_T3b_TwoRelocationsAtOnceOneSeenCalled|Loop_T2c_CardLaidExactlyOver|Loop_T3b_RelocationNotTaken' -v ./table/tiles

// refereeRendered renders round of the simulated match cfg and runs the
// loop over it until untilMS; it returns the simulation's events (from
// the round's on) and the verdicts.
func refereeRendered(t *testing.T, cfg tilesim.Config, round int, untilMS int64) ([]tilesim.Event, []Verdict) {
	t.Helper()
	return refereeFrames(t, cfg, round, untilMS, false)
}

// refereeVideo is refereeRendered through a Motion JPEG video, as
// `ligretto tiles simulate --render` writes it: what `ligretto tiles
// referee` sees of it, frame for frame.
func refereeVideo(t *testing.T, cfg tilesim.Config, round int, untilMS int64) ([]tilesim.Event, []Verdict) {
	t.Helper()
	return refereeFrames(t, cfg, round, untilMS, true)
}

func refereeFrames(t *testing.T, cfg tilesim.Config, round int, untilMS int64, video bool) ([]tilesim.Event, []Verdict) {
	t.Helper()
	var events []tilesim.Event
	if _, err := tilesim.Run(cfg, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	r := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Round == round && e.Kind == tilesim.EvRound })
	if r < 0 {
		t.Fatalf("seed %d has no round %d", cfg.Seed, round)
	}
	sceneCfg := scene.DefaultConfig()
	sceneCfg.Preamble = false
	if !video {
		sceneCfg.JPEGQuality = 90
	}
	sc, err := rtiles.New(sceneCfg, events[0].Players, cfg.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	var vs []Verdict
	l, err := New(Config{Players: events[0].Players, Settings: tiles.Settings{Rounds: cfg.Rounds - round + 1},
		OnVerdict: func(v Verdict) { vs = append(vs, v) }}, tiles.New())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mat := gocv.NewMat()
	defer mat.Close()
	first := events[r].TimeMS * 15 / 1000
	var frames *gocv.VideoCapture
	if video {
		frames = motionJPEG(t, sc, &mat, first, untilMS)
		defer frames.Close()
	}
	for fr := first; fr*1000/15 <= untilMS; fr++ {
		tm := fr * 1000 / 15
		if video {
			if !frames.Read(&mat) || mat.Empty() {
				t.Fatalf("the video ends before %d ms", tm)
			}
		} else if _, err := sc.Render(tm, &mat); err != nil {
			t.Fatal(err)
		}
		if err := l.Step(&mat, table.Shot{TimeMS: tm}); err != nil {
			t.Fatal(err)
		}
	}
	return events[r:], vs
}

// motionJPEG writes sc's frames from first (at 15 a second) until
// untilMS into a Motion JPEG video, and opens it.
func motionJPEG(t *testing.T, sc *rtiles.Scene, mat *gocv.Mat, first, untilMS int64) *gocv.VideoCapture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "video.mkv")
	cfg := scene.DefaultConfig()
	vw, err := gocv.VideoWriterFile(path, "MJPG", 15, cfg.Width, cfg.Height, true)
	if err != nil || !vw.IsOpened() {
		t.Fatalf("writing %s: %v", path, err)
	}
	for fr := first; fr*1000/15 <= untilMS; fr++ {
		if _, err := sc.Render(fr*1000/15, mat); err != nil {
			t.Fatal(err)
		}
		if err := vw.Write(*mat); err != nil {
			t.Fatal(err)
		}
	}
	if err := vw.Close(); err != nil {
		t.Fatal(err)
	}
	frames, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return frames
}

// callsMade checks that every call in vs is a wrong play the simulation
// made (events), and returns the calls.
func callsMade(t *testing.T, events []tilesim.Event, vs []Verdict) []Verdict {
	t.Helper()
	var calls []Verdict
	for _, v := range vs {
		if v.Err != nil || v.Verdict.Status != tiles.StatusViolation {
			continue
		}
		t.Logf("%d ms: %s %s: %s", v.Obs.TimeMS, v.Verdict.Player, v.Verdict.Rule, v.Verdict.Reason)
		made := slices.ContainsFunc(events, func(e tilesim.Event) bool {
			return e.Violation != nil && e.Player == v.Verdict.Player && e.Violation.Rule == v.Verdict.Rule &&
				slices.ContainsFunc(e.Fields, func(f tiles.Field) bool { return slices.Contains(v.Obs.Fields, f) })
		})
		if !made {
			t.Errorf("%d ms: %s called %s, a wrong play the simulation did not make: %s", v.Obs.TimeMS, v.Verdict.Player, v.Verdict.Rule, v.Verdict.Reason)
		}
		calls = append(calls, v)
	}
	return calls
}

// mustLay stops the test unless the simulation's round (events) has
// player's card on fields, wrong for rule ("": legal): the seed's play
// the test is about.
func mustLay(t *testing.T, events []tilesim.Event, player string, fields []tiles.Field, rule tiles.Rule) {
	t.Helper()
	if !slices.ContainsFunc(events, func(e tilesim.Event) bool {
		return e.Kind == tilesim.EvLay && e.Player == player && slices.Equal(e.Fields, fields) &&
			(rule == "" && e.Violation == nil || e.Violation != nil && e.Violation.Rule == rule)
	}) {
		t.Fatalf("the round has no card by %s on %v wrong for %q (\"\": legal)", player, fields, rule)
	}
}

// called reports whether player's card on fields was called for rule.
func called(calls []Verdict, player string, rule tiles.Rule, fields []tiles.Field) bool {
	return slices.ContainsFunc(calls, func(v Verdict) bool {
		return v.Verdict.Player == player && v.Verdict.Rule == rule && slices.Contains(v.Obs.Fields, fields[0]) && slices.Contains(v.Obs.Fields, fields[1])
	})
}

// TestLoop_T2b_CardBeforeItsStoneCameCalledWhenTheStoneStays: dev 965's
// second round, rendered. P2 lays a card beside no stone (T2b, on
// purpose); 0.16 s later P1 lays one that brings a stone beside it. The
// camera first sees P2's card 66 ms after P1's, so it is judged legal at
// that stone; but the stone stands where P1 put it, in plain sight, for
// 3 s, and never moves onto P2's card: P2's came first, and is called
// (T2b). Every call up to then is a wrong play the simulation made.
func TestLoop_T2b_CardBeforeItsStoneCameCalledWhenTheStoneStays(t *testing.T) {
	card := []tiles.Field{{X: 9, Y: 8}, {X: 8, Y: 8}}
	events, vs := refereeRendered(t, tilesim.Config{Players: 4, Seed: 965, Rounds: 2, ErrorRate: 0.03}, 2, 81346)
	mustLay(t, events, "P2", card, tiles.T2b)
	if !called(callsMade(t, events, vs), "P2", tiles.T2b, card) {
		t.Errorf("P2's card on %v, laid before a stone came beside it, not called T2b", card)
	}
}

// TestLoop_T2c_CardCoveredAtOnceCountedUnderItsCover: held-out 1143's
// first round, rendered. P3 lays a card at a stone, and 0.85 s later P2
// lays one over half of it (T2c, on purpose) and takes the stone on; P1's
// card beside them met the stone at a corner before (T2d, on purpose).
// Hands hide P3's card until P2's is down: only its other half ever
// shows, first after P2's card. It lies under P2's card, so it came
// first: it is judged, and counts for P3 (it was left alone, P3's count
// was off by one, and the stone's way, not known, had legal plays called).
func TestLoop_T2c_CardCoveredAtOnceCountedUnderItsCover(t *testing.T) {
	events, vs := refereeRendered(t, tilesim.Config{Players: 3, Seed: 1143, Rounds: 2, ErrorRate: 0.03}, 1, 41000)
	calls := callsMade(t, events, vs)
	for _, c := range []struct {
		player string
		rule   tiles.Rule
		card   []tiles.Field
	}{
		{"P1", tiles.T2d, []tiles.Field{{X: 9, Y: 7}, {X: 8, Y: 7}}},
		{"P2", tiles.T2c, []tiles.Field{{X: 9, Y: 8}, {X: 9, Y: 7}}},
	} {
		if !called(calls, c.player, c.rule, c.card) {
			t.Errorf("%s's card on %v not called %s", c.player, c.card, c.rule)
		}
	}
	covered := []tiles.Field{{X: 9, Y: 8}, {X: 8, Y: 8}}
	if !slices.ContainsFunc(vs, func(v Verdict) bool {
		return v.Err == nil && v.Obs.Kind == tiles.ObsLay && v.Verdict.Status == tiles.StatusOK && v.Obs.Player == "P3" &&
			slices.Contains(v.Obs.Fields, covered[0]) && slices.Contains(v.Obs.Fields, covered[1])
	}) {
		t.Errorf("P3's card on %v, covered at once, not judged legal for P3", covered)
	}
}

// standing lists the calls in vs that no later verdict withdrew.
func standing(vs []Verdict) []Verdict {
	var calls []Verdict
	for _, v := range vs {
		if v.Err != nil {
			continue
		}
		if w := v.Verdict.Withdraws; w > 0 {
			calls = slices.DeleteFunc(calls, func(c Verdict) bool { return c.Verdict.Seq == w })
		}
		if v.Verdict.Status == tiles.StatusViolation {
			calls = append(calls, v)
		}
	}
	return calls
}

// TestLoop_T2b_CardItsStoneWasSeenOntoIsNotCalled: dev 1014's second
// round, rendered. P1 and P2 lay at one stone 55 ms apart. P2's card,
// held only for its order with the stone's move seen onto it, goes to the
// referee naming no stone, and the referee, which has that stone
// elsewhere, finds none beside it: called beside no stone (T2b). The
// move seen onto it, handed to the referee (it was dropped), shows it
// was laid at that stone after all: the call is withdrawn.
func TestLoop_T2b_CardItsStoneWasSeenOntoIsNotCalled(t *testing.T) {
	card := []tiles.Field{{X: 9, Y: 2}, {X: 9, Y: 3}}
	_, vs := refereeRendered(t, tilesim.Config{Players: 4, Seed: 1014, Rounds: 2, ErrorRate: 0.03}, 2, 94000)
	judged := slices.ContainsFunc(vs, func(v Verdict) bool {
		return v.Err == nil && v.Obs.Kind == tiles.ObsLay && v.Obs.Player == "P2" && slices.Contains(v.Obs.Fields, card[0]) && slices.Contains(v.Obs.Fields, card[1])
	})
	if !judged {
		t.Fatalf("P2's card on %v not judged", card)
	}
	if called(standing(vs), "P2", tiles.T2b, card) {
		t.Errorf("P2's card on %v, laid at the stone seen moving onto it, called beside no stone", card)
	}
}

// TestLoop_T3b_TwoRelocationsAtOnceSwappedWhileOneWaits: held-out 1632's
// first round, rendered. P1 relocates the stone they blocked and, 0.2 s
// later, P2 relocates one of the two stones they blocked; the camera
// first sees both cards in one frame, carries the two stones at once and
// swaps them: P2's card comes with the move of P1's stone. P1's card
// still waits for its own, so P2's is weighed as swapped (mayBeSwapped),
// and of P2's two blocked stones the one the camera saw leave its field
// is taken (leftSince). Both relocations are legal, and every call is a
// wrong play the simulation made (P1's card was called T2d at the stone
// P2 relocated, and the move of P1's stone onto it T3a).
func TestLoop_T3b_TwoRelocationsAtOnceSwappedWhileOneWaits(t *testing.T) {
	events, vs := refereeRendered(t, tilesim.Config{Players: 4, Seed: 1632, Rounds: 2, ErrorRate: 0.03}, 1, 56000)
	callsMade(t, events, vs)
	for _, c := range []struct {
		player string
		card   []tiles.Field
	}{
		{"P1", []tiles.Field{{X: 10, Y: 2}, {X: 10, Y: 1}}},
		{"P2", []tiles.Field{{X: 11, Y: 0}, {X: 11, Y: 1}}},
	} {
		if !slices.ContainsFunc(vs, func(v Verdict) bool {
			return v.Err == nil && v.Obs.Kind == tiles.ObsLay && v.Verdict.Status == tiles.StatusOK && v.Verdict.Rule == tiles.T3b && v.Obs.Player == c.player &&
				slices.Contains(v.Obs.Fields, c.card[0]) && slices.Contains(v.Obs.Fields, c.card[1])
		}) {
			t.Errorf("%s's relocation on %v not judged legal (T3b)", c.player, c.card)
		}
	}
}

// TestLoop_T3a_StoneBackOnItsStartFieldIsNotCalledStayed: 1728's second
// round, through a Motion JPEG video (frames only JPEG'd once show both
// cards at once). P1 lays a card at a stone still on its
// start field, and 0.6 s later P2 lays one over that field, taking the
// stone back onto it. Hands hide both cards; once they go, the stone
// stands where it started, on P2's card, whose other half alone shows
// beside it. The stone did move onto P1's card (T3a): it is not called
// for staying, and every call standing is a wrong play the simulation
// made.
func TestLoop_T3a_StoneBackOnItsStartFieldIsNotCalledStayed(t *testing.T) {
	card := []tiles.Field{{X: 6, Y: 1}, {X: 6, Y: 0}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 4, Seed: 1728, Rounds: 2, ErrorRate: 0.03}, 2, 84000)
	mustLay(t, events, "P1", card, "")
	judged := slices.ContainsFunc(vs, func(v Verdict) bool {
		return v.Err == nil && v.Obs.Kind == tiles.ObsLay && v.Obs.Player == "P1" && slices.Contains(v.Obs.Fields, card[0]) && slices.Contains(v.Obs.Fields, card[1])
	})
	if !judged {
		t.Fatalf("P1's card on %v not judged", card)
	}
	calls := callsMade(t, events, standing(vs))
	if called(calls, "P1", tiles.T3a, card) {
		t.Errorf("the stone P1's card on %v was laid at, back on its start field under P2's card, called for staying (T3a)", card)
	}
}

// TestLoop_T3a_StonesSwappedWhileTheirDebtorRelocatesOne: 1686's first
// round, through a Motion JPEG video. P1 lays a card at stone 2 and
// sets the stone on its nearer field (T3a, on purpose); 0.8 s later P2
// relocates stone 4, which P2 blocked (T3b), and two cards take it on.
// Hands hide them all for 5 s, and the watcher swaps the two stones: it
// sees P1 relocate stone 4, which P1 does not owe, and stone 2 go onto
// P2's card, laid at no stone. P2's relocation, seen with it, says which
// stone P1's card was laid at: P1's stop is called, and nothing else.
func TestLoop_T3a_StonesSwappedWhileTheirDebtorRelocatesOne(t *testing.T) {
	card := []tiles.Field{{X: 4, Y: 2}, {X: 4, Y: 1}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 4, Seed: 1686, Rounds: 2, ErrorRate: 0.03}, 1, 35000)
	mustLay(t, events, "P1", card, tiles.T3a)
	calls := callsMade(t, events, standing(vs))
	if !slices.ContainsFunc(calls, func(v Verdict) bool {
		return v.Verdict.Player == "P1" && v.Verdict.Rule == tiles.T3a && slices.Equal(v.Obs.Fields, card[:1])
	}) {
		t.Errorf("P1's stop on %v, the nearer field of the card on %v, not called T3a", card[0], card)
	}
}

// TestLoop_T3b_CardCalledAtACornerRelocatedTheStoneAHeldCardBlocked:
// 1700's second round, through a Motion JPEG video. P2 lays a card at
// stone 1, which blocks it, and 2 s later relocates it onto a card far
// off (T3b). A hand hides the first card: the second is seen first and
// called T2d (it meets another stone at a corner), and the first comes
// 2.7 s later, held. When stone 1 is seen on the card called, the held
// card goes first, at stone 1, and the call is withdrawn: every call
// standing is a wrong play the simulation made.
func TestLoop_T3b_CardCalledAtACornerRelocatedTheStoneAHeldCardBlocked(t *testing.T) {
	first, relocation := []tiles.Field{{X: 3, Y: 4}, {X: 4, Y: 4}}, []tiles.Field{{X: 11, Y: 3}, {X: 11, Y: 4}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 2, Seed: 1700, Rounds: 2, ErrorRate: 0.03}, 2, 110000)
	mustLay(t, events, "P2", first, "")
	mustLay(t, events, "P2", relocation, "")
	calls := callsMade(t, events, standing(vs))
	if called(calls, "P2", tiles.T2d, relocation) {
		t.Errorf("P2's relocation on %v called T2d", relocation)
	}
}

// TestLoop_T2d_CardGoneOverUnseenWasTakenByTheStoneAtItsCorner: 1768's
// second round, through a Motion JPEG video. P1 lays a card at one stone
// and, 0.4 s later, P3 lays one meeting another stone's field at a
// corner alone (T2d); that stone moves onto it. The camera first sees
// both cards in one frame: P3's is legal laid before P1's, at P1's
// stone, had that stone gone over it unseen. The camera saw the stone at
// its corner move onto it instead: P3's card was laid there, and is
// called T2d; every call is a wrong play the simulation made.
func TestLoop_T2d_CardGoneOverUnseenWasTakenByTheStoneAtItsCorner(t *testing.T) {
	card := []tiles.Field{{X: 2, Y: 8}, {X: 1, Y: 8}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 3, Seed: 1768, Rounds: 2, ErrorRate: 0.03}, 2, 118000)
	mustLay(t, events, "P3", card, tiles.T2d)
	calls := callsMade(t, events, standing(vs))
	if !slices.ContainsFunc(calls, func(v Verdict) bool {
		return v.Verdict.Player == "P3" && v.Verdict.Rule == tiles.T2d && slices.ContainsFunc(v.Obs.Fields, func(f tiles.Field) bool { return slices.Contains(card, f) })
	}) {
		t.Errorf("P3's card on %v, at a corner of the stone that moved onto it, not called T2d", card)
	}
}

// TestLoop_T3b_TwoRelocationsAtOnceOneSeenCalledBesideNoStone: 1775's
// first round, through a Motion JPEG video. P2 lays a card that blocks
// the stone it is laid at and relocates it 2.5 s later (T3b); 0.6 s
// after that P1 relocates the stone P1 blocked. Hands hide P2's first
// card until after the relocation, which is called beside no stone
// (T2b), and the watcher swaps the two stones: P1's stone moves onto
// P2's relocation, P2's onto P1's. P1 holds the card relocating that
// stone, and P2's stone, awaiting its move onto P2's first card, is
// blocked there: both relocations stand (T3b), and every call standing
// is a wrong play the simulation made.
func TestLoop_T3b_TwoRelocationsAtOnceOneSeenCalledBesideNoStone(t *testing.T) {
	p1, p2 := []tiles.Field{{X: 2, Y: 3}, {X: 1, Y: 3}}, []tiles.Field{{X: 0, Y: 4}, {X: 0, Y: 5}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 4, Seed: 1775, Rounds: 2, ErrorRate: 0.03}, 1, 50000)
	mustLay(t, events, "P1", p1, "")
	mustLay(t, events, "P2", p2, "")
	calls := callsMade(t, events, standing(vs))
	for _, c := range []struct {
		player string
		card   []tiles.Field
	}{{"P1", p1}, {"P2", p2}} {
		if called(calls, c.player, tiles.T2b, c.card) {
			t.Errorf("%s's relocation on %v called beside no stone (T2b)", c.player, c.card)
		}
	}
}

// TestLoop_T2c_CardLaidExactlyOverACardOfItsColours: 1817's first round,
// through a Motion JPEG video. P2 lays a green-blue card over P4's
// green-blue card, on the same two fields and turned the same way (T2c),
// and takes the stone beside it on; 1.6 s later P3 lays the next card
// there. The fields show no new colour: only the frame (P2's double line
// over P4's dots) tells the new card. The stone seen on the old card is
// the sign to read it; unread, P2's card went uncalled and two
// relocations about it were put on the wrong stones.
func TestLoop_T2c_CardLaidExactlyOverACardOfItsColours(t *testing.T) {
	card := []tiles.Field{{X: 10, Y: 3}, {X: 10, Y: 2}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 4, Seed: 1817, Rounds: 2, ErrorRate: 0.03}, 1, 46000)
	mustLay(t, events, "P2", card, tiles.T2c)
	if !called(callsMade(t, events, standing(vs)), "P2", tiles.T2c, card) {
		t.Errorf("P2's card laid exactly over P4's on %v not called T2c", card)
	}
}

// TestLoop_T3b_RelocationNotTakenByTheStoneBesideItsCard: 1830's first
// round, through a Motion JPEG video. P4 relocates a blocked stone onto
// their card (8,1)-(8,0); hands hide the stone leaving its field, and the
// stone beside the card, on (7,1), leaves it under P1's next card. A
// sleeve over the card's other half looks like a stone there for 0.4 s:
// a stone comes down on one half of a new card, so that look is not one.
// Taken for a stone, it had the relocated stone paired with it and the
// stone from (7,1) with the card, a move onto the nearer colour called
// T3a, and P1's card called T2d at its corner.
func TestLoop_T3b_RelocationNotTakenByTheStoneBesideItsCard(t *testing.T) {
	card := []tiles.Field{{X: 8, Y: 1}, {X: 8, Y: 0}}
	events, vs := refereeVideo(t, tilesim.Config{Players: 4, Seed: 1830, Rounds: 2, ErrorRate: 0.03}, 1, 44000)
	mustLay(t, events, "P4", card, "")
	callsMade(t, events, standing(vs))
	if !slices.ContainsFunc(vs, func(v Verdict) bool {
		return v.Err == nil && v.Obs.Kind == tiles.ObsLay && v.Verdict.Status == tiles.StatusOK && v.Verdict.Rule == tiles.T3b && v.Obs.Player == "P4" &&
			slices.Contains(v.Obs.Fields, card[0]) && slices.Contains(v.Obs.Fields, card[1])
	}) {
		t.Errorf("P4's relocation on %v not judged legal (T3b)", card)
	}
}

// TestLoop_T5a_StopWaitsForACardSeenBeforeTheLastOne: fresh 1925's first
// round, rendered. P2 lays a card 1.3 s before P1's last and carries a
// stone onto it; the half under the stone shows alone, and the stone is
// made out there only 6.5 s after P1's last card first showed. P1's stop
// waits for what the camera saw before that card and has not made out
// (StopHoldMS): P2's card counts, and P2 has the cards left the round
// ended with (it was reported after the round was scored, and refused).
func TestLoop_T5a_StopWaitsForACardSeenBeforeTheLastOne(t *testing.T) {
	card := []tiles.Field{{X: 0, Y: 1}, {X: 1, Y: 1}}
	events, vs := refereeRendered(t, tilesim.Config{Players: 4, Seed: 1925, Rounds: 2, ErrorRate: 0.03}, 1, 64000)
	mustLay(t, events, "P2", card, "")
	end := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Kind == tilesim.EvRoundEnd })
	if end < 0 {
		t.Fatal("the round does not end by 64 s")
	}
	want := events[end].Result.Players["P2"].CardsLeft
	k := slices.IndexFunc(vs, func(v Verdict) bool { return v.Obs.Kind == tiles.ObsCardsLeft && v.Obs.Player == "P2" })
	if k < 0 {
		t.Fatal("the round was not scored")
	}
	if got := vs[k].Obs.Count; got != want {
		t.Errorf("P2 has %d cards left, want %d: the card on %v laid before P1's last did not count", got, want, card)
	}
}
