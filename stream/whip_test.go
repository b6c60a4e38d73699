package stream

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"

	"ligretto/referee"
	"ligretto/stream/whipclient"
)

const testCameraToken = "test-camera-token"

// ---- an Ingest that remembers what it saw ----

// seenPicture is a summary of one picture the Ingest got (the picture
// itself may not be kept).
type seenPicture struct {
	w, h   int
	corner color.RGBA // at (w/10, h/10), away from the moving box
	ycc    [3]uint8   // the same point as decoded, if the picture is YCbCr
	at     time.Time
}

type recordingIngest struct {
	pics chan seenPicture
	mu   sync.Mutex
	live []bool
}

func newRecordingIngest() *recordingIngest {
	return &recordingIngest{pics: make(chan seenPicture, 4096)}
}

func (r *recordingIngest) IngestFrame(img image.Image, at time.Time) {
	b := img.Bounds()
	x, y := b.Min.X+b.Dx()/10, b.Min.Y+b.Dy()/10
	c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
	var ycc [3]uint8
	if yc, ok := img.(*image.YCbCr); ok {
		ycc = [3]uint8{yc.Y[yc.YOffset(x, y)], yc.Cb[yc.COffset(x, y)], yc.Cr[yc.COffset(x, y)]}
	}
	select {
	case r.pics <- seenPicture{w: b.Dx(), h: b.Dy(), corner: c, ycc: ycc, at: at}:
	default:
	}
}

func (r *recordingIngest) IngestLive(live bool) {
	r.mu.Lock()
	r.live = append(r.live, live)
	r.mu.Unlock()
}

func (r *recordingIngest) liveCalls() []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bool(nil), r.live...)
}

// waitPicture returns the first picture that satisfies ok.
func (r *recordingIngest) waitPicture(t testing.TB, d time.Duration, what string, ok func(seenPicture) bool) seenPicture {
	t.Helper()
	deadline := time.After(d)
	var last seenPicture
	n := 0
	for {
		select {
		case p := <-r.pics:
			n++
			last = p
			if ok(p) {
				return p
			}
		case <-deadline:
			t.Fatalf("%s: no such picture within %v (%d seen, the last %+v)", what, d, n, last)
		}
	}
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return abs(int(x)-int(y)) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ---- pictures to publish ----

// colourFrame is a plain picture of bg with a white box that moves with i.
func colourFrame(w, h int, bg color.RGBA, i int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = bg.R, bg.G, bg.B, 255
	}
	bw := w / 6
	x0 := w/4 + (i*5)%(w/2)
	for y := h / 2; y < h/2+h/6; y++ {
		for x := x0; x < x0+bw && x < w; x++ {
			img.SetRGBA(x, y, color.RGBA{250, 250, 250, 255})
		}
	}
	return img
}

// publishFor sends pictures of size w x h and colour bg at 25 fps for d,
// or until the publisher ends. It may run in its own goroutine: a failure
// is reported with Errorf.
func publishFor(t testing.TB, p *whipclient.Publisher, w, h int, bg color.RGBA, d time.Duration) {
	end := time.Now().Add(d)
	tick := time.NewTicker(40 * time.Millisecond)
	defer tick.Stop()
	for i := 0; time.Now().Before(end); i++ {
		if err := p.Send(colourFrame(w, h, bg, i)); err != nil {
			if errors.Is(err, whipclient.ErrClosed) {
				return
			}
			t.Errorf("send: %v", err)
			return
		}
		<-tick.C
	}
}

// ---- a server with a camera ----

func whipConfig(ing Ingest) Config {
	cfg := testConfig()
	cfg.CameraToken = testCameraToken
	cfg.Ingest = ing
	return cfg
}

