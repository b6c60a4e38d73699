package stream

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
	"unicode"

	"ligretto/referee"
)

const maxJSONBytes = 16 << 10

// requireToken lets a request through only with "Authorization: Bearer
// TOKEN". A wrong or missing token waits a short random time, then gets 401.
func (s *Server) requireToken(h http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.cfg.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if s.cfg.Token == "" {
			writeJSON(w, http.StatusForbidden, apiError{"control is disabled: the server has no operator token"})
			return
		}
		auth := r.Header.Get("Authorization")
		scheme, tok, _ := strings.Cut(auth, " ")
		got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			s.authFailed(r)
			w.Header().Set("WWW-Authenticate", `Bearer realm="ligretto operator"`)
			writeJSON(w, http.StatusUnauthorized, apiError{"the operator token is missing or wrong"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authFailed counts a wrong or missing token and waits a short random
// time, so that guessing is slow and timing tells nothing.
func (s *Server) authFailed(r *http.Request) {
	s.met.authFailures.Add(1)
	if d := s.cfg.AuthFailDelay; d > 0 {
		t := time.NewTimer(d/2 + rand.N(d/2+1))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
}

// tokenMatches compares a request's bearer token with want in constant
// time; an empty want matches nothing.
func tokenMatches(r *http.Request, want string) bool {
	if want == "" {
		return false
	}
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	a, b := sha256.Sum256([]byte(strings.TrimSpace(tok))), sha256.Sum256([]byte(want))
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

type apiError struct {
	Error string `json:"error"`
}

// apiResult answers a control action.
type apiResult struct {
	OK    bool      `json:"ok"`
	State GameState `json:"state"`
}

func (s *Server) apiRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.game.State())
	})
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Stats())
	})
	mux.HandleFunc("GET /api/calibration.png", s.serveCalibration)
	mux.HandleFunc("POST /api/camera/token", s.serveNewCameraToken)
	mux.HandleFunc("GET /api/camera/link", s.serveCameraLink)
	mux.HandleFunc("GET /api/camera/qr.png", s.serveCameraQR)
	mux.HandleFunc("POST /api/match", s.action(func(r *http.Request) error {
		var req MatchSetup
		if err := decodeJSON(r, &req, false); err != nil {
			return err
		}
		for _, p := range req.Players {
			if err := checkName("player name", p.Name); err != nil {
				return err
			}
			if err := checkName("back design", p.Back); err != nil {
				return err
			}
		}
		return s.game.NewMatch(req)
	}))
	mux.HandleFunc("POST /api/round", s.action(func(r *http.Request) error {
		if err := decodeJSON(r, &struct{}{}, true); err != nil {
			return err
		}
		return s.game.StartRound()
	}))
	mux.HandleFunc("POST /api/stop", s.action(func(r *http.Request) error {
		var req struct {
			Player string `json:"player"`
		}
		if err := decodeJSON(r, &req, true); err != nil {
			return err
		}
		return s.game.Stop(req.Player)
	}))
	mux.HandleFunc("POST /api/noplay", s.action(func(r *http.Request) error {
		if err := decodeJSON(r, &struct{}{}, true); err != nil {
			return err
		}
		np, ok := s.game.(NoPlayer)
		if !ok {
			return fmt.Errorf("%w: this game has no call for a round nobody can play on", ErrUnsupported)
		}
		return np.NoPlay()
	}))
	mux.HandleFunc("POST /api/override", s.action(func(r *http.Request) error {
		var req struct {
			Pile int     `json:"pile"`
			Card cardArg `json:"card"`
		}
		if err := decodeJSON(r, &req, false); err != nil {
			return err
		}
		return s.game.OverridePile(req.Pile, referee.Face(req.Card))
	}))
	mux.HandleFunc("POST /api/undo", s.action(func(r *http.Request) error {
		if err := decodeJSON(r, &struct{}{}, true); err != nil {
			return err
		}
		return s.game.Undo()
	}))
	mux.HandleFunc("POST /api/enrol", s.action(func(r *http.Request) error {
		var req struct {
			Player string `json:"player"`
			Back   string `json:"back"`
		}
		if err := decodeJSON(r, &req, false); err != nil {
			return err
		}
		return s.game.EnrolBack(req.Player, req.Back)
	}))
	s.tableRoutes(mux)
	// Unknown actions get the mux's 404, wrong methods its 405 with Allow.
	return mux
}

