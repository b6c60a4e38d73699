package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"ligretto/referee"
)

func TestDefaultConfigValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigValidateRejects(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"zero width":           func(c *Config) { c.Width = 0 },
		"not divisible":        func(c *Config) { c.Width = 36 },
		"no conv blocks":       func(c *Config) { c.Channels = nil },
		"negative channels":    func(c *Config) { c.Channels = []int{8, -1, 8} },
		"hidden 1":             func(c *Config) { c.Hidden = 1 },
		"embedding 1":          func(c *Config) { c.EmbedDim = 1 },
		"no back classes":      func(c *Config) { c.BackClasses = 0 },
		"batch 1":              func(c *Config) { c.BatchSize = 1 },
		"zero learning rate":   func(c *Config) { c.LearnRate = 0 },
		"NaN learning rate":    func(c *Config) { c.LearnRate = math.NaN() },
		"zero epsilon":         func(c *Config) { c.BNEpsilon = 0 },
		"momentum above one":   func(c *Config) { c.BNMomentum = 1.5 },
		"negative decay":       func(c *Config) { c.WeightDecay = -1 },
		"zero embedding scale": func(c *Config) { c.EmbedScale = 0 },
		"margin of one":        func(c *Config) { c.BackMargin = 1 },
		"negative workers":     func(c *Config) { c.Workers = -1 },
		"uneven shares":        func(c *Config) { c.BatchSize, c.Workers = 33, 2 },
		"shares of one":        func(c *Config) { c.BatchSize, c.Workers = 4, 4 },
	} {
		c := DefaultConfig()
		edit(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Validate = %v, want ErrConfig", name, err)
		}
	}
}

func TestColourOrderIsReferees(t *testing.T) {
	for i, c := range referee.Colours {
		if ColourNames[i] != c.String() {
			t.Errorf("colour %d: model has %q, referee %q", i, ColourNames[i], c)
		}
	}
	p := Prediction{Colour: 2, Number: 7}
	if f := p.Face(); f != (referee.Face{Colour: referee.Blue, Number: 7}) {
		t.Errorf("Face() = %v, want blue 7", f)
	}
}

