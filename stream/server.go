package stream

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/report"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
	"github.com/prometheus/client_golang/prometheus"
)

// maxFrameSide bounds a frame's width and height (VP8 allows 16383).
const maxFrameSide = 8192

// iceTimeouts are ICE's disconnected and failed timeouts and keep-alive
// interval: a viewer that vanished is ended after about 15 s.
var iceTimeouts = [3]time.Duration{5 * time.Second, 10 * time.Second, 2 * time.Second}

// Server streams one video to many viewers and serves the pages, the WHEP
// endpoint, the WHIP endpoint for a camera (a phone) and the control API. Make one with New, serve Handler over
// HTTP (HTTPServer sets the timeouts), and call Run to stream.
type Server struct {
	cfg     Config
	src     FrameSource
	game    Controller
	log     *slog.Logger
	met     *metrics
	reg     *prometheus.Registry // what /metrics serves
	udp     net.PacketConn
	batch   sendBatcher // udp, if it can batch sends; else nil
	mux     ice.UDPMux
	api     *webrtc.API
	track   *webrtc.TrackLocalStaticSample
	handler http.Handler

	mu       sync.Mutex
	sessions map[string]*session
	pending  int // viewer slots taken by offers being answered
	closed   bool

	viewers  atomic.Int64           // sessions whose peer connection is connected
	latest   atomic.Pointer[Frame]  // newest frame from the source
	lastAt   atomic.Int64           // unix nanos when latest arrived
	state    atomic.Pointer[[]byte] // newest state message
	keyAsked atomic.Uint64          // keyframe requests so far

	events    *eventHub     // GET /events streams
	eventPing time.Duration // eventPing; shorter in tests

	closeOnce sync.Once
	relays    relays

	// The camera (WHIP): one publisher at a time.
	ingestAPI        *webrtc.API
	camMu            sync.Mutex
	camToken         string     // empty: no publishing
	pub              *publisher // connecting or live
	pubPending       bool       // an offer is being answered
	camClosed        bool
	ingestDecoded    atomic.Uint64
	ingestDropped    atomic.Uint64
	ingestPLIs       atomic.Uint64
	ingestPublishers atomic.Uint64
	ingestLive       atomic.Bool

	certMu sync.Mutex
	cert   *webrtc.Certificate // shared by every peer connection; renewed weekly
}

// certificate returns the DTLS certificate for a new peer connection: one
// for all, so that a viewer joining costs no key generation.
func (s *Server) certificate() (webrtc.Certificate, error) {
	s.certMu.Lock()
	defer s.certMu.Unlock()
	if s.cert == nil || time.Until(s.cert.Expires()) < 21*24*time.Hour {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return webrtc.Certificate{}, err
		}
		c, err := webrtc.GenerateCertificate(key)
		if err != nil {
			return webrtc.Certificate{}, err
		}
		s.cert = c
	}
	return *s.cert, nil
}

