package livekit_test

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/livekit/lkviewer"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// table is a running stream server publishing to a LiveKit room.
type table struct {
	srv  *stream.Server
	game *stream.RefereeGame
	pub  *livekit.Publisher
	cfg  livekit.Config
	url  string       // the stream server's pages and API, over HTTP
	sent atomic.Int64 // frames the source made

	stopPub func()
}

// roomJoin hands spectators viewer tokens for the room of cfg, as the
// stream server's GET /api/room does with it.
func roomJoin(cfg livekit.Config) func() (stream.RoomJoin, error) {
	return func() (stream.RoomJoin, error) {
		j, err := livekit.ViewerToken(cfg)
		return stream.RoomJoin(j), err
	}
}

// testPicture is red on the left, blue on the right: a viewer that
// decodes it can tell the picture arrived whole and the right way round.
func testPicture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, image.Rect(0, 0, w/2, h), image.NewUniform(color.RGBA{220, 30, 30, 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(w/2, 0, w, h), image.NewUniform(color.RGBA{30, 30, 220, 255}), image.Point{}, draw.Src)
	return img
}

// startTable runs a stream server (its pages served over HTTP, and
// RoomJoin set) that publishes a 320x240 picture at 25 frames a second to
// room; tweak, if given, changes the server's config.
func startTable(t *testing.T, lk *lktest.Server, room string, tweak ...func(*stream.Config)) *table {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb := &table{game: stream.NewRefereeGame(referee.New(), nil)}
	tb.cfg = livekit.Config{URL: lk.URL, APIKey: lktest.Key, APISecret: lktest.Secret, Room: room, Logger: quiet, RetryMax: time.Second}
	pic := testPicture(320, 240)
	src := stream.FrameSourceFunc(func(ctx context.Context) <-chan stream.Frame {
		out := make(chan stream.Frame)
		go func() {
			defer close(out)
			tick := time.NewTicker(40 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case now := <-tick.C:
					select {
					case out <- stream.Frame{Image: pic, Time: now}:
						tb.sent.Add(1)
					case <-ctx.Done():
						return
					}
				}
			}
		}()
		return out
	})
	scfg := stream.Config{UDPAddr: "127.0.0.1:0", Logger: quiet, Bitrate: 300_000, RoomJoin: roomJoin(tb.cfg)}
	for _, f := range tweak {
		f(&scfg)
	}
	srv, err := stream.New(scfg, src, tb.game)
	if err != nil {
		t.Fatal(err)
	}
	tb.srv = srv
	tb.pub, err = livekit.New(tb.cfg, srv.RequestKeyframe)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	tb.url = hs.URL
	srv.AddRelay(tb.pub)
	done := make(chan struct{})
	go func() { _ = srv.Run(ctx); close(done) }()
	tb.runPublisher()
	t.Cleanup(func() {
		tb.stopPublisher()
		cancel()
		<-done
		hs.Close()
	})
	return tb
}

// runPublisher runs the table's publisher until stopPublisher.
func (tb *table) runPublisher() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = tb.pub.Run(ctx); close(done) }()
	tb.stopPub = func() { cancel(); <-done }
}

// stopPublisher stops the publisher, which leaves the room, and waits for
// it; it may be run again.
func (tb *table) stopPublisher() { tb.stopPub() }

func joinViewer(t *testing.T, cfg livekit.Config, opt lkviewer.Options) *lkviewer.Viewer {
	t.Helper()
	j, err := livekit.ViewerToken(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := lkviewer.Join(ctx, j.URL, j.Token, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

func waitFor(t testing.TB, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPublisher_ViewersGetThePictureAndTheState: with no local viewer, the
// server encodes for the room; a LiveKit viewer decodes the picture (red
// left, blue right) and gets the state messages, a new match's players
// included.
func TestPublisher_ViewersGetThePictureAndTheState(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-1")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)

	var last atomic.Pointer[image.Image]
	v := joinViewer(t, tb.cfg, lkviewer.Options{Decode: true, OnFrame: func(f lkviewer.Frame) {
		if f.Image != nil {
			last.Store(&f.Image)
		}
	}})
	waitFor(t, "10 decoded frames", 10*time.Second, func() bool { return v.Stats().Decoded >= 10 })
	img := *last.Load()
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
		t.Fatalf("picture %v, want 320x240", b)
	}
	for _, c := range []struct {
		x, y    int
		r, g, b uint32
	}{{60, 120, 220, 30, 30}, {260, 120, 30, 30, 220}} {
		r, g, b, _ := img.At(c.x, c.y).RGBA()
		if absDiff(r>>8, c.r) > 30 || absDiff(g>>8, c.g) > 30 || absDiff(b>>8, c.b) > 30 {
			t.Errorf("pixel (%d,%d) = %d,%d,%d, want about %d,%d,%d", c.x, c.y, r>>8, g>>8, b>>8, c.r, c.g, c.b)
		}
	}
	if st := tb.srv.Stats(); st.Viewers != 0 || st.FramesEncoded == 0 {
		t.Errorf("server: %d local viewers, %d frames encoded; want 0 and some (encoded for the room)", st.Viewers, st.FramesEncoded)
	}

	if err := tb.game.NewMatch(matchOfTwo()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new match's state", 5*time.Second, func() bool {
		var m struct {
			Type  string           `json:"type"`
			State stream.GameState `json:"state"`
		}
		if json.Unmarshal(v.LastState(), &m) != nil || m.Type != "state" || len(m.State.Players) != 2 {
			return false
		}
		return m.State.Players[0].Name == "P1" && m.State.Players[1].Name == "P2"
	})
	if st := tb.pub.Status(); st.State != livekit.StateLive || st.Joins != 1 {
		t.Errorf("status %+v, want live after one join", st)
	}
}

func matchOfTwo() stream.MatchSetup {
	return stream.MatchSetup{Players: referee.DefaultPlayers(2)}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
