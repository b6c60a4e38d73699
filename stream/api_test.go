package stream

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ligretto/referee"
)

func decodeState(t *testing.T, body []byte) GameState {
	t.Helper()
	var r apiResult
	if err := json.Unmarshal(body, &r); err != nil || !r.OK {
		t.Fatalf("answer %s: %v", body, err)
	}
	return r.State
}

// TestAPI_OperatorControlsTheGame: every control action works with the
// token and its effect shows in the state it returns.
func TestAPI_OperatorControlsTheGame(t *testing.T) {
	s := newIdleServer(t, testConfig())
	h := s.Handler()
	call := func(path, body string) GameState {
		t.Helper()
		ct := ""
		if body != "" {
			ct = "application/json"
		}
		w := do(t, h, http.MethodPost, path, ct, testToken, body)
		if w.Code != http.StatusOK {
			t.Fatalf("POST %s %s: %d %s", path, body, w.Code, w.Body)
		}
		return decodeState(t, w.Body.Bytes())
	}
	st := call("/api/enrol", `{"player":"P2","back":"stars"}`)
	if st.Roster[1].Back != "stars" {
		t.Fatalf("roster %+v", st.Roster)
	}
	st = call("/api/match", `{"settings":{"target":30,"deadlock":"restart","advanced":true}}`)
	if !st.Match.Active || st.Match.Settings.Target != 30 || st.Match.Settings.Deadlock != referee.DeadlockRestart ||
		!st.Match.Settings.Advanced || len(st.Players) != 4 || st.Players[1].Back != "stars" {
		t.Fatalf("match %+v players %+v", st.Match, st.Players)
	}
	st = call("/api/round", "")
	if st.Phase != referee.PhasePlaying || st.Round != 1 {
		t.Fatalf("round: %+v", st)
	}
	st = call("/api/override", `{"pile":2,"card":{"colour":"green","number":4}}`)
	st = call("/api/override", `{"pile":3,"card":"blue 7"}`)
	if len(st.Piles) != 2 || st.Piles[0].Top != (referee.Face{Colour: referee.Green, Number: 4}) {
		t.Fatalf("piles %+v", st.Piles)
	}
	st = call("/api/undo", "")
	if len(st.Piles) != 1 {
		t.Fatalf("after undo: piles %+v", st.Piles)
	}
	st = call("/api/stop", `{"player":"P3"}`)
	if st.Phase != referee.PhaseCounting || st.StoppedBy != "P3" {
		t.Fatalf("stop: %+v", st)
	}
	last := st.Feed[len(st.Feed)-1]
	if last.Rule != referee.C13 || last.By != "operator" {
		t.Fatalf("feed %+v", last)
	}
	w := do(t, h, http.MethodGet, "/api/state", "", testToken, "")
	var got GameState
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &got) != nil || got.Version != st.Version {
		t.Fatalf("GET state: %d %s", w.Code, w.Body)
	}
	w = do(t, h, http.MethodGet, "/api/status", "", testToken, "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"back_designs"`) {
		t.Fatalf("GET status: %d %s", w.Code, w.Body)
	}
}

