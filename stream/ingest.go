package stream

import (
	"errors"
	"fmt"
	"image"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/nack"
	"github.com/pion/interceptor/pkg/report"
	"github.com/pion/rtcp"
	"github.com/pion/webrtc/v4"

	"ligretto/stream/vp8"
)

// Ingest receives the camera publisher's decoded pictures.
//
// The calls for one publisher are made in order, under a lock, from the
// server's goroutines: no IngestFrame comes after IngestLive(false). So
// they must not call back into the Server's camera methods
// (NewCameraToken) directly: do it from another goroutine.
type Ingest interface {
	// IngestFrame gets each decoded picture (the callee must not keep img past the call unless it copies it, and must not block).
	IngestFrame(img image.Image, at time.Time)
	// IngestLive says a publisher connected (true) or left (false).
	IngestLive(live bool)
}

// IngestStats counts what the camera publishers sent.
type IngestStats struct {
	// Decoded pictures handed to the Ingest.
	Decoded uint64 `json:"decoded"`
	// Dropped frames: lost in the network (one per gap), skipped while
	// waiting for a keyframe, or undecodable.
	Dropped uint64 `json:"dropped"`
	// KeyframeRequests is the number of PLIs sent to publishers.
	KeyframeRequests uint64 `json:"keyframe_requests"`
	// Live is true while a publisher is connected.
	Live bool `json:"live"`
	// Publishers is the number of publishers that connected so far.
	Publishers uint64 `json:"publishers"`
}

// CameraStatus is what the camera page shows the player holding the phone.
type CameraStatus struct {
	Live       bool   `json:"live"`       // filled in by the server: a publisher is connected
	Markers    int    `json:"markers"`    // 0..4 table markers seen
	Calibrated bool   `json:"calibrated"` // the table is calibrated
	Prompt     string `json:"prompt"`     // what to do next, e.g. "Player 2: lay one card back in your seat"
}

const (
	// maxIngestSide bounds the pictures a publisher may send (phones send
	// at most 4K); a bigger keyframe is not decoded, so that a bad header
	// cannot make the decoder allocate gigabytes.
	maxIngestSide = 4096
	// maxIngestFrameBytes is the decoder's input buffer (mediadevices'
	// fixed 1 MiB); a bigger frame would be cut short.
	maxIngestFrameBytes = 1 << 20
	// pliInterval is how often a keyframe is asked for while waiting for one.
	pliInterval = 500 * time.Millisecond
	// firstKeyframeWait is how long a new stream may take to bring its
	// first keyframe before one is asked for (sooner if a frame shows it
	// was missed).
	firstKeyframeWait = time.Second
	// maxReorderDelay is how long a frame with a missing packet waits for
	// it (reordered, or resent after a NACK) before it counts as lost.
	maxReorderDelay = 250 * time.Millisecond
)

// publisherICETimeouts free the camera slot within about 7 s of a phone
// vanishing (Wi-Fi lost, page killed), quicker than for viewers: while the
// slot is taken, the phone's own reconnect gets 409.
var publisherICETimeouts = [3]time.Duration{3 * time.Second, 4 * time.Second, time.Second}

// newIngestAPI makes the WebRTC API for publishers: VP8 only, received,
// with NACKs, receiver reports and transport-wide congestion control
// feedback (without it, browsers keep their start bitrate, far too low
// to read cards). It shares the server's UDP mux.
func (s *Server) newIngestAPI(logs pionLogs) (*webrtc.API, error) {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, fmt.Errorf("register VP8 for ingest: %w", err)
	}
	reg := &interceptor.Registry{}
	gen, err := nack.NewGeneratorInterceptor()
	if err != nil {
		return nil, err
	}
	reg.Add(gen)
	rr, err := report.NewReceiverInterceptor()
	if err != nil {
		return nil, err
	}
	reg.Add(rr)
	if err := webrtc.ConfigureTWCCSender(me, reg); err != nil {
		return nil, fmt.Errorf("ingest congestion control: %w", err)
	}
	se := s.settingEngine(logs)
	t := publisherICETimeouts
	se.SetICETimeouts(t[0], t[1], t[2])
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(se)), nil
}