func TestNewWeightsSeeded(t *testing.T) {
	cfg := DefaultConfig()
	a, _ := NewWeights(cfg)
	b, _ := NewWeights(cfg)
	cfg.Seed = 2
	c, _ := NewWeights(cfg)
	wa, wb, wc := a.Tensor("conv0.w").Data, b.Tensor("conv0.w").Data, c.Tensor("conv0.w").Data
	if !slices.Equal(wa, wb) {
		t.Error("same seed gave different weights")
	}
	if slices.Equal(wa, wc) {
		t.Error("different seeds gave the same weights")
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestWeightsFileSize: the default network's file stays under 2 MB.
func TestWeightsFileSize(t *testing.T) {
	w, _ := NewWeights(DefaultConfig())
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	t.Logf("default weights: %d parameters, %d bytes", w.NumParams(), buf.Len())
	if buf.Len() > 2<<20 {
		t.Errorf("weights file is %d bytes, want <= 2 MB", buf.Len())
	}
}

// TestSaveLoadRoundTrip: weights saved and loaded give identical
// predictions on the fast path.
func TestSaveLoadRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	w := randomWeights(t, cfg, 21)
	path := filepath.Join(t.TempDir(), "w.bin")
	if err := w.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadWeights(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Config.SameArch(cfg) || got.Config.Seed != cfg.Seed {
		t.Errorf("config changed: %+v", got.Config)
	}
	for i := range w.Tensors {
		a, b := w.Tensors[i], got.Tensors[i]
		if a.Name != b.Name || !slices.Equal(a.Shape, b.Shape) || !slices.Equal(a.Data, b.Data) {
			t.Fatalf("tensor %s changed", a.Name)
		}
	}
	crops := randomCrops(cfg, 20, 9)
	for _, mk := range []struct {
		name string
		new  func(*Weights) (Predictor, error)
	}{
		{"fast", func(w *Weights) (Predictor, error) { return NewFast(w) }},
	} {
		p1, err := mk.new(w)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := mk.new(got)
		if err != nil {
			t.Fatal(err)
		}
		a, err1 := p1.Classify(crops)
		b, err2 := p2.Classify(crops)
		p1.Close()
		p2.Close()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range a {
			if a[i].Side != b[i].Side || a[i].Colour != b[i].Colour || a[i].Number != b[i].Number ||
				a[i].NumberProbs != b[i].NumberProbs || a[i].SideProbs != b[i].SideProbs ||
				!slices.Equal(a[i].Embedding, b[i].Embedding) {
				t.Errorf("%s: crop %d predicted differently after a round trip: %+v vs %+v", mk.name, i, a[i], b[i])
			}
		}
	}
}

func encoded(t *testing.T, w *Weights) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withCRC replaces the checksum of an edited file, so that the edit itself
// is what the reader sees.
func withCRC(b []byte) []byte {
	b = slices.Clone(b[:len(b)-4])
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func TestCorruptWeights(t *testing.T) {
	good := encoded(t, randomWeights(t, DefaultConfig(), 3))
	if _, err := DecodeWeights(good); err != nil {
		t.Fatal(err)
	}
	flip := slices.Clone(good)
	flip[len(flip)/2] ^= 0x40
	badVersion := slices.Clone(good)
	badVersion[8] = 9
	badCfg := slices.Clone(good)
	copy(badCfg[16:], "#") // inside the JSON config
	for name, b := range map[string][]byte{
		"empty":           nil,
		"not weights":     []byte("PNG\x89 certainly not a weights file at all"),
		"truncated":       good[:len(good)-1000],
		"header only":     good[:20],
		"flipped bit":     flip,
		"unknown version": withCRC(badVersion),
		"bad config json": withCRC(badCfg),
		"trailing bytes":  withCRC(append(slices.Clone(good), 0, 0, 0, 0, 1, 2)),
	} {
		_, err := DecodeWeights(b)
		if !errors.Is(err, ErrCorruptWeights) {
			t.Errorf("%s: got %v, want ErrCorruptWeights", name, err)
		}
	}
	// A corrupt file on disk, through LoadWeights.
	path := filepath.Join(t.TempDir(), "bad.bin")
	if err := os.WriteFile(path, flip, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWeights(path); !errors.Is(err, ErrCorruptWeights) {
		t.Errorf("LoadWeights of a damaged file: %v, want ErrCorruptWeights", err)
	}
}

func TestShapeMismatch(t *testing.T) {
	cfg := DefaultConfig()
	w := randomWeights(t, cfg, 4)

	// A well-formed file whose tensor has another shape than its config says.
	bad := w.Clone()
	conv := bad.Tensor("conv1.w")
	conv.Shape = []int{conv.Shape[0] / 2, conv.Shape[1], 3, 3}
	conv.Data = conv.Data[:len(conv.Data)/2]
	b, err := bad.encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeWeights(b); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("tensor of the wrong shape: %v, want ErrShapeMismatch", err)
	}
	// A missing tensor.
	short := w.Clone()
	short.Tensors = short.Tensors[:len(short.Tensors)-1]
	if b, err = short.encode(); err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeWeights(b); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("missing tensor: %v, want ErrShapeMismatch", err)
	}
	// A valid file for another network: loads, but Check with the expected
	// config refuses it (and NewTrainer: package training).
	other := cfg
	other.Channels = []int{8, 16, 32}
	wo := randomWeights(t, other, 5)
	loaded, err := DecodeWeights(encoded(t, wo))
	if err != nil {
		t.Fatal(err)
	}
	if err := loaded.Check(cfg); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("Check against another architecture: %v, want ErrShapeMismatch", err)
	}
	if err := loaded.Check(other); err != nil {
		t.Errorf("Check against its own architecture: %v", err)
	}
	// Writing inconsistent weights is refused too.
	if _, err := bad.WriteTo(&bytes.Buffer{}); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("WriteTo of inconsistent weights: %v, want ErrShapeMismatch", err)
	}
	if _, err := NewFast(bad); !errors.Is(err, ErrShapeMismatch) {
		t.Errorf("NewFast of inconsistent weights: %v, want ErrShapeMismatch", err)
	}
}

