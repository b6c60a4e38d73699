// Package table runs one match at one table: frames from a source (a
// camera, a video, a folder of images, a phone, the demo), the calibration
// (from a file, or made live from the first frames), the vision pipeline,
// the referee, the annotation, and the sinks that take the annotated
// pictures and the verdicts. Every command that watches a table runs
// through it.
package table

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision"
)

// Referee takes the pipeline's observations; its state is drawn on the
// frames. *referee.Referee is one; the server passes its game.
type Referee interface {
	Apply(referee.Observation) (referee.Verdict, error)
	State() referee.State
}

// UnsureSink is a Referee that also shows which piles' tops the camera
// reads unsure at the moment (the spectators' page shows "?" there):
// the loop tells it after every frame.
type UnsureSink interface {
	SetUnsure(piles []int)
}

// Shot is what a source says of the frame it just gave.
type Shot struct {
	// TimeMS is when the frame was taken, in ms from the source's start.
	TimeMS int64
	// NewTable says the table under the camera changed with this frame
	// (the demo's next simulated match): the loop calibrates again.
	NewTable bool
	// Caption, if set, is drawn on the frame's bottom band before the
	// loop's own words (the demo says what it is).
	Caption string
}

// Source gives frames to the loop. Next fills dst with the next BGR frame
// and says what it is; it returns io.EOF at the end.
type Source interface {
	Next(dst *gocv.Mat) (Shot, error)
	Close() error
}

// Watched is a source that must know how the loop's calibration goes (the
// demo skips a seed whose rendered preamble did not calibrate).
type Watched interface {
	Watch(status func() Status)
}

// MatchSettings is a source that knows the settings of the match it shows
// (the demo's simulated matches); the loop opens the match with them.
type MatchSettings interface {
	Settings() (referee.Settings, bool)
}

// Frame is one frame after the loop looked at it.
type Frame struct {
	// Image is the frame, BGR, annotated when Config.Annotate is set. It
	// is valid only during the call: copy what you keep.
	Image gocv.Mat
	Shot
	// Seq counts the frames the loop read, from 1.
	Seq uint64
	// Calibrating is true until the calibration is ready; the referee
	// hears nothing before.
	Calibrating bool
}

// Verdict is one observation the pipeline made and what the referee said
// of it: a verdict, or Err when the referee refused it (the operator
// changed the match, or the camera missed the end of the last round).
type Verdict struct {
	Obs     referee.Observation
	Verdict referee.Verdict
	Err     error
}

// Config says how the loop runs a table.
type Config struct {
	// Players is how many players calibrate live (2..12); unused with a
	// Calibration.
	Players int
	// Calibration, if set, is the table's calibration; else the loop
	// calibrates from the source's first frames.
	Calibration *calibration.File
	// Calibrator are options for the live calibration.
	Calibrator []vision.CalibratorOption
	// Pipeline tunes the vision pipeline. Its Settings are the match's.
	Pipeline vision.PipelineConfig
	// Annotate draws the pipeline's view and the referee's calls on each
	// frame (what spectators see), and the calibration's progress.
	Annotate bool
	// OnFrame gets every frame after the loop looked at it.
	OnFrame func(Frame)
	// OnVerdict gets every observation with the referee's answer.
	OnVerdict func(Verdict)
	// OnCalibrated gets each calibration the loop made or loaded, when
	// the pipeline starts on it.
	OnCalibrated func(*calibration.File)
	// CalibrateOnly ends Run once the calibration is made (OnCalibrated
	// gets it): `ligretto calibrate`.
	CalibrateOnly bool
	// Log gets what the loop did: calibrations made, sources that broke.
	// nil: none.
	Log *slog.Logger
	// Metrics, if set, is told what each frame cost and what was decided.
	Metrics Metrics
	// Reader, if set, gives the reader the pipeline reads cards with on
	// calibration f: the loop's own adapted to f's deck, if f has one
	// (ligretto deck). An error refuses f. The loop does not close what
	// it returns. Nil: the loop's own reader throughout.
	Reader func(f *calibration.File) (model.Predictor, error)
}

