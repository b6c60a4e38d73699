package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed weights load with the committed temperatures, pinned by
// their SHA-256: weights trained again without their temperatures fitted
// again fail here, not in a match.
func TestDefault_LoadsCommittedTemperatures(t *testing.T) {
	for _, load := range []func() (*Weights, error){Default, DefaultSecond} {
		w, err := load()
		if err != nil {
			t.Fatal(err)
		}
		if w.Temperatures.IsZero() {
			t.Error("the committed weights have no temperatures")
		}
	}
}

// An entry whose SHA-256 is not the weights' is an error that says what
// to do; an entry of the same SHA-256 under another name serves.
func TestTemperatures_HashMismatchIsAnError(t *testing.T) {
	first, _ := EmbeddedWeightsFiles()
	f, err := EmbeddedTemperatures()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "card.weights")
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	want := f.Networks[0].Temperatures()
	w, err := LoadWeights(path) // no file beside it: the committed one, by hash
	if err != nil || w.Temperatures != want {
		t.Fatalf("LoadWeights = %v, %v; want the committed temperatures %v", w.Temperatures, err, want)
	}
	bad := *f
	bad.Networks = append([]TemperatureEntry(nil), f.Networks...)
	bad.Networks[0].SHA256 = strings.Repeat("0", 64)
	b, err := bad.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TemperatureFileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWeights(path); !errors.Is(err, ErrTemperatures) || !strings.Contains(err.Error(), "model temperature") {
		t.Errorf("weights whose temperatures were fitted for others: err = %v, want ErrTemperatures saying how to fit them", err)
	}
}

func TestParseTemperatureFile_Validates(t *testing.T) {
	good := `{"version":1,"seed":5,"n":10,"networks":[{"weights":"card.weights","sha256":"` + strings.Repeat("ab", 32) +
		`","side":{"t":1},"colour":{"t":1.5},"number":{"t":2}}]}`
	if _, err := ParseTemperatureFile([]byte(good)); err != nil {
		t.Fatalf("a good file: %v", err)
	}
	for name, bad := range map[string]string{
		"version":     strings.Replace(good, `"version":1`, `"version":2`, 1),
		"hash":        strings.Replace(good, strings.Repeat("ab", 32), "abc", 1),
		"temperature": strings.Replace(good, `"t":1.5`, `"t":-1`, 1),
		"name":        strings.Replace(good, `"card.weights"`, `"a/card.weights"`, 1),
		"json":        good[:20],
	} {
		if _, err := ParseTemperatureFile([]byte(bad)); !errors.Is(err, ErrTemperatures) {
			t.Errorf("%s: err = %v, want ErrTemperatures", name, err)
		}
	}
}

// Labels drawn from softmax(z / 2) are fitted a temperature near 2.
func TestFitTemperature_RecoversTheTemperature(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := twoWayLogits{k: 4}
	for range 20000 {
		z := make([]float32, 4)
		for c := range z {
			z[c] = float32(rng.NormFloat64() * 6)
		}
		p := make([]float32, 4)
		softmaxT(p, z, 2)
		u, y := rng.Float32(), 0
		for y < 3 && u > p[y] {
			u -= p[y]
			y++
		}
		h.add(append(z, z...), 0, 1, y) // both readings alike
	}
	fit := h.fit()
	if math.Abs(fit.T-2) > 0.1 || fit.NLLAfter > fit.NLLBefore {
		t.Errorf("fitted T %.3f (NLL %.4f -> %.4f), want about 2", fit.T, fit.NLLBefore, fit.NLLAfter)
	}
}
