package stream

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"

	"ligretto/referee"
)

// newIdleServer is a server that is not running (no frames): enough for
// the HTTP side of WHEP.
func newIdleServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := New(cfg, newTestSource(64, 48, 5), NewRefereeGame(referee.New(), nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// post offers and returns the recorder.
func postOffer(t testing.TB, s *Server, offer string) (code int, location, body string, h http.Header) {
	t.Helper()
	w := do(t, s.Handler(), http.MethodPost, "/whep", "application/sdp", "", offer)
	return w.Code, w.Header().Get("Location"), w.Body.String(), w.Header()
}

// TestWHEP_PostAnswersWithLocation: 201, an SDP answer with our
// candidate, a Location for the session, an ETag and Accept-Patch.
func TestWHEP_PostAnswersWithLocation(t *testing.T) {
	s := newIdleServer(t, testConfig())
	code, loc, body, h := postOffer(t, s, makeOffer(t))
	if code != http.StatusCreated {
		t.Fatalf("POST: %d %s", code, body)
	}
	if !strings.HasPrefix(loc, "/whep/") || len(loc) < len("/whep/")+16 {
		t.Fatalf("Location %q", loc)
	}
	if h.Get("Content-Type") != "application/sdp" || h.Get("ETag") == "" || h.Get("Accept-Patch") != "application/trickle-ice-sdpfrag" {
		t.Fatalf("headers %v", h)
	}
	var d sdp.SessionDescription
	if err := d.UnmarshalString(body); err != nil {
		t.Fatalf("answer does not parse: %v", err)
	}
	if !strings.Contains(body, "a=candidate:") || !strings.Contains(body, "VP8/90000") || !strings.Contains(body, "a=sendonly") {
		t.Fatalf("answer lacks a candidate, VP8 or sendonly:\n%s", body)
	}
	if n := s.Stats().Sessions; n != 1 {
		t.Fatalf("%d sessions", n)
	}
	// DELETE ends it; a second DELETE finds nothing.
	if w := do(t, s.Handler(), http.MethodDelete, loc, "", "", ""); w.Code != http.StatusOK {
		t.Fatalf("DELETE: %d", w.Code)
	}
	if n := s.Stats().Sessions; n != 0 {
		t.Fatalf("%d sessions after DELETE", n)
	}
	if w := do(t, s.Handler(), http.MethodDelete, loc, "", "", ""); w.Code != http.StatusNotFound {
		t.Fatalf("second DELETE: %d", w.Code)
	}
}

// TestWHEP_PublicIPIsTheCandidate: with PublicIPs (a server behind 1:1
// NAT) the answer's host candidate carries the public address instead of
// the local one.
func TestWHEP_PublicIPIsTheCandidate(t *testing.T) {
	cfg := testConfig()
	cfg.PublicIPs = []string{"203.0.113.7"}
	s := newIdleServer(t, cfg)
	code, _, body, _ := postOffer(t, s, makeOffer(t))
	if code != http.StatusCreated {
		t.Fatalf("POST: %d %s", code, body)
	}
	var cands []string
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "a=candidate:") {
			cands = append(cands, strings.TrimSpace(line))
		}
	}
	if len(cands) == 0 {
		t.Fatalf("no candidate in the answer:\n%s", body)
	}
	for _, c := range cands {
		if !strings.Contains(c, " 203.0.113.7 ") || !strings.Contains(c, " typ host") {
			t.Errorf("candidate %q: want the public address as a host candidate", c)
		}
	}
}