// Metrics is what the loop reports as it goes; stream.TableMetrics is one.
type Metrics interface {
	Frame(stages map[string]time.Duration)
	Observation(kind string)
	Verdict(status, rule string)
	CameraReconnect()
	SourceFramesDropped(n int)
}

// ErrStopped means the loop was stopped by its context.
var ErrStopped = errors.New("table: stopped")

// ErrNoSeat means the table has no calibrated seat for that player (or no
// calibration yet).
var ErrNoSeat = errors.New("table: no such seat")

// Loop runs a match at a table. It is not safe for concurrent use, but
// for Status, which any goroutine may call.
type Loop struct {
	cfg  Config
	pred model.Predictor
	deck *calibration.Deck // the last calibration's deck, kept for the next
	ref  Referee
	log  *slog.Logger

	cal  *vision.Calibrator
	file *calibration.File
	pipe *vision.Pipeline
	seq  uint64
	last vision.Timing
	// settings is the source, when it knows its matches' settings.
	settings MatchSettings
	misfit   bool                 // frames have another shape than the calibration's
	match    *referee.Observation // the last match opened, for the next one
	names    []string             // the players of the live calibration; nil: P1, P2, ...

	mu      sync.Mutex
	status  Status
	request *request // what the console asked, done before the next frame
}

// request is a change the console asked for: calibrate again (with these
// players), or use this calibration.
type request struct {
	players []string
	file    *calibration.File
	backs   map[string]string // player -> back design, for the next match
}

// Status is how far the loop has come, for the console and the camera page.
type Status struct {
	Calibrated bool     `json:"calibrated"`
	Stage      string   `json:"stage"`   // what the calibration waits for, or "refereeing"
	Markers    int      `json:"markers"` // table markers seen (4 once the table is found)
	Players    []string `json:"players"` // who is calibrated, or calibrating, in seat order
	Enrolled   int      `json:"enrolled"`
	Frames     uint64   `json:"frames"`
	Width      int      `json:"width"`
	Height     int      `json:"height"`
	// Prompt says what the people at the table should do next.
	Prompt string `json:"prompt"`

	file *calibration.File
}

