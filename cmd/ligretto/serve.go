package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/stream"
	"ligretto/stream/livekit"
	"ligretto/stream/phonelink"
	"ligretto/table"
	"ligretto/table/demo"
	"ligretto/vision"
	"ligretto/vision/cvthreads"
)

func init() {
	register(command{name: "serve", summary: "stream the refereed table to spectators' browsers (WebRTC/WHEP), with the operator console", run: runServe})
}

// serveContext is the context serve runs under; tests replace it.
var serveContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// serveOptions are serve's flags.
type serveOptions struct {
	source, calPath, logPath, addr, tokenFile, publicIP string
	httpsAddr, tlsCert, tlsKey, stateDir                string
	players, maxViewers, udpPort, nackHistory           int
	cvThreads                                           int
	speed                                               float64
	nets                                                networks
	publish                                             *publishOptions
	// game is classic or tiles (serve_tiles.go); rounds the tile match's.
	game   string
	rounds int
	// set holds the flags given on the command line.
	set map[string]bool
}

func runServe(args []string, stdout, stderr io.Writer) error {
	o, err := parseServeFlags(args, stderr)
	if err != nil {
		return err
	}
	cvthreads.Set(o.cvThreads)
	if err := o.check(stderr); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if o.game == gameTiles {
		return runServeTiles(o, log, stdout, stderr)
	}

	var cal *calibration.File
	if o.calPath != "" {
		if cal, err = readCalibration(o.calPath); err != nil {
			return err
		}
	}
	var refOpts []referee.Option
	lf, err := createLog(o.logPath)
	if err != nil {
		return err
	}
	if lf != nil {
		defer lf.Close()
		refOpts = append(refOpts, referee.WithLog(lf))
	}
	w, pred, err := predictor(o.nets, false)
	if err != nil {
		return err
	}
	defer pred.Close()
	if _, err = withDeck(cal, w, pred); err != nil {
		return err
	}
	token, err := operatorToken(o.tokenFile, stdout)
	if err != nil {
		return err
	}
	ctx, cancel := serveContext()
	defer cancel()

	game := stream.NewRefereeGame(referee.New(refOpts...), referee.DefaultPlayers(o.players))
	src, phone, err := openServeSource(ctx, o, log)
	if err != nil {
		return err
	}
	defer src.Close()
	feed := newFrameFeed()
	lcfg := table.Config{Players: o.players, Calibration: cal, Pipeline: vision.DefaultPipelineConfig(), Annotate: true, Log: log,
		OnFrame: feed.offer, Reader: func(f *calibration.File) (model.Predictor, error) { return withDeck(f, w, pred) }}
	if cal == nil {
		std, err := standardBacks(pred)
		if err != nil {
			return err
		}
		lcfg.Calibrator = []vision.CalibratorOption{vision.WithStandardBacks(std)}
	}
	cfg := o.streamConfig(token, log)
	// The loop's metrics go on the server's registry; the loop is made
	// before the server, whose console acts on it.
	if lcfg.Metrics, err = stream.NewTableMetrics(cfg.Registry); err != nil {
		return err
	}
	room, err := o.publish.apply(&cfg, log, stderr)
	if err != nil {
		return err
	}
	loop, err := table.New(lcfg, pred, gameReferee{game})
	if err != nil {
		return err
	}
	defer loop.Close()
	cfg.Table = loopTable{loop: loop, source: o.source}
	camera := func() stream.CameraStatus {
		st := loop.Status()
		return stream.CameraStatus{Markers: st.Markers, Calibrated: st.Calibrated, Prompt: st.Prompt}
	}
	return serveTable(ctx, cancel, o, cfg, room, servedTable{game: tableGame{game, loop}, run: loop.Run, src: src, phone: phone, feed: feed, camera: camera}, log, stdout)
}

// createLog creates the referee's log file, nil for no path. A new file
// only: an earlier match's log is never overwritten.
func createLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	lf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("referee log: %w (choose a new file)", err)
	}
	return lf, nil
}

// streamConfig is the stream server's config from the flags, with its
// own metrics registry.
func (o serveOptions) streamConfig(token string, log *slog.Logger) stream.Config {
	cfg := stream.Config{Token: token, MaxViewers: o.maxViewers, UDPAddr: fmt.Sprintf(":%d", o.udpPort), NACKHistory: o.nackHistory, Logger: log,
		Registry: prometheus.NewRegistry()}
	if o.publicIP != "" {
		cfg.PublicIPs = []string{o.publicIP}
	}
	return cfg
}

