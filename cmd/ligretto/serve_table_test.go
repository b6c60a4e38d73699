package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ligretto/calibration"
	"ligretto/stream"
)

// TestServe_ConsoleCalibratesTheTable drives the console's table actions
// on `serve` refereeing a recorded table: the status says what to do and
// then that the table is calibrated, with its players; the calibration
// saves as a file that reads back and loads again; a broken file is
// refused (422) and changes nothing; calibrating again for named players
// asks the first of them for a back; none of it works without the
// operator token. The recorded table plays at its own speed: what the
// console asks takes effect with the next frame.
func TestServe_ConsoleCalibratesTheTable(t *testing.T) {
	dir := renderedRound(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	defer func() { serveContext = old }()
	const token = "table-test-operator-token"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--source", filepath.Join(dir, "round.mkv"), "--players", "2", "--speed", "1", "--addr", "127.0.0.1:0",
			"--udp-port", "0", "--token-file", tokenFile}, &out, &errs)
	}()
	base := servedAddress(t, &out)
	call := func(method, path, auth, ctype string, body []byte) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	status := func() stream.TableStatus {
		t.Helper()
		code, b := call("GET", "/api/table", token, "", nil)
		var st stream.TableStatus
		if code != 200 || json.Unmarshal(b, &st) != nil {
			t.Fatalf("GET /api/table: %d %s", code, b)
		}
		return st
	}

	if code, _ := call("GET", "/api/table", "", "", nil); code != http.StatusUnauthorized {
		t.Fatalf("table status without the token: %d", code)
	}
	var st stream.TableStatus
	prompts := map[string]bool{}
	for deadline := time.Now().Add(90 * time.Second); !st.Calibrated; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not calibrated: %+v\n%s", st, errs.String())
		}
		st = status()
		prompts[st.Prompt] = true
	}
	if st.Markers != 4 || strings.Join(st.Players, ",") != "P1,P2" || st.Enrolled != 2 || !strings.Contains(st.Prompt, "play") || st.Frames == 0 {
		t.Errorf("calibrated status %+v", st)
	}
	if len(prompts) < 2 {
		t.Errorf("the prompt did not change while calibrating: %v", prompts)
	}

	code, saved := call("GET", "/api/table/calibration.json", token, "", nil)
	if code != 200 {
		t.Fatalf("save: %d %s", code, saved)
	}
	f, err := calibration.Read(bytes.NewReader(saved))
	if err != nil || len(f.Seats) != 2 || !f.Enrolled() {
		t.Fatalf("the saved calibration: %v, %+v", err, f)
	}
	if code, _ := call("PUT", "/api/table/calibration.json", "", "application/json", saved); code != http.StatusUnauthorized {
		t.Errorf("load without the token: %d", code)
	}
	if code, b := call("PUT", "/api/table/calibration.json", token, "application/json", saved[:len(saved)/2]); code != http.StatusUnprocessableEntity {
		t.Errorf("load a broken file: %d %s", code, b)
	}
	if code, b := call("PUT", "/api/table/calibration.json", token, "application/json", saved); code != 200 || !status().Calibrated {
		t.Errorf("load the saved file: %d %s", code, b)
	}

	// A back named on the console is the seat's back in the calibration.
	if code, b := call("POST", "/api/enrol", token, "application/json", []byte(`{"player":"P1","back":"cubes"}`)); code != 200 {
		t.Fatalf("enrol P1's back: %d %s", code, b)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, b := call("GET", "/api/table/calibration.json", token, "", nil)
		if f, err := calibration.Read(bytes.NewReader(b)); err == nil && f.Seats[0].Player == "P1" && f.Seats[0].Back == "cubes" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the calibration does not name P1's back cubes: %.300s", b)
		}
	}

	for _, bad := range []string{`{"players":["Anna"]}`, `{"players":["Anna","Anna"]}`, `{"players":["Anna",""]}`, `{"players":"Anna"}`} {
		if code, b := call("POST", "/api/table/calibrate", token, "application/json", []byte(bad)); code/100 != 4 {
			t.Errorf("calibrate %s: %d %s", bad, code, b)
		}
	}
	if code, b := call("POST", "/api/table/calibrate", token, "application/json", []byte(`{"players":["Anna","Ben"]}`)); code != 200 {
		t.Fatalf("calibrate again: %d %s", code, b)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st = status()
		if !st.Calibrated && strings.Join(st.Players, ",") == "Anna,Ben" && strings.Contains(st.Prompt, "Anna") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after calibrating again for Anna and Ben: %+v", st)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve: exit %d:\n%s", code, errs.String())
	}
}