// New makes a loop that reads cards with pred and tells ref what it sees.
func New(cfg Config, pred model.Predictor, ref Referee) (*Loop, error) {
	if cfg.Calibration == nil && (cfg.Players < 2 || cfg.Players > 12) {
		return nil, fmt.Errorf("%w: %d players to calibrate, want 2 to 12 (C2)", calibration.ErrZone, cfg.Players)
	}
	if pred == nil || ref == nil {
		return nil, errors.New("table: a classifier and a referee are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l := &Loop{cfg: cfg, pred: pred, ref: ref, log: cfg.Log}
	l.setFile(cfg.Calibration)
	l.status.Stage = "waiting for the first frame"
	return l, nil
}

// Close frees the loop's images.
func (l *Loop) Close() {
	l.reset()
}

// reset drops the calibration made live and the pipeline.
func (l *Loop) reset() {
	if l.cal != nil {
		l.cal.Close()
		l.cal = nil
	}
	if l.pipe != nil {
		l.pipe.Close()
		l.pipe = nil
	}
	if u, ok := l.ref.(UnsureSink); ok {
		u.SetUnsure(nil) // no pile is read at all until the pipeline starts again
	}
	l.last = vision.Timing{}
}

// Status returns how far the loop has come.
func (l *Loop) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.status
	st.Players = append([]string(nil), st.Players...)
	st.Prompt = prompt(st)
	return st
}

// prompt says what the people at the table should do next.
func prompt(st Status) string {
	switch {
	case st.Calibrated:
		return "Calibrated: play! Every card on the centre piles is refereed."
	case st.Frames == 0:
		return "Waiting for the camera's first picture."
	case st.Markers < 4:
		return fmt.Sprintf("Show the whole table with the four markers at its corners (%d of 4 seen).", st.Markers)
	case strings.HasPrefix(st.Stage, "learning"):
		return "Keep the table empty for a moment."
	case st.Enrolled < len(st.Players):
		return fmt.Sprintf("%s: lay one card face down in your seat for a second, then take it away.", st.Players[st.Enrolled])
	}
	return fmt.Sprintf("Player %d: lay one card face down in your seat for a second, then take it away.", st.Enrolled+1)
}

// Calibration returns the calibration in use, nil before there is one.
// Any goroutine may call it.
func (l *Loop) Calibration() *calibration.File {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status.file
}

// Recalibrate drops the calibration and calibrates again from the next
// frames, for these players in the order they will show their backs. Any
// goroutine may call it; it takes effect before the next frame.
func (l *Loop) Recalibrate(players []string) error {
	if len(players) < 2 || len(players) > 12 {
		return fmt.Errorf("%w: %d players, want 2 to 12 (C2)", calibration.ErrZone, len(players))
	}
	seen := map[string]bool{}
	for _, p := range players {
		if p == "" || seen[p] {
			return fmt.Errorf("%w: player names must be given and differ (%q)", calibration.ErrZone, p)
		}
		seen[p] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.request = &request{players: append([]string(nil), players...)}
	return nil
}

// UseCalibration makes the loop referee with f from the next frame on.
// Any goroutine may call it.
func (l *Loop) UseCalibration(f *calibration.File) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if !f.Enrolled() {
		return fmt.Errorf("%w: no enrolled card backs", calibration.ErrZone)
	}
	for _, s := range f.Seats {
		if len(s.Prototype) != l.pred.Config().BackEmbeddingLen() {
			return fmt.Errorf("%w: the back prototype of %s has %d values, this classifier's %d (it was enrolled by another model)",
				calibration.ErrMalformed, s.Player, len(s.Prototype), l.pred.Config().BackEmbeddingLen())
		}
	}
	if l.cfg.Reader != nil {
		if _, err := l.cfg.Reader(f); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.request = &request{file: f}
	return nil
}

// RelabelBack names player's back design back from the next match on
// (the back the camera knows by its picture keeps its prototype; this is
// its name on the scoreboard). Any goroutine may call it.
func (l *Loop) RelabelBack(player, back string) error {
	if err := l.CheckBack(player, back); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.request == nil {
		l.request = &request{}
	}
	if l.request.backs == nil {
		l.request.backs = map[string]string{}
	}
	l.request.backs[player] = back
	return nil
}

// CheckBack says whether RelabelBack(player, back) would be taken, and
// changes nothing.
func (l *Loop) CheckBack(player, back string) error {
	f := l.Calibration()
	if f == nil {
		return fmt.Errorf("%w: the table is not calibrated yet", ErrNoSeat)
	}
	found := false
	for _, s := range f.Seats {
		if s.Player == player {
			found = true
		} else if s.Back == back {
			return fmt.Errorf("%w: back %q is %s's already (C1: backs must differ)", calibration.ErrZone, back, s.Player)
		}
	}
	if !found {
		return fmt.Errorf("%w: %q has no seat at this table", ErrNoSeat, player)
	}
	return nil
}

// relabel renames backs in the calibration and in the next match.
func (l *Loop) relabel(backs map[string]string) {
	if l.file != nil {
		f := *l.file
		f.Seats = append([]calibration.Seat(nil), f.Seats...)
		for i := range f.Seats {
			if b, ok := backs[f.Seats[i].Player]; ok {
				f.Seats[i].Back = b
			}
		}
		l.setFile(&f)
	}
	if l.match != nil {
		m := *l.match
		m.Players = append([]referee.Player(nil), m.Players...)
		for i := range m.Players {
			if b, ok := backs[m.Players[i].Name]; ok {
				m.Players[i].Back = b
			}
		}
		l.match = &m
	}
}

// takeRequest does what the console asked, if anything.
func (l *Loop) takeRequest() {
	l.mu.Lock()
	req := l.request
	l.request = nil
	l.mu.Unlock()
	if req == nil {
		return
	}
	switch {
	case req.file != nil:
		l.reset()
		l.deck = req.file.Deck // a file loaded with no deck reads without one from now on
		l.setFile(req.file)
		l.log.Info("calibration loaded", slog.Int("players", len(req.file.Seats)), slog.String("backs", backs(req.file)))
	case req.players != nil:
		l.reset()
		l.setFile(nil)
		l.names = req.players
		l.cfg.Players = len(req.players)
		l.log.Info("calibrating again", slog.Any("players", req.players))
	}
	if req.backs != nil {
		// Names only: the pipeline goes on.
		l.relabel(req.backs)
	}
}

// setFile sets the calibration in use.
func (l *Loop) setFile(f *calibration.File) {
	if f != nil && f.Deck != nil {
		l.deck = f.Deck
	}
	l.file = f
	l.mu.Lock()
	l.status.file = f
	l.mu.Unlock()
}

// Run reads src until it ends (nil), breaks (its error, after every frame
// before the break was refereed) or ctx ends (ErrStopped).
func (l *Loop) Run(ctx context.Context, src Source) error {
	if w, ok := src.(Watched); ok {
		w.Watch(l.Status)
	}
	l.settings, _ = src.(MatchSettings)
	frame := gocv.NewMat()
	defer frame.Close()
	var reconnects int
	var dropped uint64
	for {
		if ctx.Err() != nil {
			return ErrStopped
		}
		shot, err := src.Next(&frame)
		if r, ok := src.(interface{ Reconnects() int }); ok && l.cfg.Metrics != nil {
			for n := r.Reconnects(); reconnects < n; reconnects++ {
				l.cfg.Metrics.CameraReconnect()
			}
		}
		if d, ok := src.(interface{ Dropped() uint64 }); ok && l.cfg.Metrics != nil {
			if n := d.Dropped(); n > dropped {
				l.cfg.Metrics.SourceFramesDropped(int(n - dropped))
				dropped = n
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ErrStopped
			}
			return err
		}
		if err := l.Step(&frame, shot); err != nil {
			return err
		}
		if l.cfg.CalibrateOnly && l.file != nil {
			return nil
		}
	}
}

// Step looks at one frame: it calibrates, or runs the pipeline and tells
// the referee what it saw, then annotates the frame and hands it to the
// sinks.
func (l *Loop) Step(frame *gocv.Mat, shot Shot) error {
	if shot.NewTable {
		if ph := l.ref.State().Phase; l.pipe != nil && (ph == referee.PhasePlaying || ph == referee.PhaseCounting) {
			l.log.Warn("the table changed in the middle of a round; the referee will refuse the next match until the operator ends the round",
				slog.String("phase", string(ph)))
		}
		l.reset()
		if l.cfg.Calibration == nil {
			l.setFile(nil)
		}
	}
	l.takeRequest()
	l.seq++
	t0 := time.Now()
	caption := shot.Caption
	if ok, words := l.fitCalibration(frame); !ok {
		if l.cfg.Annotate {
			vision.Caption(frame, join(caption, words))
		}
		if l.cfg.OnFrame != nil {
			l.cfg.OnFrame(Frame{Image: *frame, Shot: shot, Seq: l.seq, Calibrating: l.pipe == nil})
		}
		return nil
	}
	if l.pipe == nil && l.file == nil {
		words, err := l.calibrate(*frame, shot.TimeMS)
		if err != nil {
			return err
		}
		caption = join(caption, words)
	} else {
		if l.pipe == nil {
			// A calibration given: the match opens with the first frame,
			// which the pipeline reads too.
			if err := l.startPipeline(shot.TimeMS); err != nil {
				return err
			}
		}
		if err := l.observe(*frame, shot.TimeMS); err != nil {
			return err
		}
	}
	if l.cfg.Annotate {
		if l.pipe != nil {
			if err := l.pipe.Annotate(frame, l.ref.State()); err != nil {
				return err
			}
		}
		if caption != "" {
			vision.Caption(frame, caption)
		}
	}
	l.report(time.Since(t0))
	l.mu.Lock()
	l.status.Frames, l.status.Calibrated = l.seq, l.pipe != nil
	l.status.Width, l.status.Height = frame.Cols(), frame.Rows()
	l.mu.Unlock()
	if l.cfg.OnFrame != nil {
		l.cfg.OnFrame(Frame{Image: *frame, Shot: shot, Seq: l.seq, Calibrating: l.pipe == nil})
	}
	return nil
}

// fitCalibration scales a frame of another size than the calibration's
// to it, when it has the same shape: a phone sends fewer pixels over a
// poor link, a camera may be reopened at another resolution. A frame of
// another shape is not refereed (the camera was turned or changed: the
// calibration no longer holds); it says so.
func (l *Loop) fitCalibration(frame *gocv.Mat) (bool, string) {
	if l.file == nil || frame.Empty() {
		return true, ""
	}
	w, h := l.file.ImageW, l.file.ImageH
	if frame.Cols() == w && frame.Rows() == h {
		l.misfit = false
		return true, ""
	}
	if a, b := float64(frame.Cols())*float64(h), float64(frame.Rows())*float64(w); a > 0.98*b && a < 1.02*b {
		gocv.Resize(*frame, frame, image.Pt(w, h), 0, 0, gocv.InterpolationLinear)
		return true, ""
	}
	if !l.misfit {
		l.misfit = true
		l.log.Warn("the camera's picture changed shape; not refereeing until it is back (or calibrate again)",
			slog.Int("width", frame.Cols()), slog.Int("height", frame.Rows()), slog.Int("calibrated_width", w), slog.Int("calibrated_height", h))
	}
	return false, fmt.Sprintf("Not refereeing: the picture is %dx%d, the table was calibrated at %dx%d", frame.Cols(), frame.Rows(), w, h)
}

// calibrate feeds the live calibrator one frame; once every player is
// enrolled it starts the pipeline. It returns the words for the caption.
func (l *Loop) calibrate(frame gocv.Mat, tMS int64) (string, error) {
	if l.cal == nil {
		opts := l.cfg.Calibrator
		if l.names != nil {
			opts = append(opts[:len(opts):len(opts)], vision.WithPlayerNames(l.names...))
		}
		c, err := vision.NewCalibrator(l.cfg.Players, l.pred, opts...)
		if err != nil {
			return "", err
		}
		l.cal = c
	}
	if err := l.cal.Add(frame); err != nil {
		// The camera changed under the calibration (its size, say):
		// start over rather than stop the table.
		l.log.Warn("calibration restarted", slog.Any("err", err))
		l.cal.Close()
		l.cal = nil
		return "Calibrating: starting over (" + err.Error() + ")", nil
	}
	l.mu.Lock()
	l.status.Stage, l.status.Markers, l.status.Enrolled = l.cal.Stage(), l.cal.MarkersSeen(), l.cal.Enrolled()
	l.status.Players = l.names
	l.mu.Unlock()
	if !l.cal.Done() {
		words := "Calibrating: " + l.cal.Stage()
		if m := l.cal.MarkersSeen(); m < 4 {
			words += fmt.Sprintf(" (%d of 4 seen)", m)
		}
		return words, nil
	}
	f, err := l.cal.File()
	l.cal.Close()
	l.cal = nil
	if err != nil {
		l.log.Warn("calibration failed; starting over", slog.Any("err", err))
		return "Calibrating: starting over (" + err.Error() + ")", nil
	}
	l.keepDeck(f)
	l.setFile(f)
	l.log.Info("calibrated", slog.Int("players", len(f.Seats)), slog.String("backs", backs(f)))
	if l.cfg.CalibrateOnly {
		if l.cfg.OnCalibrated != nil {
			l.cfg.OnCalibrated(f)
		}
		return "Calibrated", nil
	}
	if err := l.startPipeline(tMS); err != nil {
		return "", err
	}
	return "Calibrated: refereeing from here", nil
}

// keepDeck gives a calibration made live the deck of the one before it,
// if it has none: the deck is the cards', not the table's, and outlives
// a calibration.
func (l *Loop) keepDeck(f *calibration.File) {
	if f.Deck == nil {
		f.Deck = l.deck
	}
}

// startPipeline builds the pipeline on the calibration and opens the
// match with its observations.
func (l *Loop) startPipeline(tMS int64) error {
	pc := l.cfg.Pipeline
	if l.settings != nil {
		if s, ok := l.settings.Settings(); ok {
			pc.Settings = s
		}
	}
	pred := l.pred
	if l.cfg.Reader != nil {
		r, err := l.cfg.Reader(l.file)
		if err != nil {
			return fmt.Errorf("table: the calibration's reader: %w", err)
		}
		pred = r
	}
	p, err := vision.NewPipeline(l.file, pred, pc)
	if err != nil {
		return err
	}
	l.pipe = p
	players := make([]string, len(l.file.Seats))
	for i, s := range l.file.Seats {
		players[i] = s.Player
	}
	l.mu.Lock()
	l.status.Stage, l.status.Markers, l.status.Enrolled, l.status.Players = "refereeing", 4, len(players), players
	l.mu.Unlock()
	if l.cfg.OnCalibrated != nil {
		l.cfg.OnCalibrated(l.file)
	}
	l.apply(p.Start(max(tMS, 0)))
	return nil
}

// observe runs the pipeline on one frame and tells the referee.
func (l *Loop) observe(frame gocv.Mat, tMS int64) error {
	obs, err := l.pipe.Process(frame, tMS)
	if err != nil {
		return err
	}
	l.apply(obs)
	if u, ok := l.ref.(UnsureSink); ok {
		u.SetUnsure(l.pipe.UnsurePiles())
	}
	return nil
}

// apply passes observations to the referee and the sinks.
func (l *Loop) apply(obs []referee.Observation) {
	for _, o := range obs {
		switch {
		case o.Kind == referee.ObsMatch:
			l.match = &o
		case o.Kind == referee.ObsRound && l.match != nil && l.ref.State().Phase == referee.PhaseOver:
			// The match reached its target (C16) and the table deals
			// again: the next match, same players and settings, follows.
			next := *l.match
			next.TimeMS = o.TimeMS
			l.log.Info("the match is over and the table deals again: a new match begins")
			l.apply([]referee.Observation{next})
		}
		v, err := l.ref.Apply(o)
		var x *referee.Violation
		if errors.As(err, &x) {
			err = nil
		}
		if err != nil {
			l.log.Debug("observation refused", slog.String("kind", string(o.Kind)), slog.Any("err", err))
		}
		if m := l.cfg.Metrics; m != nil {
			m.Observation(string(o.Kind))
			if err == nil {
				m.Verdict(string(v.Status), string(v.Rule))
			}
		}
		if l.cfg.OnVerdict != nil {
			l.cfg.OnVerdict(Verdict{Obs: o, Verdict: v, Err: err})
		}
	}
}

// report tells the metrics what this frame cost, stage by stage.
func (l *Loop) report(total time.Duration) {
	m := l.cfg.Metrics
	if m == nil {
		return
	}
	stages := map[string]time.Duration{"total": total}
	if l.pipe != nil {
		t := l.pipe.Timing()
		stages["rectify"] = t.Rectify - l.last.Rectify
		stages["motion"] = t.Motion - l.last.Motion
		stages["detect"] = t.Detect - l.last.Detect
		stages["classify"] = t.Classify - l.last.Classify
		stages["track"] = t.Track - l.last.Track
		l.last = t
	} else {
		stages["calibrate"] = total
	}
	m.Frame(stages)
}

// Timing returns the pipeline's time per stage so far (zero before it
// started).
func (l *Loop) Timing() vision.Timing {
	if l.pipe == nil {
		return vision.Timing{}
	}
	return l.pipe.Timing()
}

func backs(f *calibration.File) string {
	s := ""
	for i, seat := range f.Seats {
		if i > 0 {
			s += " "
		}
		s += seat.Player + "=" + seat.Back
	}
	return s
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ". " + b
}