// servedTable is one table as serveTable streams it: the game the console
// drives, the match loop that referees the source, and the loop's frames.
type servedTable struct {
	game  stream.Controller
	run   func(context.Context, table.Source) error
	src   table.Source
	phone *table.Phone // the source, when it is a phone
	feed  *frameFeed
	// camera says what the phone's page shows; nil: nothing.
	camera func() stream.CameraStatus
}

// serveTable serves t until ctx ends or a listener fails: the spectators'
// page, the console, WHEP, HTTPS for a phone, and the room if publishing.
// The match loop reads the table until the source ends (a video, a
// folder) or breaks; the server goes on showing the last picture and the
// scores until it is stopped.
func serveTable(ctx context.Context, cancel context.CancelFunc, o serveOptions, cfg stream.Config, room *livekit.Config, t servedTable, log *slog.Logger, stdout io.Writer) error {
	if t.phone != nil {
		cfg.Ingest = t.phone
		cfg.CameraToken = randomToken()
		cfg.CameraStatus = t.camera
	}
	var tln net.Listener
	var err error
	if o.httpsAddr != "" {
		if tln, cfg.CameraURL, err = listenHTTPS(o, log); err != nil {
			return err
		}
		defer tln.Close()
	}
	srv, err := stream.New(cfg, t.feed, t.game)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	hs := srv.HTTPServer(o.addr)
	served := make(chan error, 2)
	go func() { served <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "spectators: %s/   console: %s/console   WHEP: %s/whep   (WebRTC on udp %s)\n", url, url, url, srv.ICEAddr())
	fmt.Fprintf(stdout, "overlay for OBS (a 1920x1080 browser source): %s/overlay\n", url)
	var hss *http.Server
	if tln != nil {
		hss = srv.HTTPServer(o.httpsAddr)
		go func() { served <- hss.Serve(tln) }()
		fmt.Fprintf(stdout, "over HTTPS: %s/   console: %s/console\n", cfg.CameraURL, cfg.CameraURL)
	}
	if t.phone != nil {
		printPhoneLink(stdout, cfg.CameraURL+"/camera?token="+cfg.CameraToken, log)
	}
	published, err := publishToRoom(ctx, room, srv, stdout, url)
	if err != nil {
		return err
	}
	defer published()
	log.Info("serving", slog.String("http", ln.Addr().String()), slog.String("udp", srv.ICEAddr().String()),
		slog.String("source", o.source), slog.String("game", o.game), slog.Int("max_viewers", o.maxViewers))

	loopDone := make(chan error, 1)
	go func() {
		err := t.run(ctx, t.src)
		t.feed.ended()
		loopDone <- err
	}()
	runErr := make(chan error, 1)
	go func() { runErr <- srv.Run(ctx) }()
	err, loopErr := awaitServeEnd(loopDone, runErr, served, cancel, t.game, log)
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	_ = hs.Shutdown(shut)
	if hss != nil {
		_ = hss.Shutdown(shut)
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err == nil && loopErr != nil && !errors.Is(loopErr, table.ErrStopped) {
		err = loopErr
	}
	log.Info("stopped")
	return err
}

// parseServeFlags reads serve's flags; a negative --cv-threads is a usage
// error at once (check does the rest, after OpenCV's threads are set).
func parseServeFlags(args []string, stderr io.Writer) (serveOptions, error) {
	var o serveOptions
	fs := newFlags("serve", "[--game classic|tiles] [--source demo|CAMERA|VIDEO|FOLDER|phone] [--calibration F | --players N] [--addr :8080] [--token-file F] [--max-viewers N] [--udp-port P]", stderr)
	fs.StringVar(&o.game, "game", gameClassic, "which Ligretto: classic, or tiles (the tile game of rulebook 002, from a camera, a video, a folder or a phone)")
	fs.IntVar(&o.rounds, "rounds", 0, "with --game tiles: rounds in the match (T6b; 0: 6)")
	fs.StringVar(&o.source, "source", "demo", "what to referee: demo (simulated matches, rendered), a camera index or /dev/videoN, a video file, a folder of images, or phone (a phone publishing to /camera over WHIP)")
	fs.IntVar(&o.players, "players", 4, "players at the table, 2 to 12 (the demo's, or how many to calibrate live); 2 to 4 with --game tiles, named P1.. with the frames plain, double, dashed, dotted")
	fs.Float64Var(&o.speed, "speed", 1, "how many times faster than real time the demo, a video or a folder plays")
	fs.StringVar(&o.calPath, "calibration", "", "calibration file for a camera, video or folder (default: calibrate live from the first frames, with --players)")
	fs.StringVar(&o.logPath, "log", "", "also write the referee's event log (JSON lines) to this new file; `ligretto replay FILE` rebuilds the state from it")
	fs.StringVar(&o.addr, "addr", ":8080", "HTTP address for the spectator page, the console, WHEP and the API")
	fs.StringVar(&o.tokenFile, "token-file", "", "file holding the operator token (without it, a random token is printed once)")
	fs.IntVar(&o.maxViewers, "max-viewers", 50, "most spectators at once; more are refused with 503")
	fs.IntVar(&o.udpPort, "udp-port", 8443, "the one UDP port for all WebRTC media (0: any free port)")
	fs.StringVar(&o.publicIP, "public-ip", "", "announce this IP to viewers instead of the local addresses (server behind 1:1 NAT)")
	fs.IntVar(&o.nackHistory, "nack-history", 0, "RTP packets kept, for all viewers together, to resend to a viewer that lost them (0: 1024; negative: none, a lost packet then costs every viewer a keyframe)")
	fs.StringVar(&o.httpsAddr, "https-addr", "", "also serve HTTPS at this address: phones give a camera only to secure pages (default :8443 with --source phone)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "certificate for HTTPS (PEM), with --tls-key (default: a self-signed one, made at first start and kept in --state-dir)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "private key for HTTPS (PEM), with --tls-cert")
	fs.StringVar(&o.stateDir, "state-dir", "", "where the self-signed certificate is kept (default: ligretto in the user's config folder)")
	fs.IntVar(&o.cvThreads, "cv-threads", 1, "threads for OpenCV's parallel loops (the stream's encoder shares the cores); 0: OpenCV's default (one per core)")
	o.nets = networkFlags(fs)
	o.publish = publishFlags(fs)
	if err := parse(fs, args); err != nil {
		return o, err
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if o.cvThreads < 0 {
		fmt.Fprintf(stderr, "ligretto serve: --cv-threads %d is negative\n", o.cvThreads)
		return o, errUsage
	}
	return o, nil
}

// check reports the flags that do not go together or are out of range,
// and fills in the HTTPS address a phone source needs.
func (o *serveOptions) check(stderr io.Writer) error {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		fmt.Fprintln(stderr, "ligretto serve: --tls-cert and --tls-key go together")
		return errUsage
	}
	if o.source == "phone" && o.httpsAddr == "" {
		o.httpsAddr = ":8443"
	}
	if o.players < 2 || o.players > 12 || !(o.speed > 0 && o.speed <= 50) {
		fmt.Fprintf(stderr, "ligretto serve: --players %d must be 2 to 12 and --speed %v within (0, 50]\n", o.players, o.speed)
		return errUsage
	}
	if o.udpPort < 0 || o.udpPort > 65535 {
		fmt.Fprintf(stderr, "ligretto serve: --udp-port %d is not a port\n", o.udpPort)
		return errUsage
	}
	if err := o.checkGame(stderr); err != nil {
		return err
	}
	if o.source == "demo" && o.calPath != "" {
		fmt.Fprintln(stderr, "ligretto serve: the demo calibrates each simulated table itself; --calibration is for a camera, video or folder")
		return errUsage
	}
	_, err := o.publish.config(nil, nil, stderr)
	return err
}

// openServeSource opens what serve referees: the phone (returned as such
// too, for the server's WHIP ingest), the demo, or a camera, video or
// folder.
func openServeSource(ctx context.Context, o serveOptions, log *slog.Logger) (table.Source, *table.Phone, error) {
	switch o.source {
	case "phone":
		phone := table.NewPhone(ctx, log)
		return phone, phone, nil
	case "demo":
		cfg := demo.DefaultConfig()
		cfg.Players, cfg.Speed, cfg.Log = o.players, o.speed, log
		src, err := demo.New(ctx, cfg)
		if err != nil {
			return nil, nil, err
		}
		return src, nil, nil
	}
	src, err := table.Open(o.source, 30)
	if err != nil {
		return nil, nil, err
	}
	if table.IsCamera(o.source) {
		// Whatever happens to the camera, the server stays up and
		// the match resumes when it is back.
		spec := o.source
		return table.Reopen(ctx, src, func() (table.Source, error) { return table.Open(spec, 30) }, log), nil, nil
	}
	return table.Paced(table.Prefetch(src), o.speed), nil, nil
}

// listenHTTPS listens at --https-addr with the certificate, and says
// where a phone reaches it.
func listenHTTPS(o serveOptions, log *slog.Logger) (net.Listener, string, error) {
	cert, err := serverCertificate(o.tlsCert, o.tlsKey, o.stateDir, log)
	if err != nil {
		return nil, "", err
	}
	tln, err := net.Listen("tcp", o.httpsAddr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s (HTTPS): %w", o.httpsAddr, err)
	}
	url := "https://" + reachableAddr(tln.Addr())
	return tls.NewListener(tln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), url, nil
}

// printPhoneLink prints the phone camera's link and its QR code.
func printPhoneLink(stdout io.Writer, cam string, log *slog.Logger) {
	fmt.Fprintf(stdout, "phone camera: %s\n  open it on the phone (scan the code below, or the one on the console); if the browser warns about the certificate, tap Advanced, then Proceed\n", cam)
	if err := phonelink.TerminalQR(stdout, cam); err != nil {
		log.Warn("no QR code", slog.Any("err", err))
	}
}

// awaitServeEnd waits until the server stops (it is stopped, or one of
// its listeners fails), logging how the match loop ended if it ends
// first; then it stops the loop and waits for it. err is the server's,
// loopErr the loop's.
func awaitServeEnd(loopDone, runErr, served chan error, cancel context.CancelFunc, game stream.Controller, log *slog.Logger) (err, loopErr error) {
	for waiting := true; waiting; {
		select {
		case e := <-loopDone:
			loopErr = e
			loopDone = nil
			logLoopEnd(e, game, log)
		case err = <-runErr:
			waiting = false
		case err = <-served:
			cancel()
			// The listener's error is the one to report; the server's
			// own, once cancelled, only says it stopped.
			if e := <-runErr; e != nil {
				log.Debug("the server stopped", slog.Any("err", e))
			}
			waiting = false
		}
	}
	cancel()
	if loopDone != nil {
		loopErr = <-loopDone
	}
	return err, loopErr
}

// logLoopEnd says why the match loop ended while the server goes on.
func logLoopEnd(e error, game stream.Controller, log *slog.Logger) {
	switch {
	case errors.Is(e, table.ErrStopped):
	case e != nil:
		log.Error("the table's source broke; still serving the scores so far (Ctrl-C stops)", slog.Any("err", e))
	default:
		st := game.State()
		log.Info("the source ended; still serving the scores (Ctrl-C stops)", slog.Int("rounds_scored", st.Match.Rounds),
			slog.String("phase", string(st.Phase)))
	}
}

// randomToken is a fresh secret for the phone's camera link.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// serverCertificate is the HTTPS certificate: the given pair, or a
// self-signed one kept in stateDir for the machine's addresses (made at
// first start; the phone then warns once).
func serverCertificate(certFile, keyFile, stateDir string, log *slog.Logger) (tls.Certificate, error) {
	if certFile != "" {
		return phonelink.LoadCert(certFile, keyFile)
	}
	if stateDir == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("no folder for the certificate (give --state-dir): %w", err)
		}
		stateDir = filepath.Join(dir, "ligretto")
	}
	var hosts []string
	for _, ip := range phonelink.LANAddresses() {
		hosts = append(hosts, ip.String())
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	cert, created, err := phonelink.LoadOrCreateCert(stateDir, hosts)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("HTTPS certificate: %w", err)
	}
	if created {
		log.Info("made a self-signed HTTPS certificate", slog.String("dir", stateDir), slog.Any("hosts", hosts))
	}
	return cert, nil
}