// New makes a server that streams src and shows and controls game. It
// opens the ICE UDP socket at once; Close releases it.
func New(cfg Config, src FrameSource, game Controller) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if src == nil || game == nil {
		return nil, fmt.Errorf("%w: a frame source and a controller are required", ErrConfig)
	}
	s := &Server{cfg: cfg, src: src, game: game, log: cfg.Logger, met: newMetrics(), sessions: map[string]*session{},
		events: newEventHub(cfg.MaxEventClients), eventPing: eventPing}

	udp, err := net.ListenPacket("udp", cfg.UDPAddr)
	if err != nil {
		return nil, fmt.Errorf("listen for ICE on udp %s: %w", cfg.UDPAddr, err)
	}
	s.udp = newBatchConn(udp)
	s.batch, _ = s.udp.(sendBatcher)
	logs := pionLogs{cfg.Logger}
	s.mux = webrtc.NewICEUDPMux(logs.NewLogger("udpmux"), s.udp)

	// Generic NACK is offered only when it is answered.
	feedback := []webrtc.RTCPFeedback{{Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}
	if cfg.NACKHistory > 0 {
		feedback = append([]webrtc.RTCPFeedback{{Type: nackFeedback.Type}}, feedback...)
	}
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000, RTCPFeedback: feedback},
		PayloadType:        96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		s.closeNet()
		return nil, fmt.Errorf("register VP8: %w", err)
	}
	// A sender needs only these: NACKs answered from one history shared by
	// every viewer (nack.go), and sender reports. No stats or
	// congestion-control interceptors: the bitrate is fixed, and they cost
	// time on every packet of every viewer.
	reg := &interceptor.Registry{}
	if cfg.NACKHistory > 0 {
		reg.Add(&sharedNACKFactory{hist: newNACKHistory(cfg.NACKHistory), resent: func() { s.met.resent.Add(1) }})
	}
	sr, err := report.NewSenderInterceptor()
	if err != nil {
		s.closeNet()
		return nil, err
	}
	reg.Add(sr)

	s.api = webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(s.settingEngine(logs)))
	if s.ingestAPI, err = s.newIngestAPI(logs); err != nil {
		s.closeNet()
		return nil, err
	}
	s.camToken = cfg.CameraToken

	s.track, err = webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, "table", "ligretto")
	if err != nil {
		s.closeNet()
		return nil, fmt.Errorf("video track: %w", err)
	}
	if s.reg, err = s.met.register(cfg.Registry, s.gauges); err != nil {
		s.closeNet()
		return nil, err
	}
	s.handler = s.routes()
	s.publishState()
	return s, nil
}

// settingEngine is every peer connection's: one UDP socket for all
// through the mux, host candidates only.
func (s *Server) settingEngine(logs pionLogs) webrtc.SettingEngine {
	se := webrtc.SettingEngine{LoggerFactory: logs}
	se.SetICEUDPMux(s.mux)
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	se.SetICETimeouts(iceTimeouts[0], iceTimeouts[1], iceTimeouts[2])
	if len(s.cfg.PublicIPs) > 0 {
		// Each public IP replaces the local address of the host
		// candidates of its family, as SetNAT1To1IPs did.
		rules := make([]webrtc.ICEAddressRewriteRule, 0, len(s.cfg.PublicIPs))
		for _, ip := range s.cfg.PublicIPs {
			rules = append(rules, webrtc.ICEAddressRewriteRule{
				External:        []string{ip},
				AsCandidateType: webrtc.ICECandidateTypeHost,
				Mode:            webrtc.ICEAddressRewriteReplace,
			})
		}
		// It fails only alongside SetNAT1To1IPs, which is not used.
		_ = se.SetICEAddressRewriteRules(rules...)
	}
	return se
}

// ICEAddr is the address of the ICE UDP socket.
func (s *Server) ICEAddr() net.Addr { return s.udp.LocalAddr() }

// Handler serves every route.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPServer returns an http.Server for addr with the handler and
// conservative timeouts.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Run reads frames from the source, encodes each once and sends it to every
// viewer, and sends the game state to viewers when it changes, until ctx
// ends or the source closes its channel. It then ends every session and
// releases the server's resources.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.broadcastState(ctx)
	}()
	err := s.encodeLoop(ctx)
	cancel()
	wg.Wait()
	s.Close()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// Close ends every session and event stream and releases the UDP socket.
// It is safe to call more than once, and from Run's caller after Run
// returned.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.events.close()
		s.mu.Lock()
		s.closed = true
		all := make([]*session, 0, len(s.sessions))
		for _, v := range s.sessions {
			all = append(all, v)
		}
		s.mu.Unlock()
		for _, v := range all {
			s.endSession(v, "server closing")
		}
		s.camMu.Lock()
		s.camClosed = true
		p := s.pub
		s.camMu.Unlock()
		if p != nil {
			s.endPublisher(p, "server closing")
		}
		s.closeNet()
	})
	return nil
}

