// Package whepclient watches a served table as a spectator does, over
// WHEP (draft-ietf-wish-whep): POST an SDP offer, get 201 with the answer
// and the session's Location, receive the VP8 video and the "state"
// DataChannel's messages, DELETE the session to leave.
//
// Tests, benchmarks and soak runs use it as a Go spectator: it assembles
// VP8 frames from RTP, optionally decodes them with libvpx (mediadevices'
// decoder, as the server's WHIP ingest does) and hands each frame to a
// callback, and it counts what it received.
//
// It does not import package stream (whose own tests use it); a state
// message is handed over as the JSON of the game state, which callers
// unmarshal into stream.GameState.
package whepclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/report"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"

	"ligretto/stream/vp8"
)

// Errors, matched with errors.Is.
var (
	// ErrClosed: the viewer was closed, or its connection ended.
	ErrClosed = errors.New("whep: viewer closed")
	// ErrNoTrack: no video track has arrived yet.
	ErrNoTrack = errors.New("whep: no video track yet")
	// ErrNoDataChannel: the viewer was made without the state DataChannel.
	ErrNoDataChannel = errors.New("whep: no DataChannel")
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
	return fmt.Sprintf("whep: %s %s: %d %s: %s", e.Method, e.URL, e.Code, http.StatusText(e.Code), e.Msg)
}

// Options tune a viewer. The zero value counts frames and state messages
// without decoding, as a spectator on the LAN.
type Options struct {
	// Token, if set, is sent as "Authorization: Bearer Token".
	Token string
	// Client does the HTTP requests. Default: a client with a 10 s timeout.
	Client *http.Client
	// LoopbackOnly gathers only loopback candidates (tests on one machine).
	LoopbackOnly bool
	// BrowserLike offers what browsers offer for VP8 (generic NACK, PLI
	// and FIR feedback), so that the server keeps its NACK history for
	// this viewer, and sends receiver reports. Otherwise only PLI is
	// offered and no reports are sent.
	BrowserLike bool
	// SettingEngine, if set, may change pion's settings before the peer
	// connection is made (a UDP mux, timeouts).
	SettingEngine func(*webrtc.SettingEngine)
	// NoDataChannel leaves out the "state" DataChannel.
	NoDataChannel bool
	// Decode decodes every whole frame with libvpx and passes the picture
	// to OnFrame. Decoding happens in its own goroutine; frames that come
	// while it is busy (64 queued) are skipped until the next keyframe.
	Decode bool
	// OnFrame, if set, gets every whole frame (with its picture when
	// decoding; Frame.Image is then nil for a frame that gave no
	// picture). It is called from one goroutine at a time, and must not
	// block for long.
	OnFrame func(Frame)
	// OnState, if set, gets the game state of every "state" message, as
	// JSON (unmarshal it into stream.GameState).
	OnState func(json.RawMessage)
	// OnRTP, if set, sees every RTP packet received.
	OnRTP func(*rtp.Packet)
}

// Frame is one whole VP8 frame received.
type Frame struct {
	// Received is when its last packet arrived.
	Received time.Time
	// Decoded is when it was decoded (zero unless Options.Decode).
	Decoded time.Time
	// RTPTimestamp is the frame's RTP timestamp (90 kHz).
	RTPTimestamp uint32
	// Keyframe is true for a VP8 keyframe.
	Keyframe bool
	// Size is the frame's size in bytes.
	Size int
	// Image is the decoded picture (a copy, the callee may keep it), or
	// nil unless Options.Decode.
	Image *image.YCbCr

	data []byte // the frame, on its way to the decoder
}

// Stats counts what a viewer received.
type Stats struct {
	Packets        uint64 // RTP packets
	Bytes          uint64 // RTP payload bytes
	FramesReceived uint64 // whole frames assembled
	Keyframes      uint64 // of which keyframes
	FramesBroken   uint64 // frames lost to a missing or bad packet
	FramesDecoded  uint64 // pictures decoded (Options.Decode)
	DecodeErrors   uint64 // frames the decoder refused
	DecodeSkipped  uint64 // frames not decoded: the decoder was busy, or waiting for a keyframe after that
	StateMessages  uint64 // "state" messages on the DataChannel
	Width, Height  int    // the last decoded picture's size
}

