// Package lktest runs a real LiveKit server on loopback for tests: the
// binary that scripts/setup --dev builds into .cache/bin, started with
// --dev on free ports and stopped when the test ends.
package lktest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Key and Secret are the API key and secret the test server accepts.
const (
	Key    = "devkey"
	Secret = "ligretto-test-secret-of-32-bytes-or-more"
)

// Server is one livekit-server process on loopback.
type Server struct {
	URL  string // ws://127.0.0.1:PORT
	Port int

	t      testing.TB
	ip     string
	bin    string
	config string
	mu     sync.Mutex
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
}

// Binary is the livekit-server that tests run: $LIVEKIT_SERVER, or the one
// scripts/setup --dev builds into the repository's .cache/bin.
func Binary() (string, error) {
	if p := os.Getenv("LIVEKIT_SERVER"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, ".cache", "bin", "livekit-server")
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("no LiveKit server at %s: build it with scripts/setup --dev (or set LIVEKIT_SERVER)", p)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start runs a LiveKit server on free loopback ports until the test ends.
// A test that needs it fails, not skips, when the binary is missing.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 3)
	ip, err := hostIP()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`port: %d
bind_addresses: ["127.0.0.1"]
rtc:
  tcp_port: %d
  udp_port: %d
  use_external_ip: false
  node_ip: %s
keys:
  %s: %s
logging:
  level: warn
`, ports[0], ports[1], ports[2], ip, Key, Secret)
	path := filepath.Join(t.TempDir(), "livekit.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &Server{ip: ip, URL: fmt.Sprintf("ws://127.0.0.1:%d", ports[0]), Port: ports[0], t: t, bin: bin, config: path}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// Restart starts the server again after Kill (or for the first time) on
// the same ports, and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	cmd := exec.Command(s.bin, "--dev", "--bind", "127.0.0.1", "--node-ip", s.ip, "--config", s.config)
	s.out = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		s.t.Fatalf("start livekit-server: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	exited := s.exited
	go func() { _ = cmd.Wait(); close(exited) }()
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			s.t.Fatalf("livekit-server exited at start:\n%s", s.Log())
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", s.Port))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("livekit-server did not answer within 20 s:\n%s", s.Log())
}

// Kill ends the server at once, as a crash would.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// PID is the running server's process ID, 0 when it is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Log is what the server printed so far (since its last start).
func (s *Server) Log() string {
	s.mu.Lock()
	out := s.out
	s.mu.Unlock()
	if out == nil {
		return ""
	}
	return out.String()
}

// syncBuffer is written by the process's output copier and read by Log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// hostIP is the machine's first IPv4 address that is not loopback. Media
// goes to it, not to 127.0.0.1, because LiveKit's SDK (pion under it)
// leaves loopback out of its ICE candidates; packets to the machine's own
// address still never leave it.
func hostIP() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String(), nil
		}
	}
	return "", fmt.Errorf("no IPv4 address but loopback: LiveKit's SDK needs one for its media")
}

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ps []int
	for len(ps) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil { // the UDP port is taken: try another
			ls = append(ls, l)
			continue
		}
		u.Close()
		ls = append(ls, l)
		ps = append(ps, port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ps
}
