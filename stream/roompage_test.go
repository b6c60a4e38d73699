package stream

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// connectSrc is the connect-src directive of the page's CSP.
func connectSrc(t *testing.T, s *Server) string {
	t.Helper()
	w := do(t, s.Handler(), "GET", "/", "", "", "")
	if w.Code != 200 {
		t.Fatalf("GET /: %d", w.Code)
	}
	for d := range strings.SplitSeq(w.Header().Get("Content-Security-Policy"), ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, "connect-src ") {
			return d
		}
	}
	t.Fatalf("no connect-src in %q", w.Header().Get("Content-Security-Policy"))
	return ""
}

// TestSpectatorPage_ConnectsToTheRoomsServer: the spectator page may
// connect to the LiveKit server of the table's room (its WebSocket and its
// HTTP address), learnt from RoomJoin once; to nothing but this server
// when there is no room or its address is not a web address.
func TestSpectatorPage_ConnectsToTheRoomsServer(t *testing.T) {
	if got := connectSrc(t, newIdleServer(t, testConfig())); got != "connect-src 'self'" {
		t.Errorf("no room: %q", got)
	}
	for url, want := range map[string]string{
		"ws://127.0.0.1:7880":         "connect-src 'self' ws://127.0.0.1:7880 http://127.0.0.1:7880",
		"wss://LK.example.org/prefix": "connect-src 'self' wss://lk.example.org https://lk.example.org",
		"https://lk.example.org:8443": "connect-src 'self' wss://lk.example.org:8443 https://lk.example.org:8443",
		"ftp://lk.example.org":        "connect-src 'self'",
		"ws://a b;c":                  "connect-src 'self'",
	} {
		var calls atomic.Int32
		cfg := testConfig()
		cfg.RoomJoin = func() (RoomJoin, error) {
			calls.Add(1)
			return RoomJoin{URL: url, Room: "table-1", Token: "t"}, nil
		}
		s := newIdleServer(t, cfg)
		for range 3 {
			if got := connectSrc(t, s); got != want {
				t.Errorf("%s: %q, want %q", url, got, want)
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("%s: RoomJoin called %d times for 3 pages, want once", url, n)
		}
	}

	// A RoomJoin that fails is asked again by the next page.
	var fail atomic.Bool
	fail.Store(true)
	cfg := testConfig()
	cfg.RoomJoin = func() (RoomJoin, error) {
		if fail.Load() {
			return RoomJoin{}, errors.New("no key")
		}
		return RoomJoin{URL: "ws://lk:7880"}, nil
	}
	s := newIdleServer(t, cfg)
	if got := connectSrc(t, s); got != "connect-src 'self'" {
		t.Errorf("failing RoomJoin: %q", got)
	}
	fail.Store(false)
	if got := connectSrc(t, s); got != "connect-src 'self' ws://lk:7880 http://lk:7880" {
		t.Errorf("RoomJoin working again: %q", got)
	}
}

// TestBrowser_RoomPageWithoutRoom: /?via=room on a server whose table is
// in no LiveKit room says so, and does not watch over WHEP behind the
// viewer's back; the default page still does.
func TestBrowser_RoomPageWithoutRoom(t *testing.T) {
	ts := startServer(t, testConfig(), newTestSource(320, 240, 25))
	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/?via=room")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the no-room notice", `document.getElementById('status').textContent + ' | ' + document.getElementById('overlay-title').textContent + ' | ' + !document.getElementById('retry').hidden`,
		10*time.Second, func(s string) bool { return s == "No room | No LiveKit room | true" })
	if n := ts.Stats().Sessions; n != 0 {
		t.Fatalf("%d WHEP sessions; the page was asked to watch from the room", n)
	}
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "frames decoded", framesDecodedJS, 30*time.Second, func(n int) bool { return n > 0 })
	if via := evalUntil(t, ctx, "mode", `window.ligrettoVia()`, time.Second, func(string) bool { return true }); via != "whep" {
		t.Fatalf("the default page watches via %q", via)
	}
}
