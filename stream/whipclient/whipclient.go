// Package whipclient publishes pictures as VP8 video to a WHIP endpoint
// (RFC 9725), as a phone's camera page does: tests and tools use it to
// stream rendered pictures to the referee's /whip.
//
// Dial negotiates; Send encodes and sends one picture; Close ends the
// session with DELETE. Publish does all three for a channel of pictures.
package whipclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/logging"
	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// Errors, matched with errors.Is.
var (
	// ErrClosed: the publisher was closed, or its connection ended.
	ErrClosed = errors.New("whip: publisher closed")
	// ErrEncoder: a picture could not be encoded.
	ErrEncoder = errors.New("whip: video encoder")
)

// StatusError is an answer from the server other than the one expected
// (201 for the offer): the status and the server's message.
type StatusError struct {
	Method string
	URL    string
	Code   int
	Msg    string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("whip: %s %s: %d %s: %s", e.Method, e.URL, e.Code, http.StatusText(e.Code), e.Msg)
}

// Options tune a publisher. The zero value works on a LAN.
type Options struct {
	// Token is sent as "Authorization: Bearer Token".
	Token string
	// FPS is the frame rate Publish keeps to (it waits, it does not drop),
	// and the sample duration when Send is called faster. Default 25.
	FPS int
	// Bitrate is the VP8 target in bit/s. Default 1_500_000.
	Bitrate int
	// Client does the HTTP requests. Default: a client with a 10 s timeout.
	Client *http.Client
	// LoopbackOnly gathers only loopback candidates (tests).
	LoopbackOnly bool
	// DropPacket, if set, sees every RTP packet before it is sent; true
	// drops it, to simulate a lossy network in tests.
	DropPacket func(*rtp.Packet) bool
	// UDPConn, if set, is the one socket for ICE, through a UDP mux; the
	// publisher closes it. Tests close it first to make the publisher
	// vanish without a word, as a phone that lost its network does.
	UDPConn net.PacketConn
	// ICETimeouts, if set, are pion's disconnected and failed timeouts and
	// keep-alive interval.
	ICETimeouts *[3]time.Duration
}

// Stats counts what a publisher did.
type Stats struct {
	Frames       uint64 // pictures encoded and sent
	Keyframes    uint64 // of which keyframes
	KeyRequests  uint64 // PLIs and FIRs received
	PacketsDrop  uint64 // packets dropped by Options.DropPacket
	PacketsSent  uint64
	Width        int
	Height       int
	LastKeyframe time.Time
}

// Publisher is one WHIP session.
type Publisher struct {
	opt      Options
	client   *http.Client
	endpoint string
	location string
	pc       *webrtc.PeerConnection
	mux      ice.UDPMux // only with Options.UDPConn
	track    *webrtc.TrackLocalStaticSample

	connected chan struct{}
	done      chan struct{}
	doneOnce  sync.Once
	connOnce  sync.Once
	closeOnce sync.Once
	wg        sync.WaitGroup

	keyWanted atomic.Bool
	frames    atomic.Uint64
	keyframes atomic.Uint64
	keyReqs   atomic.Uint64
	dropped   atomic.Uint64
	sent      atomic.Uint64

	mu      sync.Mutex // guards the encoder
	enc     *encoder
	lastKey time.Time
	last    time.Time
}

