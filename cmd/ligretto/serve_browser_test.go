package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ligretto/stream"
)

// TestServe_DemoInARealBrowser runs `ligretto serve --source demo` and
// opens the spectator page in Debian's chromium: the video plays (WebRTC
// stats count decoded frames of the rendered table), the scoreboard fills
// with the players the camera pipeline calibrated, and its calls on cards
// appear in the feed (every one by the camera, says the API). With
// LIGRETTO_SCREENSHOTS=DIR it leaves demo.png there.
func TestServe_DemoInARealBrowser(t *testing.T) {
	chrome, err := findChromium()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	var stdout lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--addr", "127.0.0.1:0", "--udp-port", "0", "--speed", "4"}, &stdout, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	base := servedAddress(t, &stdout)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	bctx, cancelT := context.WithTimeout(bctx, 120*time.Second)
	defer cancelT()
	if _, err := chromedp.Run(bctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	until := func(what, expr string, d time.Duration, ok func(string) bool) {
		t.Helper()
		var last string
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			v, err := chromedp.Run(bctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
			if err == nil && ok(v) {
				return
			}
			last = v
		}
		t.Fatalf("%s: still %q after %v", what, last, d)
	}
	until("decoded frames", `(async () => { const v = window.ligrettoViewer && window.ligrettoViewer(); return String(v ? await v.framesDecoded() : 0); })()`,
		60*time.Second, func(s string) bool { return s != "0" && s != "" })
	until("video size", `String(document.getElementById('video').videoWidth)`, 20*time.Second, func(s string) bool { return s == "1280" })
	until("scoreboard", `[...document.querySelectorAll('#scores tr .name span:nth-child(2)')].map(e => e.textContent).join(',')`,
		60*time.Second, func(s string) bool { return s == "P1,P2,P3,P4" || strings.Count(s, "P") == 4 })
	until("a referee call on a card", `[...document.querySelectorAll('#feed li')].map(e => e.textContent).join('|')`,
		60*time.Second, func(s string) bool { return strings.Contains(s, " on ") || strings.Contains(s, "new pile") })
	tok := regexp.MustCompile(`operator token \(shown once\): (\S+)`).FindStringSubmatch(stdout.String())
	if tok == nil {
		t.Fatalf("no operator token printed: %q", stdout.String())
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/api/state", nil)
	req.Header.Set("Authorization", "Bearer "+tok[1])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st stream.GameState
	err = json.NewDecoder(res.Body).Decode(&st)
	res.Body.Close()
	if err != nil || len(st.Feed) == 0 {
		t.Fatalf("state: %v, %d feed items", err, len(st.Feed))
	}
	for _, f := range st.Feed {
		if f.By != "camera" {
			t.Errorf("feed item %s (%s) by %q, want the camera pipeline's", f.Kind, f.Reason, f.By)
		}
	}
	if dir := os.Getenv("LIGRETTO_SCREENSHOTS"); dir != "" {
		time.Sleep(8 * time.Second) // past the first seconds, when the picture is still catching up
		png, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err == nil {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "demo.png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// findChromium finds Debian's chromium; scripts/setup installs it.
func findChromium() (string, error) {
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}
