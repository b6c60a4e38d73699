package stream

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

// WHIP (RFC 9725) for one camera: POST an offer with the camera token,
// get 201 with the answer and the session's Location; PATCH trickles ICE
// candidates; DELETE ends it. The session URL is an unguessable
// capability, as for WHEP, so PATCH and DELETE need no token.
const (
	whipPath         = "/whip"
	whipSessionsPath = "/whip/"
)

// errNoVP8 is an offer that sends no VP8 video (answered 422).
var errNoVP8 = errors.New("VP8 video is required: the offer sends no VP8 video section (this server decodes VP8 only)")

// CameraToken returns the token a camera publishes with ("" if none).
func (s *Server) CameraToken() string {
	s.camMu.Lock()
	defer s.camMu.Unlock()
	return s.camToken
}

// NewCameraToken makes a fresh random camera token, which replaces the
// old one at once, and ends the camera publishing now, if any: a phone
// that had the old token is cut off. It also enables publishing on a
// server that started without a camera token.
func (s *Server) NewCameraToken() (string, error) {
	tok := randomID(16)
	s.camMu.Lock()
	if s.camClosed {
		s.camMu.Unlock()
		return "", errors.New("the server is closed")
	}
	s.camToken = tok
	p := s.pub
	s.camMu.Unlock()
	if p != nil {
		s.endPublisher(p, "camera token renewed")
	}
	s.log.Info("camera token renewed")
	return tok, nil
}

// cameraTokenReply is POST /api/camera/token's answer.
type cameraTokenReply struct {
	Token string `json:"token"`
	Path  string `json:"path"` // the camera page with the token, for a link or a QR code
}

func (s *Server) serveNewCameraToken(w http.ResponseWriter, r *http.Request) {
	if err := decodeJSON(r, &struct{}{}, true); err != nil {
		writeJSON(w, statusFor(err), apiError{err.Error()})
		return
	}
	tok, err := s.NewCameraToken()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, apiError{err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, cameraTokenReply{Token: tok, Path: "/camera?token=" + tok})
}

// serveCameraStatus answers the camera page (camera token) and the
// console (operator token).
func (s *Server) serveCameraStatus(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if !tokenMatches(r, s.CameraToken()) && !tokenMatches(r, s.cfg.Token) {
		s.authFailed(r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="ligretto camera"`)
		writeJSON(w, http.StatusUnauthorized, apiError{"the camera token is missing or wrong"})
		return
	}
	var st CameraStatus
	if f := s.cfg.CameraStatus; f != nil {
		st = f()
	}
	st.Live = s.ingestLive.Load()
	st.Markers = min(max(st.Markers, 0), 4)
	writeJSON(w, http.StatusOK, st)
}

// whipEndpoint serves /whip.
func (s *Server) whipEndpoint(w http.ResponseWriter, r *http.Request) {
	whepCORS(w.Header())
	const allow = "OPTIONS, POST"
	switch r.Method {
	case http.MethodOptions:
		w.Header().Set("Allow", allow)
		w.Header().Set("Accept-Post", sdpType)
		preflight(w, r, allow)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodPost:
		s.whipPost(w, r)
	default:
		w.Header().Set("Allow", allow)
		textError(w, http.StatusMethodNotAllowed, "%s is not allowed here: POST an SDP offer (%s) to publish the camera", r.Method, sdpType)
	}
}

// whipSession serves /whip/{id}.
func (s *Server) whipSession(w http.ResponseWriter, r *http.Request) {
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
		s.whipPatch(w, r, id)
	case http.MethodDelete:
		p := s.lookupPublisher(id)
		if p == nil {
			textError(w, http.StatusNotFound, "no such WHIP session")
			return
		}
		s.endPublisher(p, "camera left (DELETE)")
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", allow)
		textError(w, http.StatusMethodNotAllowed, "%s is not allowed on a WHIP session (PATCH or DELETE)", r.Method)
	}
}

func (s *Server) lookupPublisher(id string) *publisher {
	s.camMu.Lock()
	defer s.camMu.Unlock()
	if s.pub != nil && s.pub.id == id {
		return s.pub
	}
	return nil
}

func (s *Server) whipPost(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	want := s.CameraToken()
	if want == "" {
		textError(w, http.StatusForbidden, "no camera publishing on this server: the operator must make a camera token first")
		return
	}
	if !tokenMatches(r, want) {
		s.authFailed(r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="ligretto camera"`)
		textError(w, http.StatusUnauthorized, "the camera token is missing or wrong: open the camera link the operator gave you again")
		return
	}
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
	if err := checkPublishOffer(offer); err != nil {
		if errors.Is(err, errNoVP8) {
			textError(w, http.StatusUnprocessableEntity, "%v", err)
		} else {
			textError(w, http.StatusBadRequest, "bad SDP offer: %v", err)
		}
		return
	}
	if code, why := s.reservePublisher(); code != 0 {
		if code == http.StatusConflict {
			w.Header().Set("Retry-After", "5")
		}
		textError(w, code, "%s", why)
		return
	}
	placed := false
	defer func() {
		if !placed {
			s.camMu.Lock()
			s.pubPending = false
			s.camMu.Unlock()
		}
	}()

	p, err := s.newPublisher()
	if err != nil {
		s.log.Error("new camera peer connection", slog.Any("err", err))
		textError(w, http.StatusInternalServerError, "could not create a peer connection")
		return
	}
	fail := func(code int, format string, args ...any) {
		s.endPublisher(p, "negotiation failed")
		textError(w, code, format, args...)
	}
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		fail(http.StatusBadRequest, "bad SDP offer: %v", err)
		return
	}
	answer, err := p.pc.CreateAnswer(nil)
	if err != nil {
		fail(http.StatusBadRequest, "cannot answer this offer: %v", err)
		return
	}
	if !receivesVP8(p.pc) {
		fail(http.StatusUnprocessableEntity, "%v", errNoVP8)
		return
	}
	gathered := webrtc.GatheringCompletePromise(p.pc)
	if err := p.pc.SetLocalDescription(answer); err != nil {
		fail(http.StatusInternalServerError, "could not set the answer: %v", err)
		return
	}
	select {
	case <-gathered:
	case <-time.After(gatherTimeout):
	case <-r.Context().Done():
		s.endPublisher(p, "request cancelled")
		return
	}
	p.remoteUfrag = iceUfrag(offer)

	s.camMu.Lock()
	switch {
	case s.camClosed:
		s.camMu.Unlock()
		fail(http.StatusServiceUnavailable, "the server is shutting down")
		return
	case s.camToken != want:
		// The token was renewed while this offer was answered.
		s.camMu.Unlock()
		fail(http.StatusUnauthorized, "the camera token was renewed: open the new camera link")
		return
	case p.hasEnded():
		s.camMu.Unlock()
		textError(w, http.StatusInternalServerError, "the peer connection failed at once")
		return
	}
	s.pub, s.pubPending, placed = p, false, true
	s.camMu.Unlock()
	p.startTimer(s.cfg.ConnectTimeout, func() {
		if !p.isConnected() {
			s.endPublisher(p, "did not connect in time")
		}
	})
	s.log.Info("camera joining", slog.String("publisher", p.id), slog.String("remote", r.RemoteAddr))

	h := w.Header()
	h.Set("Content-Type", sdpType)
	h.Set("Location", whipSessionsPath+p.id)
	h.Set("ETag", `"`+p.etag+`"`)
	h.Set("Accept-Patch", sdpFragType)
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, p.pc.LocalDescription().SDP)
}

