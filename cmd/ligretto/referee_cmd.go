package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"ligretto/calibration"
	"ligretto/model"
	"ligretto/referee"
	"ligretto/table"
	"ligretto/vision"
	"ligretto/vision/cvthreads"
)

func init() {
	register(command{name: "referee", summary: "referee a match from a camera, video or images: observations and verdicts, then the scores", run: runReferee})
}

// refereeLine is one JSON line of output.
type refereeLine struct {
	Obs     referee.Observation `json:"obs"`
	Verdict *referee.Verdict    `json:"verdict,omitempty"`
	Error   string              `json:"error,omitempty"`
}

func runReferee(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("referee", "--source SRC [--calibration FILE | --players N] [--json]", stderr)
	src := fs.String("source", "", "camera index or /dev/videoN, video file, or folder of images")
	calPath := fs.String("calibration", "", "calibration file (default: calibrate from the start of the source, with --players)")
	players := fs.Int("players", 0, "players, when calibrating from the source")
	asJSON := fs.Bool("json", false, "print observations and verdicts as JSON lines, then the result")
	nets := networkFlags(fs)
	cvThreads := fs.Int("cv-threads", 1, "threads for OpenCV's parallel loops; 0: OpenCV's default (one per core)")
	logPath := fs.String("log", "", "also write the referee's event log (JSON lines, one write per entry) to this new file; `ligretto replay FILE` rebuilds the state from it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *src == "" || (*calPath == "" && (*players < 2 || *players > 12)) || *cvThreads < 0 {
		fs.Usage()
		return errUsage
	}
	cvthreads.Set(*cvThreads)
	var opts []referee.Option
	if *logPath != "" {
		// A new file only: an earlier match's log is never overwritten.
		lf, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("referee log: %w (choose a new file)", err)
		}
		defer lf.Close()
		opts = append(opts, referee.WithLog(lf))
	}
	w, pred, err := predictor(nets, false)
	if err != nil {
		return err
	}
	defer pred.Close()
	source, err := table.Open(*src, 30)
	if err != nil {
		return err
	}
	if !table.IsCamera(*src) {
		// A file is decoded a frame ahead, beside the pipeline; a camera
		// is read as it comes (a frame ahead would be a frame late).
		source = table.Prefetch(source)
	}
	defer source.Close()
	cfg := table.Config{Players: *players, Pipeline: vision.DefaultPipelineConfig(),
		Reader: func(f *calibration.File) (model.Predictor, error) { return withDeck(f, w, pred) }}
	if err := useCalibration(&cfg, *calPath, w, pred); err != nil {
		return err
	}
	ref := referee.New(opts...)
	printer := &verdictPrinter{out: stdout, enc: json.NewEncoder(stdout), asJSON: *asJSON}
	cfg.OnVerdict = printer.print
	loop, err := table.New(cfg, pred, ref)
	if err != nil {
		return err
	}
	defer loop.Close()
	srcErr := loop.Run(context.Background(), source)
	if printer.err != nil {
		return printer.err
	}
	if srcErr != nil && loop.Calibration() == nil {
		return fmt.Errorf("%w (%v)", vision.ErrNotCalibrated, srcErr)
	}
	if loop.Calibration() == nil {
		return fmt.Errorf("%w (%s)", vision.ErrNotCalibrated, loop.Status().Stage)
	}
	if err := printer.printMatch(ref); err != nil {
		return err
	}
	warnUnscoredRound(ref, *logPath, stderr)
	if srcErr != nil {
		return fmt.Errorf("%w (the scores so far are above)", srcErr)
	}
	return nil
}

// useCalibration sets the loop to use the calibration file, if given, or
// else to calibrate from the source's own first frames, then referee the
// rest.
func useCalibration(cfg *table.Config, calPath string, w *model.Weights, pred model.Predictor) error {
	if calPath != "" {
		var err error
		if cfg.Calibration, err = readCalibration(calPath); err != nil {
			return err
		}
		_, err = withDeck(cfg.Calibration, w, pred)
		return err
	}
	std, err := standardBacks(pred)
	if err != nil {
		return err
	}
	cfg.Calibrator = []vision.CalibratorOption{vision.WithStandardBacks(std)}
	return nil
}

// verdictPrinter prints the observations and their verdicts as they come,
// as text or JSON lines; err is the first JSON line it failed to write.
type verdictPrinter struct {
	out    io.Writer
	enc    *json.Encoder
	asJSON bool
	err    error
}

func (p *verdictPrinter) print(tv table.Verdict) {
	o, v := tv.Obs, tv.Verdict
	line := refereeLine{Obs: o}
	if tv.Err != nil {
		line.Error = tv.Err.Error()
	} else {
		line.Verdict = &v
	}
	switch {
	case p.asJSON:
		if err := p.enc.Encode(line); err != nil && p.err == nil {
			p.err = err
		}
	case line.Verdict != nil:
		fmt.Fprintf(p.out, "%7d ms  %-12s %-9s %s %s\n", o.TimeMS, o.Kind, v.Status, v.Rule, v.Reason)
	default:
		fmt.Fprintf(p.out, "%7d ms  %-12s refused: %s\n", o.TimeMS, o.Kind, line.Error)
	}
}

// printMatch prints the match's result, if a round was scored.
func (p *verdictPrinter) printMatch(ref *referee.Referee) error {
	res := ref.Match()
	if res == nil {
		return nil
	}
	if p.asJSON {
		return p.enc.Encode(res)
	}
	fmt.Fprintf(p.out, "rounds scored: %d; totals %v\n", len(res.Rounds), res.Totals)
	return nil
}

// warnUnscoredRound says so when the source ended during a round.
func warnUnscoredRound(ref *referee.Referee, logPath string, stderr io.Writer) {
	st := ref.State()
	if st.Phase != referee.PhasePlaying && st.Phase != referee.PhaseCounting {
		return
	}
	// A video cut short: the round in progress is not scored, and the
	// log keeps what was seen of it.
	fmt.Fprintf(stderr, "the source ended during round %d (%s, %d piles seen): that round is not scored", st.Round, st.Phase, len(st.Piles))
	if logPath != "" {
		fmt.Fprintf(stderr, "; %s holds what was seen", logPath)
	}
	fmt.Fprintln(stderr)
}

// readCalibration reads a calibration file, saying how to make one when
// it is missing.
func readCalibration(path string) (*calibration.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w (run `ligretto calibrate --source SRC --players N --out %s`)", err, path)
	}
	defer f.Close()
	cal, err := calibration.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cal, nil
}
