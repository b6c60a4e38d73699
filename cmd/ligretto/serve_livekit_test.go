package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ligretto/stream"
	"ligretto/stream/livekit"
	"ligretto/stream/livekit/lktest"
	"ligretto/stream/livekit/lkviewer"
	"ligretto/stream/whepclient"
)

// frameSizes keeps the sizes of the encoded frames a viewer received, in
// order: the same run of sizes at two viewers means the same frames.
type frameSizes struct {
	mu    sync.Mutex
	sizes []int
}

func (f *frameSizes) add(n int) {
	f.mu.Lock()
	f.sizes = append(f.sizes, n)
	f.mu.Unlock()
}

func (f *frameSizes) get() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sizes)
}

// TestServe_PublishesTheDemoToLiveKit: `serve --source demo --publish
// livekit` publishes to a real LiveKit server. A LiveKit viewer gets the
// very frames a local WHEP viewer gets (encoded once), decodes the
// annotated 1280x720 picture, and gets the state messages with the
// demo's four players. Then the LiveKit server is killed mid-match and
// started again: the referee's log goes on growing meanwhile, no error is
// logged, and the publisher is live again within 5 s.
func TestServe_PublishesTheDemoToLiveKit(t *testing.T) {
	lk := lktest.Start(t)
	t.Setenv("LIVEKIT_URL", lk.URL)
	t.Setenv("LIVEKIT_API_KEY", lktest.Key)
	t.Setenv("LIVEKIT_API_SECRET", lktest.Secret)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "referee.jsonl")
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--addr", "127.0.0.1:0", "--udp-port", "0", "--log", logPath,
			"--publish", "livekit", "--livekit-room", "demo-table"}, &stdout, &stderr)
	}()
	base := servedAddress(t, &stdout)
	// said after the addresses, once the publisher is made
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stdout.String(), `LiveKit: publishing to room "demo-table"`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("serve did not say where it publishes: %q", stdout.String())
			break
		}
	}

	// The page's viewer token, from the served API.
	res, err := http.Get(base + "/api/room")
	if err != nil {
		t.Fatal(err)
	}
	var join stream.RoomJoin
	if err := json.NewDecoder(res.Body).Decode(&join); err != nil || res.StatusCode != 200 {
		t.Fatalf("/api/room: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	if join.URL != lk.URL || join.Room != "demo-table" {
		t.Fatalf("/api/room: %+v", join)
	}

	var viaRoom, viaWHEP frameSizes
	var mu sync.Mutex
	var picture *lkviewer.Frame
	jctx, jcancel := context.WithTimeout(ctx, 20*time.Second)
	defer jcancel()
	v, err := lkviewer.Join(jctx, join.URL, join.Token, lkviewer.Options{Decode: true, OnFrame: func(f lkviewer.Frame) {
		viaRoom.add(len(f.Data))
		if f.Image != nil {
			mu.Lock()
			picture = &f
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	w, err := whepclient.Dial(jctx, base+"/whep", whepclient.Options{LoopbackOnly: true, NoDataChannel: true,
		OnFrame: func(f whepclient.Frame) { viaWHEP.add(f.Size) }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	players := func() int {
		var m struct {
			State stream.GameState `json:"state"`
		}
		if json.Unmarshal(v.LastState(), &m) != nil {
			return 0
		}
		return len(m.State.Players)
	}
	waitUntil(t, "the demo's state in the room", 60*time.Second, func() bool { return players() == 4 })
	waitUntil(t, "60 frames at both viewers", 30*time.Second, func() bool {
		return len(viaRoom.get()) >= 60 && len(viaWHEP.get()) >= 60
	})
	room, whep := viaRoom.get(), viaWHEP.get()
	run := room[len(room)-30 : len(room)-20]
	if !containsRun(whep, run) {
		t.Errorf("the room's frames %v are not among the WHEP viewer's: encoded twice, or changed on the way", run)
	}
	mu.Lock()
	pic := picture
	mu.Unlock()
	if pic == nil {
		t.Fatal("no picture decoded from the room")
	}
	if b := pic.Image.Bounds(); b.Dx() != 1280 || b.Dy() != 720 {
		t.Errorf("the room's picture is %v, want the demo's 1280x720", b)
	}

	// Faults: the LiveKit server dies mid-match.
	waitUntil(t, "cards in the referee's log", 60*time.Second, func() bool { return logLines(t, logPath) >= 5 })
	lines := logLines(t, logPath)
	lk.Kill()
	waitUntil(t, "the publisher notices", 10*time.Second, func() bool { return metric(t, base, "ligretto_livekit_live") == "0" })
	waitUntil(t, "the referee's log growing while LiveKit is down", 20*time.Second, func() bool { return logLines(t, logPath) > lines })
	during := logLines(t, logPath)
	lk.Restart()
	back := time.Now()
	waitUntil(t, "the publisher live again", 15*time.Second, func() bool { return metric(t, base, "ligretto_livekit_live") == "1" })
	t.Logf("publisher back %v after LiveKit restarted; the log grew from %d to %d lines meanwhile", time.Since(back).Round(time.Millisecond), lines, during)
	j2, err := livekit.ViewerToken(livekit.Config{URL: lk.URL, APIKey: lktest.Key, APISecret: lktest.Secret, Room: "demo-table"})
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(ctx, 20*time.Second)
	defer cancel2()
	v2, err := lkviewer.Join(ctx2, j2.URL, j2.Token, lkviewer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	waitUntil(t, "frames after the restart", 30*time.Second, func() bool { return v2.Stats().Frames >= 10 })
	waitUntil(t, "the referee's log growing after LiveKit came back", 20*time.Second, func() bool { return logLines(t, logPath) > during })
	if s := stderr.String(); strings.Contains(s, "level=ERROR") {
		t.Errorf("errors logged:\n%s", s)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// containsRun reports whether run stands in all, in order, one after another.
func containsRun(all, run []int) bool {
	for i := 0; i+len(run) <= len(all); i++ {
		if slices.Equal(all[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

func logLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		n++
	}
	return n
}

// metric is the value of an unlabelled metric on serve's /metrics.
func metric(t *testing.T, base, name string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			return v
		}
	}
	return ""
}

func waitUntil(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !ok(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
	}
}