// Dial offers to publish one VP8 video track and sets up the connection
// with the server's answer. It returns once the server answered 201; the
// connection is then still being made (see Connected).
func Dial(ctx context.Context, endpoint string, opt Options) (*Publisher, error) {
	if opt.FPS <= 0 {
		opt.FPS = 25
	}
	if opt.Bitrate <= 0 {
		opt.Bitrate = 1_500_000
	}
	p := &Publisher{opt: opt, client: opt.Client, endpoint: endpoint,
		connected: make(chan struct{}), done: make(chan struct{})}
	if p.client == nil {
		p.client = &http.Client{Timeout: 10 * time.Second}
	}
	api, err := p.newAPI()
	if err != nil {
		return nil, err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		if p.mux != nil {
			_ = p.mux.Close()
		}
		return nil, fmt.Errorf("whip: peer connection: %w", err)
	}
	p.pc = pc
	fail := func(err error) (*Publisher, error) {
		p.shutdown()
		return nil, err
	}
	p.track, err = webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, "video", "camera")
	if err != nil {
		return fail(fmt.Errorf("whip: track: %w", err))
	}
	tr, err := pc.AddTransceiverFromTrack(p.track, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly})
	if err != nil {
		return fail(fmt.Errorf("whip: transceiver: %w", err))
	}
	p.wg.Add(1)
	go p.readRTCP(tr.Sender())
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			p.connOnce.Do(func() { close(p.connected) })
			p.keyWanted.Store(true)
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			p.doneOnce.Do(func() { close(p.done) })
		}
	})

	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(fmt.Errorf("whip: offer: %w", err))
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(fmt.Errorf("whip: set offer: %w", err))
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	answer, loc, err := p.post(ctx, pc.LocalDescription().SDP)
	if err != nil {
		return fail(err)
	}
	p.location = loc
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		_ = p.deleteSession()
		return fail(fmt.Errorf("whip: the server's answer: %w", err))
	}
	return p, nil
}

func (p *Publisher) newAPI() (*webrtc.API, error) {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, fmt.Errorf("whip: register VP8: %w", err)
	}
	reg := &interceptor.Registry{}
	if p.opt.DropPacket != nil {
		reg.Add(&dropFactory{p: p})
	}
	se := webrtc.SettingEngine{}
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	if p.opt.LoopbackOnly {
		se.SetIncludeLoopbackCandidate(true)
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	}
	if p.opt.UDPConn != nil {
		// Quiet: its read error when the caller closed the socket is expected.
		lf := logging.NewDefaultLoggerFactory()
		lf.DefaultLogLevel = logging.LogLevelDisabled
		p.mux = webrtc.NewICEUDPMux(lf.NewLogger("udpmux"), p.opt.UDPConn)
		se.SetICEUDPMux(p.mux)
	}
	if t := p.opt.ICETimeouts; t != nil {
		se.SetICETimeouts(t[0], t[1], t[2])
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(se)), nil
}

// post sends the offer and returns the answer and the session's URL.
func (p *Publisher) post(ctx context.Context, offer string) (answer, location string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, strings.NewReader(offer))
	if err != nil {
		return "", "", fmt.Errorf("whip: %w", err)
	}
	req.Header.Set("Content-Type", "application/sdp")
	if p.opt.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opt.Token)
	}
	res, err := p.client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("whip: POST %s: %w", p.endpoint, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 256<<10))
	if err != nil {
		return "", "", fmt.Errorf("whip: POST %s: reading the answer: %w", p.endpoint, err)
	}
	if res.StatusCode != http.StatusCreated {
		return "", "", &StatusError{Method: http.MethodPost, URL: p.endpoint, Code: res.StatusCode, Msg: strings.TrimSpace(string(body))}
	}
	loc := res.Header.Get("Location")
	if loc == "" {
		return "", "", fmt.Errorf("whip: POST %s: 201 without a Location", p.endpoint)
	}
	base, err := url.Parse(p.endpoint)
	if err != nil {
		return "", "", fmt.Errorf("whip: %w", err)
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("whip: bad Location %q: %w", loc, err)
	}
	return string(body), base.ResolveReference(ref).String(), nil
}

// readRTCP answers PLI and FIR with a keyframe at the next picture.
func (p *Publisher) readRTCP(s *webrtc.RTPSender) {
	defer p.wg.Done()
	for {
		pkts, _, err := s.ReadRTCP()
		if err != nil {
			return
		}
		for _, k := range pkts {
			switch k.(type) {
			case *rtcp.PictureLossIndication, *rtcp.FullIntraRequest:
				p.keyReqs.Add(1)
				p.keyWanted.Store(true)
			}
		}
	}
}

