package stream

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
)

// tilesMatch simulates a 3-player tile match of 2 rounds with bots
// erring 5% (seed 20: wrong plays in both rounds, totals 4, 1, 0) and returns its events
// and result.
func tilesMatch(t *testing.T) ([]tilesim.Event, tilesim.Result) {
	t.Helper()
	var events []tilesim.Event
	res, err := tilesim.Run(tilesim.Config{Players: 3, Seed: 20, Rounds: 2, ErrorRate: 0.05}, func(e tilesim.Event) error {
		events = append(events, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rounds := map[int]bool{}
	for _, x := range res.Injected {
		rounds[x.Round] = true
	}
	if !rounds[1] || !rounds[2] {
		t.Fatalf("the match has wrong plays in rounds %v, want 1 and 2", rounds)
	}
	return events, res
}

// feedTiles applies the events' observations to g.
func feedTiles(t *testing.T, g *TilesGame, events []tilesim.Event) {
	t.Helper()
	for _, e := range events {
		for _, o := range e.Observations() {
			if _, err := g.Apply(o); err != nil {
				t.Fatalf("%s at %d ms: %v", o.Kind, o.TimeMS, err)
			}
		}
	}
}

// guessedCall moves a stone that awaits no card onto a field beside it,
// a wrong play (T3a) the camera only guessed (why).
func guessedCall(t *testing.T, g *TilesGame, why string) {
	t.Helper()
	st := g.RefereeState()
	for s := range tiles.Stones {
		at := st.Stones[s].At
		for _, f := range []tiles.Field{{X: at.X + 1, Y: at.Y}, {X: at.X - 1, Y: at.Y}, {X: at.X, Y: at.Y + 1}, {X: at.X, Y: at.Y - 1}} {
			v, err := g.Apply(tiles.Observation{Kind: tiles.ObsStone, Stone: s + 1, Fields: []tiles.Field{f}, By: "camera", Unsure: why})
			if err == nil && v.Status != tiles.StatusViolation {
				t.Fatalf("stone %d onto %v: %+v, want a call (no card awaits it)", s+1, f, v)
			}
			if err == nil {
				if feed := g.State().Feed; feed[len(feed)-1].Unsure != why {
					t.Fatalf("the feed's call %+v does not say it is a guess", feed[len(feed)-1])
				}
				return
			}
		}
	}
	t.Fatal("no stone move made a call")
}

// tilesRows is what the page's tile scoreboard should show, best total
// first (ties in seat order, as the page's stable sort keeps them): names,
// laid/in play (and jokers), round points, totals, and each row's fault rules.
type tilesRows struct{ names, laid, round, total, faults string }

func wantTilesRows(tv *TilesView) tilesRows {
	ps := slices.Clone(tv.Players)
	slices.SortStableFunc(ps, func(a, b TilesPlayer) int { return b.Total - a.Total })
	var r [5][]string
	for _, p := range ps {
		laid := fmt.Sprintf("%d/%d", p.Laid, p.InPlay)
		if p.Jokers > 0 {
			laid += fmt.Sprintf(" ★%d", p.Jokers)
		}
		pts := "–"
		if p.Points != nil {
			pts = fmt.Sprintf("%+d", *p.Points)
			if *p.Points == 0 {
				pts = "0"
			}
		}
		var rules []string
		for _, f := range p.Faults {
			rules = append(rules, string(f.Rule))
		}
		r[0], r[1], r[2] = append(r[0], p.Name), append(r[1], laid), append(r[2], pts)
		r[3], r[4] = append(r[3], fmt.Sprint(p.Total)), append(r[4], strings.Join(rules, " "))
	}
	j := func(s []string) string { return strings.Join(s, ",") }
	return tilesRows{j(r[0]), j(r[1]), j(r[2]), j(r[3]), j(r[4])}
}

const tilesRowsJS = `(() => {
	const rows = [...document.querySelectorAll('#tiles-scores tr[data-player]')];
	const col = (sel) => rows.map(r => r.querySelector(sel).textContent).join(',');
	return { names: col('.name'), laid: col('.laid'), round: col('.round'), total: col('.total'),
		faults: rows.map(r => [...r.querySelectorAll('.fault')].map(e => e.textContent).join(' ')).join(',') };
})()`

type tilesRowsDOM struct {
	Names, Laid, Round, Total, Faults string
}

func (d tilesRowsDOM) rows() tilesRows {
	return tilesRows{d.Names, d.Laid, d.Round, d.Total, d.Faults}
}

// TestBrowser_TilesScoreboard: with the tile game the spectator page and
// the overlay show its scoreboard, not the classic one nor piles: every
// player with their frame style, cards laid of those in play, the
// round's points (provisional while the round is counted), totals, and
// the rules of this round's wrong plays; the calls carry their rule IDs.
// After the round is scored the totals are the simulator's.
func TestBrowser_TilesScoreboard(t *testing.T) {
	events, res := tilesMatch(t)
	g := NewTilesGame(tiles.New(), nil)
	s, err := New(testConfig(), newTestSource(320, 240, 25), g)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, s)
	// Round 1 scored, round 2 up to its end: being counted.
	end2 := slices.IndexFunc(events, func(e tilesim.Event) bool {
		return e.Round == 2 && (e.Kind == tilesim.EvStop || e.Kind == tilesim.EvNoPlay)
	})
	if end2 < 0 {
		t.Fatal("round 2 does not end")
	}
	feedTiles(t, g, events[:end2+1])
	st := g.State()
	want := wantTilesRows(st.Tiles)
	if st.Phase != "counting" || !strings.Contains(want.faults, "T") {
		t.Fatalf("round 2 at its end: phase %s, faults %q", st.Phase, want.faults)
	}

	ctx := browser(t)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got := evalUntil(t, ctx, "the tile scoreboard", tilesRowsJS, 20*time.Second, func(d tilesRowsDOM) bool { return d.Names != "" })
	if got.rows() != want {
		t.Fatalf("the page shows %+v, want %+v", got.rows(), want)
	}
	shown := evalUntil(t, ctx, "which panels", `[!document.getElementById('classic-table').hidden, !document.getElementById('tiles-table').hidden,
		!document.querySelector('.piles-panel').hidden, document.getElementById('banner').textContent,
		[...document.querySelectorAll('#tiles-scores .frame')].map(e => getComputedStyle(e).borderTopStyle).join(',')].join('|')`,
		time.Second, func(string) bool { return true })
	frames := map[string]string{"plain": "solid", "double": "double", "dashed": "dashed", "dotted": "dotted"}
	var styles []string
	for _, n := range strings.Split(want.names, ",") {
		for _, p := range st.Tiles.Players {
			if p.Name == n {
				styles = append(styles, frames[string(p.Frame)])
			}
		}
	}
	banner := "Ligretto Stopp by " + st.StoppedBy + "!"
	if st.Deadlock {
		banner = "Nobody can lay a card: the most cards laid wins the round"
	}
	if w := "false|true|false|" + banner + "|" + strings.Join(styles, ","); shown != w {
		t.Fatalf("the page shows %q, want %q", shown, w)
	}
	var feedRules []string
	for _, f := range slices.Backward(st.Feed) {
		if f.Rule != "" {
			feedRules = append(feedRules, string(f.Rule))
		}
	}
	evalUntil(t, ctx, "the calls' rules", `[...document.querySelectorAll('#feed li .rule')].map(e => e.textContent).join(',')`,
		5*time.Second, func(s string) bool {
			return strings.HasPrefix(strings.Join(feedRules, ","), s) && strings.Contains(s, "T5a")
		})
	screenshot(t, ctx, "spectator-tiles.png")

	// The round scored: the totals are the simulator's.
	score := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Round == 2 && e.Kind == tilesim.EvRoundEnd })
	feedTiles(t, g, events[end2+1:score+1])
	totals := map[string]int{}
	for _, r := range res.Rounds {
		for n, p := range r.Players {
			totals[n] += p.Points
		}
	}
	want = wantTilesRows(g.State().Tiles)
	var wt []string
	for _, n := range strings.Split(want.names, ",") {
		wt = append(wt, fmt.Sprint(totals[n]))
	}
	if strings.Join(wt, ",") != want.total {
		t.Fatalf("the state's totals %s, the simulator's %v", want.total, totals)
	}
	got = evalUntil(t, ctx, "the scored round", tilesRowsJS, 10*time.Second, func(d tilesRowsDOM) bool { return d.rows() == want })
	evalUntil(t, ctx, "the match's end", `document.getElementById('banner').textContent`, 5*time.Second, func(s string) bool {
		return res.Winner != nil && s == *res.Winner+" wins the match" || res.Winner == nil && s == "The match is over, level at the top"
	})
	t.Logf("scored: %+v", got)

	// The overlay: the same scoreboard without ranks, no piles panel.
	ctx = overlayBrowser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/overlay")); err != nil {
		t.Fatal(err)
	}
	got = evalUntil(t, ctx, "the overlay's tile scoreboard", tilesRowsJS, 10*time.Second, func(d tilesRowsDOM) bool { return d.Names != "" })
	if got.rows() != want {
		t.Fatalf("the overlay shows %+v, want %+v", got.rows(), want)
	}
	for p, w := range map[string]bool{"#panel-scores": true, "#panel-piles": false, "#panel-calls": true, "#classic-table": false, "#tiles-scores .rank": false} {
		if boxOf(t, ctx, p).Shown != w {
			t.Errorf("%s shown: %v, want %v", p, !w, w)
		}
	}
	evalUntil(t, ctx, "the overlay's newest call", `document.querySelector('#feed li .rule') && document.querySelector('#feed li .rule').textContent`,
		5*time.Second, func(s string) bool { return s == "T5c" || s == "T1" })
	stack := boxOf(t, ctx, "#stack")
	img := shot(t, ctx, "overlay-tiles.png")
	if outside, opaque, _ := alphaCensus(img, stack.rect(1)); outside != 0 || opaque < 1000 {
		t.Fatalf("the tile overlay draws %d pixels outside its panels %+v, %d opaque inside", outside, stack, opaque)
	}
}

