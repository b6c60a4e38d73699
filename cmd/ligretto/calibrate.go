package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"ligretto/calibration"
	"ligretto/referee"
	"ligretto/table"
	"ligretto/vision"
)

func init() {
	register(command{name: "calibrate", summary: "find the table, seats and card backs from a camera, video or images; write calib.json", run: runCalibrate})
}

func runCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "--source SRC --players N --out calib.json [--corners x,y,x,y,x,y,x,y [--table-mm WxH]] [--marker-mm 80]", stderr)
	src := fs.String("source", "", "camera index or /dev/videoN, video file, or folder of images")
	players := fs.Int("players", 0, "number of players (2-12)")
	out := fs.String("out", "", "calibration file to write")
	corners := fs.String("corners", "", "table corners by hand, image pixels clockwise from top-left, instead of markers")
	tableMM := fs.String("table-mm", "", "with --corners: the size WxH in mm of the rectangle they span (default: 1000 mm wide)")
	markerMM := fs.Float64("marker-mm", calibration.DefaultMarkerMM, "side of the markers' black squares, in mm")
	nets := networkFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *src == "" || *out == "" || *players < 2 || *players > 12 {
		fs.Usage()
		return errUsage
	}
	f, err := calibrateFrom(*src, *players, *corners, *tableMM, *markerMM, nets, stderr)
	if err != nil {
		return err
	}
	w, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := f.Write(w); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: table %dx%d mm (%s), %d seats", *out, f.TableW, f.TableH, f.Source, len(f.Seats))
	for _, s := range f.Seats {
		fmt.Fprintf(stdout, " %s=%s", s.Player, s.Back)
	}
	fmt.Fprintln(stdout)
	return nil
}

// calibrateFrom reads frames from src until every player is enrolled.
func calibrateFrom(spec string, players int, corners, tableMM string, markerMM float64, nets networks, progress io.Writer) (*calibration.File, error) {
	var stage stageLog
	_, pred, err := predictor(nets, false)
	if err != nil {
		return nil, err
	}
	defer pred.Close()
	std, err := standardBacks(pred)
	if err != nil {
		return nil, err
	}
	opts := []vision.CalibratorOption{vision.WithMarkerMM(markerMM), vision.WithStandardBacks(std)}
	if corners != "" {
		pl, err := parseCorners(corners, tableMM)
		if err != nil {
			return nil, err
		}
		opts = append(opts, vision.WithCorners(pl))
	}
	src, err := table.Open(spec, 30)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var made *calibration.File
	loop, err := table.New(table.Config{Players: players, Calibrator: opts, CalibrateOnly: true,
		OnCalibrated: func(f *calibration.File) { made = f },
		OnFrame:      func(table.Frame) { stage.show(progress) }}, pred, referee.New())
	if err != nil {
		return nil, err
	}
	defer loop.Close()
	stage.status = loop.Status
	if err := loop.Run(context.Background(), src); err != nil {
		return nil, err
	}
	if made == nil {
		return nil, fmt.Errorf("%w (%s)", vision.ErrNotCalibrated, loop.Status().Stage)
	}
	return made, nil
}

// stageLog prints each new stage of a calibration once.
type stageLog struct {
	status func() table.Status
	last   string
}

func (s *stageLog) show(w io.Writer) {
	if st := s.status(); st.Stage != s.last {
		s.last = st.Stage
		fmt.Fprintf(w, "calibrate: %s\n", st.Stage)
	}
}

func parseCorners(s, tableMM string) (calibration.Plane, error) {
	vs, err := parseFloats(s)
	if err != nil {
		return calibration.Plane{}, fmt.Errorf("--corners: %w", err)
	}
	if len(vs) != 8 {
		return calibration.Plane{}, fmt.Errorf("--corners %q: want 8 numbers x,y,x,y,x,y,x,y", s)
	}
	var c [4]calibration.Point
	for i, v := range vs {
		if i%2 == 0 {
			c[i/2].X = v
		} else {
			c[i/2].Y = v
		}
	}
	wmm, hmm := calibration.GuessSize(c, 1000)
	if tableMM != "" {
		if _, err := fmt.Sscanf(tableMM, "%fx%f", &wmm, &hmm); err != nil {
			return calibration.Plane{}, fmt.Errorf("--table-mm %q: want WxH in mm, such as 900x630", tableMM)
		}
	}
	return calibration.PlaneFromCorners(c, wmm, hmm)
}

// parseFloats reads a comma-separated list of numbers.
func parseFloats(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	vs := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		vs[i] = v
	}
	return vs, nil
}