// Location is the session's URL on the server.
func (p *Publisher) Location() string { return p.location }

// Connected is closed when the connection is up.
func (p *Publisher) Connected() <-chan struct{} { return p.connected }

// Done is closed when the connection has failed or closed (the server
// ended it, or Close).
func (p *Publisher) Done() <-chan struct{} { return p.done }

// Stats returns the counters now.
func (p *Publisher) Stats() Stats {
	p.mu.Lock()
	st := Stats{LastKeyframe: p.lastKey}
	if p.enc != nil {
		st.Width, st.Height = p.enc.w, p.enc.h
	}
	p.mu.Unlock()
	st.Frames, st.Keyframes, st.KeyRequests = p.frames.Load(), p.keyframes.Load(), p.keyReqs.Load()
	st.PacketsDrop, st.PacketsSent = p.dropped.Load(), p.sent.Load()
	return st
}

// Send encodes one picture and sends it. Pictures may change size; the
// encoder restarts with a keyframe. Before the connection is up the
// picture is encoded and lost, as on a phone.
func (p *Publisher) Send(img image.Image) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	b := img.Bounds()
	if b.Dx() < 2 || b.Dy() < 2 || b.Dx() > 4096 || b.Dy() > 4096 {
		return fmt.Errorf("%w: a %dx%d picture", ErrEncoder, b.Dx(), b.Dy())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.enc == nil || p.enc.w != b.Dx() || p.enc.h != b.Dy() {
		if p.enc != nil {
			_ = p.enc.Close()
			p.enc = nil
		}
		e, err := newEncoder(b.Dx(), b.Dy(), p.opt.Bitrate)
		if err != nil {
			return err
		}
		p.enc = e
	}
	if p.keyWanted.Swap(false) {
		p.enc.forceKey()
	}
	data, err := p.enc.encode(img)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return nil // the rate control skipped it
	}
	now := time.Now()
	dur := time.Second / time.Duration(p.opt.FPS)
	if !p.last.IsZero() {
		if d := now.Sub(p.last); d > 0 && d < time.Second {
			dur = d
		}
	}
	p.last = now
	p.frames.Add(1)
	if data[0]&1 == 0 {
		p.keyframes.Add(1)
		p.lastKey = now
	}
	if err := p.track.WriteSample(media.Sample{Data: data, Duration: dur, Timestamp: now}); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		return fmt.Errorf("whip: send: %w", err)
	}
	return nil
}

// Close ends the session: DELETE on the server, then the connection.
func (p *Publisher) Close() error {
	var err error
	p.closeOnce.Do(func() {
		err = p.deleteSession()
		p.shutdown()
	})
	return err
}

// Abort closes the connection without telling the server, as a phone
// that vanished would (tests).
func (p *Publisher) Abort() {
	p.closeOnce.Do(p.shutdown)
}

func (p *Publisher) shutdown() {
	_ = p.pc.Close()
	if p.mux != nil {
		_ = p.mux.Close()
	}
	p.doneOnce.Do(func() { close(p.done) })
	p.wg.Wait()
	p.mu.Lock()
	if p.enc != nil {
		_ = p.enc.Close()
		p.enc = nil
	}
	p.mu.Unlock()
}

func (p *Publisher) deleteSession() error {
	if p.location == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.location, nil)
	if err != nil {
		return fmt.Errorf("whip: %w", err)
	}
	if p.opt.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.opt.Token)
	}
	res, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("whip: DELETE %s: %w", p.location, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	switch res.StatusCode {
	case http.StatusOK, http.StatusNoContent, http.StatusNotFound: // 404: the server had ended it already
		return nil
	}
	return &StatusError{Method: http.MethodDelete, URL: p.location, Code: res.StatusCode, Msg: string(bytes.TrimSpace(body))}
}

