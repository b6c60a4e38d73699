//go:build e2e

package main

// A phone as the table's camera, end to end: a rendered round published
// over WHIP to `serve --source phone`, refereed from the decoded VP8
// pictures. scripts/test runs these without -race (the race detector
// slows the pipeline below the camera's frame rate, and a live source
// then drops frames):
//
//	go test -tags e2e -count=1 -run 'Phone' -v ./cmd/ligretto

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/stream"
	"ligretto/stream/whipclient"
)

// TestServe_PhonePublisherRefereedAsTheSimulatorScores: a Go WHIP
// publisher (pion, VP8) sends a rendered round, as a phone would, at the
// video's own frame rate to `serve --source phone`, which calibrates from
// the pictures and referees them. Halfway the phone drops (its session
// ends) and a new one carries on from the same picture: the match goes
// on, no pile is opened twice, and the scores over the API are the
// simulator's (C14). Meanwhile the camera page is served over HTTPS with
// the self-signed certificate kept in the state folder, and a wrong
// camera token is refused (401) while a second publisher gets 409.
func TestServe_PhonePublisherRefereedAsTheSimulatorScores(t *testing.T) {
	dir := renderedRound(t)
	video := filepath.Join(dir, "round.mkv")
	var want sim.Result
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || json.Unmarshal(b, &want) != nil || len(want.Rounds) != 1 {
		t.Fatalf("result.json: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const token = "phone-test-operator-token"
	logPath := filepath.Join(t.TempDir(), "serve.jsonl")
	base, secure, camToken, stateDir, done, errs := phoneServe(t, ctx, cancel, token, "--log", logPath)

	// The camera page over HTTPS, trusted with the certificate kept.
	pem, err := os.ReadFile(filepath.Join(stateDir, "cert.pem"))
	if err != nil {
		t.Fatalf("the self-signed certificate was not kept: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	res, err := hc.Get(secure + "/camera?token=" + camToken)
	if err != nil {
		t.Fatalf("the camera page over HTTPS: %v", err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !regexp.MustCompile(`<video`).Match(page) {
		t.Fatalf("the camera page over HTTPS: %d", res.StatusCode)
	}

	opts := whipclient.Options{Token: camToken, FPS: 10, Bitrate: 4_000_000, LoopbackOnly: true}
	bad := opts
	bad.Token = "not-the-camera-token"
	if _, err := whipclient.Dial(ctx, base+"/whip", bad); !isStatus(err, http.StatusUnauthorized) {
		t.Fatalf("a wrong camera token: %v", err)
	}
	const total, half = 600, 300 // the round at 10 fps
	pub, err := whipclient.Dial(ctx, base+"/whip", opts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := whipclient.Dial(ctx, base+"/whip", opts)
	if !isStatus(err, http.StatusConflict) {
		if second != nil {
			second.Abort()
		}
		t.Fatalf("a second publisher while one is live: %v", err)
	}
	if err := pub.Run(ctx, videoPictures(t, video, 0, half)); err != nil {
		t.Fatalf("the first half: %v", err)
	}
	time.Sleep(time.Second) // the phone is away
	if st := apiState(t, base, token); st.Phase != referee.PhasePlaying || len(st.Piles) == 0 {
		t.Fatalf("halfway: phase %s, %d piles; the table: %+v; the publisher: %+v\n%s", st.Phase, len(st.Piles), apiTable(t, base, token), pub.Stats(), errs.String())
	}
	pub, err = whipclient.Dial(ctx, base+"/whip", opts)
	if err != nil {
		t.Fatalf("the phone coming back: %v", err)
	}
	if err := pub.Run(ctx, videoPictures(t, video, half, total)); err != nil {
		t.Fatalf("the second half: %v", err)
	}
	var st stream.GameState
	for deadline := time.Now().Add(30 * time.Second); st.Match.Rounds < 1; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no round scored: phase %s\n%s", st.Phase, errs.String())
		}
		st = apiState(t, base, token)
	}
	for _, p := range st.Players {
		if w := want.Rounds[0].Players[p.Name].Score; p.Last == nil {
			t.Errorf("%s: no score from the phone, the simulator's %d", p.Name, w)
		} else if *p.Last != w {
			t.Errorf("%s: scored %d from the phone, the simulator's %d", p.Name, *p.Last, w)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d\n%s", code, errs.String())
	}
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	opened := map[int]int{}
	dec := json.NewDecoder(f)
	for {
		var e referee.Entry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if e.Obs.Kind == referee.ObsPileNew {
			opened[e.Obs.Pile]++
		}
	}
	for pile, n := range opened {
		if n > 1 {
			t.Errorf("pile %d opened %d times", pile, n)
		}
	}
	if len(opened) != len(want.Rounds[0].Piles) {
		t.Errorf("%d piles opened from the phone, the simulator laid %d", len(opened), len(want.Rounds[0].Piles))
	}
}

// writeY4M converts a video to YUV4MPEG2 (4:2:0) at fps, for Chromium's
// fake camera.
func writeY4M(t *testing.T, video, out string, fps int) {
	t.Helper()
	vc, err := gocv.VideoCaptureFile(video)
	if err != nil {
		t.Fatal(err)
	}
	defer vc.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	m, yuv := gocv.NewMat(), gocv.NewMat()
	defer m.Close()
	defer yuv.Close()
	for n := 0; vc.Read(&m) && !m.Empty(); n++ {
		if n == 0 {
			fmt.Fprintf(w, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 C420jpeg\n", m.Cols(), m.Rows(), fps)
		}
		gocv.CvtColor(m, &yuv, gocv.ColorBGRToYUVI420)
		if _, err := w.WriteString("FRAME\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(yuv.ToBytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestServe_ChromiumPhoneRefereedOnTheSpectatorPage: real Chromium as the
// phone, its camera faked from the rendered round (y4m), opens the camera
// page over HTTPS (the self-signed certificate, as a phone would after
// "Proceed"), and publishes; a spectator tab on / shows the round's
// scores, which are the simulator's.
func TestServe_ChromiumPhoneRefereedOnTheSpectatorPage(t *testing.T) {
	chrome, err := findChromium()
	if err != nil {
		t.Fatal("chromium is not installed (scripts/setup installs it)")
	}
	dir := renderedRound(t)
	var want sim.Result
	if b, err := os.ReadFile(filepath.Join(dir, "result.json")); err != nil || json.Unmarshal(b, &want) != nil || len(want.Rounds) != 1 {
		t.Fatalf("result.json: %v", err)
	}
	y4m := filepath.Join(t.TempDir(), "round.y4m")
	writeY4M(t, filepath.Join(dir, "round.mkv"), y4m, 10)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const token = "chromium-phone-operator-token"
	base, secure, camToken, _, done, errs := phoneServe(t, ctx, cancel, token)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Flag("use-fake-device-for-media-stream", true), chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-video-capture", y4m), chromedp.Flag("ignore-certificate-errors", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	phone, cancelPhone := chromedp.NewContext(actx)
	defer cancelPhone()
	phone, cancelT := context.WithTimeout(phone, 4*time.Minute)
	defer cancelT()
	if _, err := chromedp.Run(phone, chromedp.Navigate(secure+"/camera?token="+camToken)); err != nil {
		t.Fatalf("the phone opens the camera page: %v", err)
	}
	spectator, cancelS := chromedp.NewContext(phone)
	defer cancelS()
	if _, err := chromedp.Run(spectator, chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("the spectator page: %v", err)
	}

	var st stream.GameState
	for deadline := time.Now().Add(3 * time.Minute); st.Match.Rounds < 1; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			page, _ := chromedp.Run(phone, chromedp.Evaluate[string](`document.body.innerText`))
			t.Fatalf("no round scored from the phone: phase %s, %d piles\nphone page: %s\n%s", st.Phase, len(st.Piles), page, errs.String())
		}
		st = apiState(t, base, token)
	}
	wantTotals := map[string]int{}
	for name, p := range want.Rounds[0].Players {
		wantTotals[name] = p.Score
	}
	for _, p := range st.Players {
		if p.Total != wantTotals[p.Name] {
			t.Errorf("%s: %d from the Chromium phone, the simulator's %d", p.Name, p.Total, wantTotals[p.Name])
		}
	}
	// The spectator page shows those totals.
	var shown string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		shown, _ = chromedp.Run(spectator, chromedp.Evaluate[string](`[...document.querySelectorAll('#scores tr')].map(r => r.querySelector('.name span:nth-child(2)').textContent.trim() + '=' + r.querySelector('.num.total').textContent).sort().join(',')`))
		ok := shown != ""
		for name, total := range wantTotals {
			ok = ok && strings.Contains(shown, fmt.Sprintf("%s=%d", name, total))
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spectator page shows %q, want the totals %v", shown, wantTotals)
		}
	}
	t.Logf("scores from the Chromium phone: %s", shown)
	cancel()
	<-done
}
