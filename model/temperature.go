package model

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Temperatures scale a network's logits before the softmax (temperature
// scaling): the probabilities of a head are softmax(logits / T). A
// network trained to the last error is over-confident (a misread card 1.00
// sure); a temperature above 1 softens its probabilities until, on
// held-out crops, a reading p sure is right about a share p of the time.
// The argmax of one reading does not change. Zero means 1: no scaling.
type Temperatures struct {
	Side, Colour, Number float64
}

// IsZero reports whether no temperature is set: the probabilities are the
// network's own.
func (t Temperatures) IsZero() bool { return t == Temperatures{} }

// TemperatureFileName is the name of the temperatures file that lies
// beside the weights files it is for (model/weights/temperature.json).
const TemperatureFileName = "temperature.json"

// TemperatureVersion is the version of the temperatures file this code
// reads and writes.
const TemperatureVersion = 1

// TemperatureFile is temperature.json: the temperatures fitted for each
// weights file, which it names and pins by its SHA-256, so that weights
// trained again are not read with another network's temperatures.
type TemperatureFile struct {
	Version int `json:"version"`
	// Seed and N say what the temperatures were fitted on: N synthetic
	// crops rendered from Seed (FitTemperatures).
	Seed     uint64             `json:"seed"`
	N        int                `json:"n"`
	Networks []TemperatureEntry `json:"networks"`
}

// TemperatureEntry is one weights file's temperatures.
type TemperatureEntry struct {
	Weights string  `json:"weights"` // file name: card.weights, second.weights
	SHA256  string  `json:"sha256"`  // of the weights file, hex
	Side    HeadFit `json:"side"`
	Colour  HeadFit `json:"colour"`
	Number  HeadFit `json:"number"`
}

// Temperatures returns the entry's temperatures.
func (e TemperatureEntry) Temperatures() Temperatures {
	return Temperatures{Side: e.Side.T, Colour: e.Colour.T, Number: e.Number.T}
}

// HeadFit is one head's temperature and the negative log-likelihood (mean
// over N crops) of its two-way readings before and after scaling.
type HeadFit struct {
	T         float64 `json:"t"`
	N         int     `json:"n"`
	NLLBefore float64 `json:"nll_before"`
	NLLAfter  float64 `json:"nll_after"`
}

// ErrTemperatures: a temperatures file that cannot be read, or whose
// SHA-256 for a weights file is not that file's.
var ErrTemperatures = errors.New("temperatures")

// Temperature bounds: outside them a fit went wrong.
const (
	minTemperature = 0.05
	maxTemperature = 50
)

