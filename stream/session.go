package stream

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"
)

// maxBufferedState is how much unsent state a DataChannel may hold before
// further messages to it are skipped (each message is the whole state, so
// the viewer catches up with the next one).
const maxBufferedState = 512 << 10

// session is one WHEP viewer.
type session struct {
	id   string
	etag string
	// remoteUfrag is the viewer's ICE username fragment from the offer; a
	// PATCH with another one asks for an ICE restart.
	remoteUfrag string
	created     time.Time
	pc          *webrtc.PeerConnection
	sender      *webrtc.RTPSender
	dc          atomic.Pointer[webrtc.DataChannel]
	timer       *time.Timer
	endOnce     sync.Once

	mu sync.Mutex
	// connected is set while the peer connection is connected and counted
	// in Server.viewers. State handlers run in goroutines of their own, so
	// a late "connected" must not count a session that has ended.
	connected bool
	ever      bool // it was connected once
	ended     bool
}

// markConnected counts the session as a viewer; false if it has ended.
func (v *session) markConnected() (first bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ended || v.connected {
		return false
	}
	v.connected, v.ever = true, true
	return true
}

// markEnded reports whether the session was counted as a viewer, and
// stops its connect timer.
func (v *session) markEnded() (wasConnected bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	wasConnected = v.connected
	v.connected, v.ended = false, true
	if v.timer != nil {
		v.timer.Stop()
	}
	return wasConnected
}

// startTimer ends the session if it has not connected within d.
func (v *session) startTimer(d time.Duration, expire func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.ended {
		v.timer = time.AfterFunc(d, expire)
	}
}

func (v *session) hasEnded() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ended
}

func (v *session) everConnected() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ever
}

func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b)
}

func (v *session) sendState(b []byte, met *metrics) {
	dc := v.dc.Load()
	if dc == nil || dc.ReadyState() != webrtc.DataChannelStateOpen || dc.BufferedAmount() > maxBufferedState {
		return
	}
	if err := dc.SendText(string(b)); err == nil {
		met.stateSent.Add(1)
	}
}

// newSession makes the peer connection for one viewer: the shared track,
// its RTCP reader, the state DataChannel and the state handlers.
func (s *Server) newSession() (*session, error) {
	cert, err := s.certificate()
	if err != nil {
		return nil, err
	}
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{Certificates: []webrtc.Certificate{cert}})
	if err != nil {
		return nil, err
	}
	v := &session{id: randomID(16), etag: randomID(8), created: time.Now(), pc: pc}
	tr, err := pc.AddTransceiverFromTrack(s.track, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly})
	if err != nil {
		_ = pc.Close()
		return nil, err
	}
	v.sender = tr.Sender()
	go s.readRTCP(v.sender)

	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		// The first channel the viewer opens carries the state; whatever a
		// viewer sends is ignored, and further channels are closed.
		if !v.dc.CompareAndSwap(nil, dc) {
			_ = dc.Close()
			return
		}
		dc.OnOpen(func() {
			if b := s.state.Load(); b != nil {
				v.sendState(*b, s.met)
			}
		})
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			if v.markConnected() {
				s.viewers.Add(1)
				s.log.Info("viewer connected", slog.String("session", v.id), slog.Int64("viewers", s.viewers.Load()))
				s.requestKeyframe("viewer")
			}
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			s.endSession(v, st.String())
		}
	})
	return v, nil
}

// readRTCP reads the viewer's RTCP (the interceptors need it read) and
// answers picture-loss and full-intra requests with a keyframe. It ends
// when the sender stops.
func (s *Server) readRTCP(sender *webrtc.RTPSender) {
	for {
		pkts, _, err := sender.ReadRTCP()
		if err != nil {
			return
		}
		for _, p := range pkts {
			switch p.(type) {
			case *rtcp.PictureLossIndication:
				s.requestKeyframe("pli")
			case *rtcp.FullIntraRequest:
				s.requestKeyframe("fir")
			}
		}
	}
}

// endSession removes the session and closes its peer connection, once.
// It marks the session ended before removing it, so that whepPost, which
// checks under s.mu, never adds a session that has ended.
func (s *Server) endSession(v *session, why string) {
	v.endOnce.Do(func() {
		if v.markEnded() {
			s.viewers.Add(-1)
		}
		s.mu.Lock()
		if s.sessions[v.id] == v {
			delete(s.sessions, v.id)
		}
		s.mu.Unlock()
		_ = v.pc.Close()
		s.log.Info("viewer left", slog.String("session", v.id), slog.String("why", why),
			slog.Duration("stayed", time.Since(v.created).Round(time.Millisecond)))
	})
}
