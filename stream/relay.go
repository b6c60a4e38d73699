package stream

import (
	"log/slog"
	"net/http"
	"sync"

	"github.com/pion/webrtc/v4/pkg/media"
)

// A Relay carries the encoded video and the game state to spectators
// beyond this server, such as a LiveKit room (stream/livekit). The server
// encodes each frame once for its own viewers and every relay together.
// A relay's methods are called from the encode and state loops, so they
// must return at once: a relay that cannot keep up drops, never waits.
type Relay interface {
	// Live reports whether the relay sends video now; while one is, frames
	// are encoded even when no local viewer watches.
	Live() bool
	// WriteVideo takes one encoded VP8 frame.
	WriteVideo(media.Sample)
	// WriteState takes one state message, the DataChannel's JSON.
	WriteState([]byte)
}

// relays is the server's list of relays, added before or during Run.
type relays struct {
	mu   sync.RWMutex
	list []Relay
}

func (r *relays) add(x Relay) {
	r.mu.Lock()
	r.list = append(r.list, x)
	r.mu.Unlock()
}

func (r *relays) snapshot() []Relay {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.list
}

// live reports whether any relay takes video now.
func (r *relays) live() bool {
	for _, x := range r.snapshot() {
		if x.Live() {
			return true
		}
	}
	return false
}

// AddRelay sends the video and the state to x too, from the next frame on;
// x gets the current state at once.
func (s *Server) AddRelay(x Relay) {
	s.relays.add(x)
	if b := s.state.Load(); b != nil {
		x.WriteState(*b)
	}
}

// RequestKeyframe asks the encoder for a keyframe, as a viewer's PLI does;
// the encoder gives at most one per KeyframeGap. A relay calls it when its
// own viewers need one.
func (s *Server) RequestKeyframe() { s.requestKeyframe("relay") }

// RoomJoin is what a spectator's page needs to watch the table in a
// LiveKit room instead of from this server: the server's address, the room
// and a subscribe-only token.
type RoomJoin struct {
	URL   string `json:"url"`
	Room  string `json:"room"`
	Token string `json:"token"`
}

// serveRoomJoin answers GET /api/room with a new viewer token, or 404 when
// the table is not published to a room. It needs no token: watching is
// what the spectator page is for, and the token lets a viewer do nothing
// else.
func (s *Server) serveRoomJoin(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if s.cfg.RoomJoin == nil {
		writeJSON(w, http.StatusNotFound, apiError{"this table is not published to a LiveKit room"})
		return
	}
	j, err := s.cfg.RoomJoin()
	if err != nil {
		s.log.Error("viewer token", slog.Any("err", err))
		writeJSON(w, http.StatusInternalServerError, apiError{"no viewer token: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, j)
}
