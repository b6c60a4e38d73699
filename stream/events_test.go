package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"ligretto/referee"
	"ligretto/stream/whepclient"
)

// sseEvent is one event of a stream: its data, or a comment line.
type sseEvent struct {
	data    string
	comment string
}

// sseStream reads GET /events in the background.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent // closed when the stream ends
	cancel context.CancelFunc
}

// openEvents opens url's event stream; it is closed when the test ends.
func openEvents(t testing.TB, url string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	st := &sseStream{resp: resp, events: make(chan sseEvent, 1024), cancel: cancel}
	t.Cleanup(st.close)
	if resp.StatusCode != http.StatusOK {
		return st
	}
	go func() {
		defer close(st.events)
		r := bufio.NewReader(resp.Body)
		var data []string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				if data != nil {
					st.events <- sseEvent{data: strings.Join(data, "\n")}
					data = nil
				}
			case strings.HasPrefix(line, ":"):
				st.events <- sseEvent{comment: strings.TrimSpace(line[1:])}
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[len("data: "):])
			}
		}
	}()
	return st
}

func (s *sseStream) close() {
	s.cancel()
	_ = s.resp.Body.Close()
}

// next returns the next data event that satisfies ok, skipping comments.
func (s *sseStream) next(t testing.TB, d time.Duration, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case e, open := <-s.events:
			if !open {
				t.Fatal("the event stream ended")
			}
			if e.comment == "" && ok(e.data) {
				return e.data
			}
		case <-deadline:
			t.Fatalf("no suitable event within %v", d)
		}
	}
}

// ended waits for the stream to end, skipping what is left.
func (s *sseStream) ended(d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case _, open := <-s.events:
			if !open {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func anyEvent(string) bool { return true }

func stateOf(t testing.TB, data string) GameState {
	t.Helper()
	var m stateMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("event data %q: %v", data, err)
	}
	if m.Type != "state" {
		t.Fatalf("message type %q", m.Type)
	}
	return m.State
}

// published is the state message the server holds now.
func published(s *Server) string {
	if b := s.state.Load(); b != nil {
		return string(*b)
	}
	return ""
}

// metricValue reads one unlabelled series from /metrics.
func metricValue(t testing.TB, base, name string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			return v
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return ""
}

// TestEvents_CurrentStateThenChanges: a client gets the current state at
// once, then each change, as the very bytes a WHEP viewer gets on its
// DataChannel.
func TestEvents_CurrentStateThenChanges(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	playSomeGame(t, ts.game)
	want := ts.game.State().Version
	waitFor(t, 5*time.Second, "the state to be published", func() bool {
		return strings.Contains(published(ts.Server), `"version":`+jsonInt(want)+`,`)
	})

	dcStates := make(chan json.RawMessage, 64)
	v, err := whepclient.Dial(context.Background(), ts.URL+"/whep", whepclient.Options{LoopbackOnly: true,
		OnState: func(b json.RawMessage) { dcStates <- b }})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	ev := openEvents(t, ts.URL+"/events")
	if ev.resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /events: %s", ev.resp.Status)
	}
	if ct := ev.resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	if cc := ev.resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q", cc)
	}
	first := ev.next(t, 2*time.Second, anyEvent)
	if first != published(ts.Server) {
		t.Fatalf("the first event is not the published state:\n%s\n%s", first, published(ts.Server))
	}
	st := stateOf(t, first)
	if st.Version != want || len(st.Players) != 3 || len(st.Piles) != 1 || st.Phase != referee.PhasePlaying {
		t.Fatalf("first state: version %d (want %d), %d players, %d piles, phase %s", st.Version, want, len(st.Players), len(st.Piles), st.Phase)
	}

	if err := ts.game.Stop("P2"); err != nil {
		t.Fatal(err)
	}
	stopped := ev.next(t, 5*time.Second, func(d string) bool { return stateOf(t, d).StoppedBy == "P2" })
	st = stateOf(t, stopped)
	if st.Phase != referee.PhaseCounting || st.Version <= want {
		t.Fatalf("after the stop: phase %s, version %d", st.Phase, st.Version)
	}
	// The viewer's DataChannel carries the same message, byte for byte.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-dcStates:
			var got GameState
			if json.Unmarshal(b, &got) != nil || got.Version != st.Version {
				continue
			}
			if dc := `{"type":"state","state":` + string(b) + `}`; dc != stopped {
				t.Fatalf("DataChannel and /events differ:\n%s\n%s", dc, stopped)
			}
			return
		case <-deadline:
			t.Fatal("the viewer got no state of the stop")
		}
	}
}

