package stream

import (
	"context"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"ligretto/referee"
)

// settledGoroutines waits until the goroutine count is at most want, and
// returns the count it saw last.
func settledGoroutines(want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	n := runtime.NumGoroutine()
	for n > want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
		n = runtime.NumGoroutine()
	}
	return n
}

func goroutineDump() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// TestNoLeakedGoroutines: viewers come and go (by DELETE, and by an
// unconnected offer that expires), and afterwards the goroutine count is
// back where it was; closing the server brings it back to the start.
func TestNoLeakedGoroutines(t *testing.T) {
	start := settledGoroutines(0, 200*time.Millisecond)

	cfg := testConfig()
	cfg.ConnectTimeout = 500 * time.Millisecond
	game := NewRefereeGame(referee.New(), nil)
	s, err := New(cfg, newTestSource(320, 240, 25), game)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	time.Sleep(300 * time.Millisecond)
	// One viewer first, so that whatever pion starts once per process is
	// counted in the baseline.
	warm, err := dialViewer(hs.URL, plainViewer(), viewerOptions{decode: true})
	if err != nil {
		t.Fatal(err)
	}
	warm.waitFrame(t, 10*time.Second, func(d decoded) bool { return d.stamped })
	warm.close()
	waitFor(t, 5*time.Second, "the warm-up viewer to leave", func() bool { return s.Stats().Sessions == 0 })
	hs.CloseClientConnections()
	running := settledGoroutines(0, 500*time.Millisecond)

	for round := 0; round < 2; round++ {
		var vs []*testViewer
		for i := 0; i < 3; i++ {
			v, err := dialViewer(hs.URL, plainViewer(), viewerOptions{decode: i == 0})
			if err != nil {
				t.Fatal(err)
			}
			vs = append(vs, v)
		}
		for _, v := range vs {
			v.waitFrame(t, 10*time.Second, func(decoded) bool { return true })
			v.waitState(t, 10*time.Second, func(GameState) bool { return true })
		}
		playSomeGame(t, NewRefereeGame(referee.New(), nil)) // unrelated work
		_ = game.StartRound()
		// An offer whose viewer never connects.
		if code, _, body, _ := postOffer(t, s, makeOffer(t)); code != 201 {
			t.Fatalf("%d %s", code, body)
		}
		for _, v := range vs {
			v.close()
		}
		waitFor(t, 5*time.Second, "every session to end", func() bool { return s.Stats().Sessions == 0 })
		hs.CloseClientConnections()
		if n := settledGoroutines(running, 15*time.Second); n > running {
			t.Fatalf("round %d: %d goroutines after the viewers left, %d before:\n%s", round, n, running, relevant(goroutineDump()))
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	hs.Close()
	if n := settledGoroutines(start, 15*time.Second); n > start {
		t.Fatalf("%d goroutines after the server closed, %d at the start:\n%s", n, start, relevant(goroutineDump()))
	}
}

// relevant keeps the goroutines that are not the test's own.
func relevant(dump string) string {
	var out []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "testing.(*T).Run") || strings.Contains(g, "testing.tRunner") && strings.Contains(g, "TestNoLeakedGoroutines") {
			continue
		}
		out = append(out, g)
	}
	return strings.Join(out, "\n\n")
}
