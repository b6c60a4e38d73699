package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/vision"
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
	logPath := fs.String("log", "", "also write the referee's event log (JSON lines, one write per entry) to this new file; `ligretto replay FILE` rebuilds the state from it")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *src == "" || (*calPath == "" && (*players < 2 || *players > 12)) {
		fs.Usage()
		return errUsage
	}
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
	source, err := vision.OpenSource(*src, 30)
	if err != nil {
		return err
	}
	defer source.Close()
	frame := gocv.NewMat()
	defer frame.Close()

	var cal *calibration.File
	if *calPath != "" {
		f, err := os.Open(*calPath)
		if err != nil {
			return fmt.Errorf("calibration: %w (run `ligretto calibrate --source SRC --players N --out %s`)", err, *calPath)
		}
		cal, err = calibration.Read(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *calPath, err)
		}
	} else {
		// Calibrate from the source's own first frames, then referee the rest.
		std, err := vision.StandardBacks(pred, w.Config)
		if err != nil {
			return err
		}
		c, err := vision.NewCalibrator(*players, pred, w.Config, vision.WithStandardBacks(std))
		if err != nil {
			return err
		}
		for !c.Done() {
			if _, err := source.Read(&frame); err != nil {
				c.Close()
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("%w (%s)", vision.ErrNotCalibrated, c.Stage())
				}
				return err
			}
			if err := c.Add(frame); err != nil {
				c.Close()
				return err
			}
		}
		cal, err = c.File()
		c.Close()
		if err != nil {
			return err
		}
	}
	p, err := vision.NewPipeline(cal, pred, w.Config, vision.DefaultPipelineConfig())
	if err != nil {
		return err
	}
	defer p.Close()
	ref := referee.New(opts...)
	enc := json.NewEncoder(stdout)
	apply := func(obs []referee.Observation) error {
		for _, o := range obs {
			v, err := ref.Apply(o)
			line := refereeLine{Obs: o}
			var x *referee.Violation
			if err != nil && !errors.As(err, &x) {
				line.Error = err.Error()
			} else {
				line.Verdict = &v
			}
			if *asJSON {
				if err := enc.Encode(line); err != nil {
					return err
				}
			} else if line.Verdict != nil {
				fmt.Fprintf(stdout, "%7d ms  %-12s %-9s %s %s\n", o.TimeMS, o.Kind, v.Status, v.Rule, v.Reason)
			} else {
				fmt.Fprintf(stdout, "%7d ms  %-12s refused: %s\n", o.TimeMS, o.Kind, line.Error)
			}
		}
		return nil
	}
	if err := apply(p.Start(0)); err != nil {
		return err
	}
	var srcErr error
	for {
		t, err := source.Read(&frame)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				srcErr = err // the source broke: report it after the scores so far
			}
			break
		}
		obs, err := p.Process(frame, t)
		if err != nil {
			srcErr = err
			break
		}
		if err := apply(obs); err != nil {
			return err
		}
	}
	res := ref.Match()
	if res != nil {
		if *asJSON {
			if err := enc.Encode(res); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(stdout, "rounds scored: %d; totals %v\n", len(res.Rounds), res.Totals)
		}
	}
	if st := ref.State(); st.Phase == referee.PhasePlaying || st.Phase == referee.PhaseCounting {
		// A video cut short: the round in progress is not scored, and the
		// log keeps what was seen of it.
		fmt.Fprintf(stderr, "the source ended during round %d (%s, %d piles seen): that round is not scored", st.Round, st.Phase, len(st.Piles))
		if *logPath != "" {
			fmt.Fprintf(stderr, "; %s holds what was seen", *logPath)
		}
		fmt.Fprintln(stderr)
	}
	if srcErr != nil {
		return fmt.Errorf("%w (the scores so far are above)", srcErr)
	}
	return nil
}