func jsonInt(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// stuckWriter is a client that takes nothing: its first Write blocks until
// release is closed.
type stuckWriter struct {
	h       http.Header
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func (w *stuckWriter) Header() http.Header { return w.h }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Write([]byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return 0, errors.New("the client is gone")
}

// TestEvents_SlowClientsBlockNobody: a client stuck in a write and one that
// never reads its socket hold up neither the others' events nor
// Server.Close, which ends every stream.
func TestEvents_SlowClientsBlockNobody(t *testing.T) {
	ts := startServer(t, testConfig(), nil)
	playSomeGame(t, ts.game)

	stuck := &stuckWriter{h: http.Header{}, entered: make(chan struct{}), release: make(chan struct{})}
	stuckDone := make(chan struct{})
	go func() {
		defer close(stuckDone)
		ts.Handler().ServeHTTP(stuck, httptest.NewRequest(http.MethodGet, "/events", nil))
	}()
	defer func() {
		close(stuck.release)
		<-stuckDone
	}()
	select {
	case <-stuck.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the stuck client was never written to")
	}

	raw, err := net.Dial("tcp", ts.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	_ = raw.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := io.WriteString(raw, "GET /events HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatal(err)
	}

	ev := openEvents(t, ts.URL+"/events")
	ev.next(t, 2*time.Second, anyEvent)
	waitFor(t, 5*time.Second, "three event clients in /metrics", func() bool {
		return metricValue(t, ts.URL, "ligretto_stream_event_clients") == "3"
	})

	// Many changes, each a state message for every client.
	for i := 0; i < 40; i++ {
		ts.game.SetUnsure([]int{i % 2})
		time.Sleep(5 * time.Millisecond)
	}
	last := ts.game.State().Version
	ev.next(t, 5*time.Second, func(d string) bool { return stateOf(t, d).Version == last })

	t0 := time.Now()
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("Close took %v", d)
	}
	if !ev.ended(2 * time.Second) {
		t.Fatal("the stream did not end when the server closed")
	}
	late := openEvents(t, ts.URL+"/events")
	if late.resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("GET /events after Close: %s", late.resp.Status)
	}
	waitFor(t, 5*time.Second, "only the stuck client left", func() bool { return ts.events.count() == 1 })
	select {
	case <-stuckDone:
		t.Fatal("the stuck client's handler returned while its write was blocked")
	default:
	}
}

// TestEvents_Cap: beyond MaxEventClients a client is told 503 and why; a
// client that leaves frees its place.
func TestEvents_Cap(t *testing.T) {
	cfg := testConfig()
	cfg.MaxEventClients = 2
	ts := startServer(t, cfg, nil)
	a := openEvents(t, ts.URL+"/events")
	b := openEvents(t, ts.URL+"/events")
	a.next(t, 2*time.Second, anyEvent)
	b.next(t, 2*time.Second, anyEvent)

	resp, err := http.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many event streams (2)") ||
		resp.Header.Get("Retry-After") == "" {
		t.Fatalf("the third client: %s %q, Retry-After %q", resp.Status, body, resp.Header.Get("Retry-After"))
	}

	a.close()
	waitFor(t, 5*time.Second, "the first client to leave", func() bool { return ts.events.count() == 1 })
	c := openEvents(t, ts.URL+"/events")
	if c.resp.StatusCode != http.StatusOK {
		t.Fatalf("a client after one left: %s", c.resp.Status)
	}
	c.next(t, 2*time.Second, anyEvent)
}

// TestEvents_OutlivesServerTimeouts: behind HTTPServer with short read and
// write timeouts a stream stays open, pinged, and carries later changes;
// the server's end ends it, and the HTTP server then shuts down at once.
func TestEvents_OutlivesServerTimeouts(t *testing.T) {
	game := NewRefereeGame(referee.New(), nil)
	s, err := New(testConfig(), newTestSource(320, 240, 25), game)
	if err != nil {
		t.Fatal(err)
	}
	s.eventPing = 100 * time.Millisecond
	hs := s.HTTPServer("127.0.0.1:0")
	hs.ReadTimeout, hs.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var runErr error
	stop := sync.OnceFunc(func() { cancel(); runErr = <-done })
	defer func() {
		stop()
		_ = hs.Close()
	}()

	ev := openEvents(t, "http://"+ln.Addr().String()+"/events")
	if st := stateOf(t, ev.next(t, 2*time.Second, anyEvent)); st.Phase != referee.PhaseNoMatch {
		t.Fatalf("first state: phase %s", st.Phase)
	}
	// Four times the timeouts, then a change.
	pings := 0
	wait := time.After(1200 * time.Millisecond)
waiting:
	for {
		select {
		case e, open := <-ev.events:
			if !open {
				t.Fatalf("the stream ended after %d pings", pings)
			}
			if e.comment == "ping" {
				pings++
			}
		case <-wait:
			break waiting
		}
	}
	if pings < 5 {
		t.Fatalf("%d pings in 1.2 s, one every 100 ms expected", pings)
	}
	playSomeGame(t, game)
	ev.next(t, 5*time.Second, func(d string) bool { return len(stateOf(t, d).Piles) == 1 })

	stop()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if !ev.ended(2 * time.Second) {
		t.Fatal("the stream did not end with the server")
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}
