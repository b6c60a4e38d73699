package stream

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

// WHEP as in draft-ietf-wish-whep (and RFC 9725, WHIP, for the shared
// parts): POST an offer to the endpoint, get 201 with the answer and the
// session's Location; PATCH trickles ICE candidates; DELETE ends it.
const (
	maxSDPBytes      = 128 << 10
	sdpType          = "application/sdp"
	sdpFragType      = "application/trickle-ice-sdpfrag"
	gatherTimeout    = 2 * time.Second
	whepPath         = "/whep"
	whepSessionsPath = "/whep/"
)

func whepCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "Location, ETag, Accept-Patch, Accept-Post, Link")
}

func preflight(w http.ResponseWriter, r *http.Request, methods string) {
	if r.Header.Get("Access-Control-Request-Method") != "" {
		w.Header().Set("Access-Control-Allow-Methods", methods)
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, If-Match, Authorization")
		w.Header().Set("Access-Control-Max-Age", "86400")
	}
}

func hasMediaType(header, want string) bool {
	mt, _, err := mime.ParseMediaType(header)
	return err == nil && mt == want
}

// textError writes a plain-text error that ends with a newline.
func textError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintf(w, format+"\n", args...)
}

// readBody reads at most limit bytes, answering 413 or 400 itself on failure.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			textError(w, http.StatusRequestEntityTooLarge, "request body larger than %d bytes", limit)
		} else {
			textError(w, http.StatusBadRequest, "could not read the request body")
		}
		return nil, false
	}
	return b, true
}

// whepEndpoint serves /whep.
func (s *Server) whepEndpoint(w http.ResponseWriter, r *http.Request) {
	whepCORS(w.Header())
	const allow = "OPTIONS, POST"
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Allow", allow)
		w.Header().Set("Accept-Post", sdpType)
		preflight(w, r, allow)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		s.whepPost(w, r)
	default:
		w.Header().Set("Allow", allow)
		textError(w, http.StatusMethodNotAllowed, "%s is not allowed here: POST an SDP offer (%s) to watch", r.Method, sdpType)
	}
}

// whepSession serves /whep/{id}.
func (s *Server) whepSession(w http.ResponseWriter, r *http.Request) {
	whepCORS(w.Header())
	const allow = "OPTIONS, PATCH, DELETE"
	id := r.PathValue("id")
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Allow", allow)
		w.Header().Set("Accept-Patch", sdpFragType)
		preflight(w, r, allow)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPatch:
		s.whepPatch(w, r, id)
	case http.MethodDelete:
		v := s.lookup(id)
		if v == nil {
			textError(w, http.StatusNotFound, "no such WHEP session")
			return
		}
		s.endSession(v, "viewer left (DELETE)")
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", allow)
		textError(w, http.StatusMethodNotAllowed, "%s is not allowed on a WHEP session (PATCH or DELETE)", r.Method)
	}
}

func (s *Server) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// reserve takes a viewer slot; release gives it back.
func (s *Server) reserve() (ok bool, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return false, "the server is shutting down"
	case len(s.sessions)+s.pending >= s.cfg.MaxViewers:
		return false, fmt.Sprintf("the stream is full (%d viewers); please try again later", s.cfg.MaxViewers)
	}
	s.pending++
	return true, ""
}

func (s *Server) release() {
	s.mu.Lock()
	s.pending--
	s.mu.Unlock()
}

func (s *Server) whepPost(w http.ResponseWriter, r *http.Request) {
	if !hasMediaType(r.Header.Get("Content-Type"), sdpType) {
		w.Header().Set("Accept-Post", sdpType)
		textError(w, http.StatusUnsupportedMediaType, "the offer must be sent as %s", sdpType)
		return
	}
	body, ok := readBody(w, r, maxSDPBytes)
	if !ok {
		return
	}
	offer := string(body)
	if err := checkOffer(offer); err != nil {
		textError(w, http.StatusBadRequest, "bad SDP offer: %v", err)
		return
	}
	if ok, why := s.reserve(); !ok {
		s.met.refused.Add(1)
		w.Header().Set("Retry-After", "30")
		textError(w, http.StatusServiceUnavailable, "%s", why)
		return
	}
	defer s.release()

	v, err := s.newSession()
	if err != nil {
		s.log.Error("new peer connection", slog.Any("err", err))
		textError(w, http.StatusInternalServerError, "could not create a peer connection")
		return
	}
	fail := func(code int, format string, args ...any) {
		s.endSession(v, "negotiation failed")
		textError(w, code, format, args...)
	}
	if err := v.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		fail(http.StatusBadRequest, "bad SDP offer: %v", err)
		return
	}
	answer, err := v.pc.CreateAnswer(nil)
	if err != nil {
		fail(http.StatusBadRequest, "cannot answer this offer: %v", err)
		return
	}
	gathered := webrtc.GatheringCompletePromise(v.pc)
	if err := v.pc.SetLocalDescription(answer); err != nil {
		fail(http.StatusInternalServerError, "could not set the answer: %v", err)
		return
	}
	// With one UDP socket the host candidates are known at once; wait for
	// them so that players without trickle ICE get them in the answer.
	select {
	case <-gathered:
	case <-time.After(gatherTimeout):
	case <-r.Context().Done():
		s.endSession(v, "request cancelled")
		return
	}
	v.remoteUfrag = iceUfrag(offer)

	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		fail(http.StatusServiceUnavailable, "the server is shutting down")
		return
	case v.hasEnded():
		s.mu.Unlock()
		textError(w, http.StatusInternalServerError, "the peer connection failed at once")
		return
	}
	s.sessions[v.id] = v
	s.mu.Unlock()
	s.met.sessionsTotal.Add(1)
	v.startTimer(s.cfg.ConnectTimeout, func() {
		if !v.everConnected() {
			s.endSession(v, "did not connect in time")
		}
	})
	s.log.Info("viewer joining", slog.String("session", v.id), slog.String("remote", r.RemoteAddr))

	h := w.Header()
	h.Set("Content-Type", sdpType)
	h.Set("Location", whepSessionsPath+v.id)
	h.Set("ETag", `"`+v.etag+`"`)
	h.Set("Accept-Patch", sdpFragType)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, v.pc.LocalDescription().SDP)
}