// Viewer is one WHEP session.
type Viewer struct {
	opt      Options
	client   *http.Client
	location string
	pc       *webrtc.PeerConnection
	dc       *webrtc.DataChannel

	connected chan struct{}
	done      chan struct{}
	track     chan struct{}
	ssrc      atomic.Uint32
	connOnce  sync.Once
	doneOnce  sync.Once
	trackOnce sync.Once
	closeOnce sync.Once
	wg        sync.WaitGroup

	packets, bytes, frames, keyframes, broken atomic.Uint64
	decodedN, decodeErrs, skipped, states     atomic.Uint64

	mu        sync.Mutex
	lastState json.RawMessage
	w, h      int
}

// Dial offers to receive one VP8 video track (and the state DataChannel)
// from a WHEP endpoint, such as http://host:8080/whep, and sets up the
// connection with the server's answer. It returns once the server
// answered 201; the connection is then still being made (see Connected).
// A refusal is a *StatusError (503 when the table has its most viewers).
func Dial(ctx context.Context, endpoint string, opt Options) (*Viewer, error) {
	v := &Viewer{opt: opt, client: opt.Client, connected: make(chan struct{}), done: make(chan struct{}), track: make(chan struct{})}
	if v.client == nil {
		v.client = &http.Client{Timeout: 10 * time.Second}
	}
	api, err := newAPI(opt)
	if err != nil {
		return nil, err
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, fmt.Errorf("whep: peer connection: %w", err)
	}
	v.pc = pc
	fail := func(err error) (*Viewer, error) {
		v.shutdown()
		return nil, err
	}
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
		return fail(fmt.Errorf("whep: transceiver: %w", err))
	}
	if !opt.NoDataChannel {
		if v.dc, err = pc.CreateDataChannel("state", nil); err != nil {
			return fail(fmt.Errorf("whep: DataChannel: %w", err))
		}
		v.dc.OnMessage(v.onMessage)
	}
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		if tr.Kind() != webrtc.RTPCodecTypeVideo {
			return
		}
		first := false
		v.trackOnce.Do(func() { first = true })
		if !first {
			return
		}
		v.ssrc.Store(uint32(tr.SSRC()))
		close(v.track)
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.readTrack(tr)
		}()
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		switch st {
		case webrtc.PeerConnectionStateConnected:
			v.connOnce.Do(func() { close(v.connected) })
		case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
			v.doneOnce.Do(func() { close(v.done) })
		}
	})
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(fmt.Errorf("whep: offer: %w", err))
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		return fail(fmt.Errorf("whep: set offer: %w", err))
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	answer, loc, err := v.post(ctx, endpoint, pc.LocalDescription().SDP)
	if err != nil {
		return fail(err)
	}
	v.location = loc
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		_ = v.deleteSession()
		return fail(fmt.Errorf("whep: the server's answer: %w", err))
	}
	return v, nil
}

func newAPI(opt Options) (*webrtc.API, error) {
	fb := []webrtc.RTCPFeedback{{Type: "nack", Parameter: "pli"}}
	if opt.BrowserLike {
		fb = []webrtc.RTCPFeedback{{Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}
	}
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000, RTCPFeedback: fb},
		PayloadType:        96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		return nil, fmt.Errorf("whep: register VP8: %w", err)
	}
	reg := &interceptor.Registry{}
	if opt.BrowserLike {
		rr, err := report.NewReceiverInterceptor()
		if err != nil {
			return nil, fmt.Errorf("whep: receiver reports: %w", err)
		}
		reg.Add(rr)
	}
	se := webrtc.SettingEngine{}
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	if opt.LoopbackOnly {
		se.SetIncludeLoopbackCandidate(true)
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	}
	if opt.SettingEngine != nil {
		opt.SettingEngine(&se)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(se)), nil
}

// post sends the offer and returns the answer and the session's URL.
func (v *Viewer) post(ctx context.Context, endpoint, offer string) (answer, location string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(offer))
	if err != nil {
		return "", "", fmt.Errorf("whep: %w", err)
	}
	req.Header.Set("Content-Type", "application/sdp")
	if v.opt.Token != "" {
		req.Header.Set("Authorization", "Bearer "+v.opt.Token)
	}
	res, err := v.client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("whep: POST %s: %w", endpoint, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 256<<10))
	if err != nil {
		return "", "", fmt.Errorf("whep: POST %s: reading the answer: %w", endpoint, err)
	}
	if res.StatusCode != http.StatusCreated {
		return "", "", &StatusError{Method: http.MethodPost, URL: endpoint, Code: res.StatusCode, Msg: strings.TrimSpace(string(body))}
	}
	loc := res.Header.Get("Location")
	if loc == "" {
		return "", "", fmt.Errorf("whep: POST %s: 201 without a Location", endpoint)
	}
	base, err := url.Parse(endpoint)
	if err != nil {
		return "", "", fmt.Errorf("whep: %w", err)
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", "", fmt.Errorf("whep: bad Location %q: %w", loc, err)
	}
	return string(body), base.ResolveReference(ref).String(), nil
}