func (s *Server) closeNet() {
	if s.mux != nil {
		_ = s.mux.Close()
	}
	if s.udp != nil {
		_ = s.udp.Close()
	}
}

// encodeLoop is the one place where video is encoded.
func (s *Server) encodeLoop(ctx context.Context) error {
	frames := s.src.Frames(ctx)
	var (
		enc       *vp8Encoder
		prevTime  time.Time
		lastKey   time.Time
		keyServed uint64 // keyAsked value that the last keyframe answered
	)
	defer func() {
		if enc != nil {
			_ = enc.Close()
		}
	}()
	// A picture that cannot be encoded is skipped, never fatal; the warning
	// is repeated at most every ten seconds.
	var warned time.Time
	warn := func(err error) {
		if time.Since(warned) > 10*time.Second {
			warned = time.Now()
			s.log.Warn("frame not encoded", slog.Any("err", err))
		}
	}
	for {
		var f Frame
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case f, ok = <-frames:
			if !ok {
				return nil
			}
		}
		// Always encode the newest frame: drop any that queued behind it.
	drain:
		for {
			select {
			case g, ok := <-frames:
				if !ok {
					break drain
				}
				s.met.framesIn.Add(1)
				s.met.framesDropped.Add(1)
				f = g
			default:
				break drain
			}
		}
		s.met.framesIn.Add(1)
		if f.Image == nil || f.Image.Bounds().Empty() {
			s.met.encodeErrors.Add(1)
			warn(fmt.Errorf("%w: an empty picture", ErrEncoder))
			continue
		}
		if f.Time.IsZero() {
			f.Time = time.Now()
		}
		s.latest.Store(&f)
		s.lastAt.Store(time.Now().UnixNano())
		if s.viewers.Load() == 0 && !s.relays.live() {
			s.met.framesIdle.Add(1)
			prevTime = time.Time{}
			continue
		}
		b := f.Image.Bounds()
		if b.Dx() > maxFrameSide || b.Dy() > maxFrameSide {
			s.met.encodeErrors.Add(1)
			warn(fmt.Errorf("%w: a %dx%d picture cannot be encoded", ErrEncoder, b.Dx(), b.Dy()))
			continue
		}
		if enc == nil || enc.width != b.Dx() || enc.height != b.Dy() {
			if enc != nil {
				_ = enc.Close()
				enc = nil
			}
			e, err := newVP8Encoder(b.Dx(), b.Dy(), s.cfg.Bitrate, s.cfg.KeyframeEvery, s.cfg.EncoderSpeed)
			if err != nil {
				s.met.encodeErrors.Add(1)
				warn(err)
				continue
			}
			enc = e
			s.log.Info("encoder started", slog.Int("width", b.Dx()), slog.Int("height", b.Dy()), slog.Int("bitrate", s.cfg.Bitrate))
		}
		asked := s.keyAsked.Load()
		if asked != keyServed && time.Since(lastKey) >= s.cfg.KeyframeGap {
			enc.ForceKeyFrame()
		}
		t0 := time.Now()
		data, key, err := enc.Encode(f.Image)
		s.met.observeEncode(time.Since(t0))
		if err != nil {
			s.met.encodeErrors.Add(1)
			warn(err)
			continue
		}
		if key {
			lastKey, keyServed = time.Now(), asked
			s.met.keyframes.Add(1)
		}
		s.met.framesEncoded.Add(1)
		s.met.encodedBytes.Add(uint64(len(data)))
		dur := 40 * time.Millisecond
		if !prevTime.IsZero() {
			if d := f.Time.Sub(prevTime); d > 0 && d < time.Second {
				dur = d
			}
		}
		prevTime = f.Time
		s.send(media.Sample{Data: data, Duration: dur, Timestamp: f.Time})
	}
}

