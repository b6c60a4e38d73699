package stream

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"ligretto/referee"
)

// The overlay is for an OBS browser source of 1920x1080 over a camera.
const overlayW, overlayH = 1920, 1080

// transparentPage makes the page's default background transparent, as
// OBS's browser source has it. The colour is sent by hand: cdp.RGBA
// leaves an alpha of 0 out of its JSON, and the browser reads a missing
// alpha as 1, an opaque black.
func transparentPage() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return t.Call(ctx, emulation.CommandSetDefaultBackgroundColorOverride,
			map[string]any{"color": map[string]any{"r": 0, "g": 0, "b": 0, "a": 0}}, nil)
	})
}

// overlayBrowser is a browser with a 1920x1080 transparent viewport.
func overlayBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx := browser(t, chromedp.WindowSize(overlayW, overlayH))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(overlayW, overlayH), transparentPage()); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// shot takes a PNG of the viewport and decodes it. It keeps the PNG in
// the test's temp dir, and in $LIGRETTO_SCREENSHOTS (as the other browser
// tests do) for a human to look at.
func shot(t *testing.T, ctx context.Context, name string) image.Image {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{t.TempDir(), os.Getenv("LIGRETTO_SCREENSHOTS")} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != overlayW || sz.Y != overlayH {
		t.Fatalf("%s is %v, want %dx%d", name, sz, overlayW, overlayH)
	}
	return img
}

// box is a DOM rectangle in CSS pixels (one per device pixel here).
type box struct {
	X, Y, W, H float64
	Shown      bool
}

func (b box) rect(margin int) image.Rectangle {
	return image.Rect(int(math.Floor(b.X))-margin, int(math.Floor(b.Y))-margin,
		int(math.Ceil(b.X+b.W))+margin, int(math.Ceil(b.Y+b.H))+margin)
}

func boxOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => {
		const e = document.querySelector(`+"`"+sel+"`"+`);
		if (!e) return { X: 0, Y: 0, W: 0, H: 0, Shown: false };
		const r = e.getBoundingClientRect();
		return { X: r.x, Y: r.y, W: r.width, H: r.height, Shown: e.getClientRects().length > 0 };
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// alphaCensus counts, in img, the pixels outside in that are not fully
// transparent, and inside in the opaque and the partly transparent ones.
func alphaCensus(img image.Image, in image.Rectangle) (outside, opaque, partly int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			_, _, _, a := img.At(x, y).RGBA()
			switch inside := image.Pt(x, y).In(in); {
			case !inside && a != 0:
				outside++
			case inside && a == 0xffff:
				opaque++
			case inside && a != 0:
				partly++
			}
		}
	}
	return outside, opaque, partly
}

// scoreRound plays the rest of playSomeGame's round: P2 stops, the
// counts, the score. Totals: P1 3, P2 -4, P3 0 (not counted).
func scoreRound(t *testing.T, g *RefereeGame) {
	t.Helper()
	if err := g.Stop("P2"); err != nil {
		t.Fatal(err)
	}
	for _, o := range []referee.Observation{
		{Kind: referee.ObsCentre, Player: "P1", Count: 3}, {Kind: referee.ObsStackLeft, Player: "P1", Count: 0},
		{Kind: referee.ObsCentre, Player: "P2", Count: 0}, {Kind: referee.ObsStackLeft, Player: "P2", Count: 2},
		{Kind: referee.ObsRoundEnd},
	} {
		if _, err := g.Apply(o); err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
	}
}

const (
	overlayNamesJS  = `[...document.querySelectorAll('#scores .name')].map(e => e.textContent).join(',')`
	overlayTotalsJS = `[...document.querySelectorAll('#scores .total')].map(e => e.textContent).join(',')`
	overlayRoundsJS = `[...document.querySelectorAll('#scores .round')].map(e => e.textContent).join(',')`
)