// onMessage takes the state DataChannel's messages.
func (v *Viewer) onMessage(m webrtc.DataChannelMessage) {
	var msg struct {
		Type  string          `json:"type"`
		State json.RawMessage `json:"state"`
	}
	if json.Unmarshal(m.Data, &msg) != nil || msg.Type != "state" {
		return
	}
	v.states.Add(1)
	v.mu.Lock()
	v.lastState = msg.State
	v.mu.Unlock()
	if v.opt.OnState != nil {
		v.opt.OnState(msg.State)
	}
}

// readTrack assembles frames (the packets of one timestamp, up to the
// marker) and decodes them or hands them on. A frame with a missing
// packet is dropped.
func (v *Viewer) readTrack(tr *webrtc.TrackRemote) {
	var toDecoder chan Frame
	if v.opt.Decode {
		toDecoder = make(chan Frame, 64)
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.decodeLoop(toDecoder)
		}()
		defer close(toDecoder)
	}
	var (
		buf      []byte
		ts       uint32
		lastSeq  uint16
		started  bool
		broken   bool
		skipping bool // the decoder missed a frame: skip to a keyframe
		vp8      codecs.VP8Packet
	)
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		v.packets.Add(1)
		v.bytes.Add(uint64(len(pkt.Payload)))
		if v.opt.OnRTP != nil {
			v.opt.OnRTP(pkt)
		}
		if started && pkt.SequenceNumber != lastSeq+1 {
			if !broken && len(buf) > 0 {
				v.broken.Add(1)
			}
			broken = true // a lost packet: wait for the next frame
		}
		started, lastSeq = true, pkt.SequenceNumber
		if pkt.Timestamp != ts {
			buf, ts, broken = buf[:0], pkt.Timestamp, false
		}
		payload, err := vp8.Unmarshal(pkt.Payload)
		if err != nil {
			if !broken {
				v.broken.Add(1)
			}
			broken = true
			continue
		}
		buf = append(buf, payload...)
		if !pkt.Marker || broken {
			continue
		}
		f := Frame{Received: time.Now(), RTPTimestamp: pkt.Timestamp, Keyframe: len(buf) > 0 && buf[0]&1 == 0, Size: len(buf)}
		v.frames.Add(1)
		if f.Keyframe {
			v.keyframes.Add(1)
		}
		if toDecoder == nil {
			buf = buf[:0]
			if v.opt.OnFrame != nil {
				v.opt.OnFrame(f)
			}
			continue
		}
		if skipping && !f.Keyframe {
			v.skipped.Add(1)
			buf = buf[:0]
			continue
		}
		f.data = bytes.Clone(buf)
		buf = buf[:0]
		select {
		case toDecoder <- f:
			skipping = false
		default:
			v.skipped.Add(1)
			skipping = true
		}
	}
}

// decodeLoop decodes the frames in order and hands on the pictures.
func (v *Viewer) decodeLoop(frames <-chan Frame) {
	dec, err := NewDecoder()
	if err != nil {
		for range frames {
			v.decodeErrs.Add(1)
		}
		return
	}
	defer dec.Close()
	for f := range frames {
		img, err := dec.Decode(f.data)
		f.data = nil
		if err != nil {
			v.decodeErrs.Add(1) // e.g. a delta frame before the first keyframe
			continue
		}
		f.Decoded = time.Now()
		if img != nil {
			f.Image = img
			v.decodedN.Add(1)
			v.mu.Lock()
			v.w, v.h = img.Rect.Dx(), img.Rect.Dy()
			v.mu.Unlock()
		}
		if v.opt.OnFrame != nil {
			v.opt.OnFrame(f)
		}
	}
}

// Location is the session's URL on the server.
func (v *Viewer) Location() string { return v.location }

// Connected is closed when the connection is up.
func (v *Viewer) Connected() <-chan struct{} { return v.connected }

