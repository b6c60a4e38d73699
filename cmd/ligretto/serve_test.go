package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"ligretto/referee"
	"ligretto/stream"
	"ligretto/vision/demo"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServe_DemoServesPagesAndState: `serve` with the demo source serves
// the page, refuses control without the token, fills the scoreboard from
// what the camera pipeline reads off the rendered table once it has
// calibrated from the preamble (about 11 s at real speed), and stops
// cleanly when its context ends.
func TestServe_DemoServesPagesAndState(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	tokenFile := filepath.Join(t.TempDir(), "token")
	const token = "a-test-operator-token"
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--addr", "127.0.0.1:0", "--udp-port", "0", "--token-file", tokenFile, "--max-viewers", "3"}, &stdout, io.Discard)
	}()
	re := regexp.MustCompile(`spectators: (http://[0-9.:]+)/`)
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", stdout.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Contains(stdout.String(), token) {
		t.Fatal("the token from the file was printed")
	}
	get := func(path, auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get("/", ""); code != 200 || !strings.Contains(body, "<video") {
		t.Fatalf("page: %d", code)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if code, _ := get("/healthz", ""); code == 200 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("healthz: %d", code)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, _ := get("/api/state", "wrong-token"); code != http.StatusUnauthorized {
		t.Fatalf("state with a wrong token: %d", code)
	}
	var st struct {
		Players []struct{ Name string } `json:"players"`
		Feed    []stream.FeedItem       `json:"feed"`
	}
	for deadline := time.Now().Add(60 * time.Second); len(st.Players) != 4; {
		code, body := get("/api/state", token)
		if code != 200 || json.Unmarshal([]byte(body), &st) != nil {
			t.Fatalf("state: %d %s", code, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo match did not start: %s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(st.Feed) == 0 {
		t.Fatal("a match with an empty feed")
	}
	for _, f := range st.Feed {
		if f.By != "camera" {
			t.Errorf("feed item %s by %q, want the camera pipeline's", f.Kind, f.By)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestServe_PrintsAGeneratedToken: without a token file, a random token
// is printed once.
func TestServe_PrintsAGeneratedToken(t *testing.T) {
	var out bytes.Buffer
	tok, err := operatorToken("", &out)
	if err != nil || len(tok) < 20 || strings.Count(out.String(), tok) != 1 {
		t.Fatalf("token %q, printed %q, %v", tok, out.String(), err)
	}
	other, _ := operatorToken("", io.Discard)
	if other == tok {
		t.Fatal("the same token twice")
	}
}

// TestServe_BadArguments: wrong flags are usage errors (2), a bad token
// file is an error (1).
func TestServe_BadArguments(t *testing.T) {
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"serve", "--source", "camera", "--udp-port", "0", "--addr", "127.0.0.1:0"}, 2},
		{[]string{"serve", "--udp-port", "-1"}, 2},
		{[]string{"serve", "--bogus"}, 2},
		{[]string{"serve", "--token-file", filepath.Join(t.TempDir(), "missing")}, 1},
		{[]string{"serve", "--token-file", short}, 1},
	} {
		if code, _, stderr := runCLI(c.args...); code != c.want {
			t.Fatalf("%v: exit %d, want %d: %s", c.args, code, c.want, stderr)
		}
	}
}

// TestDemoFrames: the demo source streams rendered frames with increasing
// numbers, feeds the referee what the camera pipeline reads off them (a
// match, then a pile), and stops with its context.
func TestDemoFrames(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	game := stream.NewRefereeGame(referee.New(), nil)
	cfg := demo.DefaultConfig()
	cfg.Players, cfg.Speed, cfg.FPS = 2, 4, 50
	cfg.Scene.Width, cfg.Scene.Height = 640, 360 // quicker to render; the pipeline reads it as well
	frames := demoFrames(ctx, cfg, game, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var last uint64
	piled := func() bool {
		for _, f := range game.State().Feed {
			if f.Kind == referee.ObsPileNew {
				return true
			}
		}
		return false
	}
	for i, deadline := 0, time.Now().Add(60*time.Second); !piled(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no pile observed after %d frames; state %+v", i, game.State())
		}
		f := <-frames
		if b := f.Image.Bounds(); b.Dx() != cfg.Scene.Width || b.Dy() != cfg.Scene.Height {
			t.Fatalf("size %v", b)
		}
		if i > 0 && f.Seq <= last {
			t.Fatalf("frame %d after %d", f.Seq, last)
		}
		last = f.Seq
	}
	cancel()
	for range frames {
	}
	st := game.State()
	if st.Phase == referee.PhaseNoMatch || len(st.Players) != 2 {
		t.Fatalf("the demo fed the referee no match: %+v", st)
	}
	for _, f := range st.Feed {
		if f.By != "camera" {
			t.Errorf("feed item %s by %q, want the camera pipeline's", f.Kind, f.By)
		}
	}
}
