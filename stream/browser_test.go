package stream

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ligretto/referee"
	"ligretto/stream/internal/browsertest"
)

// The browser tests drive Debian's chromium headless through the DevTools
// protocol (stream/internal/browsertest, which the LiveKit room page's tests
// share). They fail, not skip, without it: scripts/setup installs it
// (apt-get install -y chromium). Set LIGRETTO_SCREENSHOTS=DIR to keep
// screenshots of the pages.

// browser starts a headless chromium for the test, with the flags that work
// on this closed network, and extra ones.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	return browsertest.Start(t, extra...)
}

// evalUntil evaluates expr (which may return a promise) until ok accepts
// the value.
func evalUntil[T any](t *testing.T, ctx context.Context, what, expr string, d time.Duration, ok func(T) bool) T {
	t.Helper()
	return browsertest.EvalUntil(t, ctx, what, expr, d, ok)
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browsertest.Screenshot(t, ctx, name)
}

const framesDecodedJS = `(async () => { const v = window.ligrettoViewer && window.ligrettoViewer(); return v ? await v.framesDecoded() : 0; })()`

// TestBrowser_SpectatorPage: in a real browser the page plays the video
// (WebRTC stats count decoded frames), fills the scoreboard and the piles,
// shows the referee's verdicts with their rule IDs, and follows changes.
func TestBrowser_SpectatorPage(t *testing.T) {
	ts := startServer(t, testConfig(), newTestSource(640, 360, 25))
	playSomeGame(t, ts.game)
	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "frames decoded", framesDecodedJS, 30*time.Second, func(n int) bool { return n > 0 })
	evalUntil(t, ctx, "video size", `document.getElementById('video').videoWidth`, 10*time.Second, func(w int) bool { return w == 640 })
	evalUntil(t, ctx, "status", `document.getElementById('status').textContent`, 10*time.Second, func(s string) bool { return s == "Live" })
	evalUntil(t, ctx, "overlay hidden", `document.getElementById('overlay').classList.contains('hidden')`, 10*time.Second, func(b bool) bool { return b })
	names := evalUntil(t, ctx, "scoreboard", `[...document.querySelectorAll('#scores tr .name span:nth-child(2)')].map(e => e.textContent).join(',')`,
		10*time.Second, func(s string) bool { return s != "" })
	if names != "P1,P2,P3" {
		t.Fatalf("scoreboard names %q", names)
	}
	evalUntil(t, ctx, "a C7 foul in the feed", `[...document.querySelectorAll('#feed li.s-violation .rule')].map(e => e.textContent).join(',')`,
		10*time.Second, func(s string) bool { return strings.Contains(s, "C7") })
	evalUntil(t, ctx, "the pile", `document.querySelector('#piles .card .num') && document.querySelector('#piles .card .num').textContent`,
		10*time.Second, func(s string) bool { return s == "3" })

	// A top the camera reads unsure shows "?" until it reads it sure again.
	const pileShown = `(() => { const c = document.querySelector('#piles .card'); return c ? c.querySelector('.num').textContent + (c.classList.contains('unsure') ? ' unsure' : '') : ''; })()`
	ts.game.SetUnsure([]int{1})
	evalUntil(t, ctx, "the unsure pile", pileShown, 10*time.Second, func(s string) bool { return s == "? unsure" })
	ts.game.SetUnsure(nil)
	evalUntil(t, ctx, "the pile read sure again", pileShown, 10*time.Second, func(s string) bool { return s == "3" })

	// A change on the server shows up: the stop, with its rule.
	if err := ts.game.Stop("P2"); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the stop in the feed", `document.querySelector('#feed li .rule') && document.querySelector('#feed li .rule').textContent`,
		10*time.Second, func(s string) bool { return s == "C13" })
	evalUntil(t, ctx, "the banner", `document.getElementById('banner').textContent`, 10*time.Second,
		func(s string) bool { return strings.Contains(s, "stop by P2") })
	for _, o := range []referee.Observation{
		{Kind: referee.ObsCentre, Player: "P1", Count: 3}, {Kind: referee.ObsStackLeft, Player: "P1", Count: 0},
		{Kind: referee.ObsCentre, Player: "P2", Count: 0}, {Kind: referee.ObsStackLeft, Player: "P2", Count: 2},
	} {
		if _, err := ts.game.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	evalUntil(t, ctx, "live scores", `[...document.querySelectorAll('#scores td.live')].map(e => e.textContent).join(',')`,
		10*time.Second, func(s string) bool { return s == "+3,-4" })
	if _, err := ts.game.Apply(referee.Observation{Kind: referee.ObsRoundEnd}); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "totals", `[...document.querySelectorAll('#scores td.total')].map(e => e.textContent).join(',')`,
		10*time.Second, func(s string) bool { return s == "3,0,-4" })
	screenshot(t, ctx, "spectator.png")
}