// requestError is a malformed request: the answer is Code.
type requestError struct {
	Code int
	Msg  string
}

func (e *requestError) Error() string { return e.Msg }

// action runs one control action and answers with the new state, or with
// the error's status and message.
func (s *Server) action(do func(*http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := do(r); err != nil {
			code := statusFor(err)
			if code == http.StatusInternalServerError {
				s.log.Error("control action failed", "path", r.URL.Path, "err", err)
			}
			writeJSON(w, code, apiError{err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, apiResult{OK: true, State: s.game.State()})
	}
}

// statusFor maps an action's error to an HTTP status.
func statusFor(err error) int {
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re.Code
	case errors.Is(err, ErrUnsupported):
		return http.StatusNotImplemented
	case errors.Is(err, ErrConflict), errors.Is(err, referee.ErrPhase), errors.Is(err, referee.ErrNothingToUndo):
		return http.StatusConflict
	case errors.Is(err, ErrInvalid), errors.Is(err, referee.ErrInvalid), errors.Is(err, referee.ErrIllegal),
		errors.Is(err, referee.ErrUnknownPile), errors.Is(err, referee.ErrUnknownPlayer):
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// decodeJSON reads one JSON object into v: application/json, at most
// maxJSONBytes, no unknown fields, nothing after it. An empty body is
// allowed when emptyOK.
func decodeJSON(r *http.Request, v any, emptyOK bool) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxJSONBytes+1))
	if err != nil {
		return &requestError{http.StatusBadRequest, "could not read the request body"}
	}
	if len(body) > maxJSONBytes {
		return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body larger than %d bytes", maxJSONBytes)}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return nil
		}
		return &requestError{http.StatusBadRequest, "a JSON body is required"}
	}
	if !hasMediaType(r.Header.Get("Content-Type"), "application/json") {
		return &requestError{http.StatusUnsupportedMediaType, "the body must be application/json"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &requestError{http.StatusBadRequest, "bad JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &requestError{http.StatusBadRequest, "bad JSON: more after the object"}
	}
	return nil
}

// cardArg reads a card as {"colour":"red","number":5} or as "red 5".
type cardArg referee.Face

func (c *cardArg) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		f, err := referee.ParseFace(s)
		if err != nil {
			return err
		}
		*c = cardArg(f)
		return nil
	}
	var f referee.Face
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return err
	}
	*c = cardArg(f)
	return nil
}

func checkName(what, s string) error {
	if s == "" || len(s) > 40 || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("%w: %s %q (want 1 to 40 printable characters)", ErrInvalid, what, s)
	}
	return nil
}

func backDesigns() []string { return append([]string(nil), referee.BackDesigns[:]...) }

// serveCalibration shows the controller's calibration preview, or else the
// newest frame, at most 640 pixels wide.
func (s *Server) serveCalibration(w http.ResponseWriter, r *http.Request) {
	var img image.Image
	if p, ok := s.game.(Previewer); ok {
		var err error
		if img, err = p.CalibrationPreview(); err != nil {
			writeJSON(w, statusFor(err), apiError{err.Error()})
			return
		}
	} else if f := s.latest.Load(); f != nil {
		img = f.Image
	}
	if img == nil {
		writeJSON(w, http.StatusNotFound, apiError{"no picture yet"})
		return
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, shrink(img, 640)); err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{"could not encode the preview"})
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(buf.Bytes())
}

// shrink scales img down (nearest neighbour) to at most maxW wide.
func shrink(img image.Image, maxW int) image.Image {
	b := img.Bounds()
	if b.Dx() <= maxW || b.Dx() == 0 {
		return img
	}
	h := max(1, b.Dy()*maxW/b.Dx())
	out := image.NewRGBA(image.Rect(0, 0, maxW, h))
	for y := 0; y < h; y++ {
		sy := b.Min.Y + y*b.Dy()/h
		for x := 0; x < maxW; x++ {
			out.Set(x, y, img.At(b.Min.X+x*b.Dx()/maxW, sy))
		}
	}
	return out
}