// publisher is the one WHIP camera.
type publisher struct {
	id          string
	etag        string
	remoteUfrag string
	created     time.Time
	pc          *webrtc.PeerConnection
	endOnce     sync.Once
	done        chan struct{} // closed when the publisher has ended

	mu        sync.Mutex // also orders the calls to the Ingest
	connected bool
	ended     bool
	timer     *time.Timer
}

// markConnected counts the publisher as live and tells the Ingest; false
// if it has ended or was connected already.
func (p *publisher) markConnected(s *Server) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended || p.connected {
		return false
	}
	p.connected = true
	// Counted before it shows live: a reader that sees Live sees it counted.
	s.ingestPublishers.Add(1)
	s.ingestLive.Store(true)
	if s.cfg.Ingest != nil {
		s.cfg.Ingest.IngestLive(true)
	}
	return true
}

// markEnded ends the publisher and tells the Ingest if it was live.
func (p *publisher) markEnded(s *Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.ended = true
	if p.connected {
		p.connected = false
		s.ingestLive.Store(false)
		if s.cfg.Ingest != nil {
			s.cfg.Ingest.IngestLive(false)
		}
	}
}

// deliver hands a picture to the Ingest unless the publisher has ended,
// so that no picture arrives after IngestLive(false).
func (p *publisher) deliver(s *Server, img image.Image, at time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return false
	}
	s.ingestDecoded.Add(1)
	if s.cfg.Ingest != nil {
		s.cfg.Ingest.IngestFrame(img, at)
	}
	return true
}

func (p *publisher) startTimer(d time.Duration, expire func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ended {
		p.timer = time.AfterFunc(d, expire)
	}
}

func (p *publisher) isConnected() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.connected
}

func (p *publisher) hasEnded() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended
}

// IngestStats returns the camera publishers' counters now.
func (s *Server) IngestStats() IngestStats {
	return IngestStats{
		Decoded:          s.ingestDecoded.Load(),
		Dropped:          s.ingestDropped.Load(),
		KeyframeRequests: s.ingestPLIs.Load(),
		Live:             s.ingestLive.Load(),
		Publishers:       s.ingestPublishers.Load(),
	}
}

// newPublisher makes the peer connection for a camera.
func (s *Server) newPublisher() (*publisher, error) {
	cert, err := s.certificate()
	if err != nil {
		return nil, err
	}
	pc, err := s.ingestAPI.NewPeerConnection(webrtc.Configuration{Certificates: []webrtc.Certificate{cert}})
	if err != nil {
		return nil, err
	}
	p := &publisher{id: randomID(16), etag: randomID(8), created: time.Now(), pc: pc, done: make(chan struct{})}
	var tracks sync.Once
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		// One video track is read; a second one (a confused client) is not.
		first := false
		tracks.Do(func() { first = true })
		if !first || tr.Kind() != webrtc.RTPCodecTypeVideo {
			return
		}
		if !strings.EqualFold(tr.Codec().MimeType, webrtc.MimeTypeVP8) {
			s.endPublisher(p, "not VP8: "+tr.Codec().MimeType)
			return
		}
		s.receive(p, tr)
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			if p.markConnected(s) {
				s.log.Info("camera connected", slog.String("publisher", p.id))
			}
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			s.endPublisher(p, st.String())
		}
	})
	return p, nil
}

// endPublisher closes the publisher's connection and frees the camera
// slot, once.
func (s *Server) endPublisher(p *publisher, why string) {
	p.endOnce.Do(func() {
		p.markEnded(s)
		s.camMu.Lock()
		if s.pub == p {
			s.pub = nil
		}
		s.camMu.Unlock()
		_ = p.pc.Close()
		close(p.done)
		s.log.Info("camera left", slog.String("publisher", p.id), slog.String("why", why),
			slog.Duration("stayed", time.Since(p.created).Round(time.Millisecond)))
	})
}