func dialCamera(ctx context.Context, ts *testServer, token string, tweak func(*whipclient.Options)) (*whipclient.Publisher, error) {
	opt := whipclient.Options{Token: token, LoopbackOnly: true, ICETimeouts: &[3]time.Duration{time.Second, 2 * time.Second, 500 * time.Millisecond}}
	if tweak != nil {
		tweak(&opt)
	}
	return whipclient.Dial(ctx, ts.URL+"/whip", opt)
}

func mustDialCamera(t testing.TB, ts *testServer, tweak func(*whipclient.Options)) *whipclient.Publisher {
	t.Helper()
	p, err := dialCamera(context.Background(), ts, testCameraToken, tweak)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func waitConnected(t testing.TB, p *whipclient.Publisher) {
	t.Helper()
	select {
	case <-p.Connected():
	case <-p.Done():
		t.Fatal("the publisher's connection ended before it connected")
	case <-time.After(10 * time.Second):
		t.Fatal("the publisher did not connect within 10 s")
	}
}

func statusCode(err error) int {
	var se *whipclient.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// TestWHIP_PublishDecodesPictures: the Go publisher streams coloured
// pictures with a moving box, then smaller ones of another colour; the
// Ingest gets decoded pictures of each size and colour, is told when the
// camera comes and goes, and the stats count it all.
func TestWHIP_PublishDecodesPictures(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	p := mustDialCamera(t, ts, nil)
	waitConnected(t, p)
	if !strings.HasPrefix(p.Location(), ts.URL+"/whip/") {
		t.Fatalf("Location %q", p.Location())
	}

	red, blue := color.RGBA{200, 40, 40, 255}, color.RGBA{40, 60, 210, 255}
	done := make(chan struct{})
	go func() {
		defer close(done)
		publishFor(t, p, 640, 360, red, 2*time.Second)
		publishFor(t, p, 320, 180, blue, 2*time.Second)
	}()
	ing.waitPicture(t, 10*time.Second, "640x360 red", func(s seenPicture) bool {
		return s.w == 640 && s.h == 360 && near(s.corner, red, 24)
	})
	ing.waitPicture(t, 10*time.Second, "320x180 blue", func(s seenPicture) bool {
		return s.w == 320 && s.h == 180 && near(s.corner, blue, 24)
	})
	<-done
	st := ts.IngestStats()
	if !st.Live || st.Publishers != 1 || st.Decoded < 40 {
		t.Fatalf("stats while live: %+v", st)
	}
	// Every decoded picture is the right colour for its size: nothing
	// smeared between the two.
	for len(ing.pics) > 0 {
		s := <-ing.pics
		want := map[int]color.RGBA{640: red, 320: blue}[s.w]
		if !near(s.corner, want, 24) {
			t.Fatalf("a %dx%d picture of colour %v", s.w, s.h, s.corner)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the camera to leave", func() bool { return !ts.IngestStats().Live })
	if got := ing.liveCalls(); len(got) != 2 || !got[0] || got[1] {
		t.Fatalf("IngestLive calls %v, want [true false]", got)
	}
}

// TestWHIP_Auth: publishing needs the camera token, and the camera token
// opens only publishing and the camera's status.
func TestWHIP_Auth(t *testing.T) {
	ts := startServer(t, whipConfig(nil), nil)
	ctx := context.Background()
	for _, tok := range []string{"", "wrong-token-123", testToken} {
		_, err := dialCamera(ctx, ts, tok, nil)
		if statusCode(err) != http.StatusUnauthorized {
			t.Fatalf("token %q: %v, want 401", tok, err)
		}
	}
	h := ts.Handler()
	for _, path := range []string{"/api/state", "/api/status"} {
		if w := do(t, h, "GET", path, "", testCameraToken, ""); w.Code != http.StatusUnauthorized {
			t.Fatalf("camera token on %s: %d", path, w.Code)
		}
	}
	if w := do(t, h, "POST", "/api/camera/token", "", testCameraToken, ""); w.Code != http.StatusUnauthorized {
		t.Fatalf("camera token renewing itself: %d", w.Code)
	}
	if w := do(t, h, "POST", "/api/round", "", testCameraToken, ""); w.Code != http.StatusUnauthorized {
		t.Fatalf("camera token starting a round: %d", w.Code)
	}
	// The status: either token, nothing else.
	for tok, want := range map[string]int{testCameraToken: 200, testToken: 200, "": 401, "nope-nope-nope": 401} {
		if w := do(t, h, "GET", "/api/camera/status", "", tok, ""); w.Code != want {
			t.Fatalf("camera status with %q: %d %s, want %d", tok, w.Code, w.Body, want)
		}
	}
	// A server without a camera token refuses every camera.
	cfg := testConfig()
	s2 := startServer(t, cfg, nil)
	_, err := dialCamera(ctx, s2, testCameraToken, nil)
	if statusCode(err) != http.StatusForbidden || !strings.Contains(err.Error(), "no camera publishing") {
		t.Fatalf("no camera token configured: %v", err)
	}
	if _, err := New(Config{Token: testToken, CameraToken: testToken}, newTestSource(8, 8, 1), NewRefereeGame(referee.New(), nil)); !errors.Is(err, ErrConfig) {
		t.Fatalf("camera token = operator token: %v", err)
	}
	if _, err := New(Config{CameraToken: "a b c d e f"}, newTestSource(8, 8, 1), NewRefereeGame(referee.New(), nil)); !errors.Is(err, ErrConfig) {
		t.Fatalf("camera token with spaces: %v", err)
	}
}

// TestWHIP_OnePublisherAtATime: a second camera gets 409 while one is
// live; after the first leaves by DELETE, or vanishes without a word,
// another is accepted.
func TestWHIP_OnePublisherAtATime(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	a := mustDialCamera(t, ts, nil)
	waitConnected(t, a)
	// The client may see the connection up before the server does; a
	// camera that leaves before the server saw it connected is not
	// counted, so wait for the server too.
	waitFor(t, 5*time.Second, "the first camera to be live", func() bool { return ts.IngestStats().Live })
	if _, err := dialCamera(context.Background(), ts, testCameraToken, nil); statusCode(err) != http.StatusConflict {
		t.Fatalf("a second publisher: %v, want 409", err)
	}
	if err := a.Close(); err != nil { // DELETE
		t.Fatal(err)
	}
	bSock, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := mustDialCamera(t, ts, func(o *whipclient.Options) { o.UDPConn = bSock })
	waitConnected(t, b)
	waitFor(t, 5*time.Second, "the second camera to be live", func() bool { return ts.IngestStats().Live })
	go publishFor(t, b, 320, 180, color.RGBA{30, 160, 30, 255}, 2*time.Second)
	ing.waitPicture(t, 10*time.Second, "a picture from the second camera", func(seenPicture) bool { return true })

	// b vanishes: its socket dies first, so no DELETE and no DTLS close
	// reach the server. The ICE timeouts free the slot.
	bSock.Close()
	b.Abort()
	t0 := time.Now()
	time.Sleep(500 * time.Millisecond)
	if !ts.IngestStats().Live {
		t.Fatal("the server noticed at once: the camera did not vanish silently")
	}
	waitFor(t, 15*time.Second, "the vanished camera to be dropped", func() bool { return !ts.IngestStats().Live })
	t.Logf("a vanished camera freed the slot after %v", time.Since(t0).Round(100*time.Millisecond))
	c := mustDialCamera(t, ts, nil)
	waitConnected(t, c)
	waitFor(t, 5*time.Second, "the third camera to be live", func() bool { return ts.IngestStats().Live })
	if st := ts.IngestStats(); st.Publishers != 3 {
		t.Fatalf("stats %+v, want 3 publishers so far", st)
	}
}

// TestWHIP_BadRequests: refusals with their status and a message that
// says what is wrong; none reaches pion.
func TestWHIP_BadRequests(t *testing.T) {
	ts := startServer(t, whipConfig(nil), nil)
	h := ts.Handler()
	offer := makePublishOffer(t, webrtc.MimeTypeVP8)
	h264 := makePublishOffer(t, webrtc.MimeTypeH264)
	for _, c := range []struct {
		name, method, path, ctype, body string
		code                            int
		msg                             string
	}{
		{"no VP8", "POST", "/whip", sdpType, h264, 422, "VP8 video is required"},
		{"receive-only VP8", "POST", "/whip", sdpType, makeOffer(t), 422, "VP8 video is required"},
		{"too big", "POST", "/whip", sdpType, offer + strings.Repeat("a=x-pad:0123456789\r\n", 8000), 413, "larger than"},
		{"garbage after", "POST", "/whip", sdpType, offer + "\x00\x01\x02 garbage", 400, "not an SDP line"},
		{"junk line after", "POST", "/whip", sdpType, offer + "hello world\r\n", 400, "not an SDP line"},
		{"not SDP", "POST", "/whip", sdpType, "GIF89a", 400, "bad SDP offer"},
		{"empty", "POST", "/whip", sdpType, "", 400, "empty"},
		{"wrong type", "POST", "/whip", "text/plain", offer, 415, "application/sdp"},
		{"GET", "GET", "/whip", "", "", 405, "not allowed"},
		{"PUT session", "PUT", "/whip/abc", "", "", 405, "not allowed"},
		{"DELETE unknown", "DELETE", "/whip/abc", "", "", 404, "no such WHIP session"},
		{"PATCH unknown", "PATCH", "/whip/abc", sdpFragType, "a=candidate:1 1 udp 1 127.0.0.1 9 typ host\r\n", 404, "no such WHIP session"},
	} {
		w := do(t, h, c.method, c.path, c.ctype, testCameraToken, c.body)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s: %d %q, want %d with %q", c.name, w.Code, w.Body, c.code, c.msg)
		}
	}
	if st := ts.IngestStats(); st.Publishers != 0 {
		t.Fatalf("stats %+v", st)
	}
	// The slot was given back after every refusal.
	p := mustDialCamera(t, ts, nil)
	waitConnected(t, p)
}

// makePublishOffer is a pion offer that sends one video track of mime.
func makePublishOffer(t testing.TB, mime string) string {
	t.Helper()
	me := &webrtc.MediaEngine{}
	if err := me.RegisterCodec(webrtc.RTPCodecParameters{
		RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: mime, ClockRate: 90000}, PayloadType: 102,
	}, webrtc.RTPCodecTypeVideo); err != nil {
		t.Fatal(err)
	}
	pc, err := webrtc.NewAPI(webrtc.WithMediaEngine(me)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tr, err := webrtc.NewTrackLocalStaticSample(webrtc.RTPCodecCapability{MimeType: mime, ClockRate: 90000}, "v", "s")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.AddTransceiverFromTrack(tr, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendonly}); err != nil {
		t.Fatal(err)
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	return o.SDP
}

// TestWHIP_TrickleICE: PATCH takes candidates for a live session, and
// refuses an ICE restart, a stale ETag and the wrong type.
func TestWHIP_TrickleICE(t *testing.T) {
	ts := startServer(t, whipConfig(nil), nil)
	w := do(t, ts.Handler(), "POST", "/whip", sdpType, testCameraToken, makePublishOffer(t, webrtc.MimeTypeVP8))
	if w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	loc, etag := w.Header().Get("Location"), w.Header().Get("ETag")
	if !strings.HasPrefix(loc, "/whip/") || etag == "" || w.Header().Get("Content-Type") != sdpType {
		t.Fatalf("headers %v", w.Header())
	}
	ufrag := iceUfrag(makePublishOffer(t, webrtc.MimeTypeVP8)) // another session's
	cand := "a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host\r\n"
	patch := func(ctype, ifMatch, body string) int {
		req := newRequest(http.MethodPatch, loc, ctype, body)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		return serve(ts.Handler(), req).Code
	}
	if c := patch(sdpFragType, etag, "m=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n"+cand); c != http.StatusNoContent {
		t.Fatalf("a candidate: %d", c)
	}
	if c := patch(sdpFragType, `"stale"`, cand); c != http.StatusPreconditionFailed {
		t.Fatalf("a stale ETag: %d", c)
	}
	if c := patch(sdpFragType, "", "a=ice-ufrag:"+ufrag+"\r\na=ice-pwd:x\r\n"); c != http.StatusUnprocessableEntity {
		t.Fatalf("an ICE restart: %d", c)
	}
	if c := patch("text/plain", "", cand); c != http.StatusUnsupportedMediaType {
		t.Fatalf("the wrong type: %d", c)
	}
	if w := do(t, ts.Handler(), "DELETE", loc, "", "", ""); w.Code != http.StatusOK {
		t.Fatalf("DELETE: %d", w.Code)
	}
	if w := do(t, ts.Handler(), "DELETE", loc, "", "", ""); w.Code != http.StatusNotFound {
		t.Fatalf("DELETE again: %d", w.Code)
	}
}

// TestWHIP_NewCameraTokenEndsPublisher: renewing the token (by the API)
// cuts the live camera off, the old token gets 401, the new one works.
func TestWHIP_NewCameraTokenEndsPublisher(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	p := mustDialCamera(t, ts, nil)
	waitConnected(t, p)
	waitFor(t, 5*time.Second, "live", func() bool { return ts.IngestStats().Live })

	w := do(t, ts.Handler(), "POST", "/api/camera/token", "", testToken, "")
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var got struct{ Token, Path string }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Token) < 16 || got.Token == testCameraToken || got.Path != "/camera?token="+got.Token || ts.CameraToken() != got.Token {
		t.Fatalf("new token %+v (server has %q)", got, ts.CameraToken())
	}
	if ts.IngestStats().Live {
		t.Fatal("the camera is still live after the token was renewed")
	}
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the publisher's connection did not end")
	}
	if got := ing.liveCalls(); len(got) != 2 || got[1] {
		t.Fatalf("IngestLive calls %v", got)
	}
	if _, err := dialCamera(context.Background(), ts, testCameraToken, nil); statusCode(err) != http.StatusUnauthorized {
		t.Fatalf("the old token: %v, want 401", err)
	}
	q, err := dialCamera(context.Background(), ts, got.Token, nil)
	if err != nil {
		t.Fatalf("the new token: %v", err)
	}
	defer q.Close()
	waitConnected(t, q)
	// A server that started without a camera token gets one.
	s2 := startServer(t, testConfig(), nil)
	tok, err := s2.NewCameraToken()
	if err != nil || tok == "" || s2.CameraToken() != tok {
		t.Fatalf("%q %v", tok, err)
	}
}

// TestWHIP_KeyframeRequestsAfterLoss: after packets are lost the server
// asks for a keyframe, again and again until one comes; pictures flow
// again after it.
func TestWHIP_KeyframeRequestsAfterLoss(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	var mu sync.Mutex
	dropping := false
	p := mustDialCamera(t, ts, func(o *whipclient.Options) {
		o.DropPacket = func(pkt *rtp.Packet) bool {
			mu.Lock()
			defer mu.Unlock()
			// While dropping, lose one packet in seven.
			return dropping && pkt.SequenceNumber%7 == 0
		}
	})
	waitConnected(t, p)
	bg := color.RGBA{180, 120, 30, 255}
	stop := make(chan struct{})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if err := p.Send(colourFrame(320, 180, bg, i)); err != nil {
				return
			}
		}
	}()
	defer func() { close(stop); <-sent }()
	ing.waitPicture(t, 10*time.Second, "a first picture", func(seenPicture) bool { return true })
	start := ts.IngestStats()
	keysBefore := p.Stats().Keyframes

	mu.Lock()
	dropping = true
	mu.Unlock()
	time.Sleep(1500 * time.Millisecond)
	mu.Lock()
	dropping = false
	mu.Unlock()
	lossy := ts.IngestStats()
	if lossy.Dropped <= start.Dropped || lossy.KeyframeRequests < start.KeyframeRequests+2 {
		t.Fatalf("after loss: %+v (before %+v): want drops and repeated keyframe requests", lossy, start)
	}
	if ps := p.Stats(); ps.KeyRequests < 2 || ps.Keyframes <= keysBefore || ps.PacketsDrop == 0 {
		t.Fatalf("publisher stats %+v (keyframes before the loss %d)", ps, keysBefore)
	}
	// After the loss, pictures come again, and the requests stop.
	for len(ing.pics) > 0 {
		<-ing.pics
	}
	ing.waitPicture(t, 5*time.Second, "a picture after the loss", func(s seenPicture) bool { return near(s.corner, bg, 24) })
	time.Sleep(time.Second)
	a := ts.IngestStats().KeyframeRequests
	time.Sleep(time.Second)
	if b := ts.IngestStats().KeyframeRequests; b != a {
		t.Fatalf("keyframe requests went on after the stream recovered: %d then %d", a, b)
	}
}

