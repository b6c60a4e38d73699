package main

import (
	"fmt"
	"io"

	"gocv.io/x/gocv"

	"ligretto/calibration"
	"ligretto/vision"
)

func init() {
	register(command{name: "markers", summary: "write a printable PNG sheet of the four table-corner markers", run: runMarkers})
}

func runMarkers(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("markers", "--out FILE.png [--mm 80] [--dpi 300]", stderr)
	out := fs.String("out", "", "PNG file to write")
	mm := fs.Float64("mm", calibration.DefaultMarkerMM, "side of each marker's black square, in mm")
	dpi := fs.Int("dpi", 300, "print resolution")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" || *dpi < 72 || *dpi > 1200 || *mm < 20 || *mm > 95 {
		fs.Usage()
		return errUsage
	}
	sheet, err := vision.MarkerSheet(*mm, *dpi)
	if err != nil {
		return err
	}
	defer sheet.Close()
	if !gocv.IMWrite(*out, sheet) {
		return fmt.Errorf("could not write %s", *out)
	}
	fmt.Fprintf(stdout, "wrote %s: markers 0-3 (%.0f mm) on an A4 page at %d dpi; print at 100%% and tape 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left of the table as the camera sees it\n", *out, *mm, *dpi)
	return nil
}
