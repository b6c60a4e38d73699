//go:build matprofile

package demo

import (
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestMain fails the run when a test leaked a Mat: the demo renders,
// calibrates, runs the pipeline and annotates every frame, for hours
// (go test -tags matprofile ./table/demo).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := gocv.MatProfile.Count(); n > 0 {
		fmt.Fprintf(os.Stderr, "%d Mats leaked\n", n)
		code = 1
	}
	os.Exit(code)
}