// reservePublisher takes the camera slot, or says why not (an HTTP
// status and a message).
func (s *Server) reservePublisher() (int, string) {
	s.camMu.Lock()
	defer s.camMu.Unlock()
	switch {
	case s.camClosed:
		return http.StatusServiceUnavailable, "the server is shutting down"
	case s.pub != nil || s.pubPending:
		return http.StatusConflict, "a camera is already publishing to this table: end it first (or wait a few seconds if it just vanished)"
	}
	s.pubPending = true
	return 0, ""
}

// receivesVP8 reports whether the answer receives VP8 on some transceiver.
func receivesVP8(pc *webrtc.PeerConnection) bool {
	for _, t := range pc.GetTransceivers() {
		if t.Kind() != webrtc.RTPCodecTypeVideo || t.Direction() != webrtc.RTPTransceiverDirectionRecvonly {
			continue
		}
		for _, c := range t.Receiver().GetParameters().Codecs {
			if strings.EqualFold(c.MimeType, webrtc.MimeTypeVP8) {
				return true
			}
		}
	}
	return false
}

// checkPublishOffer checks an offer strictly before pion sees it: SDP
// lines only (pion's parser ignores some junk), and a video section that
// sends VP8.
func checkPublishOffer(offer string) error {
	if strings.TrimSpace(offer) == "" {
		return errors.New("empty body")
	}
	if !utf8.ValidString(offer) {
		return errors.New("not UTF-8 text")
	}
	lines := strings.Split(strings.TrimRight(offer, "\r\n"), "\n")
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if len(line) < 2 || line[1] != '=' || line[0] < 'a' || line[0] > 'z' {
			return fmt.Errorf("line %d is not an SDP line (want x=...): %.40q", i+1, line)
		}
		if strings.IndexFunc(line, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
			return fmt.Errorf("line %d holds control characters", i+1)
		}
	}
	if !strings.HasPrefix(offer, "v=0") {
		return errors.New("it does not start with v=0")
	}
	var d sdp.SessionDescription
	if err := d.UnmarshalString(offer); err != nil {
		return err
	}
	for _, m := range d.MediaDescriptions {
		if m.MediaName.Media != "video" || m.MediaName.Port.Value == 0 {
			continue
		}
		if _, ok := m.Attribute("recvonly"); ok {
			continue
		}
		if _, ok := m.Attribute("inactive"); ok {
			continue
		}
		for _, a := range m.Attributes {
			if a.Key == "rtpmap" && strings.Contains(strings.ToUpper(a.Value), " VP8/") {
				return nil
			}
		}
	}
	return errNoVP8
}

func (s *Server) whipPatch(w http.ResponseWriter, r *http.Request, id string) {
	p := s.lookupPublisher(id)
	if p == nil {
		textError(w, http.StatusNotFound, "no such WHIP session")
		return
	}
	if !hasMediaType(r.Header.Get("Content-Type"), sdpFragType) {
		w.Header().Set("Accept-Patch", sdpFragType)
		textError(w, http.StatusUnsupportedMediaType, "PATCH takes %s", sdpFragType)
		return
	}
	if m := r.Header.Get("If-Match"); m != "" && m != "*" && m != `"`+p.etag+`"` {
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
	if frag.ufrag != "" && frag.ufrag != p.remoteUfrag {
		textError(w, http.StatusUnprocessableEntity, "ICE restarts are not supported: start a new session")
		return
	}
	for _, c := range frag.candidates {
		if err := p.pc.AddICECandidate(c); err != nil {
			textError(w, http.StatusBadRequest, "bad ICE candidate: %v", err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
