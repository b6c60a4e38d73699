package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/report"
	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/rtcp"
	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"

	"ligretto/referee"
)

const testToken = "test-operator-token"

// ---- a frame source that stamps each frame's number into its pixels ----

// The stamp: a pure red patch at the top left (a known colour), then two
// rows of 16 blocks: the frame number's bits, and the same bits inverted
// (so a misread is caught).
const stampBits = 16

func stampBlock(w int) int { return max(8, w/40) }

func stamp(img *image.RGBA, seq uint64) {
	b := stampBlock(img.Rect.Dx())
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(0, 0, 4*b, 4*b, color.RGBA{255, 0, 0, 255})
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
	for i := 0; i < stampBits; i++ {
		bit := seq>>(stampBits-1-i)&1 == 1
		c, inv := black, white
		if bit {
			c, inv = white, black
		}
		x := 5*b + i*b
		fill(x, 0, x+b, 2*b, c)
		fill(x, 2*b, x+b, 4*b, inv)
	}
}

// readStamp decodes the frame number; ok is false if the two rows disagree.
func readStamp(img *image.YCbCr) (seq uint64, ok bool) {
	b := stampBlock(img.Rect.Dx())
	luma := func(x, y int) uint8 { return img.Y[img.YOffset(x, y)] }
	for i := 0; i < stampBits; i++ {
		x := 5*b + i*b + b/2
		top, bottom := luma(x, b), luma(x, 3*b)
		if (top > 128) == (bottom > 128) {
			return 0, false
		}
		seq <<= 1
		if top > 128 {
			seq |= 1
		}
	}
	return seq, true
}

// patchColour is the decoded YCbCr at the middle of the red patch.
func patchColour(img *image.YCbCr) (y, cb, cr uint8) {
	b := stampBlock(img.Rect.Dx())
	return img.Y[img.YOffset(2*b, 2*b)], img.Cb[img.COffset(2*b, 2*b)], img.Cr[img.COffset(2*b, 2*b)]
}

// testSource draws frames of a moving gradient with the stamp, at fps, and
// remembers when each was made.
type testSource struct {
	w, h int
	fps  int
	mu   sync.Mutex
	sent map[uint64]time.Time
}

func newTestSource(w, h, fps int) *testSource {
	return &testSource{w: w, h: h, fps: fps, sent: map[uint64]time.Time{}}
}

func (s *testSource) sentAt(seq uint64) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.sent[seq]
	return t, ok
}

