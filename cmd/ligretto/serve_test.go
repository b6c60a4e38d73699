package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"ligretto/stream"
	"ligretto/table"

	"gocv.io/x/gocv"
	"net/http"
	"os"
	"path/filepath"
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
	base := servedAddress(t, &stdout)
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

// TestServe_BadArguments: wrong flags are usage errors (2); a bad token
// file, a source that does not exist or a broken calibration file is an
// error (1) that names what is wrong.
func TestServe_BadArguments(t *testing.T) {
	for _, v := range []string{"LIVEKIT_URL", "LIVEKIT_API_KEY", "LIVEKIT_API_SECRET"} {
		t.Setenv(v, "")
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "calib.json")
	if err := os.WriteFile(broken, []byte(`{"version": 1, "corners": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"serve", "--source", "no-such-camera", "--udp-port", "0", "--addr", "127.0.0.1:0"}, 1, "no-such-camera: no such file, folder or camera"},
		{[]string{"serve", "--source", "/dev/video97", "--udp-port", "0", "--addr", "127.0.0.1:0"}, 1, "camera /dev/video97 cannot be opened"},
		{[]string{"serve", "--source", short, "--calibration", broken, "--udp-port", "0", "--addr", "127.0.0.1:0"}, 1, broken},
		{[]string{"serve", "--calibration", broken}, 2, "the demo calibrates"},
		{[]string{"serve", "--udp-port", "-1"}, 2, "not a port"},
		{[]string{"serve", "--bogus"}, 2, "bogus"},
		{[]string{"serve", "--token-file", filepath.Join(t.TempDir(), "missing")}, 1, "token file"},
		{[]string{"serve", "--token-file", short}, 1, "shorter than 8"},
		{[]string{"serve", "--publish", "livekit", "--livekit-room", "r"}, 2, "no server address (--livekit-url or LIVEKIT_URL)"},
		{[]string{"serve", "--publish", "livekit", "--livekit-url", "ws://127.0.0.1:7880"}, 2, "no API key and secret"},
		{[]string{"serve", "--publish", "livekit", "--livekit-url", "ftp://x", "--livekit-room", "r"}, 2, "want ws://, wss://"},
		{[]string{"serve", "--livekit-room", "r"}, 2, "need --publish livekit"},
		{[]string{"serve", "--publish", "youtube"}, 2, "the one SFU it publishes to is livekit"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.want || !strings.Contains(stderr, c.says) {
			t.Fatalf("%v: exit %d, want %d saying %q: %s", c.args, code, c.want, c.says, stderr)
		}
	}
}

// TestFrameFeed_RepeatsTheLastPictureOnceTheSourceEnded: while the source
// runs only the newest frame waits (none is queued behind a busy
// encoder); once it has ended, the last picture is sent again, so that a
// spectator who comes after a video ended still sees the table.
func TestFrameFeed_RepeatsTheLastPictureOnceTheSourceEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFrameFeed()
	out := f.Frames(ctx)
	m := gocv.NewMatWithSize(36, 64, gocv.MatTypeCV8UC3)
	defer m.Close()
	for i := 1; i <= 5; i++ {
		m.SetTo(gocv.NewScalar(float64(40*i), 0, 0, 0)) // blue, never none
		f.offer(table.Frame{Image: m, Seq: uint64(i)})
	}
	select {
	case fr := <-out:
		if b := fr.Image.Bounds(); b.Dx() != 64 || b.Dy() != 36 {
			t.Fatalf("frame of %v", b)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no frame")
	}
	// The newest frame offered may still come; nothing after it.
	for quiet := false; !quiet; {
		select {
		case <-out:
		case <-time.After(300 * time.Millisecond):
			quiet = true
		}
	}
	select {
	case fr := <-out:
		t.Fatalf("frame %d sent again while the source runs", fr.Seq)
	case <-time.After(1200 * time.Millisecond):
	}
	f.ended()
	var seqs []uint64
	for len(seqs) < 2 {
		select {
		case fr := <-out:
			seqs = append(seqs, fr.Seq)
			if _, _, b, _ := fr.Image.At(0, 0).RGBA(); b == 0 {
				t.Fatalf("the repeated picture is not the last one offered")
			}
		case <-time.After(3 * time.Second):
			t.Fatal("the last picture was not sent again after the source ended")
		}
	}
	if seqs[1] <= seqs[0] {
		t.Errorf("repeated frames numbered %v, want increasing", seqs)
	}
	cancel()
	for range out {
	}
}