// ParseTemperatureFile reads and validates a temperatures file.
func ParseTemperatureFile(b []byte) (*TemperatureFile, error) {
	var f TemperatureFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTemperatures, err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Validate checks the version, the hashes and that every temperature is
// a positive number in range.
func (f *TemperatureFile) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrTemperatures}, args...)...)
	}
	if f.Version != TemperatureVersion {
		return bad("version %d, this program reads version %d", f.Version, TemperatureVersion)
	}
	seen := map[string]bool{}
	for i, e := range f.Networks {
		if e.Weights == "" || strings.ContainsAny(e.Weights, `/\`) {
			return bad("network %d: weights %q: want a file name", i, e.Weights)
		}
		if seen[e.Weights] {
			return bad("%s is listed twice", e.Weights)
		}
		seen[e.Weights] = true
		if h, err := hex.DecodeString(e.SHA256); err != nil || len(h) != sha256.Size || strings.ToLower(e.SHA256) != e.SHA256 {
			return bad("%s: sha256 %q: want 64 lower-case hex digits", e.Weights, e.SHA256)
		}
		for _, h := range []struct {
			name string
			t    float64
		}{{"side", e.Side.T}, {"colour", e.Colour.T}, {"number", e.Number.T}} {
			if math.IsNaN(h.t) || h.t < minTemperature || h.t > maxTemperature {
				return bad("%s: %s temperature %v out of [%v, %v]", e.Weights, h.name, h.t, minTemperature, maxTemperature)
			}
		}
	}
	return nil
}

// Marshal returns the file as written: indented JSON and a newline.
func (f *TemperatureFile) Marshal() ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// lookup returns the temperatures of the weights file called name whose
// bytes hash to sum. The entry of that name must have that hash: another
// means the weights changed since their temperatures were fitted, an
// error. With no entry of that name, an entry of that hash (the same
// weights under another name) serves.
func (f *TemperatureFile) lookup(name, sum string) (Temperatures, bool, error) {
	for _, e := range f.Networks {
		if e.Weights != name {
			continue
		}
		if e.SHA256 != sum {
			return Temperatures{}, false, fmt.Errorf("%w: %s lists %s with sha256 %s, but the weights' is %s: "+
				"the weights changed since their temperatures were fitted (fit them again: ligretto model temperature)",
				ErrTemperatures, TemperatureFileName, name, short(e.SHA256), short(sum))
		}
		return e.Temperatures(), true, nil
	}
	for _, e := range f.Networks {
		if e.SHA256 == sum {
			return e.Temperatures(), true, nil
		}
	}
	return Temperatures{}, false, nil
}

func short(sum string) string { return sum[:min(12, len(sum))] + "…" }

// WeightsSHA256 is the hex SHA-256 of a weights file's bytes, as
// temperature.json pins it.
func WeightsSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

//go:embed weights/temperature.json
var embeddedTemperatures []byte

// EmbeddedTemperatures returns the committed temperatures file.
func EmbeddedTemperatures() (*TemperatureFile, error) {
	f, err := ParseTemperatureFile(embeddedTemperatures)
	if err != nil {
		return nil, fmt.Errorf("embedded %s: %w", TemperatureFileName, err)
	}
	return f, nil
}

// embeddedTemperaturesFor returns the committed temperatures of the
// embedded weights file name. A weights file with no entry, or an entry
// of another hash, is an error: the committed weights and temperatures go
// together (scripts/train-weights writes both).
func embeddedTemperaturesFor(name string, b []byte) (Temperatures, error) {
	f, err := EmbeddedTemperatures()
	if err != nil {
		return Temperatures{}, err
	}
	t, ok, err := f.lookup(name, WeightsSHA256(b))
	if err != nil {
		return Temperatures{}, fmt.Errorf("embedded %w", err)
	}
	if !ok {
		return Temperatures{}, fmt.Errorf("%w: embedded %s has no entry for %s", ErrTemperatures, TemperatureFileName, name)
	}
	return t, nil
}

// temperaturesFor finds the temperatures of the weights file at path
// (bytes b): in the temperature.json beside it, where an entry of its name
// must match its hash, else among the committed ones by hash. None found
// is no error: the weights are read uncalibrated (Weights.Temperatures
// zero), which callers can tell.
func temperaturesFor(path string, b []byte) (Temperatures, error) {
	sum := WeightsSHA256(b)
	beside := filepath.Join(filepath.Dir(path), TemperatureFileName)
	switch raw, err := os.ReadFile(beside); {
	case err == nil:
		f, err := ParseTemperatureFile(raw)
		if err != nil {
			return Temperatures{}, fmt.Errorf("%s: %w", beside, err)
		}
		t, ok, err := f.lookup(filepath.Base(path), sum)
		if err != nil {
			return Temperatures{}, fmt.Errorf("%s: %w", beside, err)
		}
		if ok {
			return t, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Temperatures{}, fmt.Errorf("%w: %v", ErrTemperatures, err)
	}
	f, err := EmbeddedTemperatures()
	if err != nil {
		return Temperatures{}, err
	}
	for _, e := range f.Networks {
		if e.SHA256 == sum {
			return e.Temperatures(), nil
		}
	}
	return Temperatures{}, nil
}