// TestAPI_BadRequestsChangeNothing: each bad request gets its status and a
// message, and the game stays as it was.
func TestAPI_BadRequestsChangeNothing(t *testing.T) {
	s := newIdleServer(t, testConfig())
	h := s.Handler()
	game := s.game.(*RefereeGame)
	playSomeGame(t, game)
	const js = "application/json"
	cases := []struct {
		name, method, path, ctype, body string
		want                            int
	}{
		{"unknown action", http.MethodPost, "/api/launch", js, `{}`, 404},
		{"wrong method", http.MethodGet, "/api/round", "", "", 405},
		{"wrong type", http.MethodPost, "/api/stop", "text/plain", `{"player":"P1"}`, 415},
		{"bad JSON", http.MethodPost, "/api/override", js, `{"pile":`, 400},
		{"unknown field", http.MethodPost, "/api/override", js, `{"pile":1,"card":"red 3","evil":true}`, 400},
		{"two objects", http.MethodPost, "/api/stop", js, `{"player":"P1"}{"player":"P2"}`, 400},
		{"wrong JSON type", http.MethodPost, "/api/override", js, `{"pile":"one","card":"red 3"}`, 400},
		{"bad colour", http.MethodPost, "/api/override", js, `{"pile":1,"card":{"colour":"purple","number":3}}`, 400},
		{"bad card text", http.MethodPost, "/api/override", js, `{"pile":1,"card":"red eleven"}`, 400},
		{"no body", http.MethodPost, "/api/override", js, ``, 400},
		{"too big", http.MethodPost, "/api/stop", js, `{"player":"` + strings.Repeat("x", 20000) + `"}`, 413},
		{"card number out of range", http.MethodPost, "/api/override", js, `{"pile":1,"card":{"colour":"red","number":11}}`, 422},
		{"pile zero", http.MethodPost, "/api/override", js, `{"pile":0,"card":"red 3"}`, 422},
		{"unknown player stops", http.MethodPost, "/api/stop", js, `{"player":"Zed"}`, 422},
		{"round during a round", http.MethodPost, "/api/round", "", "", 409},
		{"match during a round", http.MethodPost, "/api/match", js, `{"settings":{}}`, 409},
		{"one player", http.MethodPost, "/api/match", js, `{"players":[{"name":"A","back":"x"}],"settings":{}}`, 409},
		{"bad deadlock", http.MethodPost, "/api/match", js, `{"settings":{"deadlock":"coin"}}`, 409},
		{"enrol unknown", http.MethodPost, "/api/enrol", js, `{"player":"Zed","back":"stars"}`, 422},
		{"enrol taken back", http.MethodPost, "/api/enrol", js, `{"player":"P1","back":"pyramids"}`, 422},
		{"enrol empty back", http.MethodPost, "/api/enrol", js, `{"player":"P1","back":""}`, 422},
		{"control name", http.MethodPost, "/api/match", js, `{"players":[{"name":"A\u0000","back":"x"},{"name":"B","back":"y"}],"settings":{}}`, 422},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := game.State()
			w := do(t, h, c.method, c.path, c.ctype, testToken, c.body)
			if w.Code != c.want {
				t.Fatalf("%d %s, want %d", w.Code, w.Body, c.want)
			}
			if c.want != 405 && c.want != 404 && !strings.Contains(w.Body.String(), `"error"`) || strings.TrimSpace(w.Body.String()) == "" {
				t.Fatalf("no error message: %s", w.Body)
			}
			if after := game.State(); after.Version != before.Version {
				t.Fatalf("the game changed: version %d -> %d", before.Version, after.Version)
			}
		})
	}
	// With the game between rounds, a bad deadlock rule is a 422.
	if err := game.Stop(""); err != nil {
		t.Fatal(err)
	}
	for _, o := range []referee.Observation{{Kind: referee.ObsRoundEnd}} {
		if _, err := game.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	if w := do(t, h, http.MethodPost, "/api/match", js, testToken, `{"settings":{"deadlock":"coin"}}`); w.Code != 422 {
		t.Fatalf("bad deadlock between rounds: %d %s", w.Code, w.Body)
	}
	if w := do(t, h, http.MethodPost, "/api/stop", "", testToken, ""); w.Code != 409 {
		t.Fatalf("stop between rounds: %d %s", w.Code, w.Body)
	}
}