// TestWHEP_Errors: each malformed request gets its 4xx and a message, and
// no session is left behind.
func TestWHEP_Errors(t *testing.T) {
	s := newIdleServer(t, testConfig())
	offer := makeOffer(t)
	_, loc, _, h := postOffer(t, s, offer)
	etag := h.Get("ETag")
	ufrag := iceUfrag(offer)
	cand := "a=candidate:1 1 udp 2130706431 127.0.0.1 40000 typ host\r\n"
	noVideo := strings.Replace(offer, "m=video", "m=audio", 1)

	cases := []struct {
		name, method, path, ctype, body string
		header                          map[string]string
		want                            int
		wantHeader                      string
	}{
		{"GET endpoint", http.MethodGet, "/whep", "", "", nil, 405, "Allow"},
		{"PUT endpoint", http.MethodPut, "/whep", "application/sdp", offer, nil, 405, "Allow"},
		{"GET session", http.MethodGet, loc, "", "", nil, 405, "Allow"},
		{"POST wrong type", http.MethodPost, "/whep", "text/plain", offer, nil, 415, "Accept-Post"},
		{"POST no type", http.MethodPost, "/whep", "", offer, nil, 415, ""},
		{"POST empty", http.MethodPost, "/whep", "application/sdp", "", nil, 400, ""},
		{"POST garbage", http.MethodPost, "/whep", "application/sdp", "hello, world", nil, 400, ""},
		{"POST truncated", http.MethodPost, "/whep", "application/sdp", offer[:len(offer)/3], nil, 400, ""},
		{"POST no video", http.MethodPost, "/whep", "application/sdp", noVideo, nil, 400, ""},
		{"POST no ICE credentials", http.MethodPost, "/whep", "application/sdp", stripLines(offer, "a=ice-ufrag", "a=ice-pwd"), nil, 400, ""},
		{"POST no fingerprint", http.MethodPost, "/whep", "application/sdp", stripLines(offer, "a=fingerprint"), nil, 400, ""},
		{"POST too big", http.MethodPost, "/whep", "application/sdp", offer + strings.Repeat("a=x-pad:0123456789\r\n", 8000), nil, 413, ""},
		{"PATCH unknown session", http.MethodPatch, "/whep/0123456789abcdef", "application/trickle-ice-sdpfrag", cand, nil, 404, ""},
		{"DELETE unknown session", http.MethodDelete, "/whep/0123456789abcdef", "", "", nil, 404, ""},
		{"PATCH wrong type", http.MethodPatch, loc, "application/sdp", cand, nil, 415, "Accept-Patch"},
		{"PATCH stale ETag", http.MethodPatch, loc, "application/trickle-ice-sdpfrag", cand, map[string]string{"If-Match": `"nope"`}, 412, ""},
		{"PATCH ICE restart", http.MethodPatch, loc, "application/trickle-ice-sdpfrag", "a=ice-ufrag:other\r\na=ice-pwd:otherpasswordotherpassword\r\n", nil, 422, ""},
		{"PATCH bad candidate", http.MethodPatch, loc, "application/trickle-ice-sdpfrag", "a=candidate:bogus\r\n", nil, 400, ""},
		{"PATCH not SDP", http.MethodPatch, loc, "application/trickle-ice-sdpfrag", "hello\r\n", nil, 400, ""},
		{"nested path", http.MethodGet, "/whep/a/b", "", "", nil, 404, ""},
		// These succeed.
		{"OPTIONS endpoint", http.MethodOptions, "/whep", "", "", nil, 204, "Accept-Post"},
		{"OPTIONS session", http.MethodOptions, loc, "", "", nil, 204, "Accept-Patch"},
		{"PATCH candidate", http.MethodPatch, loc, "application/trickle-ice-sdpfrag",
			"a=ice-ufrag:" + ufrag + "\r\na=ice-pwd:x\r\nm=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n" + cand + "a=end-of-candidates\r\n",
			map[string]string{"If-Match": etag}, 204, ""},
		{"PATCH If-Match *", http.MethodPatch, loc, "application/trickle-ice-sdpfrag", cand, map[string]string{"If-Match": "*"}, 204, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := newRequest(c.method, c.path, c.ctype, c.body)
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			w := serve(s.Handler(), req)
			if w.Code != c.want {
				t.Fatalf("%s %s: %d %q, want %d", c.method, c.path, w.Code, w.Body.String(), c.want)
			}
			if c.want >= 400 && strings.TrimSpace(w.Body.String()) == "" {
				t.Fatal("no message")
			}
			if c.wantHeader != "" && w.Header().Get(c.wantHeader) == "" {
				t.Fatalf("no %s header: %v", c.wantHeader, w.Header())
			}
		})
	}
	if n := s.Stats().Sessions; n != 1 {
		t.Fatalf("%d sessions, want the one good one", n)
	}
}

