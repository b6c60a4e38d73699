package stream

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ligretto/referee"
)

// FuzzWHEP throws arbitrary requests at the WHEP routes. None may panic or
// fail with 500, none may touch the game, and sessions made are ended.
//
//	go test -run '^$' -fuzz FuzzWHEP -fuzztime 1m ./stream
func FuzzWHEP(f *testing.F) {
	offer := makeOffer(f)
	f.Add("POST", "/whep", "application/sdp", []byte(offer), "")
	f.Add("POST", "/whep", "application/sdp", []byte(strings.ReplaceAll(offer, "VP8", "VP9")), "")
	f.Add("POST", "/whep", "application/sdp", []byte(offer[:len(offer)/2]), "")
	f.Add("POST", "/whep", "application/sdp; charset=utf-8", []byte("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n"), "")
	f.Add("PATCH", "/whep/0123", "application/trickle-ice-sdpfrag", []byte("a=candidate:1 1 udp 1 127.0.0.1 9 typ host\r\n"), "*")
	f.Add("DELETE", "/whep/x", "", []byte(nil), "")
	f.Add("OPTIONS", "/whep", "", []byte(nil), "")
	f.Add("GET", "/whep", "text/plain", []byte("x"), "")
	cfg := testConfig()
	cfg.MaxViewers = 4
	s, err := New(cfg, newTestSource(64, 48, 5), NewRefereeGame(referee.New(), nil))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, method, path, ctype string, body []byte, ifMatch string) {
		req, err := http.NewRequest(method, "http://stream.test"+path, bytes.NewReader(body))
		if err != nil || !strings.HasPrefix(req.URL.Path, "/whep") {
			return
		}
		req.Header.Set("Content-Type", ctype)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		before := s.game.State().Version
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %q (%q): %d %s", method, path, ctype, w.Code, w.Body)
		}
		if w.Code >= 400 && w.Body.Len() == 0 {
			t.Fatalf("%s %q: %d without a message", method, path, w.Code)
		}
		if loc := w.Header().Get("Location"); w.Code == http.StatusCreated {
			serve(h, newRequest(http.MethodDelete, loc, "", ""))
		}
		if s.game.State().Version != before {
			t.Fatal("a WHEP request changed the game")
		}
	})
}

// FuzzControlAPI throws arbitrary requests at the control API. None may
// panic or fail with 500; without the token nothing changes, and no
// refused request changes anything.
//
//	go test -run '^$' -fuzz FuzzControlAPI -fuzztime 1m ./stream
func FuzzControlAPI(f *testing.F) {
	for _, c := range [][4]string{
		{"POST", "/api/override", `{"pile":1,"card":"red 3"}`, testToken},
		{"POST", "/api/override", `{"pile":2,"card":{"colour":"blue","number":1}}`, testToken},
		{"POST", "/api/override", `{"pile":-1,"card":{"colour":"blue","number":0}}`, testToken},
		{"POST", "/api/stop", `{"player":"P2"}`, testToken},
		{"POST", "/api/stop", `{"player":"P2"}`, "wrong"},
		{"POST", "/api/undo", ``, testToken},
		{"POST", "/api/round", ``, ""},
		{"POST", "/api/match", `{"players":[{"name":"A","back":"x"},{"name":"B","back":"x"}],"settings":{"target":-4}}`, testToken},
		{"POST", "/api/match", `{"settings":{"target":10,"rounds":2,"deadlock":"restart","advanced":true}}`, testToken},
		{"POST", "/api/enrol", `{"player":"P1","back":"fish"}`, testToken},
		{"GET", "/api/state", ``, testToken},
		{"GET", "/api/calibration.png", ``, testToken},
		{"DELETE", "/api/round", ``, testToken},
	} {
		f.Add(c[0], c[1], "application/json", []byte(c[2]), c[3])
	}
	s, err := New(testConfig(), newTestSource(64, 48, 5), NewRefereeGame(referee.New(), nil))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	game := s.game.(*RefereeGame)
	playSomeGame(f, game)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, method, path, ctype string, body []byte, token string) {
		req, err := http.NewRequest(method, "http://stream.test"+path, bytes.NewReader(body))
		if err != nil || req.URL.Path != "/api" && !strings.HasPrefix(req.URL.Path, "/api/") {
			return
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+token)
		before := game.State().Version
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q %q: %d %s", method, path, body, w.Code, w.Body)
		}
		changed := game.State().Version != before
		// (The mux may first redirect a path to its clean form: harmless.)
		refused := w.Code == http.StatusUnauthorized || w.Code >= 300 && w.Code < 400
		if strings.TrimSpace(token) != testToken && (!refused || changed) {
			t.Fatalf("wrong token %q: %d, changed %v", token, w.Code, changed)
		}
		if w.Code >= 300 && changed {
			t.Fatalf("refused with %d but the game changed", w.Code)
		}
	})
}

// FuzzSDPFrag: the trickle-ICE parser never panics.
func FuzzSDPFrag(f *testing.F) {
	f.Add("a=ice-ufrag:a\r\na=ice-pwd:b\r\nm=audio 9 RTP/AVP 0\r\na=mid:0\r\na=candidate:1 1 udp 1 1.2.3.4 5 typ host\r\n")
	f.Add("m=\na=mid:\na=candidate:")
	f.Fuzz(func(t *testing.T, s string) {
		fr, err := parseSDPFrag(s)
		if err == nil && len(fr.candidates) > 64 {
			t.Fatal("too many candidates accepted")
		}
		_ = checkOffer(s)
		_ = iceUfrag(s)
	})
}