// checkOffer parses the offer and checks that it asks for VP8 video.
func checkOffer(offer string) error {
	if strings.TrimSpace(offer) == "" {
		return errors.New("empty body")
	}
	var d sdp.SessionDescription
	if err := d.UnmarshalString(offer); err != nil {
		return err
	}
	video := false
	for _, m := range d.MediaDescriptions {
		if m.MediaName.Media != "video" {
			continue
		}
		if _, ok := m.Attribute("sendonly"); ok {
			continue
		}
		if _, ok := m.Attribute("inactive"); ok {
			continue
		}
		for _, a := range m.Attributes {
			if a.Key == "rtpmap" && strings.Contains(strings.ToUpper(a.Value), " VP8/") {
				video = true
			}
		}
	}
	if !video {
		return errors.New("it has no video section that receives VP8")
	}
	return nil
}

// iceUfrag returns the first ice-ufrag of an SDP.
func iceUfrag(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 4096), maxSDPBytes)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "a=ice-ufrag:"); ok {
			return v
		}
	}
	return ""
}

func (s *Server) whepPatch(w http.ResponseWriter, r *http.Request, id string) {
	v := s.lookup(id)
	if v == nil {
		textError(w, http.StatusNotFound, "no such WHEP session")
		return
	}
	if !hasMediaType(r.Header.Get("Content-Type"), sdpFragType) {
		w.Header().Set("Accept-Patch", sdpFragType)
		textError(w, http.StatusUnsupportedMediaType, "PATCH takes %s", sdpFragType)
		return
	}
	if m := r.Header.Get("If-Match"); m != "" && m != "*" && m != `"`+v.etag+`"` {
		textError(w, http.StatusPreconditionFailed, "If-Match does not match this session's ETag")
		return
	}
	body, ok := readBody(w, r, maxSDPBytes)
	if !ok {
		return
	}
	frag, err := parseSDPFrag(string(body))
	if err != nil {
		textError(w, http.StatusBadRequest, "bad SDP fragment: %v", err)
		return
	}
	if frag.ufrag != "" && frag.ufrag != v.remoteUfrag {
		textError(w, http.StatusUnprocessableEntity, "ICE restarts are not supported: start a new session")
		return
	}
	for _, c := range frag.candidates {
		if err := v.pc.AddICECandidate(c); err != nil {
			textError(w, http.StatusBadRequest, "bad ICE candidate: %v", err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

type sdpFrag struct {
	ufrag, pwd string
	candidates []webrtc.ICECandidateInit
}

// parseSDPFrag reads a trickle-ICE SDP fragment (RFC 8840): ice-ufrag,
// ice-pwd, m= lines with a=mid, and a=candidate lines.
func parseSDPFrag(body string) (sdpFrag, error) {
	var f sdpFrag
	var mid *string
	var mline uint16
	seenM := false
	for i, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		if len(line) < 2 || line[1] != '=' {
			return f, fmt.Errorf("line %d is not an SDP line", i+1)
		}
		switch {
		case strings.HasPrefix(line, "m="):
			if seenM {
				mline++
			}
			seenM, mid = true, nil
		case strings.HasPrefix(line, "a=mid:"):
			m := strings.TrimPrefix(line, "a=mid:")
			mid = &m
		case strings.HasPrefix(line, "a=ice-ufrag:"):
			f.ufrag = strings.TrimPrefix(line, "a=ice-ufrag:")
		case strings.HasPrefix(line, "a=ice-pwd:"):
			f.pwd = strings.TrimPrefix(line, "a=ice-pwd:")
		case strings.HasPrefix(line, "a=candidate:"):
			if len(f.candidates) >= 64 {
				return f, errors.New("too many candidates")
			}
			c := webrtc.ICECandidateInit{Candidate: strings.TrimPrefix(line, "a=")}
			if mid != nil {
				m := *mid
				c.SDPMid = &m
			}
			if seenM {
				idx := mline
				c.SDPMLineIndex = &idx
			}
			f.candidates = append(f.candidates, c)
		}
	}
	return f, nil
}
