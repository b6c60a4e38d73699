//go:build e2e || soak

package main

// Helpers shared by the phone end-to-end tests, the phone benchmarks
// (tag e2e) and the soak report (tag soak).

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gocv.io/x/gocv"

	"ligretto/stream"
	"ligretto/stream/whipclient"
	"ligretto/table"
)

// phoneServe starts `serve --source phone` and returns its plain HTTP
// address, its HTTPS address, the camera token and the state folder.
func phoneServe(t testing.TB, ctx context.Context, cancel context.CancelFunc, token string, extra ...string) (base, secure, camToken, stateDir string, done chan int, errs *lockedBuffer) {
	t.Helper()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { serveContext = old })
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	stateDir = t.TempDir()
	out := &lockedBuffer{}
	errs = &lockedBuffer{}
	done = make(chan int, 1)
	args := append([]string{"serve", "--source", "phone", "--players", "2", "--addr", "127.0.0.1:0", "--udp-port", "0",
		"--https-addr", "127.0.0.1:0", "--state-dir", stateDir, "--token-file", tokenFile}, extra...)
	go func() { done <- run(args, out, errs) }()
	base = servedAddress(t, out)
	re := regexp.MustCompile(`phone camera: (https://[0-9.:]+)/camera\?token=([0-9a-f]+)`)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return base, m[1], m[2], stateDir, done, errs
		}
		if time.Now().After(deadline) {
			t.Fatalf("no camera address printed: %q", out.String())
		}
	}
}

// videoPictures reads a video's frames as RGBA pictures, from frame
// `from` on, into a channel that closes at the end (or after n frames).
func videoPictures(t testing.TB, path string, from, n int) <-chan image.Image {
	t.Helper()
	vc, err := gocv.VideoCaptureFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan image.Image)
	go func() {
		defer close(out)
		defer vc.Close()
		m := gocv.NewMat()
		defer m.Close()
		for i := 0; n <= 0 || i < from+n; i++ {
			if !vc.Read(&m) || m.Empty() {
				return
			}
			if i < from {
				continue
			}
			img, err := table.RGBA(m)
			if err != nil {
				return
			}
			out <- img
		}
	}()
	return out
}

func apiState(t testing.TB, base, token string) stream.GameState {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/state", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var st stream.GameState
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// apiTable is the table's calibration status (GET /api/table), for a
// failure's message.
func apiTable(t testing.TB, base, token string) stream.TableStatus {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/table", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	var ts stream.TableStatus
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return ts
	}
	defer res.Body.Close()
	_ = json.NewDecoder(res.Body).Decode(&ts)
	return ts
}

func isStatus(err error, code int) bool {
	var se *whipclient.StatusError
	return errors.As(err, &se) && se.Code == code
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