// send writes one encoded frame to every viewer. Its packets for all the
// viewers leave together, in a few sendmmsg calls, where the socket can
// batch. Errors name viewers that could not be sent to; their own
// connection-state handlers end them.
func (s *Server) send(sample media.Sample) {
	if s.batch != nil {
		s.batch.begin()
		defer s.batch.flush()
	}
	_ = s.track.WriteSample(sample)
	for _, x := range s.relays.snapshot() {
		if x.Live() {
			x.WriteVideo(sample)
		}
	}
}

// sendBatcher queues the datagrams written between begin and flush, and
// sends them together.
type sendBatcher interface {
	begin()
	flush()
}

// requestKeyframe asks the encoder for a keyframe; the encode loop
// throttles them to one per KeyframeGap.
func (s *Server) requestKeyframe(reason string) {
	s.keyAsked.Add(1)
	s.met.keyRequest(reason)
}

// stateMessage is what viewers receive on the DataChannel.
type stateMessage struct {
	Type  string    `json:"type"` // "state"
	State GameState `json:"state"`
}

func (s *Server) publishState() []byte {
	b, err := json.Marshal(stateMessage{Type: "state", State: s.game.State()})
	if err != nil {
		s.log.Error("encode game state", slog.Any("err", err))
		return nil
	}
	s.state.Store(&b)
	return b
}

// broadcastState sends the state to every viewer and event stream after
// each change, at most once per StateInterval.
func (s *Server) broadcastState(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.game.Changed():
		}
		b := s.publishState()
		if b != nil {
			for _, v := range s.snapshotSessions() {
				v.sendState(b, s.met)
			}
			for _, x := range s.relays.snapshot() {
				x.WriteState(b)
			}
			s.events.publish(b)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.cfg.StateInterval):
		}
	}
}

func (s *Server) snapshotSessions() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*session, 0, len(s.sessions))
	for _, v := range s.sessions {
		out = append(out, v)
	}
	return out
}

// Stats is a summary for the console and tests.
type Stats struct {
	Viewers       int      `json:"viewers"`
	Sessions      int      `json:"sessions"`
	MaxViewers    int      `json:"max_viewers"`
	FramesIn      uint64   `json:"frames_in"`
	FramesEncoded uint64   `json:"frames_encoded"`
	Keyframes     uint64   `json:"keyframes"`
	EncodedBytes  uint64   `json:"encoded_bytes"`
	Width         int      `json:"width"`
	Height        int      `json:"height"`
	LastFrameMS   int64    `json:"last_frame_age_ms"` // -1 before the first frame
	UptimeS       float64  `json:"uptime_s"`
	BackDesigns   []string `json:"back_designs"`
}

// Stats returns the server's counters now.
func (s *Server) Stats() Stats {
	g := s.gauges()
	st := Stats{Viewers: g.viewers, Sessions: g.sessions, MaxViewers: g.maxViewers,
		FramesIn: s.met.framesIn.Load(), FramesEncoded: s.met.framesEncoded.Load(), Keyframes: s.met.keyframes.Load(),
		EncodedBytes: s.met.encodedBytes.Load(), Width: g.width, Height: g.height, LastFrameMS: -1,
		UptimeS: time.Since(s.met.start).Seconds(), BackDesigns: backDesigns()}
	if g.haveFrame {
		st.LastFrameMS = g.lastFrameAge.Milliseconds()
	}
	return st
}

func (s *Server) gauges() gauges {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	g := gauges{viewers: int(s.viewers.Load()), sessions: n, maxViewers: s.cfg.MaxViewers, ingest: s.IngestStats(),
		eventClients: s.events.count()}
	if f := s.latest.Load(); f != nil {
		g.haveFrame = true
		g.lastFrameAge = time.Since(time.Unix(0, s.lastAt.Load()))
		b := f.Image.Bounds()
		g.width, g.height = b.Dx(), b.Dy()
	}
	return g
}
