package whepclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/stream/whepclient"
)

// colourSource sends 320x240 frames of one colour, a bright bar moving
// over them, at 25 fps.
type colourSource struct{ c color.RGBA }

func (s colourSource) Frames(ctx context.Context) <-chan stream.Frame {
	out := make(chan stream.Frame, 1)
	go func() {
		defer close(out)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for seq := uint64(1); ; seq++ {
			img := image.NewRGBA(image.Rect(0, 0, 320, 240))
			for i := 0; i < len(img.Pix); i += 4 {
				img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = s.c.R, s.c.G, s.c.B, 255
			}
			x0 := int(seq*8) % 280
			for y := 200; y < 230; y++ {
				for x := x0; x < x0+40; x++ {
					img.SetRGBA(x, y, color.RGBA{250, 250, 250, 255})
				}
			}
			select {
			case out <- stream.Frame{Image: img, Seq: seq, Time: time.Now()}:
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

type served struct {
	srv  *stream.Server
	url  string
	game *stream.RefereeGame
}

func serve(t *testing.T, maxViewers int) served {
	t.Helper()
	game := stream.NewRefereeGame(referee.New(), nil)
	cfg := stream.Config{Token: "whepclient-test-token", UDPAddr: "127.0.0.1:0", AuthFailDelay: -1, MaxViewers: maxViewers,
		KeyframeEvery: 1000, StateInterval: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	s, err := stream.New(cfg, colourSource{color.RGBA{200, 30, 30, 255}}, game)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		hs.Close()
	})
	return served{srv: s, url: hs.URL, game: game}
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}

// TestViewerDecodesTheServedPictureAndReadsTheState: a decoding viewer
// gets 320x240 pictures of the served colour, the game state over the
// DataChannel as the referee has it, and a keyframe when it asks; Close
// ends its session on the server (DELETE).
func TestViewerDecodesTheServedPictureAndReadsTheState(t *testing.T) {
	ts := serve(t, 0)
	var mu sync.Mutex
	var pics []*image.YCbCr
	var states []stream.GameState
	v, err := whepclient.Dial(context.Background(), ts.url+"/whep", whepclient.Options{LoopbackOnly: true, Decode: true,
		OnFrame: func(f whepclient.Frame) {
			if f.Image == nil {
				return
			}
			if f.Decoded.Before(f.Received) {
				t.Errorf("decoded at %v before it was received at %v", f.Decoded, f.Received)
			}
			mu.Lock()
			pics = append(pics, f.Image)
			mu.Unlock()
		},
		OnState: func(b json.RawMessage) {
			var st stream.GameState
			if err := json.Unmarshal(b, &st); err != nil {
				t.Errorf("a state message: %v", err)
				return
			}
			mu.Lock()
			states = append(states, st)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.Location() == "" {
		t.Fatal("no session Location")
	}
	waitFor(t, 10*time.Second, "5 decoded pictures", func() bool { mu.Lock(); defer mu.Unlock(); return len(pics) >= 5 })
	mu.Lock()
	checkServedRed(t, pics[len(pics)-1])
	mu.Unlock()

	if _, err := ts.game.Apply(referee.Observation{Kind: referee.ObsMatch, Players: referee.DefaultPlayers(3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "a state with 3 players", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(states) > 0 && len(states[len(states)-1].Players) == 3
	})
	var last stream.GameState
	if err := json.Unmarshal(v.LastState(), &last); err != nil || len(last.Players) != 3 {
		t.Errorf("LastState: %v, %d players", err, len(last.Players))
	}

	select {
	case <-v.Track():
	default:
		t.Fatal("pictures came but Track is not closed")
	}
	if v.SSRC() == 0 {
		t.Fatal("no SSRC")
	}
	keys := v.Stats().Keyframes
	waitFor(t, 10*time.Second, "a keyframe after a PLI", func() bool {
		if err := v.RequestKeyframe(); err != nil {
			t.Fatalf("RequestKeyframe: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
		return v.Stats().Keyframes > keys
	})
	st := v.Stats()
	if st.FramesReceived < 5 || st.FramesDecoded < 5 || st.Packets < st.FramesReceived || st.Bytes == 0 || st.StateMessages == 0 ||
		st.Width != 320 || st.Height != 240 {
		t.Errorf("stats: %+v", st)
	}
	if err := v.SendText(`{"type":"hello"}`); err != nil {
		t.Errorf("SendText: %v", err)
	}
	checkCloseEndsTheSession(t, ts, v)
}

// checkServedRed: p is a 320x240 picture of colourSource's red.
func checkServedRed(t *testing.T, p *image.YCbCr) {
	t.Helper()
	if p.Rect.Dx() != 320 || p.Rect.Dy() != 240 {
		t.Fatalf("decoded %v, want 320x240", p.Rect)
	}
	// Red (200,30,30) is about Y 81, Cb 99, Cr 206 (BT.601, limited range).
	y, cb, cr := p.YCbCrAt(50, 50).Y, p.YCbCrAt(50, 50).Cb, p.YCbCrAt(50, 50).Cr
	if y < 60 || y > 100 || cb > 120 || cr < 180 {
		t.Errorf("the picture's colour is Y %d Cb %d Cr %d, want the served red", y, cb, cr)
	}
}

// checkCloseEndsTheSession: v is the server's one session; Close ends it
// there, closes Done, and the viewer refuses to ask for more.
func checkCloseEndsTheSession(t *testing.T, ts served, v *whepclient.Viewer) {
	t.Helper()
	if n := ts.srv.Stats().Sessions; n != 1 {
		t.Fatalf("%d sessions on the server, want 1", n)
	}
	if err := v.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-v.Done():
	default:
		t.Error("Done is not closed after Close")
	}
	waitFor(t, 5*time.Second, "the session to end", func() bool { return ts.srv.Stats().Sessions == 0 })
	if err := v.RequestKeyframe(); !errors.Is(err, whepclient.ErrClosed) {
		t.Errorf("RequestKeyframe after Close: %v", err)
	}
}

// TestViewerCountsFramesWithoutDecoding: without Decode, every whole
// frame still reaches OnFrame (no picture), the first a keyframe; with
// NoDataChannel no state comes and SendText says so.
func TestViewerCountsFramesWithoutDecoding(t *testing.T) {
	ts := serve(t, 0)
	var mu sync.Mutex
	var frames []whepclient.Frame
	v, err := whepclient.Dial(context.Background(), ts.url+"/whep", whepclient.Options{LoopbackOnly: true, NoDataChannel: true, BrowserLike: true,
		OnFrame: func(f whepclient.Frame) { mu.Lock(); frames = append(frames, f); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	waitFor(t, 10*time.Second, "20 frames", func() bool { mu.Lock(); defer mu.Unlock(); return len(frames) >= 20 })
	mu.Lock()
	defer mu.Unlock()
	if !frames[0].Keyframe {
		t.Error("the first whole frame is not a keyframe")
	}
	for i, f := range frames {
		if f.Image != nil || f.Size == 0 || f.Received.IsZero() {
			t.Fatalf("frame %d: %+v", i, f)
		}
		if i > 0 && f.RTPTimestamp == frames[i-1].RTPTimestamp {
			t.Fatalf("frames %d and %d share a timestamp", i-1, i)
		}
	}
	if st := v.Stats(); st.FramesDecoded != 0 || st.StateMessages != 0 || st.FramesReceived < 20 {
		t.Errorf("stats: %+v", st)
	}
	if err := v.SendText("x"); !errors.Is(err, whepclient.ErrNoDataChannel) {
		t.Errorf("SendText without a DataChannel: %v", err)
	}
}

// TestDialRefusedBeyondMaxViewers: the server's 503 comes back as a
// *StatusError, and the refused viewer leaves nothing behind.
func TestDialRefusedBeyondMaxViewers(t *testing.T) {
	ts := serve(t, 1)
	v, err := whepclient.Dial(context.Background(), ts.url+"/whep", whepclient.Options{LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	_, err = whepclient.Dial(context.Background(), ts.url+"/whep", whepclient.Options{LoopbackOnly: true})
	var se *whepclient.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusServiceUnavailable {
		t.Fatalf("a second viewer beyond MaxViewers 1: %v", err)
	}
	if n := ts.srv.Stats().Sessions; n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
}

// TestDecoderRefusesGarbage: the decoder reports an error for bytes that
// are no VP8 frame, and for nothing.
func TestDecoderRefusesGarbage(t *testing.T) {
	d, err := whepclient.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Decode(nil); err == nil {
		t.Error("an empty frame decoded")
	}
	if img, err := d.Decode([]byte{0x00, 0x01, 0x02, 0x9d, 0x01, 0x2a, 0xff, 0xff, 0xff, 0xff, 1, 2, 3}); err == nil && img != nil {
		t.Errorf("garbage decoded to %v", img.Rect)
	}
}