// Done is closed when the connection has failed or closed.
func (v *Viewer) Done() <-chan struct{} { return v.done }

// Track is closed when the video track has arrived (see SSRC).
func (v *Viewer) Track() <-chan struct{} { return v.track }

// SSRC is the video track's SSRC, 0 before it arrived.
func (v *Viewer) SSRC() uint32 { return v.ssrc.Load() }

// PeerConnection is the viewer's connection, for tests that send their
// own RTCP.
func (v *Viewer) PeerConnection() *webrtc.PeerConnection { return v.pc }

// LastState is the game state of the last "state" message, as JSON (nil
// before the first).
func (v *Viewer) LastState() json.RawMessage {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastState
}

// Stats returns the counters now.
func (v *Viewer) Stats() Stats {
	st := Stats{Packets: v.packets.Load(), Bytes: v.bytes.Load(), FramesReceived: v.frames.Load(), Keyframes: v.keyframes.Load(),
		FramesBroken: v.broken.Load(), FramesDecoded: v.decodedN.Load(), DecodeErrors: v.decodeErrs.Load(),
		DecodeSkipped: v.skipped.Load(), StateMessages: v.states.Load()}
	v.mu.Lock()
	st.Width, st.Height = v.w, v.h
	v.mu.Unlock()
	return st
}

// RequestKeyframe sends a PLI for the video track.
func (v *Viewer) RequestKeyframe() error {
	ssrc := v.ssrc.Load()
	if ssrc == 0 {
		return ErrNoTrack
	}
	select {
	case <-v.done:
		return ErrClosed
	default:
	}
	return v.pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}})
}

// SendText sends a text message on the state DataChannel (the server
// ignores what viewers say; tests check that it does).
func (v *Viewer) SendText(s string) error {
	if v.dc == nil {
		return ErrNoDataChannel
	}
	return v.dc.SendText(s)
}

// Close leaves: DELETE on the server, then the connection closes; it
// returns once the viewer's goroutines have ended. The error is the
// DELETE's (404 counts as done: the server had ended the session).
func (v *Viewer) Close() error {
	var err error
	v.closeOnce.Do(func() {
		err = v.deleteSession()
		v.shutdown()
	})
	return err
}

// Abort closes the connection without telling the server, as a browser
// tab that was killed (tests).
func (v *Viewer) Abort() {
	v.closeOnce.Do(v.shutdown)
}

func (v *Viewer) shutdown() {
	_ = v.pc.Close()
	v.doneOnce.Do(func() { close(v.done) })
	v.wg.Wait()
}

func (v *Viewer) deleteSession() error {
	if v.location == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, v.location, nil)
	if err != nil {
		return fmt.Errorf("whep: %w", err)
	}
	if v.opt.Token != "" {
		req.Header.Set("Authorization", "Bearer "+v.opt.Token)
	}
	res, err := v.client.Do(req)
	if err != nil {
		return fmt.Errorf("whep: DELETE %s: %w", v.location, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	switch res.StatusCode {
	case http.StatusOK, http.StatusNoContent, http.StatusNotFound:
		return nil
	}
	return &StatusError{Method: http.MethodDelete, URL: v.location, Code: res.StatusCode, Msg: string(bytes.TrimSpace(body))}
}

// Decoder decodes VP8 frames one at a time, as the server's WHIP ingest
// does. It is not safe for concurrent use.
type Decoder struct{ d *vp8.Decoder }

// NewDecoder makes a VP8 decoder; Close frees it.
func NewDecoder() (*Decoder, error) {
	d, err := vp8.NewDecoder()
	if err != nil {
		return nil, fmt.Errorf("whep: %w", err)
	}
	return &Decoder{d}, nil
}

// Decode decodes one whole VP8 frame. The picture is nil (and the error
// too) when the frame shows nothing; it is a copy, the caller's to keep.
func (d *Decoder) Decode(frame []byte) (*image.YCbCr, error) {
	img, err := d.d.Decode(frame)
	if err != nil || img == nil {
		if err != nil {
			err = fmt.Errorf("whep: %w", err)
		}
		return nil, err
	}
	y, ok := img.(*image.YCbCr)
	if !ok {
		return nil, fmt.Errorf("whep: decoded a %T", img)
	}
	return y, nil
}

// Close frees the decoder.
func (d *Decoder) Close() error { return d.d.Close() }