// TestWHEP_CORSPreflight: a WHEP player on another origin may POST.
func TestWHEP_CORSPreflight(t *testing.T) {
	s := newIdleServer(t, testConfig())
	req := newRequest(http.MethodOptions, "/whep", "", "")
	req.Header.Set("Origin", "https://player.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	w := serve(s.Handler(), req)
	h := w.Header()
	if w.Code != 204 || h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Location") {
		t.Fatalf("%d %v", w.Code, h)
	}
}

// TestWHEP_FullServerRefuses: past MaxViewers, 503 with a message and
// Retry-After; a slot freed is a slot taken.
func TestWHEP_FullServerRefuses(t *testing.T) {
	cfg := testConfig()
	cfg.MaxViewers = 2
	s := newIdleServer(t, cfg)
	var locs []string
	for i := 0; i < 2; i++ {
		code, loc, body, _ := postOffer(t, s, makeOffer(t))
		if code != 201 {
			t.Fatalf("viewer %d: %d %s", i+1, code, body)
		}
		locs = append(locs, loc)
	}
	code, _, body, h := postOffer(t, s, makeOffer(t))
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "full") || h.Get("Retry-After") == "" {
		t.Fatalf("third viewer: %d %q %v", code, body, h)
	}
	do(t, s.Handler(), http.MethodDelete, locs[0], "", "", "")
	if code, _, body, _ := postOffer(t, s, makeOffer(t)); code != 201 {
		t.Fatalf("after one left: %d %s", code, body)
	}
}

// TestWHEP_UnconnectedSessionsExpire: an offer that never connects does
// not hold a slot for ever.
func TestWHEP_UnconnectedSessionsExpire(t *testing.T) {
	cfg := testConfig()
	cfg.ConnectTimeout = 300 * time.Millisecond
	s := newIdleServer(t, cfg)
	if code, _, body, _ := postOffer(t, s, makeOffer(t)); code != 201 {
		t.Fatalf("%d %s", code, body)
	}
	waitFor(t, 5*time.Second, "the session to expire", func() bool { return s.Stats().Sessions == 0 })
}

// TestWHEP_VanishedViewerIsRemoved: a viewer that goes away without DELETE
// is ended when ICE fails.
func TestWHEP_VanishedViewerIsRemoved(t *testing.T) {
	old := iceTimeouts
	iceTimeouts = [3]time.Duration{500 * time.Millisecond, time.Second, 200 * time.Millisecond}
	defer func() { iceTimeouts = old }()
	ts := startServer(t, testConfig(), nil)
	// The viewer has a socket of its own, so that it can vanish without a
	// word: close the socket first, and its goodbye (DTLS close_notify)
	// goes nowhere.
	sock, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := webrtc.NewICEUDPMux(nil, sock)
	v, err := dialViewer(ts.URL, plainViewerWith(func(se *webrtc.SettingEngine) { se.SetICEUDPMux(mux) }), viewerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the viewer to connect", func() bool { return ts.Stats().Viewers == 1 })
	mux.Close()
	sock.Close()
	v.Abort() // and no DELETE
	if s := ts.Stats(); s.Viewers != 1 {
		t.Fatalf("the server noticed at once (%d viewers): the viewer did not vanish silently", s.Viewers)
	}
	waitFor(t, 10*time.Second, "the server to notice", func() bool { s := ts.Stats(); return s.Viewers == 0 && s.Sessions == 0 })
}

func stripLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		keep := true
		for _, p := range prefixes {
			if strings.HasPrefix(l, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestParseSDPFrag reads candidates with their mid and m-line index.
func TestParseSDPFrag(t *testing.T) {
	f, err := parseSDPFrag("a=ice-ufrag:abc\r\na=ice-pwd:def\r\nm=audio 9 RTP/AVP 0\r\na=mid:0\r\na=candidate:1 1 udp 1 1.2.3.4 5 typ host\r\nm=video 9 RTP/AVP 0\r\na=mid:1\r\na=candidate:2 1 udp 1 1.2.3.4 6 typ host\r\na=end-of-candidates\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if f.ufrag != "abc" || f.pwd != "def" || len(f.candidates) != 2 || *f.candidates[1].SDPMid != "1" || *f.candidates[1].SDPMLineIndex != 1 {
		t.Fatalf("%+v", f)
	}
	if _, err := parseSDPFrag("x\r\n"); err == nil {
		t.Fatal("no error for a non-SDP line")
	}
}