// Publish streams the pictures from frames to the WHIP endpoint, from
// when the connection is up, at most fps a second (it waits for the slot, it drops nothing), until frames
// closes (nil error), ctx ends (its error) or the connection ends
// (ErrClosed). It ends the session with DELETE in every case. A refusal
// from the server is a *StatusError.
func Publish(ctx context.Context, endpoint, token string, frames <-chan image.Image, fps int) error {
	p, err := Dial(ctx, endpoint, Options{Token: token, FPS: fps})
	if err != nil {
		return err
	}
	return p.Run(ctx, frames)
}

// Run waits for the connection, sends the pictures from frames as
// Publish does, then closes p.
func (p *Publisher) Run(ctx context.Context, frames <-chan image.Image) (err error) {
	defer func() {
		if cerr := p.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	// Pictures sent before the connection is up would be lost: wait.
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return fmt.Errorf("%w: the connection ended before it was up", ErrClosed)
	case <-p.connected:
	}
	gap := time.Second / time.Duration(p.opt.FPS)
	var next time.Time
	for {
		var img image.Image
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.done:
			return fmt.Errorf("%w: the connection ended", ErrClosed)
		case img, ok = <-frames:
			if !ok {
				return nil
			}
		}
		if wait := time.Until(next); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		next = time.Now().Add(gap)
		if err := p.Send(img); err != nil {
			return err
		}
	}
}

// encoder is libvpx's VP8 encoder through mediadevices, which pulls its
// input from a reader: ours hands over the picture encode was given.
type encoder struct {
	enc  codec.ReadCloser
	keys codec.KeyFrameController
	w, h int
	cur  image.Image
}

func newEncoder(w, h, bitrate int) (*encoder, error) {
	params, err := vpx.NewVP8Params()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoder, err)
	}
	params.BitRate = bitrate
	params.KeyFrameInterval = 250
	params.RateControlEndUsage = vpx.RateControlCBR
	params.LagInFrames = 0
	params.ErrorResilient = vpx.ErrorResilientDefault
	e := &encoder{w: w, h: h}
	r := video.ReaderFunc(func() (image.Image, func(), error) {
		if e.cur == nil {
			return nil, func() {}, errors.New("no picture")
		}
		return e.cur, func() {}, nil
	})
	enc, err := params.BuildVideoEncoder(r, prop.Media{Video: prop.Video{Width: w, Height: h}})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoder, err)
	}
	e.enc = enc
	if c, ok := enc.(codec.Controllable); ok {
		e.keys, _ = c.Controller().(codec.KeyFrameController)
	}
	return e, nil
}

func (e *encoder) forceKey() {
	if e.keys != nil {
		_ = e.keys.ForceKeyFrame()
	}
}

func (e *encoder) encode(img image.Image) ([]byte, error) {
	e.cur = img
	out, release, err := e.enc.Read()
	e.cur = nil
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoder, err)
	}
	data := bytes.Clone(out)
	release()
	return data, nil
}

func (e *encoder) Close() error { return e.enc.Close() }

// dropFactory puts Options.DropPacket in the RTP path.
type dropFactory struct{ p *Publisher }

func (f *dropFactory) NewInterceptor(string) (interceptor.Interceptor, error) {
	return &dropInterceptor{p: f.p}, nil
}

type dropInterceptor struct {
	interceptor.NoOp
	p *Publisher
}

func (d *dropInterceptor) BindLocalStream(_ *interceptor.StreamInfo, w interceptor.RTPWriter) interceptor.RTPWriter {
	return interceptor.RTPWriterFunc(func(h *rtp.Header, payload []byte, a interceptor.Attributes) (int, error) {
		if d.p.opt.DropPacket(&rtp.Packet{Header: *h, Payload: payload}) {
			d.p.dropped.Add(1)
			return len(payload), nil
		}
		d.p.sent.Add(1)
		return w.Write(h, payload, a)
	})
}
