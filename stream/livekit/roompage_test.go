package livekit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/livekit/protocol/auth"
	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/stream/internal/browsertest"
	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/whepclient"
)

// The spectator page watching from the LiveKit room (?via=room), in
// headless chromium (stream/internal/browsertest) against a real
// livekit-server (lktest). LiveKit's media goes to the machine's own
// non-loopback address (lktest's node IP); chromium reaches it with its
// default flags: it sends from its host candidates and the server learns
// them as peer-reflexive ones, so neither mDNS candidates nor a proxy
// policy are in the way.

// The page's view, as the tests read it.
const (
	pageStatusJS  = `document.getElementById('status').textContent`
	pageOverlayJS = `(document.getElementById('overlay').classList.contains('hidden') ? '' : document.getElementById('overlay-title').textContent)`
	pageFramesJS  = `(async () => { const v = window.ligrettoViewer && window.ligrettoViewer(); return v ? await v.framesDecoded() : 0; })()`
	pageNamesJS   = `[...document.querySelectorAll('#scores tr .name span:nth-child(2)')].map(e => e.textContent).join(',')`
	pageViaJS     = `window.ligrettoVia ? window.ligrettoVia() || '' : ''`
)

func openPage(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
}

// pagePlays waits until the page shows the room's picture live: status
// Live, no overlay, the video the source's size, frames decoded and the
// video's clock advancing.
func pagePlays(t *testing.T, ctx context.Context, d time.Duration) {
	t.Helper()
	browsertest.EvalUntil(t, ctx, "frames decoded", pageFramesJS, d, func(n int) bool { return n > 0 })
	browsertest.EvalUntil(t, ctx, "video size", `document.getElementById('video').videoWidth + 'x' + document.getElementById('video').videoHeight`,
		d, func(s string) bool { return s == "320x240" })
	browsertest.EvalUntil(t, ctx, "status and overlay", pageStatusJS+` + ' | ' + `+pageOverlayJS, d, func(s string) bool { return s == "Live | " })
	now := func() float64 {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.getElementById('video').currentTime`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t0 := now()
	time.Sleep(time.Second)
	if t1 := now(); t1-t0 < 0.5 {
		t.Fatalf("the video's clock went from %.2f s to %.2f s in a second", t0, t1)
	}
}

// TestRoomPage_WatchesFromTheRoom: /?via=room plays the room's track in the
// page's video element, draws the game from the room's state messages (a
// match started before the page joined included), asks this server for
// no video, and after the LiveKit server dies says it reconnects, then
// plays again once the server is back.
func TestRoomPage_WatchesFromTheRoom(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-1")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)
	if err := tb.game.NewMatch(stream.MatchSetup{Players: referee.DefaultPlayers(2)}); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Start(t)
	openPage(t, ctx, tb.url+"/?via=room")

	pagePlays(t, ctx, 30*time.Second)
	if via := browsertest.EvalUntil(t, ctx, "mode", pageViaJS, time.Second, func(string) bool { return true }); via != "room" {
		t.Fatalf("the page watches via %q, want room", via)
	}
	browsertest.EvalUntil(t, ctx, "the room in the footer", `document.getElementById('via-room').hidden ? '' : document.getElementById('room-name').textContent`,
		5*time.Second, func(s string) bool { return s == "table-1" })
	// Joined after the match began: the state comes again within seconds.
	browsertest.EvalUntil(t, ctx, "scoreboard", pageNamesJS, 10*time.Second, func(s string) bool { return s == "P1,P2" })
	if st := tb.srv.Stats(); st.Viewers != 0 || st.Sessions != 0 {
		t.Errorf("the stream server has %d viewers, %d sessions; the page should watch from the room alone", st.Viewers, st.Sessions)
	}
	if n := browsertest.EvalUntil(t, ctx, "published tracks", `window.ligrettoViewer().room.localParticipant.trackPublications.size`,
		time.Second, func(int) bool { return true }); n != 0 {
		t.Errorf("the page published %d tracks", n)
	}
	// A change on the server shows up.
	if err := tb.game.StartRound(); err != nil {
		t.Fatal(err)
	}
	browsertest.EvalUntil(t, ctx, "the round", `document.getElementById('phase').textContent + ' ' + document.getElementById('round').textContent`,
		10*time.Second, func(s string) bool { return s == "Playing 1" })
	browsertest.Screenshot(t, ctx, "room-page.png")

	lk.Kill()
	seen := browsertest.EvalUntil(t, ctx, "the reconnecting notice", pageStatusJS+` + ' | ' + `+pageOverlayJS, 15*time.Second, func(s string) bool {
		return s == "Reconnecting… | Reconnecting to the room…" || s == "Referee away | The referee’s stream is away"
	})
	t.Logf("LiveKit server killed: the page shows %q", seen)
	browsertest.Screenshot(t, ctx, "room-page-reconnecting.png")
	restarted := time.Now()
	lk.Restart()
	pagePlays(t, ctx, 15*time.Second)
	t.Logf("playing again %v after the restart began", time.Since(restarted).Round(100*time.Millisecond))
	browsertest.EvalUntil(t, ctx, "scoreboard after the restart", pageNamesJS, 10*time.Second, func(s string) bool { return s == "P1,P2" })
}

// TestRoomPage_RefereeAway: when the referee leaves the room (its track
// with it) the page says the referee's stream is away, and plays again
// when the referee is back.
func TestRoomPage_RefereeAway(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-2")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)
	ctx := browsertest.Start(t)
	openPage(t, ctx, tb.url+"/?via=room")
	pagePlays(t, ctx, 30*time.Second)

	tb.stopPublisher()
	browsertest.EvalUntil(t, ctx, "the away notice", pageStatusJS+` + ' | ' + `+pageOverlayJS, 10*time.Second,
		func(s string) bool { return s == "Referee away | The referee’s stream is away" })
	browsertest.Screenshot(t, ctx, "room-page-away.png")
	tb.runPublisher()
	pagePlays(t, ctx, 15*time.Second)
}

// TestRoomPage_JoinsAgainWhenDisconnected: a page that LiveKit disconnects
// (here the server removes it from the room) says it reconnects and joins
// again by itself, with a fresh token (a new identity).
func TestRoomPage_JoinsAgainWhenDisconnected(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-4")
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)
	ctx := browsertest.Start(t)
	openPage(t, ctx, tb.url+"/?via=room")
	pagePlays(t, ctx, 30*time.Second)
	const identityJS = `window.ligrettoViewer().room ? window.ligrettoViewer().room.localParticipant.identity : ''`
	first := browsertest.EvalUntil(t, ctx, "identity", identityJS, time.Second, func(s string) bool { return strings.HasPrefix(s, "viewer-") })

	rooms := lksdk.NewRoomServiceClient(lk.URL, lktest.Key, lktest.Secret)
	rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := rooms.RemoveParticipant(rctx, &lkproto.RoomParticipantIdentity{Room: "table-4", Identity: first}); err != nil {
		t.Fatal(err)
	}
	browsertest.EvalUntil(t, ctx, "the rejoin notice", pageStatusJS+` + ' | ' + document.getElementById('overlay-text').textContent`, 10*time.Second,
		func(s string) bool {
			return strings.HasPrefix(s, "Reconnecting… | ") && strings.Contains(s, "Joining again in")
		})
	pagePlays(t, ctx, 20*time.Second)
	if again := browsertest.EvalUntil(t, ctx, "identity", identityJS, time.Second, func(s string) bool { return s != "" }); again == first {
		t.Errorf("joined again as %s, want a new viewer token", again)
	}
}

// TestRoomPage_FullServerSendsViewersToTheRoom: a page without ?via that
// the server turns away as full watches from the room instead; with
// ?via=whep it stays and says the stream is full.
func TestRoomPage_FullServerSendsViewersToTheRoom(t *testing.T) {
	lk := lktest.Start(t)
	tb := startTable(t, lk, "table-3", func(c *stream.Config) { c.MaxViewers = 1 })
	waitFor(t, "publisher live", 10*time.Second, tb.pub.Live)
	dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := whepclient.Dial(dctx, tb.url+"/whep", whepclient.Options{LoopbackOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Close() })

	ctx := browsertest.Start(t)
	openPage(t, ctx, tb.url+"/?via=whep")
	browsertest.EvalUntil(t, ctx, "the full notice", pageStatusJS+` + ' | ' + document.getElementById('overlay-text').textContent`,
		15*time.Second, func(s string) bool { return strings.HasPrefix(s, "Stream down | ") && strings.Contains(s, "Retrying") })
	openPage(t, ctx, tb.url+"/")
	pagePlays(t, ctx, 30*time.Second)
	if via := browsertest.EvalUntil(t, ctx, "mode", pageViaJS, time.Second, func(string) bool { return true }); via != "room" {
		t.Fatalf("the page watches via %q, want room", via)
	}
	if st := tb.srv.Stats(); st.Sessions != 1 {
		t.Errorf("%d WHEP sessions, want the first viewer's alone", st.Sessions)
	}
}

// TestRoomPage_APIRoom: GET /api/room answers 404 when the table is in no
// room, and otherwise the room's address, its name and a viewer token
// that lets the spectator subscribe, hidden, and publish nothing.
func TestRoomPage_APIRoom(t *testing.T) {
	cfg := livekit.Config{URL: "ws://127.0.0.1:7880", ViewerURL: "wss://lk.example.org", APIKey: lktest.Key, APISecret: lktest.Secret, Room: "table-9"}
	src := stream.FrameSourceFunc(func(ctx context.Context) <-chan stream.Frame {
		out := make(chan stream.Frame)
		go func() { <-ctx.Done(); close(out) }()
		return out
	})
	get := func(rj func() (stream.RoomJoin, error)) *httptest.ResponseRecorder {
		t.Helper()
		srv, err := stream.New(stream.Config{UDPAddr: "127.0.0.1:0", Logger: quiet, RoomJoin: rj}, src, stream.NewRefereeGame(referee.New(), nil))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/room", nil))
		return w
	}

	w := get(nil)
	var e struct {
		Error string `json:"error"`
	}
	if w.Code != http.StatusNotFound || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
		t.Fatalf("no room: %d %q, want 404 with an error", w.Code, w.Body.String())
	}

	w = get(roomJoin(cfg))
	var j stream.RoomJoin
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &j) != nil {
		t.Fatalf("room: %d %q", w.Code, w.Body.String())
	}
	if j.URL != "wss://lk.example.org" || j.Room != "table-9" || j.Token == "" {
		t.Fatalf("join %+v, want the viewer URL, the room and a token", j)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store (a token per viewer)", cc)
	}
	v, err := auth.ParseAPIToken(j.Token)
	if err != nil {
		t.Fatal(err)
	}
	_, g, err := v.Verify(lktest.Secret)
	if err != nil {
		t.Fatalf("the token does not verify with the room's secret: %v", err)
	}
	vg := g.Video
	if vg == nil || !vg.RoomJoin || vg.Room != "table-9" || !vg.Hidden || !vg.GetCanSubscribe() || vg.GetCanPublish() || vg.GetCanPublishData() {
		t.Fatalf("grant %+v: want join table-9, hidden, subscribe only", vg)
	}
	if !strings.HasPrefix(v.Identity(), "viewer-") {
		t.Errorf("identity %q", v.Identity())
	}
}