func (s *testSource) Frames(ctx context.Context) <-chan Frame {
	out := make(chan Frame, 1)
	go func() {
		defer close(out)
		bg := image.NewRGBA(image.Rect(0, 0, s.w, s.h))
		for y := 0; y < s.h; y++ {
			for x := 0; x < s.w; x++ {
				bg.SetRGBA(x, y, color.RGBA{uint8(40 + x*120/s.w), uint8(90 + y*80/s.h), 60, 255})
			}
		}
		tick := time.NewTicker(time.Second / time.Duration(s.fps))
		defer tick.Stop()
		for seq := uint64(1); ; seq++ {
			img := image.NewRGBA(bg.Rect)
			copy(img.Pix, bg.Pix)
			// something that moves, so that frames differ
			bx := int(seq*7) % max(1, s.w-s.w/6)
			for y := s.h / 2; y < s.h/2+s.h/6; y++ {
				for x := bx; x < bx+s.w/6; x++ {
					img.SetRGBA(x, y, color.RGBA{250, 250, 250, 255})
				}
			}
			stamp(img, seq&(1<<stampBits-1))
			now := time.Now()
			s.mu.Lock()
			s.sent[seq&(1<<stampBits-1)] = now
			s.mu.Unlock()
			select {
			case out <- Frame{Image: img, Seq: seq, Time: now}:
			case <-ctx.Done():
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// ---- a server under test ----

type testServer struct {
	*Server
	URL  string
	game *RefereeGame
	src  *testSource
	http *httptest.Server
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func testConfig() Config {
	return Config{Token: testToken, UDPAddr: "127.0.0.1:0", AuthFailDelay: -1, Logger: quietLogger(),
		KeyframeEvery: 1000, StateInterval: 20 * time.Millisecond}
}

// startServer runs a server with a test source until the test ends.
func startServer(t testing.TB, cfg Config, src *testSource) *testServer {
	t.Helper()
	if src == nil {
		src = newTestSource(320, 240, 25)
	}
	game := NewRefereeGame(referee.New(), nil)
	s, err := New(cfg, src, game)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		hs.Close()
	})
	return &testServer{Server: s, URL: hs.URL, game: game, src: src, http: hs}
}

// playSomeGame starts a match and a round with a legal pile and a foul (C7).
func playSomeGame(t testing.TB, g *RefereeGame) {
	t.Helper()
	red := func(n int) *referee.Face { return &referee.Face{Colour: referee.Red, Number: n} }
	for _, o := range []referee.Observation{
		{Kind: referee.ObsMatch, Players: referee.DefaultPlayers(3)},
		{Kind: referee.ObsRound},
		{Kind: referee.ObsPileNew, Pile: 1, Card: red(1)},
		{Kind: referee.ObsPileShows, Pile: 1, Card: red(2)},
		{Kind: referee.ObsPileShows, Pile: 1, Card: &referee.Face{Colour: referee.Blue, Number: 3}},
	} {
		if _, err := g.Apply(o); err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
	}
}

// ---- a WHEP viewer in Go ----

// decoded is one frame the viewer decoded.
type decoded struct {
	seq     uint64
	stamped bool
	at      time.Time
	key     bool
	img     *image.YCbCr
}

type viewerOptions struct {
	decode   bool // decode VP8 (costs CPU); otherwise only count frames
	noDC     bool // do not open the state DataChannel
	keepImgs bool
	// onRTP, if set, sees every RTP packet the viewer receives.
	onRTP func(*rtp.Packet)
}

// testViewer is a pion WHEP client that assembles VP8 frames from RTP and
// decodes them with libvpx (mediadevices' decoder).
type testViewer struct {
	pc       *webrtc.PeerConnection
	dc       *webrtc.DataChannel
	location string
	base     string
	frames   chan decoded
	states   chan GameState
	ssrc     chan uint32
	keyCount chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	encoded  int
	closed   bool
}

func viewerAPI() *webrtc.API { return viewerAPIWith(nil) }

func viewerAPIWith(tweak func(*webrtc.SettingEngine)) *webrtc.API {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack", Parameter: "pli"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		panic(err)
	}
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	if tweak != nil {
		tweak(&se)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithSettingEngine(se))
}

// browserLikeViewerAPI is a viewer that offers what a browser offers for
// VP8 (generic NACK, PLI and FIR feedback), so that the server keeps its
// NACK history for it, and sends receiver reports.
func browserLikeViewerAPI() *webrtc.API { return browserLikeViewerAPIWith(nil) }

func browserLikeViewerAPIWith(tweak func(*webrtc.SettingEngine)) *webrtc.API {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		panic(err)
	}
	reg := &interceptor.Registry{}
	rr, err := report.NewReceiverInterceptor()
	if err != nil {
		panic(err)
	}
	reg.Add(rr)
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	if tweak != nil {
		tweak(&se)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithInterceptorRegistry(reg), webrtc.WithSettingEngine(se))
}

// newOfferPC makes a viewer's peer connection and its offer, with all
// candidates in it.
func newOfferPC(api *webrtc.API, withDC bool) (pc *webrtc.PeerConnection, dc *webrtc.DataChannel, offer string, err error) {
	pc, err = api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, nil, "", err
	}
	fail := func(err error) (*webrtc.PeerConnection, *webrtc.DataChannel, string, error) {
		pc.Close()
		return nil, nil, "", err
	}
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionRecvonly}); err != nil {
		return fail(err)
	}
	if withDC {
		if dc, err = pc.CreateDataChannel("state", nil); err != nil {
			return fail(err)
		}
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(o); err != nil {
		return fail(err)
	}
	<-gathered
	return pc, dc, pc.LocalDescription().SDP, nil
}

// makeOffer returns a valid offer from a peer connection that is closed at once.
func makeOffer(t testing.TB) string {
	t.Helper()
	pc, _, offer, err := newOfferPC(viewerAPI(), true)
	if err != nil {
		t.Fatal(err)
	}
	pc.Close()
	return offer
}

func dialViewer(base string, api *webrtc.API, opt viewerOptions) (*testViewer, error) {
	pc, dc, offer, err := newOfferPC(api, !opt.noDC)
	if err != nil {
		return nil, err
	}
	v := &testViewer{pc: pc, base: base, frames: make(chan decoded, 256), states: make(chan GameState, 64),
		ssrc: make(chan uint32, 1), keyCount: make(chan struct{}, 1024)}
	if dc != nil {
		v.dc = dc
		v.watchState(dc)
	}
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		v.ssrc <- uint32(tr.SSRC())
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			v.readTrack(tr, opt)
		}()
	})
	res, err := http.Post(base+"/whep", "application/sdp", strings.NewReader(offer))
	if err != nil {
		pc.Close()
		return nil, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		pc.Close()
		return nil, &httpError{res.StatusCode, strings.TrimSpace(string(body))}
	}
	v.location = res.Header.Get("Location")
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: string(body)}); err != nil {
		pc.Close()
		return nil, err
	}
	return v, nil
}

// watchState routes the state DataChannel's messages to v.states.
func (v *testViewer) watchState(dc *webrtc.DataChannel) {
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		var msg stateMessage
		if json.Unmarshal(m.Data, &msg) != nil || msg.Type != "state" {
			return
		}
		select {
		case v.states <- msg.State:
		default:
		}
	})
}

type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.msg) }

// frameReader hands the decoder one whole VP8 frame per Read.
type frameReader struct{ ch <-chan []byte }