func TestCropConversions(t *testing.T) {
	img := image.NewRGBA(image.Rect(10, 20, 14, 23)) // 4x3, offset origin
	img.Set(11, 21, color.RGBA{255, 128, 0, 255})
	c, err := CropFromImage(img, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	i := 1*4 + 1
	if c[i] != 1 || math.Abs(float64(c[12+i])-128.0/255) > 1e-6 || c[24+i] != 0 {
		t.Errorf("pixel (1,1) = %v %v %v", c[i], c[12+i], c[24+i])
	}
	if _, err := CropFromImage(img, 3, 4); !errors.Is(err, ErrInput) {
		t.Errorf("wrong size: %v", err)
	}
	bgr := make([]byte, 3*4*3)
	bgr[3*i], bgr[3*i+1], bgr[3*i+2] = 0, 128, 255
	cb, err := CropFromBGR(bgr, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c, cb) {
		t.Errorf("BGR crop differs from image crop")
	}
	rgb := make([]byte, 3*4*3)
	rgb[3*i], rgb[3*i+1], rgb[3*i+2] = 255, 128, 0
	cr, _ := CropFromRGB(rgb, 4, 3)
	if !slices.Equal(c, cr) {
		t.Errorf("RGB crop differs from image crop")
	}
	if _, err := CropFromRGB(rgb[1:], 4, 3); !errors.Is(err, ErrInput) {
		t.Errorf("short pixels: %v", err)
	}
}

func TestNearestAndMean(t *testing.T) {
	protos := [][]float32{{1, 0}, {0, 1}, {-1, 0}}
	if i, s := Nearest([]float32{0.1, 0.9}, protos); i != 1 || s < 0.9 {
		t.Errorf("Nearest = %d, %v", i, s)
	}
	if i, _ := Nearest([]float32{1, 0}, nil); i != -1 {
		t.Errorf("Nearest of no prototypes = %d", i)
	}
	m := MeanEmbedding([]float32{1, 0}, []float32{0, 1})
	if math.Abs(float64(m[0])-math.Sqrt2/2) > 1e-6 || math.Abs(float64(m[1])-math.Sqrt2/2) > 1e-6 {
		t.Errorf("MeanEmbedding = %v", m)
	}
}

// ClassifyBacks reads the whole view as Classify does and joins two
// embeddings, the whole view's and the detail view's, each the mean over
// the view and its mirror image, each moved by backShifts; a uniform view
// (the same mirrored and moved) gets its own embedding back.
func TestClassifyBacks(t *testing.T) {
	w, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFast(w)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg := f.Config()
	rng := rand.New(rand.NewPCG(5, 6))
	asym := make(Crop, cfg.CropLen())
	for i := range asym {
		asym[i] = rng.Float32()
	}
	// A uniform crop reads the same mirrored and moved.
	flat := make(Crop, cfg.CropLen())
	for i := range flat {
		flat[i] = 0.2 + 0.5*float32(i/(cfg.Width*cfg.Height))/3
	}
	if m := mirrored(mirrored(asym, cfg.Width, cfg.Height), cfg.Width, cfg.Height); !slices.Equal(m, asym) {
		t.Fatal("mirroring twice does not give the crop back")
	}
	plain, err := f.Classify([]Crop{asym, flat})
	if err != nil {
		t.Fatal(err)
	}
	// Every view ClassifyBacks reads of asym: it and its mirror, each moved.
	var views []Crop
	for _, c := range []Crop{asym, mirrored(asym, cfg.Width, cfg.Height)} {
		for _, d := range backShifts {
			views = append(views, shifted(c, cfg.Width, cfg.Height, d[0], d[1]))
		}
	}
	moved, err := f.Classify(views)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ClassifyBacks(f, []BackViews{{Whole: asym, Detail: flat}, {Whole: flat, Detail: flat}})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Side != plain[0].Side || got[0].SideProb != plain[0].SideProb || got[0].ColourProbs != plain[0].ColourProbs {
		t.Errorf("side and colour %v %v differ from Classify's %v %v", got[0].Side, got[0].ColourProbs, plain[0].Side, plain[0].ColourProbs)
	}
	if len(got[0].Embedding) != cfg.BackEmbeddingLen() {
		t.Fatalf("embedding of %d values, want %d", len(got[0].Embedding), cfg.BackEmbeddingLen())
	}
	var embs [][]float32
	for _, m := range moved {
		embs = append(embs, m.Embedding)
	}
	want := normalized(append(MeanEmbedding(embs...), plain[1].Embedding...))
	for i := range want {
		if math.Abs(float64(got[0].Embedding[i]-want[i])) > 1e-5 {
			t.Fatalf("embedding %v, want the whole view's (mirrored and moved) joined to the detail view's %v", got[0].Embedding, want)
		}
	}
	self := normalized(append(slices.Clone(plain[1].Embedding), plain[1].Embedding...))
	if c := Cosine(got[1].Embedding, self); c < 0.9999 {
		t.Errorf("a uniform crop's embedding moved: cosine %.6f to its own", c)
	}
	if _, err := ClassifyBacks(f, []BackViews{{Whole: asym, Detail: make(Crop, 3)}}); !errors.Is(err, ErrInput) {
		t.Errorf("a short detail crop: %v, want ErrInput", err)
	}
}

// BackViewsFromImage: the detail view is the centre of a card warped to
// DetailSize, the whole view all of it scaled down.
func TestBackViewsFromImage(t *testing.T) {
	cfg := DefaultConfig()
	dw, dh := cfg.DetailSize()
	if dw != 48 || dh != 72 {
		t.Fatalf("detail size %dx%d, want 48x72 for a 32x48 crop at 1.5", dw, dh)
	}
	img := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			img.Set(x, y, color.RGBA{uint8(x * 5), uint8(y * 3), 40, 255})
		}
	}
	v, err := BackViewsFromImage(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	plane := cfg.Width * cfg.Height
	x0, y0 := (dw-cfg.Width)/2, (dh-cfg.Height)/2
	for _, at := range [][2]int{{0, 0}, {cfg.Width - 1, cfg.Height - 1}, {10, 20}} {
		x, y := at[0], at[1]
		if r := v.Detail[y*cfg.Width+x]; math.Abs(float64(r)-float64((x+x0)*5)/255) > 1e-6 {
			t.Errorf("detail red at %d,%d is %v, want the image's at %d,%d", x, y, r, x+x0, y+y0)
		}
		if g := v.Detail[plane+y*cfg.Width+x]; math.Abs(float64(g)-float64((y+y0)*3)/255) > 1e-6 {
			t.Errorf("detail green at %d,%d is %v", x, y, g)
		}
	}
	// The whole view's corners are the image's corners, not its centre's.
	if r := v.Whole[0]; r > 0.05 {
		t.Errorf("whole view's top-left red %v, want near the image's 0", r)
	}
	if r := v.Whole[cfg.Width-1]; r < 0.8 {
		t.Errorf("whole view's top-right red %v, want near the image's %v", r, float64((dw-1)*5)/255)
	}
	if _, err := BackViewsFromImage(image.NewRGBA(image.Rect(0, 0, cfg.Width, cfg.Height)), cfg); !errors.Is(err, ErrInput) {
		t.Errorf("an image of the crop size: %v, want ErrInput", err)
	}
}