// TestWHIP_NoKeyframeAskedForAtACleanStart: a stream starts with a
// keyframe; when it comes whole, the server asks for no other. A second
// keyframe straight after the first is starved of bits by the publisher's
// rate control: a blurred, off-colour picture for a second, from which the
// calibrator learned an empty table that did not match the table (the
// phone end-to-end test's "halfway: phase no_match").
func TestWHIP_NoKeyframeAskedForAtACleanStart(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	p := mustDialCamera(t, ts, nil)
	waitConnected(t, p)
	publishFor(t, p, 320, 180, color.RGBA{60, 140, 90, 255}, firstKeyframeWait+time.Second)
	ing.waitPicture(t, 5*time.Second, "a picture", func(seenPicture) bool { return true })
	if st, ps := ts.IngestStats(), p.Stats(); st.KeyframeRequests != 0 || ps.KeyRequests != 0 || ps.Keyframes != 1 || st.Dropped != 0 {
		t.Fatalf("a clean start: server %+v, publisher %+v: want no keyframe asked for, one sent, nothing dropped", st, ps)
	}
}

// TestWHIP_FirstKeyframeLost: when a stream's first keyframe is lost, the
// delta frames after it show it, and the server asks for a keyframe at
// once (not only after firstKeyframeWait): pictures flow within a moment.
func TestWHIP_FirstKeyframeLost(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	var first atomic.Int64 // the first frame's RTP timestamp, plus one
	p := mustDialCamera(t, ts, func(o *whipclient.Options) {
		o.DropPacket = func(pkt *rtp.Packet) bool {
			first.CompareAndSwap(0, int64(pkt.Timestamp)+1)
			return int64(pkt.Timestamp)+1 == first.Load()
		}
	})
	waitConnected(t, p)
	bg := color.RGBA{200, 160, 40, 255}
	start := time.Now()
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		publishFor(t, p, 320, 180, bg, 2*time.Second)
	}()
	defer func() { <-sent }()
	pic := ing.waitPicture(t, 5*time.Second, "a picture after the lost keyframe", func(s seenPicture) bool { return near(s.corner, bg, 24) })
	if d := pic.at.Sub(start); d >= firstKeyframeWait {
		t.Errorf("the first picture came %v after the first frame was sent: the lost keyframe was asked for late", d)
	}
	if st, ps := ts.IngestStats(), p.Stats(); st.KeyframeRequests < 1 || ps.KeyRequests < 1 || ps.Keyframes < 2 || ps.PacketsDrop == 0 {
		t.Fatalf("server %+v, publisher %+v: want the first keyframe dropped, another asked for and sent", st, ps)
	}
}

