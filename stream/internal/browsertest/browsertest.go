// Package browsertest drives Debian's chromium headless through the
// DevTools protocol, for the browser tests of the stream packages. The
// tests fail, not skip, without it: scripts/setup installs it (apt-get
// install -y chromium). Set LIGRETTO_SCREENSHOTS=DIR to keep screenshots
// of the pages.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is the path of the browser the tests drive.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: apt-get install -y chromium (scripts/setup does it)")
	return ""
}

// Start starts a headless chromium for the test, with the flags that work
// on this closed network, and extra ones; it ends with the test, and every
// call made with the context it returns fails after 90 s.
func Start(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTime()
		cancelCtx()
		cancelAlloc()
	})
	if _, err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// EvalUntil evaluates expr (which may return a promise) until ok accepts
// the value, and fails the test when it does not within d.
func EvalUntil[T any](t testing.TB, ctx context.Context, what, expr string, d time.Duration, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(d)
	var last T
	var lastErr error
	for time.Now().Before(deadline) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
		if err == nil && ok(v) {
			return v
		}
		last, lastErr = v, err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: still %v (err %v) after %v", what, last, lastErr, d)
	return last
}

// Screenshot saves the page as DIR/name when LIGRETTO_SCREENSHOTS=DIR.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LIGRETTO_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
