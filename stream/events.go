package stream

import (
	"errors"
	"net/http"
	"sync"
	"time"
)

// The game state as server-sent events (GET /events), for overlays and
// anything else that cannot speak WebRTC. Every message is the whole
// state, so a client that falls behind loses nothing by skipping to the
// newest one.

const (
	// eventPing is how often an idle stream gets a comment line, so that
	// proxies do not close it.
	eventPing = 15 * time.Second
	// eventWriteTimeout ends a stream whose client stopped reading: the
	// server's WriteTimeout cannot, as it would cut every stream.
	eventWriteTimeout = 30 * time.Second
	// eventRetryMS is the reconnection delay EventSource is told to use.
	eventRetryMS = "2000"
)

var (
	errEventsFull   = errors.New("too many event streams")
	errEventsClosed = errors.New("the server is closing")
)

// eventClient is one open stream: its newest unsent message, if any.
type eventClient struct {
	ch chan []byte // 1 slot, overwritten
}

// offer hands b to the client without waiting: an older message still
// waiting is replaced. Only the hub calls it, under its lock, so nothing
// else fills the slot between the drain and the send.
func (c *eventClient) offer(b []byte) {
	select {
	case <-c.ch:
	default:
	}
	c.ch <- b
}

// eventHub holds the open streams.
type eventHub struct {
	max     int
	mu      sync.Mutex
	clients map[*eventClient]struct{}
	closed  bool
	done    chan struct{} // closed by close: every stream ends
}

func newEventHub(limit int) *eventHub {
	return &eventHub{max: limit, clients: map[*eventClient]struct{}{}, done: make(chan struct{})}
}

// join adds a stream whose first message is current's. current is read
// under the lock that publish takes, and the state is stored before it is
// published, so no older message can follow it.
func (h *eventHub) join(current func() []byte) (*eventClient, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed:
		return nil, errEventsClosed
	case len(h.clients) >= h.max:
		return nil, errEventsFull
	}
	c := &eventClient{ch: make(chan []byte, 1)}
	if b := current(); b != nil {
		c.offer(sseData(b))
	}
	h.clients[c] = struct{}{}
	return c, nil
}

func (h *eventHub) leave(c *eventClient) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
}

func (h *eventHub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// publish sends one state message to every stream, framed once for all.
func (h *eventHub) publish(msg []byte) {
	frame := sseData(msg)
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		c.offer(frame)
	}
}

// close ends every stream and refuses new ones.
func (h *eventHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// sseData frames msg as one event. JSON from encoding/json holds no
// newline, so one data line is enough.
func sseData(msg []byte) []byte {
	b := make([]byte, 0, len(msg)+8)
	b = append(b, "data: "...)
	b = append(b, msg...)
	return append(b, '\n', '\n')
}

// serveEvents streams the state: the current one at once, then every
// change, the same bytes as the viewers' DataChannel.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	c, err := s.events.join(func() []byte {
		if b := s.state.Load(); b != nil {
			return *b
		}
		return nil
	})
	if err != nil {
		w.Header().Set("Retry-After", "10")
		if errors.Is(err, errEventsFull) {
			textError(w, http.StatusServiceUnavailable, "%v (%d): try again later", err, s.events.max)
		} else {
			textError(w, http.StatusServiceUnavailable, "%v", err)
		}
		return
	}
	defer s.events.leave(c)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	if r.Method == http.MethodHead {
		return
	}
	// HTTPServer's WriteTimeout would cut the stream; a deadline for each
	// write instead still drops a client that stopped reading. (Its
	// ReadTimeout does not matter: net/http clears the read deadline once
	// the request is read.)
	rc := http.NewResponseController(w)
	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		err := rc.Flush()
		return err == nil || errors.Is(err, http.ErrNotSupported)
	}
	if !write([]byte("retry: " + eventRetryMS + "\n\n")) {
		return
	}
	ping := time.NewTicker(s.eventPing)
	defer ping.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.events.done:
			return
		case b := <-c.ch:
			if !write(b) {
				return
			}
		case <-ping.C:
			if !write([]byte(": ping\n\n")) {
				return
			}
		}
	}
}
