package stream

import (
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