// TestAPI_ViewersCannotControl: without the right token every control
// route answers 401 (after a short delay) and the game stays as it was.
func TestAPI_ViewersCannotControl(t *testing.T) {
	cfg := testConfig()
	cfg.AuthFailDelay = 40 * time.Millisecond
	s := newIdleServer(t, cfg)
	h := s.Handler()
	game := s.game.(*RefereeGame)
	playSomeGame(t, game)
	before := game.State()
	routes := []struct{ method, path, body string }{
		{"POST", "/api/round", ""}, {"POST", "/api/stop", `{}`}, {"POST", "/api/undo", ""},
		{"POST", "/api/override", `{"pile":1,"card":"red 9"}`}, {"POST", "/api/match", `{"settings":{}}`},
		{"POST", "/api/enrol", `{"player":"P1","back":"fish"}`}, {"GET", "/api/state", ""}, {"GET", "/api/status", ""},
		{"GET", "/api/calibration.png", ""}, {"POST", "/api/nothing", ""},
	}
	auths := map[string]string{
		"none":         "",
		"wrong token":  "Bearer not-the-token",
		"prefix":       "Bearer " + testToken[:len(testToken)-1],
		"longer":       "Bearer " + testToken + "x",
		"basic scheme": "Basic " + testToken,
		"no scheme":    testToken,
	}
	for name, auth := range auths {
		for _, r := range routes {
			req := newRequest(r.method, r.path, "application/json", r.body)
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			start := time.Now()
			w := serve(h, req)
			if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") == "" {
				t.Fatalf("%s %s with %s: %d", r.method, r.path, name, w.Code)
			}
			if d := time.Since(start); d < 20*time.Millisecond {
				t.Fatalf("%s: refused after only %v", name, d)
			}
		}
	}
	if after := game.State(); after.Version != before.Version {
		t.Fatalf("the game changed: version %d -> %d", before.Version, after.Version)
	}
	// The Bearer scheme is case-insensitive.
	if w := serve(h, withAuth(newRequest("GET", "/api/state", "", ""), "bearer "+testToken)); w.Code != 200 {
		t.Fatalf("lower-case scheme: %d", w.Code)
	}
}

func withAuth(r *http.Request, auth string) *http.Request {
	r.Header.Set("Authorization", auth)
	return r
}

// TestAPI_DisabledWithoutToken: no token configured, no control at all.
func TestAPI_DisabledWithoutToken(t *testing.T) {
	cfg := testConfig()
	cfg.Token = ""
	s := newIdleServer(t, cfg)
	for _, auth := range []string{"", "Bearer ", "Bearer x"} {
		w := serve(s.Handler(), withAuth(newRequest("POST", "/api/round", "", ""), auth))
		if w.Code != http.StatusForbidden {
			t.Fatalf("%q: %d", auth, w.Code)
		}
	}
}

// TestAPI_CalibrationPreview: the newest frame, shrunk, as PNG.
func TestAPI_CalibrationPreview(t *testing.T) {
	ts := startServer(t, testConfig(), newTestSource(1280, 720, 10))
	h := ts.Handler()
	waitFor(t, 5*time.Second, "a frame", func() bool { return ts.Stats().FramesIn > 0 })
	w := do(t, h, "GET", "/api/calibration.png", "", testToken, "")
	if w.Code != 200 || w.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	img, err := png.Decode(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Fatalf("preview %v", b)
	}
}