// TestWHIP_CameraStatus: the status route serves the Config's function,
// with Live from the server itself.
func TestWHIP_CameraStatus(t *testing.T) {
	cfg := whipConfig(nil)
	cfg.CameraStatus = func() CameraStatus {
		return CameraStatus{Markers: 7, Calibrated: true, Prompt: "Player 2: lay one card back in your seat"}
	}
	ts := startServer(t, cfg, nil)
	get := func() CameraStatus {
		w := do(t, ts.Handler(), "GET", "/api/camera/status", "", testCameraToken, "")
		var st CameraStatus
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &st) != nil {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		return st
	}
	if st := get(); st.Live || st.Markers != 4 || !st.Calibrated || st.Prompt != "Player 2: lay one card back in your seat" {
		t.Fatalf("%+v", st)
	}
	p := mustDialCamera(t, ts, nil)
	waitConnected(t, p)
	waitFor(t, 5*time.Second, "live in the status", func() bool { return get().Live })
}

// TestWHIP_NoLeakedGoroutines: cameras come and go (DELETE, vanishing,
// an offer that never connects, a refusal) and the goroutine count comes
// back, on both sides; closing the server brings it back to the start.
func TestWHIP_NoLeakedGoroutines(t *testing.T) {
	start := settledGoroutines(0, 200*time.Millisecond)
	cfg := whipConfig(newRecordingIngest())
	cfg.ConnectTimeout = 500 * time.Millisecond
	s, err := New(cfg, newTestSource(64, 48, 5), NewRefereeGame(referee.New(), nil))
	if err != nil {
		t.Fatal(err)
	}
	ing := cfg.Ingest.(*recordingIngest)
	hs := httptestServer(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	ts := &testServer{Server: s, URL: hs.URL, http: hs}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		hs.Close()
	}()
	camera := func(tweak func(*whipclient.Options)) *whipclient.Publisher {
		t.Helper()
		p, err := dialCamera(context.Background(), ts, testCameraToken, tweak)
		if err != nil {
			t.Fatal(err)
		}
		waitConnected(t, p)
		publishFor(t, p, 160, 120, color.RGBA{90, 90, 200, 255}, 600*time.Millisecond)
		ing.waitPicture(t, 10*time.Second, "a picture", func(seenPicture) bool { return true })
		return p
	}
	notLive := func() bool { st := s.IngestStats(); return !st.Live && s.lookupPublisherAny() == nil }
	// A first camera, so that whatever pion starts once per process is in
	// the baseline.
	if err := camera(nil).Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the first camera to leave", notLive)
	ts.http.CloseClientConnections()
	http.DefaultClient.CloseIdleConnections()
	running := settledGoroutines(0, 500*time.Millisecond)

	// By DELETE.
	if err := camera(nil).Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the camera to leave", notLive)
	// Vanished.
	sock, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := camera(func(o *whipclient.Options) { o.UDPConn = sock })
	sock.Close()
	p.Abort()
	waitFor(t, 15*time.Second, "the vanished camera to be dropped", notLive)
	// An offer that never connects, and a refusal.
	if w := do(t, s.Handler(), "POST", "/whip", sdpType, testCameraToken, makePublishOffer(t, webrtc.MimeTypeVP8)); w.Code != http.StatusCreated {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := do(t, s.Handler(), "POST", "/whip", sdpType, testCameraToken, makePublishOffer(t, webrtc.MimeTypeVP8)); w.Code != http.StatusConflict {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	waitFor(t, 5*time.Second, "the unconnected offer to expire", notLive)
	ts.http.CloseClientConnections()
	http.DefaultClient.CloseIdleConnections()
	if n := settledGoroutines(running, 15*time.Second); n > running {
		t.Fatalf("%d goroutines after the cameras left, %d before:\n%s", n, running, relevant(goroutineDump()))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil
	hs.Close()
	if n := settledGoroutines(start, 15*time.Second); n > start {
		t.Fatalf("%d goroutines after the server closed, %d at the start:\n%s", n, start, relevant(goroutineDump()))
	}
}

// FuzzWHIP throws arbitrary offers and requests at the WHIP routes. None
// may panic or fail with 500, and a session made is ended.
//
//	go test -run '^$' -fuzz FuzzWHIP -fuzztime 1m ./stream
func FuzzWHIP(f *testing.F) {
	offer := makePublishOffer(f, webrtc.MimeTypeVP8)
	f.Add("POST", "/whip", []byte(offer))
	f.Add("POST", "/whip", []byte(makePublishOffer(f, webrtc.MimeTypeH264)))
	f.Add("POST", "/whip", []byte(offer[:len(offer)/2]))
	f.Add("POST", "/whip", []byte(offer+"\x00garbage"))
	f.Add("POST", "/whip", []byte("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\na=sendonly\r\n"))
	f.Add("POST", "/whip", []byte("v=0\r\nm=video 0 RTP 96\r\na=rtpmap:96 vp8/90000\r\n"))
	f.Add("PATCH", "/whip/0123", []byte("a=candidate:1 1 udp 1 127.0.0.1 9 typ host\r\n"))
	f.Add("DELETE", "/whip/x", []byte(nil))
	cfg := whipConfig(nil)
	s, err := New(cfg, newTestSource(64, 48, 5), NewRefereeGame(referee.New(), nil))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		_ = checkPublishOffer(string(body)) // must not panic
		if !strings.HasPrefix(path, "/whip") || strings.ContainsAny(path, " ?#%") {
			return
		}
		ctype := sdpType
		if method == "PATCH" {
			ctype = sdpFragType
		}
		req, err := http.NewRequest(method, "http://stream.test"+path, strings.NewReader(string(body)))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Authorization", "Bearer "+testCameraToken)
		w := serve(h, req)
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %q: %d %s", method, path, w.Code, w.Body)
		}
		if w.Code >= 400 && w.Body.Len() == 0 {
			t.Fatalf("%s %q: %d without a message", method, path, w.Code)
		}
		if loc := w.Header().Get("Location"); w.Code == http.StatusCreated {
			serve(h, newRequest(http.MethodDelete, loc, "", ""))
		}
	})
}

