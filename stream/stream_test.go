package stream

import (
	"context"
	"image"
	"testing"
	"time"

	"ligretto/referee"
)

// TestViewer_DecodesTheFramesTheServerDrew: a Go WHEP client connects over
// loopback, decodes the VP8 it receives, and finds in it the frame numbers
// and the colour patch the source drew; the frames arrive in order.
func TestViewer_DecodesTheFramesTheServerDrew(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	v, err := dialViewer(ts.URL, plainViewer(), viewerOptions{decode: true, keepImgs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	first := v.waitFrame(t, 10*time.Second, func(d decoded) bool { return d.stamped })
	if _, ok := ts.src.sentAt(first.seq); !ok {
		t.Fatalf("decoded frame number %d was never drawn", first.seq)
	}
	if b := first.img.Rect; b.Dx() != 320 || b.Dy() != 240 {
		t.Fatalf("decoded size %v, want 320x240", b)
	}
	// The red patch: BT.601 limited range red is Y 82, Cb 90, Cr 240.
	y, cb, cr := patchColour(first.img)
	if absDiff(y, 82) > 14 || absDiff(cb, 90) > 14 || absDiff(cr, 240) > 14 {
		t.Fatalf("red patch decoded as Y %d Cb %d Cr %d, want about 82 90 240", y, cb, cr)
	}
	prev := first.seq
	for i := 0; i < 10; i++ {
		f := v.waitFrame(t, 5*time.Second, func(d decoded) bool { return d.stamped })
		if f.seq <= prev {
			t.Fatalf("frame %d after frame %d", f.seq, prev)
		}
		prev = f.seq
	}
	if st := ts.Stats(); st.Viewers != 1 || st.FramesEncoded == 0 || st.Keyframes == 0 {
		t.Fatalf("stats %+v", st)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestViewer_GetsGameStateOnTheDataChannel: the state arrives when the
// channel opens and again after every change, with rule IDs in the feed.
func TestViewer_GetsGameStateOnTheDataChannel(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	playSomeGame(t, ts.game)
	v, err := dialViewer(ts.URL, plainViewer(), viewerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	st := v.waitState(t, 10*time.Second, func(s GameState) bool { return s.Phase == referee.PhasePlaying })
	if len(st.Players) != 3 || len(st.Piles) != 1 || st.Piles[0].Violations != 1 {
		t.Fatalf("state %+v", st)
	}
	foul := false
	for _, f := range st.Feed {
		if f.Status == referee.StatusViolation && f.Rule == referee.C7 {
			foul = true
		}
	}
	if !foul {
		t.Fatalf("no C7 violation in the feed: %+v", st.Feed)
	}
	// A change reaches the viewer.
	if err := ts.game.Stop("P2"); err != nil {
		t.Fatal(err)
	}
	st = v.waitState(t, 5*time.Second, func(s GameState) bool { return s.Phase == referee.PhaseCounting })
	if st.StoppedBy != "P2" {
		t.Fatalf("stopped by %q", st.StoppedBy)
	}
	// What a viewer sends is ignored.
	before := ts.game.State().Version
	for _, m := range []string{`{"type":"stop"}`, `{"kind":"undo"}`, "garbage"} {
		if err := v.SendText(m); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if after := ts.game.State().Version; after != before {
		t.Fatalf("state changed from %d to %d", before, after)
	}
}

// TestKeyframes_OnPLIAndThrottled: a PLI brings a keyframe, and a burst of
// them brings few.
func TestKeyframes_OnPLIAndThrottled(t *testing.T) {
	cfg := testConfig()
	cfg.KeyframeGap = 300 * time.Millisecond
	ts := startServer(t, cfg, nil)
	v, err := dialViewer(ts.URL, plainViewer(), viewerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	var ssrc uint32
	select {
	case ssrc = <-v.ssrc:
	case <-time.After(10 * time.Second):
		t.Fatal("no track")
	}
	// The first frame a viewer gets is a keyframe (one is forced when it connects).
	first := v.waitFrame(t, 10*time.Second, func(decoded) bool { return true })
	if !first.key {
		t.Fatal("the first frame was not a keyframe")
	}
	time.Sleep(400 * time.Millisecond)
	k0 := ts.Stats().Keyframes
	if err := v.sendPLI(ssrc); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, "a keyframe after the PLI", func() bool { return ts.Stats().Keyframes > k0 })

	time.Sleep(400 * time.Millisecond)
	k1 := ts.Stats().Keyframes
	start := time.Now()
	for i := 0; i < 40; i++ {
		_ = v.sendPLI(ssrc)
		time.Sleep(25 * time.Millisecond)
	}
	time.Sleep(350 * time.Millisecond)
	got := ts.Stats().Keyframes - k1
	limit := uint64(time.Since(start)/cfg.KeyframeGap) + 1
	if got == 0 || got > limit {
		t.Fatalf("%d keyframes for 40 PLIs over %v, want 1..%d", got, time.Since(start).Round(time.Millisecond), limit)
	}
}

// TestEncoder_NotWithoutViewers: nobody watching, nothing encoded.
func TestEncoder_NotWithoutViewers(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	waitFor(t, 5*time.Second, "frames", func() bool { return ts.Stats().FramesIn > 5 })
	if n := ts.Stats().FramesEncoded; n != 0 {
		t.Fatalf("%d frames encoded with no viewer", n)
	}
}

// oddSource sends, in turn, a good frame, an empty one, a nil one and a
// frame of another size; the stream goes on through all of them.
type oddSource struct{}

func (oddSource) Frames(ctx context.Context) <-chan Frame {
	out := make(chan Frame)
	go func() {
		defer close(out)
		sizes := []image.Rectangle{image.Rect(0, 0, 320, 240), image.Rect(0, 0, 0, 0), {}, image.Rect(0, 0, 480, 270)}
		for i := uint64(0); ; i++ {
			var img image.Image
			switch r := sizes[i%4]; {
			case i%4 == 2:
			case r.Empty():
				img = image.NewRGBA(r)
			default:
				rgba := image.NewRGBA(r)
				stamp(rgba, i)
				img = rgba
			}
			select {
			case out <- Frame{Image: img, Seq: i}:
			case <-ctx.Done():
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return out
}

// TestEncoder_SurvivesOddFrames: empty and nil pictures are skipped, a
// change of size restarts the encoder, and viewers keep decoding.
func TestEncoder_SurvivesOddFrames(t *testing.T) {
	s, err := New(testConfig(), oddSource{}, NewRefereeGame(referee.New(), nil))
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, s)
	v, err := dialViewer(ts.URL, plainViewer(), viewerOptions{decode: true, keepImgs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	seen := map[int]bool{}
	for len(seen) < 2 {
		f := v.waitFrame(t, 10*time.Second, func(d decoded) bool { return d.stamped })
		seen[f.img.Rect.Dx()] = true
	}
	if !seen[320] || !seen[480] {
		t.Fatalf("widths seen: %v", seen)
	}
	if s.met.encodeErrors.Load() == 0 {
		t.Fatal("the bad frames were not counted")
	}
}
