package stream

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// writeY4M writes n frames of w x h 4:2:0 video: a plain colour (y, cb,
// cr) with a light box that moves, for chromium's fake camera.
func writeY4M(t *testing.T, w, h, n int, y, cb, cr uint8) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "camera.y4m")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	// bufio.Writer keeps the first write error for Flush, checked below.
	put := func(b []byte) { _, _ = bw.Write(b) }
	fmt.Fprintf(bw, "YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n", w, h)
	luma := make([]byte, w*h)
	chroma := make([]byte, (w/2)*(h/2))
	for i := 0; i < n; i++ {
		put([]byte("FRAME\n"))
		for p := range luma {
			luma[p] = y
		}
		x0 := w/4 + (i*8)%(w/2)
		for yy := h / 2; yy < h/2+h/6; yy++ {
			for xx := x0; xx < x0+w/8; xx++ {
				luma[yy*w+xx] = 220
			}
		}
		put(luma)
		for p := range chroma {
			chroma[p] = cb
		}
		put(chroma)
		for p := range chroma {
			chroma[p] = cr
		}
		put(chroma)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestWHIP_BrowserCameraPage: a real chromium with a fake camera (a y4m
// file of a known colour) opens /camera with the token, publishes by WHIP,
// and the Ingest gets pictures of that colour; the page shows what the
// CameraStatus function says.
func TestWHIP_BrowserCameraPage(t *testing.T) {
	const prompt = "Player 2: lay one card back in your seat"
	ing := newRecordingIngest()
	cfg := whipConfig(ing)
	cfg.CameraStatus = func() CameraStatus { return CameraStatus{Markers: 3, Prompt: prompt} }
	ts := startServer(t, cfg, nil)
	// A reddish orange in BT.601 limited range.
	const wantY, wantCb, wantCr = 110, 80, 200
	y4m := writeY4M(t, 640, 360, 25, wantY, wantCb, wantCr)
	ctx := browser(t,
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-video-capture", y4m),
	)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/camera?token="+testCameraToken)); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "status", `document.getElementById('status').textContent + ' | ' + document.getElementById('conn').textContent + ' | ' + JSON.stringify(window.ligrettoCamera.state())`, 20*time.Second, func(s string) bool { return strings.HasPrefix(s, "Live |") })
	pic := ing.waitPicture(t, 20*time.Second, "a picture of the fake camera's colour", func(s seenPicture) bool {
		d := func(a, b uint8) int { return abs(int(a) - int(b)) }
		return s.w == 640 && s.h == 360 && d(s.ycc[0], wantY) <= 12 && d(s.ycc[1], wantCb) <= 12 && d(s.ycc[2], wantCr) <= 12
	})
	t.Logf("decoded %dx%d, YCbCr %v at the corner", pic.w, pic.h, pic.ycc)
	evalUntil(t, ctx, "the prompt", `document.getElementById('prompt').textContent`, 10*time.Second, func(s string) bool { return s == prompt })
	evalUntil(t, ctx, "the markers", `document.getElementById('markers').textContent + '|' + document.querySelectorAll('#marker-dots i.on').length`,
		10*time.Second, func(s string) bool { return s == "Markers: 3 of 4|3" })
	evalUntil(t, ctx, "frames sent", `window.ligrettoCamera.framesSent()`, 10*time.Second, func(n int) bool { return n > 10 })
	if st := ts.IngestStats(); !st.Live || st.Publishers != 1 || st.Decoded == 0 {
		t.Fatalf("stats %+v", st)
	}
	screenshot(t, ctx, "camera.png")

	// The server ends the camera (a new token would too): the page
	// reconnects by itself.
	ts.camMu.Lock()
	p := ts.pub
	ts.camMu.Unlock()
	ts.endPublisher(p, "test")
	t0 := time.Now()
	defer func() { t.Logf("after the server ended the camera: %v", time.Since(t0)) }()
	waitFor(t, 20*time.Second, "the page to publish again", func() bool { st := ts.IngestStats(); return st.Live && st.Publishers == 2 })
	evalUntil(t, ctx, "status", `document.getElementById('status').textContent`, 10*time.Second, func(s string) bool { return s == "Live" })

	t.Logf("the page published again after %v", time.Since(t0))
	// A renewed token: the page says its link is out of date.
	if _, err := ts.NewCameraToken(); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the out-of-date notice", `document.getElementById('notice-title').textContent`, 20*time.Second,
		func(s string) bool { return strings.Contains(s, "does not work any more") })
}

// TestWHIP_BrowserCameraPageDenied: with the camera refused, the page
// says so and how to allow it.
func TestWHIP_BrowserCameraPageDenied(t *testing.T) {
	ts := startServer(t, whipConfig(nil), nil)
	ctx := browser(t, chromedp.Flag("use-fake-device-for-media-stream", true), chromedp.Flag("deny-permission-prompts", true))
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/camera?token="+testCameraToken)); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the denied notice", `document.getElementById('notice-title').textContent + '|' + document.getElementById('notice-steps').textContent`,
		15*time.Second, func(s string) bool {
			return strings.Contains(s, "Camera access was denied") && strings.Contains(s, "allow the camera")
		})
	if st := ts.IngestStats(); st.Publishers != 0 {
		t.Fatalf("stats %+v", st)
	}
}