// TestWHIP_PublishFunc: whipclient.Publish streams a channel of pictures
// and ends the session when the channel closes; a refusal is a
// *StatusError with the code.
func TestWHIP_PublishFunc(t *testing.T) {
	ing := newRecordingIngest()
	ts := startServer(t, whipConfig(ing), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := whipclient.Publish(ctx, ts.URL+"/whip", "wrong-token", nil, 25); statusCode(err) != http.StatusUnauthorized ||
		!strings.Contains(err.Error(), "401") {
		t.Fatalf("a wrong token: %v", err)
	}
	green := color.RGBA{40, 180, 60, 255}
	frames := make(chan image.Image)
	go func() {
		defer close(frames)
		for i := 0; i < 75; i++ { // 3 s at 25 fps
			select {
			case frames <- colourFrame(320, 240, green, i):
			case <-ctx.Done():
				return
			}
		}
	}()
	if err := whipclient.Publish(ctx, ts.URL+"/whip", testCameraToken, frames, 25); err != nil {
		t.Fatal(err)
	}
	ing.waitPicture(t, 5*time.Second, "a green picture", func(s seenPicture) bool { return s.w == 320 && near(s.corner, green, 24) })
	waitFor(t, 5*time.Second, "the session to end", func() bool { return ts.lookupPublisherAny() == nil && !ts.IngestStats().Live })
	if st := ts.IngestStats(); st.Decoded < 60 {
		t.Fatalf("stats %+v", st)
	}
}
