package stream

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"ligretto/referee"
	"ligretto/stream/whepclient"
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

// decoded is one frame the viewer received (and decoded, if asked).
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

// testViewer is a whepclient.Viewer whose frames (with the frame number
// read back from each decoded picture) and state messages come out on
// channels.
type testViewer struct {
	*whepclient.Viewer
	frames chan decoded
	states chan GameState
	ssrc   chan uint32
}

// plainViewer offers VP8 with PLI only and sends no receiver reports.
func plainViewer() whepclient.Options { return plainViewerWith(nil) }

func plainViewerWith(tweak func(*webrtc.SettingEngine)) whepclient.Options {
	return whepclient.Options{LoopbackOnly: true, SettingEngine: tweak}
}

// browserLikeViewer offers what a browser offers for VP8 (generic NACK,
// PLI and FIR feedback), so that the server keeps its NACK history for
// it, and sends receiver reports.
func browserLikeViewer(tweak func(*webrtc.SettingEngine)) whepclient.Options {
	return whepclient.Options{LoopbackOnly: true, BrowserLike: true, SettingEngine: tweak}
}

func viewerAPI() *webrtc.API {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack", Parameter: "pli"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		panic(err)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithSettingEngine(loopbackSettings()))
}

func browserLikeViewerAPI() *webrtc.API {
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000,
			RTCPFeedback: []webrtc.RTCPFeedback{{Type: "nack"}, {Type: "nack", Parameter: "pli"}, {Type: "ccm", Parameter: "fir"}}},
		PayloadType: 96,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		panic(err)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(me), webrtc.WithSettingEngine(loopbackSettings()))
}

func loopbackSettings() webrtc.SettingEngine {
	se := webrtc.SettingEngine{}
	se.SetIncludeLoopbackCandidate(true)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	return se
}

// newOfferPC makes a receive-only peer connection and its offer, with all
// candidates in it (for tests that post offers themselves).
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

// dialViewer connects a viewer to the server at base.
func dialViewer(base string, wo whepclient.Options, opt viewerOptions) (*testViewer, error) {
	v := &testViewer{frames: make(chan decoded, 256), states: make(chan GameState, 64), ssrc: make(chan uint32, 1)}
	wo.Decode, wo.NoDataChannel, wo.OnRTP = opt.decode, opt.noDC, opt.onRTP
	wo.OnFrame = func(f whepclient.Frame) {
		d := decoded{at: f.Received, key: f.Keyframe}
		if opt.decode {
			if f.Image == nil {
				return
			}
			d.at = f.Decoded
			d.seq, d.stamped = readStamp(f.Image)
			if opt.keepImgs {
				d.img = f.Image
			}
		}
		select {
		case v.frames <- d:
		default:
		}
	}
	wo.OnState = func(b json.RawMessage) {
		var st GameState
		if json.Unmarshal(b, &st) != nil {
			return
		}
		select {
		case v.states <- st:
		default:
		}
	}
	vw, err := whepclient.Dial(context.Background(), base+"/whep", wo)
	if err != nil {
		return nil, err
	}
	v.Viewer = vw
	go func() {
		select {
		case <-vw.Track():
			v.ssrc <- vw.SSRC()
		case <-vw.Done():
		}
	}()
	return v, nil
}

// sendPLI asks the server for a keyframe.
func (v *testViewer) sendPLI(uint32) error { return v.RequestKeyframe() }

// close leaves with DELETE and closes the peer connection.
func (v *testViewer) close() { _ = v.Close() }

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
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		hs.Close()
	})
	return &testServer{Server: s, URL: hs.URL, http: hs}
}