// TestPages: the pages, their assets and the security headers.
func TestPages(t *testing.T) {
	s := newIdleServer(t, testConfig())
	h := s.Handler()
	for path, want := range map[string]string{
		"/":                    `<video id="video" playsinline muted autoplay>`,
		"/console":             `id="login"`,
		"/static/spectator.js": "WHEPViewer",
		"/static/whep.js":      "application/trickle-ice-sdpfrag",
		"/static/room.js":      "/api/room",
		"/static/console.js":   "/api/round",
		"/static/style.css":    ".scoreboard, .score",
		"/static/common.js":    "renderFeed",
	} {
		w := do(t, h, "GET", path, "", "", "")
		if w.Code != 200 {
			t.Fatalf("%s: %d", path, w.Code)
		}
		if path == "/static/style.css" {
			want = ".score"
		}
		if !strings.Contains(w.Body.String(), want) {
			t.Fatalf("%s lacks %q", path, want)
		}
	}
	// LiveKit's browser client, vendored: served from here, never a CDN.
	if w := do(t, h, "GET", "/static/vendor/livekit-client/livekit-client.umd.js", "", "", ""); w.Code != 200 ||
		!strings.Contains(w.Body.String(), ".LivekitClient=") || !strings.Contains(w.Header().Get("Content-Type"), "javascript") {
		t.Fatalf("the LiveKit client: %d, %s", w.Code, w.Header().Get("Content-Type"))
	}
	// A browser that has it is answered 304, not sent 600 KB again.
	const client = "/static/vendor/livekit-client/livekit-client.umd.js"
	tag := do(t, h, "GET", client, "", "", "").Header().Get("ETag")
	req := httptest.NewRequest("GET", client, nil)
	req.Header.Set("If-None-Match", tag)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if tag == "" || rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Fatalf("with If-None-Match %s: %d and %d bytes, want 304 and none", tag, rec.Code, rec.Body.Len())
	}
	w := do(t, h, "GET", "/", "", "", "")
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("CSP %q", csp)
	}
	if w := do(t, h, "GET", "/console", "", "", ""); w.Header().Get("X-Frame-Options") != "DENY" {
		t.Fatal("the console may be framed")
	}
	for path, want := range map[string]int{"/nope": 404, "/static/nope.js": 404, "/index.html": 404} {
		if w := do(t, h, "GET", path, "", "", ""); w.Code != want {
			t.Fatalf("%s: %d, want %d", path, w.Code, want)
		}
	}
	if w := do(t, h, "POST", "/", "", "", ""); w.Code != 405 {
		t.Fatalf("POST /: %d", w.Code)
	}
}

// TestMetricsAndHealth: Prometheus text with our series; /healthz follows
// the frames.
func TestMetricsAndHealth(t *testing.T) {
	cfg := testConfig()
	cfg.StaleAfter = 300 * time.Millisecond
	src := &stoppingSource{n: 5}
	s, err := New(cfg, src, NewRefereeGame(referee.New(), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	if w := do(t, h, "GET", "/healthz", "", "", ""); w.Code != 200 || !strings.Contains(w.Body.String(), "starting") {
		t.Fatalf("healthz at start: %d %s", w.Code, w.Body)
	}
	ctx, cancel := contextWithCancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	waitFor(t, 5*time.Second, "frames", func() bool { return s.Stats().FramesIn == 5 })
	if w := do(t, h, "GET", "/healthz", "", "", ""); w.Code != 200 || !strings.Contains(w.Body.String(), `"ok"`) {
		t.Fatalf("healthz with frames: %d %s", w.Code, w.Body)
	}
	time.Sleep(400 * time.Millisecond)
	if w := do(t, h, "GET", "/healthz", "", "", ""); w.Code != 503 || !strings.Contains(w.Body.String(), "stale") {
		t.Fatalf("healthz without frames: %d %s", w.Code, w.Body)
	}
	do(t, h, "GET", "/nope", "", "", "")
	w := do(t, h, "GET", "/metrics", "", "", "")
	body := w.Body.String()
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("%d %v", w.Code, w.Header())
	}
	for _, want := range []string{
		"# TYPE ligretto_stream_viewers gauge", "ligretto_stream_frames_in_total 5", "ligretto_stream_frames_idle_total ",
		`ligretto_stream_encode_seconds_bucket{le="+Inf"} 0`, `ligretto_http_requests_total{code="503",method="GET",route="healthz"} 1`,
		"go_goroutines ", "process_cpu_seconds_total ",
	} {
		if !strings.Contains(body, want) {
			t.Fatalf("metrics lack %q:\n%s", want, body)
		}
	}
	// Every line is a comment or "name{labels} value".
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		if strings.HasPrefix(l, "# HELP ") || strings.HasPrefix(l, "# TYPE ") {
			continue
		}
		if f := strings.Fields(l); len(f) != 2 || !strings.HasPrefix(f[0], "ligretto_") && !strings.HasPrefix(f[0], "go_") && !strings.HasPrefix(f[0], "process_") {
			t.Fatalf("bad line %q", l)
		}
	}
}