// TestBrowser_TilesConsole: with the tile game the console offers what
// the tile game has: a stop by a named player, and "Nobody can lay",
// which ends the round (T6a); no pile correction, and no start of a round
// (the camera begins them).
func TestBrowser_TilesConsole(t *testing.T) {
	events, _ := tilesMatch(t)
	g := NewTilesGame(tiles.New(), nil)
	s, err := New(testConfig(), newTestSource(320, 240, 25), g)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, s)
	firstLay := slices.IndexFunc(events, func(e tilesim.Event) bool { return e.Kind == tilesim.EvLay })
	feedTiles(t, g, events[:firstLay+1])
	const why = "the stone was not seen on the card: its one wrong step may have been onto the next card instead"
	guessedCall(t, g, why)
	ctx := browser(t)
	for _, a := range []chromedp.Action[chromedp.Void]{chromedp.Navigate(ts.URL + "/console"),
		chromedp.SendKeys(chromedp.ID("token"), testToken), chromedp.Click(chromedp.CSS("#login-form button"))} {
		if _, err := chromedp.Run(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	evalUntil(t, ctx, "the desk", `!document.getElementById('desk').hidden`, 10*time.Second, func(b bool) bool { return b })
	got := evalUntil(t, ctx, "the tile controls", `[[...document.querySelectorAll('#stop-player option')].map(o => o.value).join(','),
		!document.getElementById('noplay-row').hidden, document.getElementById('noplay').disabled, document.getElementById('override').hidden,
		document.getElementById('start-round').disabled].join('|')`, 10*time.Second, func(s string) bool { return strings.HasPrefix(s, "P1,P2,P3") })
	if got != "P1,P2,P3|true|false|true|true" {
		t.Fatalf("the console shows %q", got)
	}
	// a call the camera only guessed is marked, and says why
	evalUntil(t, ctx, "the unsure call", `(() => { const r = document.querySelector('#feed li.unsure .rule'); return r ? r.textContent + '|' + r.title : ''; })()`,
		10*time.Second, func(s string) bool { return s == "T3a?|Rule T3a, unsure: "+why })
	if _, err := chromedp.Run(ctx, chromedp.Click(chromedp.ID("noplay"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the round's end", func() bool { st := g.State(); return st.Phase == "counting" && st.Deadlock })
	evalUntil(t, ctx, "the activity log", `document.querySelector('#log li .reason').textContent`, 10*time.Second,
		func(s string) bool { return s == "Nobody can lay: the round ends" })
	evalUntil(t, ctx, "no second call", `document.getElementById('noplay').disabled`, 10*time.Second, func(b bool) bool { return b })
	if last := g.State().Feed; last[len(last)-1].Rule != "T6a" || last[len(last)-1].By != "operator" {
		t.Fatalf("the call %+v", last[len(last)-1])
	}
	screenshot(t, ctx, "console-tiles.png")
}
