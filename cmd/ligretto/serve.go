package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"ligretto/referee"
	"ligretto/stream"
	"ligretto/vision/demo"
)

func init() {
	register(command{name: "serve", summary: "stream the refereed table to spectators' browsers (WebRTC/WHEP), with the operator console", run: runServe})
}

// serveContext is the context serve runs under; tests replace it.
var serveContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[--source demo] [--addr :8080] [--token-file F] [--max-viewers N] [--udp-port P]", stderr)
	source := fs.String("source", "demo", "what to stream: demo (simulated matches, rendered, and refereed live by the vision pipeline)")
	players := fs.Int("players", 4, "with --source demo: players at the simulated table, 2 to 12")
	speed := fs.Float64("speed", 1, "with --source demo: how many times faster than real time the matches run")
	addr := fs.String("addr", ":8080", "HTTP address for the spectator page, the console, WHEP and the API")
	tokenFile := fs.String("token-file", "", "file holding the operator token (without it, a random token is printed once)")
	maxViewers := fs.Int("max-viewers", 50, "most spectators at once; more are refused with 503")
	udpPort := fs.Int("udp-port", 8443, "the one UDP port for all WebRTC media (0: any free port)")
	publicIP := fs.String("public-ip", "", "announce this IP to viewers instead of the local addresses (server behind 1:1 NAT)")
	nackHistory := fs.Int("nack-history", 0, "RTP packets kept, for all viewers together, to resend to a viewer that lost them (0: 1024; negative: none, a lost packet then costs every viewer a keyframe)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *players < 2 || *players > 12 || !(*speed > 0 && *speed <= 50) {
		fmt.Fprintf(stderr, "ligretto serve: --players %d must be 2 to 12 and --speed %v within (0, 50]\n", *players, *speed)
		return errUsage
	}
	if *udpPort < 0 || *udpPort > 65535 {
		fmt.Fprintf(stderr, "ligretto serve: --udp-port %d is not a port\n", *udpPort)
		return errUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	token, err := operatorToken(*tokenFile, stdout)
	if err != nil {
		return err
	}
	ctx, cancel := serveContext()
	defer cancel()

	game := stream.NewRefereeGame(referee.New(), nil)
	var src stream.FrameSource
	switch *source {
	case "demo":
		cfg := demo.DefaultConfig()
		cfg.Players, cfg.Speed = *players, *speed
		src = stream.FrameSourceFunc(func(ctx context.Context) <-chan stream.Frame { return demoFrames(ctx, cfg, game, log) })
	default:
		fmt.Fprintf(stderr, "ligretto serve: unknown --source %q (want demo)\n", *source)
		return errUsage
	}
	cfg := stream.Config{Token: token, MaxViewers: *maxViewers, UDPAddr: fmt.Sprintf(":%d", *udpPort), NACKHistory: *nackHistory, Logger: log}
	if *publicIP != "" {
		cfg.PublicIPs = []string{*publicIP}
	}
	srv, err := stream.New(cfg, src, game)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	hs := srv.HTTPServer(*addr)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "spectators: %s/   console: %s/console   WHEP: %s/whep   (WebRTC on udp %s)\n", url, url, url, srv.ICEAddr())
	log.Info("serving", slog.String("http", ln.Addr().String()), slog.String("udp", srv.ICEAddr().String()),
		slog.String("source", *source), slog.Int("max_viewers", *maxViewers))

	runErr := make(chan error, 1)
	go func() { runErr <- srv.Run(ctx) }()
	select {
	case err = <-runErr:
	case err = <-served:
		cancel()
		<-runErr
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = hs.Shutdown(shut)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("stopped")
	return err
}

// operatorToken reads the token file, or makes a random token and prints
// it once.
func operatorToken(path string, stdout io.Writer) (string, error) {
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the token file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if len(tok) < 8 {
			return "", fmt.Errorf("the token in %s is shorter than 8 characters", path)
		}
		return tok, nil
	}
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	tok := base64.RawURLEncoding.EncodeToString(b)
	fmt.Fprintf(stdout, "operator token (shown once): %s\n", tok)
	return tok, nil
}