// TestBrowser_ShowsStreamDownAndReconnects: when the server ends the
// session the page says so plainly, then reconnects by itself.
func TestBrowser_ShowsStreamDownAndReconnects(t *testing.T) {
	ts := startServer(t, testConfig(), newTestSource(320, 240, 25))
	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "frames decoded", framesDecodedJS, 30*time.Second, func(n int) bool { return n > 0 })
	for _, v := range ts.snapshotSessions() {
		ts.endSession(v, "test")
	}
	evalUntil(t, ctx, "the down notice", `document.getElementById('status').textContent + ' | ' + document.getElementById('overlay-title').textContent`,
		15*time.Second, func(s string) bool { return s == "Stream down | The stream is down" })
	screenshot(t, ctx, "spectator-down.png")
	evalUntil(t, ctx, "reconnected", `document.getElementById('status').textContent`, 30*time.Second, func(s string) bool { return s == "Live" })
	evalUntil(t, ctx, "frames again", framesDecodedJS, 20*time.Second, func(n int) bool { return n > 0 })
	if n := ts.Stats().Sessions; n != 1 {
		t.Fatalf("%d sessions after reconnecting", n)
	}
}

// TestBrowser_Console: the console refuses a wrong token, and with the
// right one its buttons drive the game.
func TestBrowser_Console(t *testing.T) {
	ts := startServer(t, testConfig(), newTestSource(640, 360, 25))
	playSomeGame(t, ts.game)
	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/console")); err != nil {
		t.Fatal(err)
	}
	login := func(token string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.SendKeys(chromedp.ID("token"), token)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.CSS("#login-form button"))); err != nil {
			t.Fatal(err)
		}
	}
	login("not-the-token")
	evalUntil(t, ctx, "refusal", `document.getElementById('login-error').textContent`, 10*time.Second,
		func(s string) bool { return strings.Contains(s, "refused") })
	login(testToken)
	evalUntil(t, ctx, "the desk", `!document.getElementById('desk').hidden`, 10*time.Second, func(b bool) bool { return b })
	evalUntil(t, ctx, "players to stop", `document.querySelectorAll('#stop-player option').length`, 10*time.Second, func(n int) bool { return n == 4 })

	// Correct pile 1, then call the stop for P3.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`
		document.getElementById('ov-pile').value = '1';
		document.getElementById('ov-colour').value = 'yellow';
		document.getElementById('ov-number').value = '6';
		document.querySelector('#override button').click();`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the correction", func() bool {
		p := ts.game.State().Piles
		return len(p) == 1 && p[0].Top == referee.Face{Colour: referee.Yellow, Number: 6}
	})
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`
		document.getElementById('stop-player').value = 'P3';
		document.getElementById('stop').click();`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the stop", func() bool { st := ts.game.State(); return st.Phase == referee.PhaseCounting && st.StoppedBy == "P3" })
	evalUntil(t, ctx, "the activity log", `document.querySelector('#log li .reason').textContent`, 10*time.Second,
		func(s string) bool { return s == "Stop called by P3" })
	evalUntil(t, ctx, "frames decoded in the live view", `(async () => { const s = document.getElementById('video').getVideoPlaybackQuality(); return s.totalVideoFrames; })()`,
		30*time.Second, func(n int) bool { return n > 0 })
	evalUntil(t, ctx, "the calibration preview", `document.getElementById('preview').naturalWidth`, 15*time.Second, func(n int) bool { return n == 640 })
	screenshot(t, ctx, "console.png")
}