// TestOverlay_TransparentCorner: over a transparent background the
// overlay draws the scores, the pile tops and the calls in the top right
// corner, each on a dark backing, and nothing anywhere else; with
// ?corner=bl&panels=scores only the scoreboard, at the bottom left.
func TestOverlay_TransparentCorner(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	playSomeGame(t, ts.game)
	scoreRound(t, ts.game)
	ctx := overlayBrowser(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the players", overlayNamesJS, 10*time.Second, func(s string) bool { return s == "P1,P3,P2" })
	if s := evalUntil(t, ctx, "the totals", overlayTotalsJS, time.Second, func(string) bool { return true }); s != "3,0,-4" {
		t.Fatalf("totals %q", s)
	}
	if s := evalUntil(t, ctx, "the round scores", overlayRoundsJS, time.Second, func(string) bool { return true }); s != "+3,0,-4" {
		t.Fatalf("round scores %q", s)
	}
	evalUntil(t, ctx, "the pile top", `[...document.querySelectorAll('#piles .card .num')].map(e => e.textContent).join(',')`,
		5*time.Second, func(s string) bool { return s == "3" })
	// The latest five calls, newest first, as the spectator page's feed.
	feed := ts.game.State().Feed
	var want []string
	for i := len(feed) - 1; i >= len(feed)-5; i-- {
		want = append(want, feed[i].Reason)
	}
	evalUntil(t, ctx, "the calls", `[...document.querySelectorAll('#feed li .reason')].map(e => e.textContent).join('|')`,
		5*time.Second, func(s string) bool { return s == strings.Join(want, "|") })
	if s := evalUntil(t, ctx, "the newest call", `document.querySelector('#feed li .chip').textContent`, time.Second, func(string) bool { return true }); s != "Scored" {
		t.Fatalf("the newest call is %q, want the round scored", s)
	}
	for _, p := range []string{"#panel-scores", "#panel-piles", "#panel-calls"} {
		if !boxOf(t, ctx, p).Shown {
			t.Fatalf("%s is not shown", p)
		}
	}
	if boxOf(t, ctx, "#reconnecting").Shown {
		t.Fatal("the reconnecting mark is shown on a live stream")
	}

	stack := boxOf(t, ctx, "#stack")
	if cornerOf(stack) != "tr" || math.Abs(stack.W-460) > 1 {
		t.Fatalf("the panels are at %+v, want 460 px wide in the top right corner", stack)
	}
	img := shot(t, ctx, "overlay-tr.png")
	outside, opaque, partly := alphaCensus(img, stack.rect(1))
	if outside != 0 {
		t.Fatalf("%d pixels drawn outside the panels %+v", outside, stack)
	}
	// Text and cards are opaque; the backing around them is partly so.
	if opaque < 2000 || partly < stack.rect(0).Dx()*stack.rect(0).Dy()/3 {
		t.Fatalf("panels: %d opaque and %d partly transparent pixels", opaque, partly)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay?corner=bl&panels=scores")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the players", overlayNamesJS, 10*time.Second, func(s string) bool { return s == "P1,P3,P2" })
	if s := evalUntil(t, ctx, "the totals", overlayTotalsJS, time.Second, func(string) bool { return true }); s != "3,0,-4" {
		t.Fatalf("totals %q", s)
	}
	for p, want := range map[string]bool{"#panel-scores": true, "#panel-piles": false, "#panel-calls": false} {
		if boxOf(t, ctx, p).Shown != want {
			t.Fatalf("%s shown: %v, want %v", p, !want, want)
		}
	}
	scores := boxOf(t, ctx, "#panel-scores")
	if cornerOf(scores) != "bl" {
		t.Fatalf("the scoreboard is at %+v, want the bottom left corner", scores)
	}
	img = shot(t, ctx, "overlay-bl-scores.png")
	outside, opaque, _ = alphaCensus(img, scores.rect(1))
	if outside != 0 || opaque < 1000 {
		t.Fatalf("bottom left: %d pixels outside the scoreboard %+v, %d opaque inside", outside, scores, opaque)
	}
}

// cornerOf names the corner whose two edges b keeps 32 px from.
func cornerOf(b box) string {
	near := func(v, want float64) bool { return math.Abs(v-want) <= 1 }
	c := "?"
	switch {
	case near(b.Y, 32):
		c = "t"
	case near(b.Y+b.H, overlayH-32):
		c = "b"
	}
	switch {
	case near(b.X, 32):
		return c + "l"
	case near(b.X+b.W, overlayW-32):
		return c + "r"
	}
	return c + "?"
}

// TestOverlay_Options: scale is clamped to 0.5..3 and a bad value is
// ignored; so are an unknown corner and unknown panels.
func TestOverlay_Options(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	playSomeGame(t, ts.game)
	ctx := overlayBrowser(t)
	for _, c := range []struct {
		query  string
		width  float64
		corner string
		panels string
	}{
		{"", 460, "tr", "scores,piles,calls"},
		{"?scale=2&corner=tl", 920, "tl", "scores,piles,calls"},
		{"?scale=9&corner=br&panels=calls,piles", 1380, "br", "piles,calls"},
		{"?scale=0.1", 230, "tr", "scores,piles,calls"},
		{"?scale=big&corner=middle&panels=video,nonsense", 460, "tr", "scores,piles,calls"},
		{"?scale=1.5&panels=piles,,bogus", 690, "tr", "piles"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay"+c.query)); err != nil {
			t.Fatal(err)
		}
		shown := evalUntil(t, ctx, c.query+": panels shown",
			`['scores', 'piles', 'calls'].filter(p => document.getElementById('panel-' + p).getClientRects().length > 0).join(',')`,
			10*time.Second, func(s string) bool { return s != "" })
		if shown != c.panels {
			t.Errorf("%s: panels %q, want %q", c.query, shown, c.panels)
		}
		stack := boxOf(t, ctx, "#stack")
		if math.Abs(stack.W-c.width) > 1 {
			t.Errorf("%s: %v px wide, want %v", c.query, stack.W, c.width)
		}
		if corner := cornerOf(stack); corner != c.corner {
			t.Errorf("%s: the panels are in the %s corner (%+v), want %s", c.query, corner, stack, c.corner)
		}
	}

	// calls=rulings leaves out legal plays and notes: the newest rulings.
	var want []string
	for _, f := range slices.Backward(ts.game.State().Feed) {
		if f.Status != referee.StatusOK && f.Status != referee.StatusInfo && f.Status != referee.StatusInferred && len(want) < 5 {
			want = append(want, f.Reason)
		}
	}
	if len(want) == 0 || len(want) == len(ts.game.State().Feed) {
		t.Fatalf("the game's feed has %d rulings of %d items: nothing to leave out", len(want), len(ts.game.State().Feed))
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay?calls=rulings")); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the rulings", `[...document.querySelectorAll('#feed li .reason')].map(e => e.textContent).join('|')`,
		10*time.Second, func(s string) bool { return s == strings.Join(want, "|") })
}

// TestOverlay_Reconnects: the overlay shows a small mark while it has no
// stream, whether the server refused it (503, which EventSource gives up
// on) or the stream dropped, and comes back by itself with the newest
// state.
func TestOverlay_Reconnects(t *testing.T) {
	cfg := testConfig()
	cfg.MaxEventClients = 1
	ts := startServer(t, cfg, nil)
	playSomeGame(t, ts.game)
	hog := openEvents(t, ts.URL+"/events")
	hog.next(t, 2*time.Second, anyEvent)

	ctx := overlayBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay")); err != nil {
		t.Fatal(err)
	}
	const markJS = `document.getElementById('reconnecting').getClientRects().length > 0`
	evalUntil(t, ctx, "the mark while the server is full", markJS, 10*time.Second, func(b bool) bool { return b })
	shot(t, ctx, "overlay-reconnecting.png")
	hog.close()
	evalUntil(t, ctx, "the players after a place came free", overlayNamesJS, 15*time.Second, func(s string) bool { return s == "P1,P2,P3" })
	evalUntil(t, ctx, "no mark", markJS, 5*time.Second, func(b bool) bool { return !b })

	ts.http.CloseClientConnections()
	evalUntil(t, ctx, "the mark after the stream dropped", markJS, 5*time.Second, func(b bool) bool { return b })
	if err := ts.game.Stop("P3"); err != nil {
		t.Fatal(err)
	}
	evalUntil(t, ctx, "the stop after reconnecting", `document.getElementById('banner').textContent`, 15*time.Second,
		func(s string) bool { return s == "Ligretto stop by P3!" })
	evalUntil(t, ctx, "no mark", markJS, 5*time.Second, func(b bool) bool { return !b })
}