// reachableAddr is where a phone on the same network reaches a listener:
// its own address if it listens on one, else the machine's first LAN
// address.
func reachableAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	host := tcp.IP
	if host.IsUnspecified() {
		host = net.IPv4(127, 0, 0, 1)
		if lan := phonelink.LANAddresses(); len(lan) > 0 {
			host = lan[0]
		}
	}
	return net.JoinHostPort(host.String(), strconv.Itoa(tcp.Port))
}

// loopTable lets the console calibrate the table's loop again, save its
// calibration and load one.
type loopTable struct {
	loop   *table.Loop
	source string
}

func (t loopTable) TableStatus() stream.TableStatus {
	st := t.loop.Status()
	return stream.TableStatus{Source: t.source, Calibrated: st.Calibrated, Stage: st.Stage, Markers: st.Markers, Players: st.Players,
		Enrolled: st.Enrolled, Prompt: st.Prompt, Frames: st.Frames, Width: st.Width, Height: st.Height}
}

func (t loopTable) Recalibrate(players []string) error {
	if err := t.loop.Recalibrate(players); err != nil {
		return fmt.Errorf("%w: %v", stream.ErrInvalid, err)
	}
	return nil
}

func (t loopTable) Calibration() ([]byte, error) {
	f := t.loop.Calibration()
	if f == nil {
		return nil, fmt.Errorf("%w: the table is not calibrated yet", stream.ErrConflict)
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (t loopTable) LoadCalibration(b []byte) error {
	f, err := calibration.Read(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%w: %v", stream.ErrInvalid, err)
	}
	if err := t.loop.UseCalibration(f); err != nil {
		return fmt.Errorf("%w: %v", stream.ErrInvalid, err)
	}
	return nil
}

// tableGame is the game as the console controls it: a back enrolled there
// is also the back's name in the table's calibration, for the next match
// the camera opens.
type tableGame struct {
	*stream.RefereeGame
	loop *table.Loop
}

func (g tableGame) EnrolBack(player, back string) error {
	seated := true
	if err := g.loop.CheckBack(player, back); errors.Is(err, table.ErrNoSeat) {
		seated = false // a player of the console's roster only
	} else if err != nil {
		return fmt.Errorf("%w: %v", stream.ErrInvalid, err)
	}
	if err := g.RefereeGame.EnrolBack(player, back); err != nil {
		return err
	}
	if seated {
		return g.loop.RelabelBack(player, back)
	}
	return nil
}

// gameReferee lets the match loop feed the game and draw the referee's state.
type gameReferee struct{ g *stream.RefereeGame }

func (r gameReferee) Apply(o referee.Observation) (referee.Verdict, error) { return r.g.Apply(o) }
func (r gameReferee) State() referee.State                                 { return r.g.RefereeState() }
func (r gameReferee) SetUnsure(piles []int)                                { r.g.SetUnsure(piles) }

// frameFeed carries the loop's annotated frames to the stream: the newest
// only (a frame the encoder is not ready for is dropped, so the picture
// stays live). Once the source has ended, the last picture is sent again
// now and then, so that a spectator who comes later still sees the table
// and its scores.
type frameFeed struct {
	ch   chan stream.Frame
	last atomic.Pointer[stream.Frame]
	done chan struct{}
	once sync.Once
}

func newFrameFeed() *frameFeed {
	return &frameFeed{ch: make(chan stream.Frame, 1), done: make(chan struct{})}
}

func (f *frameFeed) offer(tf table.Frame) {
	if len(f.ch) == cap(f.ch) {
		return // the encoder is busy: this frame is skipped (not even converted)
	}
	img, err := table.RGBA(tf.Image)
	if err != nil {
		return
	}
	fr := stream.Frame{Image: img, Seq: tf.Seq, Time: time.Now()}
	f.last.Store(&fr)
	select {
	case f.ch <- fr:
	default:
	}
}

func (f *frameFeed) ended() { f.once.Do(func() { close(f.done) }) }

// Frames implements stream.FrameSource.
func (f *frameFeed) Frames(ctx context.Context) <-chan stream.Frame {
	out := make(chan stream.Frame, 1)
	go func() {
		defer close(out)
		var seq uint64
		repeat := time.NewTicker(500 * time.Millisecond)
		defer repeat.Stop()
		for {
			var fr stream.Frame
			select {
			case <-ctx.Done():
				return
			case fr = <-f.ch:
			case <-repeat.C:
				select {
				case <-f.done:
				default:
					continue
				}
				last := f.last.Load()
				if last == nil {
					continue
				}
				fr = *last
				fr.Time = time.Now()
			}
			seq++
			fr.Seq = seq
			select {
			case out <- fr:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
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