// receive reads the publisher's video until its connection ends:
// packets to frames (reordered, losses noticed), frames to pictures.
// After a loss or a decode error, frames are skipped and keyframes asked
// for every pliInterval until one arrives, since a delta frame decoded
// on a broken reference gives a smeared picture that vision would read.
//
// A stream starts with a keyframe, so at the start none is asked for
// until one is known to be missing (a delta frame came first, or a frame
// was lost) or none came within firstKeyframeWait. Asking at once made
// the publisher send a second keyframe a few frames in, starved of bits
// by its rate control (4 KB after a first of 29 KB, at 720p): a blurred,
// off-colour picture for a second, just when the calibrator learns the
// empty table from the first pictures. The table's markers then showed as
// foreground, and could hide a player's card back from the calibrator.
func (s *Server) receive(p *publisher, tr *webrtc.TrackRemote) {
	dec, err := newVP8Decoder()
	if err != nil {
		s.log.Error("camera decoder", slog.Any("err", err))
		s.endPublisher(p, "no decoder")
		return
	}
	defer dec.Close()
	ssrc := uint32(tr.SSRC())
	var lastPLI time.Time
	askKey := func() {
		if time.Since(lastPLI) < pliInterval {
			return
		}
		lastPLI = time.Now()
		if err := p.pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}}); err == nil {
			s.ingestPLIs.Add(1)
		}
	}
	started := time.Now()

	asm := newVP8Assembler(maxReorderDelay)
	// needKey: frames are skipped until a keyframe; missed: one is known
	// to be missing, so it is asked for now.
	needKey, missed := true, false
	// handle decodes the frames the assembler released.
	handle := func(frames [][]byte, lost bool) bool {
		if lost {
			s.ingestDropped.Add(1)
			needKey, missed = true, true
		}
		for _, f := range frames {
			if needKey && !vp8.IsKeyframe(f) {
				s.ingestDropped.Add(1)
				missed = true
				continue
			}
			img, err := dec.Decode(f)
			if err != nil {
				s.ingestDropped.Add(1)
				needKey, missed = true, true
				continue
			}
			needKey, missed = false, false
			if img != nil && !p.deliver(s, img, time.Now()) {
				return false
			}
		}
		return true
	}
	keyWanted := func() bool { return needKey && (missed || time.Since(started) >= firstKeyframeWait) }
	for {
		// The deadline keeps the keyframe requests going while nothing
		// comes (a phone that stopped sending until it gets one).
		_ = tr.SetReadDeadline(time.Now().Add(pliInterval))
		pkt, _, err := tr.ReadRTP()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			if !handle(asm.expire(time.Now())) {
				return
			}
			if keyWanted() {
				askKey()
			}
			continue
		}
		if err != nil {
			return
		}
		if !handle(asm.push(pkt, time.Now())) {
			return
		}
		if keyWanted() {
			askKey()
		}
	}
}

// vp8Decoder is the ingest's decoder: frames larger than a camera sends,
// or keyframes of a size no camera has, are refused before libvpx sees
// them.
type vp8Decoder struct{ *vp8.Decoder }

func newVP8Decoder() (*vp8Decoder, error) {
	d, err := vp8.NewDecoder()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDecoder, err)
	}
	return &vp8Decoder{d}, nil
}

// Decode decodes one VP8 frame. The picture is nil (and the error too)
// when the frame shows nothing. The picture is the caller's.
func (d *vp8Decoder) Decode(frame []byte) (image.Image, error) {
	if len(frame) > maxIngestFrameBytes {
		return nil, fmt.Errorf("%w: a %d-byte frame is too large", ErrDecoder, len(frame))
	}
	if w, h, ok := vp8.KeyframeSize(frame); ok && (w == 0 || h == 0 || w > maxIngestSide || h > maxIngestSide) {
		return nil, fmt.Errorf("%w: a %dx%d picture (want at most %d on a side)", ErrDecoder, w, h, maxIngestSide)
	}
	img, err := d.Decoder.Decode(frame)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDecoder, err)
	}
	return img, nil
}

// lookupPublisherAny returns the publisher, connecting or live, if any.
func (s *Server) lookupPublisherAny() *publisher {
	s.camMu.Lock()
	defer s.camMu.Unlock()
	return s.pub
}