func (r frameReader) Read(p []byte) (int, error) {
	b, ok := <-r.ch
	if !ok {
		return 0, io.EOF
	}
	if len(b) > len(p) {
		return 0, errors.New("frame larger than the decoder's buffer")
	}
	return copy(p, b), nil
}

// readTrack assembles frames (packets of one timestamp, up to the marker)
// and decodes them.
func (v *testViewer) readTrack(tr *webrtc.TrackRemote, opt viewerOptions) {
	var dec codec.VideoDecoder
	var toDecoder chan []byte
	var decDone chan struct{}
	if opt.decode {
		toDecoder = make(chan []byte, 64)
		decDone = make(chan struct{})
		d, err := vpx.NewDecoder(frameReader{toDecoder}, prop.Media{})
		if err != nil {
			panic(err)
		}
		dec = d
		go func() {
			defer close(decDone)
			defer dec.Close()
			for {
				img, release, err := dec.Read()
				if errors.Is(err, io.EOF) {
					return
				}
				if err != nil {
					continue // e.g. a delta frame before the first keyframe
				}
				y := img.(*image.YCbCr)
				seq, ok := readStamp(y)
				d := decoded{seq: seq, stamped: ok, at: time.Now()}
				if opt.keepImgs {
					d.img = y
				}
				release()
				select {
				case v.frames <- d:
				default:
				}
			}
		}()
	}
	defer func() {
		if toDecoder != nil {
			close(toDecoder)
			<-decDone
		}
	}()
	var (
		buf     []byte
		ts      uint32
		lastSeq uint16
		started bool
		broken  bool
		vp8     codecs.VP8Packet
	)
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		if opt.onRTP != nil {
			opt.onRTP(pkt)
		}
		if started && pkt.SequenceNumber != lastSeq+1 {
			broken = true // a lost packet: wait for the next frame
		}
		started, lastSeq = true, pkt.SequenceNumber
		if pkt.Timestamp != ts {
			buf, ts, broken = buf[:0], pkt.Timestamp, false
		}
		payload, err := vp8.Unmarshal(pkt.Payload)
		if err != nil {
			broken = true
			continue
		}
		buf = append(buf, payload...)
		if !pkt.Marker || broken {
			continue
		}
		frame := bytes.Clone(buf)
		buf = buf[:0]
		v.mu.Lock()
		v.encoded++
		v.mu.Unlock()
		if isVP8Key(frame) {
			select {
			case v.keyCount <- struct{}{}:
			default:
			}
		}
		if toDecoder != nil {
			select {
			case toDecoder <- frame:
			default:
			}
		} else {
			select {
			case v.frames <- decoded{at: time.Now(), key: isVP8Key(frame)}:
			default:
			}
		}
	}
}

// sendPLI asks the server for a keyframe.
func (v *testViewer) sendPLI(ssrc uint32) error {
	return v.pc.WriteRTCP([]rtcp.Packet{&rtcp.PictureLossIndication{MediaSSRC: ssrc}})
}

// close leaves with DELETE and closes the peer connection.
func (v *testViewer) close() {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.closed = true
	v.mu.Unlock()
	if v.location != "" {
		req, _ := http.NewRequest(http.MethodDelete, v.base+v.location, nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}
	v.pc.Close()
	v.wg.Wait()
}

// waitFrame returns the next decoded frame that satisfies ok.
func (v *testViewer) waitFrame(t testing.TB, d time.Duration, ok func(decoded) bool) decoded {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case f := <-v.frames:
			if ok(f) {
				return f
			}
		case <-deadline:
			t.Fatalf("no suitable frame within %v", d)
		}
	}
}

// waitState returns the first state message that satisfies ok.
func (v *testViewer) waitState(t testing.TB, d time.Duration, ok func(GameState) bool) GameState {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case s := <-v.states:
			if ok(s) {
				return s
			}
		case <-deadline:
			t.Fatalf("no suitable state within %v", d)
		}
	}
}

// do sends a request to the test server's handler.
func do(t testing.TB, h http.Handler, method, path, contentType, token string, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newRequest(method, path, contentType, body string) *http.Request {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

// stoppingSource sends n small frames, then nothing until ctx ends.
type stoppingSource struct{ n int }

func (s *stoppingSource) Frames(ctx context.Context) <-chan Frame {
	out := make(chan Frame)
	go func() {
		defer close(out)
		for i := 0; i < s.n; i++ {
			select {
			case out <- Frame{Image: image.NewRGBA(image.Rect(0, 0, 32, 32)), Seq: uint64(i)}:
			case <-ctx.Done():
				return
			}
		}
		<-ctx.Done()
	}()
	return out
}

func httptestServer(s *Server) *httptest.Server { return httptest.NewServer(s.Handler()) }

// startServerWith runs s behind an HTTP server until the test ends.
func startServerWith(t testing.TB, s *Server) *testServer {
	t.Helper()
	hs := httptestServer(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		hs.Close()
	})
	return &testServer{Server: s, URL: hs.URL, http: hs}
}
