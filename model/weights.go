package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
)

// Tensor is one named array of weights, row-major.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// Weights are everything a forward pass needs: the learnables and the
// batch-norm running statistics, in the order tensorSpecs gives, plus the
// Config that fixes their shapes. Weights are not changed by the
// classifiers that use them.
type Weights struct {
	Config  Config
	Tensors []Tensor
	// Temperatures calibrate the network's probabilities (zero: none).
	// They are not in the weights file: temperature.json beside it holds
	// them, pinned to the file's SHA-256 (Default, LoadWeights).
	Temperatures Temperatures
}

type tensorKind int

const (
	learnable tensorKind = iota
	runningStat
)

type initKind int

const (
	initHe     initKind = iota // N(0, 2/fanIn), fanIn = product of all dims but the first (conv) or the first (matrix)
	initXavier                 // N(0, 1/fanIn)
	initNormal                 // N(0, 1)
	initZero
	initOne
)

type tensorSpec struct {
	name  string
	shape []int
	kind  tensorKind
	init  initKind
}

// tensorSpecs lists the tensors of the network that c describes, in the
// order they are stored.
func tensorSpecs(c Config) []tensorSpec {
	var s []tensorSpec
	in := 3
	for i, ch := range c.Channels {
		p := fmt.Sprintf("conv%d.", i)
		s = append(s,
			tensorSpec{p + "w", []int{ch, in, 3, 3}, learnable, initHe},
			tensorSpec{p + "gamma", []int{1, ch, 1, 1}, learnable, initOne},
			tensorSpec{p + "beta", []int{1, ch, 1, 1}, learnable, initZero},
			tensorSpec{p + "mean", []int{ch}, runningStat, initZero},
			tensorSpec{p + "var", []int{ch}, runningStat, initOne},
		)
		in = ch
	}
	dense := func(name string, in, out int, init initKind) {
		s = append(s,
			tensorSpec{name + ".w", []int{in, out}, learnable, init},
			tensorSpec{name + ".b", []int{1, out}, learnable, initZero})
	}
	dense("fc", c.features(), c.Hidden, initHe)
	dense("side", c.Hidden, NumSides, initXavier)
	dense("colour", c.Hidden, NumColours, initXavier)
	dense("number", c.Hidden, NumNumbers, initXavier)
	dense("embed", c.Hidden, c.EmbedDim, initXavier)
	s = append(s, tensorSpec{"protos", []int{c.BackClasses, c.EmbedDim}, learnable, initNormal})
	return s
}

// TensorSpec is one tensor of the network: its name, its shape, and
// whether it is learnt (else a batch-norm running statistic).
type TensorSpec struct {
	Name      string
	Shape     []int
	Learnable bool
}

// TensorSpecs lists the tensors of the network c describes, in the order
// Weights.Tensors holds them (for the training graph, package training).
func (c Config) TensorSpecs() []TensorSpec {
	specs := tensorSpecs(c)
	out := make([]TensorSpec, len(specs))
	for i, sp := range specs {
		out[i] = TensorSpec{Name: sp.name, Shape: slices.Clone(sp.shape), Learnable: sp.kind == learnable}
	}
	return out
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// NewWeights returns freshly initialised weights for c (He-normal
// convolutions, unit batch-norm scale, zero biases), drawn from a PCG
// generator seeded with c.Seed, so the same Config gives the same weights.
func NewWeights(c Config) (*Weights, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	w := &Weights{Config: c.clone()}
	for _, sp := range tensorSpecs(c) {
		t := Tensor{Name: sp.name, Shape: slices.Clone(sp.shape), Data: make([]float32, numel(sp.shape))}
		var std float64
		switch sp.init {
		case initHe, initXavier:
			fanIn := sp.shape[0]
			if len(sp.shape) == 4 {
				fanIn = numel(sp.shape[1:])
			}
			std = math.Sqrt(1 / float64(fanIn))
			if sp.init == initHe {
				std *= math.Sqrt2
			}
		case initNormal:
			std = 1
		case initOne:
			for i := range t.Data {
				t.Data[i] = 1
			}
		}
		if std > 0 {
			for i := range t.Data {
				t.Data[i] = float32(rng.NormFloat64() * std)
			}
		}
		w.Tensors = append(w.Tensors, t)
	}
	return w, nil
}

// Tensor returns the tensor called name, or nil.
func (w *Weights) Tensor(name string) *Tensor {
	for i := range w.Tensors {
		if w.Tensors[i].Name == name {
			return &w.Tensors[i]
		}
	}
	return nil
}

// Clone returns a deep copy.
func (w *Weights) Clone() *Weights {
	c := &Weights{Config: w.Config.clone(), Tensors: make([]Tensor, len(w.Tensors)), Temperatures: w.Temperatures}
	for i, t := range w.Tensors {
		c.Tensors[i] = Tensor{Name: t.Name, Shape: slices.Clone(t.Shape), Data: slices.Clone(t.Data)}
	}
	return c
}

// NumParams is the number of float32 values stored.
func (w *Weights) NumParams() int {
	n := 0
	for _, t := range w.Tensors {
		n += len(t.Data)
	}
	return n
}

// Validate checks that w.Config is valid and that the tensors are exactly
// the ones it implies, in order and shape; it wraps ErrShapeMismatch (or
// ErrConfig for a bad Config). Non-finite values wrap ErrCorruptWeights.
func (w *Weights) Validate() error {
	if w == nil {
		return fmt.Errorf("%w: nil weights", ErrShapeMismatch)
	}
	if err := w.Config.Validate(); err != nil {
		return err
	}
	specs := tensorSpecs(w.Config)
	if len(specs) != len(w.Tensors) {
		return fmt.Errorf("%w: %d tensors, the config needs %d", ErrShapeMismatch, len(w.Tensors), len(specs))
	}
	for i, sp := range specs {
		t := w.Tensors[i]
		if t.Name != sp.name {
			return fmt.Errorf("%w: tensor %d is %q, want %q", ErrShapeMismatch, i, t.Name, sp.name)
		}
		if !slices.Equal(t.Shape, sp.shape) {
			return fmt.Errorf("%w: tensor %s has shape %v, want %v", ErrShapeMismatch, t.Name, t.Shape, sp.shape)
		}
		if len(t.Data) != numel(sp.shape) {
			return fmt.Errorf("%w: tensor %s has %d values, want %d", ErrShapeMismatch, t.Name, len(t.Data), numel(sp.shape))
		}
		for _, v := range t.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: tensor %s has a non-finite value", ErrCorruptWeights, t.Name)
			}
		}
	}
	return nil
}

// Check reports whether w fits the network that c describes (same input
// size, channels, hidden width, embedding size and back classes) and is
// internally consistent. A mismatch wraps ErrShapeMismatch.
func (w *Weights) Check(c Config) error {
	if err := w.Validate(); err != nil {
		return err
	}
	if !w.Config.SameArch(c) {
		a, b := w.Config, c
		return fmt.Errorf("%w: weights are for %dx%d crops, channels %v, hidden %d, embed %d, %d back classes; want %dx%d, %v, %d, %d, %d",
			ErrShapeMismatch, a.Width, a.Height, a.Channels, a.Hidden, a.EmbedDim, a.BackClasses,
			b.Width, b.Height, b.Channels, b.Hidden, b.EmbedDim, b.BackClasses)
	}
	return nil
}

// The file format, all little-endian:
//
//	magic    [8]byte  "LGCNNWT\x00"
//	version  uint32   (1)
//	cfgLen   uint32,  then cfgLen bytes of Config as JSON
//	count    uint32   tensors, each:
//	  nameLen uint16, name, ndim uint8, ndim x uint32 dims, numel x float32
//	crc      uint32   CRC-32 (IEEE) of every byte before it
const (
	weightsMagic   = "LGCNNWT\x00"
	weightsVersion = 1
	maxWeightsSize = 256 << 20
)

// WriteTo writes w in the versioned binary format. It refuses weights that
// do not pass Validate.
func (w *Weights) WriteTo(dst io.Writer) (int64, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	b, err := w.encode()
	if err != nil {
		return 0, err
	}
	n, err := dst.Write(b)
	return int64(n), err
}

// encode serialises w without checking it.
func (w *Weights) encode() ([]byte, error) {
	cfg, err := json.Marshal(w.Config)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(weightsMagic)
	le := binary.LittleEndian
	b.Write(le.AppendUint32(nil, weightsVersion))
	b.Write(le.AppendUint32(nil, uint32(len(cfg))))
	b.Write(cfg)
	b.Write(le.AppendUint32(nil, uint32(len(w.Tensors))))
	for _, t := range w.Tensors {
		if len(t.Name) > math.MaxUint16 || len(t.Shape) > math.MaxUint8 {
			return nil, fmt.Errorf("%w: tensor %q cannot be encoded", ErrShapeMismatch, t.Name)
		}
		b.Write(le.AppendUint16(nil, uint16(len(t.Name))))
		b.WriteString(t.Name)
		b.WriteByte(uint8(len(t.Shape)))
		for _, d := range t.Shape {
			b.Write(le.AppendUint32(nil, uint32(d)))
		}
		buf := make([]byte, 4*len(t.Data))
		for i, v := range t.Data {
			le.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		b.Write(buf)
	}
	b.Write(le.AppendUint32(nil, crc32.ChecksumIEEE(b.Bytes())))
	return b.Bytes(), nil
}

// Save writes w to a file.
func (w *Weights) Save(path string) error {
	if err := w.Validate(); err != nil {
		return err
	}
	b, err := w.encode()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// SHA256 is the hex SHA-256 of the weights file w encodes to: that of
// the file it was read from, which calibration files and temperature.json
// pin it by.
func (w *Weights) SHA256() (string, error) {
	b, err := w.encode()
	if err != nil {
		return "", err
	}
	return WeightsSHA256(b), nil
}

// LoadWeights reads a weights file written by Save or WriteTo, with its
// temperatures: those of the temperature.json beside it, whose entry of
// the file's name must have the file's SHA-256 (another is an error
// wrapping ErrTemperatures), else the committed ones of the same SHA-256.
// With none, Temperatures is zero: the probabilities are the network's
// own, uncalibrated.
func LoadWeights(path string) (*Weights, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w, err := DecodeWeights(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if w.Temperatures, err = temperaturesFor(path, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

// ReadWeights reads weights written by WriteTo and validates them. A file
// that is not a weights file, is truncated, fails the checksum or has an
// unknown version gives an error wrapping ErrCorruptWeights; tensors that do
// not fit the stored Config give one wrapping ErrShapeMismatch. To also
// check the architecture against the one you expect, call Check.
func ReadWeights(r io.Reader) (*Weights, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxWeightsSize+1))
	if err != nil {
		return nil, err
	}
	return DecodeWeights(b)
}

// DecodeWeights is ReadWeights on a byte slice (for example a go:embed file).
func DecodeWeights(b []byte) (*Weights, error) {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrCorruptWeights}, args...)...)
	}
	if len(b) > maxWeightsSize {
		return nil, corrupt("larger than %d bytes", maxWeightsSize)
	}
	if len(b) < len(weightsMagic)+4 || string(b[:len(weightsMagic)]) != weightsMagic {
		return nil, corrupt("not a weights file (bad magic)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[len(weightsMagic):]); v != weightsVersion {
		return nil, corrupt("unsupported version %d (this build reads %d)", v, weightsVersion)
	}
	if len(b) < len(weightsMagic)+4+4 {
		return nil, corrupt("truncated")
	}
	body, sum := b[:len(b)-4], le.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, corrupt("checksum mismatch (truncated or damaged)")
	}
	d := decoder{b: body[len(weightsMagic)+4:]}
	cfgLen := d.u32()
	cfgJSON := d.bytes(int(cfgLen))
	count := d.u32()
	if d.err != nil {
		return nil, corrupt("truncated header")
	}
	w := &Weights{}
	dec := json.NewDecoder(bytes.NewReader(cfgJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w.Config); err != nil {
		return nil, corrupt("config: %v", err)
	}
	if count > 10000 {
		return nil, corrupt("%d tensors", count)
	}
	for i := 0; i < int(count); i++ {
		name := string(d.bytes(int(d.u16())))
		ndim := int(d.u8())
		shape := make([]int, ndim)
		n := 1
		for j := range shape {
			shape[j] = int(d.u32())
			n *= max(shape[j], 1)
			if n > maxWeightsSize {
				return nil, corrupt("tensor %q too large", name)
			}
		}
		raw := d.bytes(4 * numel(shape))
		if d.err != nil {
			return nil, corrupt("truncated in tensor %d", i)
		}
		data := make([]float32, len(raw)/4)
		for j := range data {
			data[j] = math.Float32frombits(le.Uint32(raw[4*j:]))
		}
		w.Tensors = append(w.Tensors, Tensor{Name: name, Shape: shape, Data: data})
	}
	if len(d.b) != 0 {
		return nil, corrupt("%d trailing bytes", len(d.b))
	}
	if err := w.Validate(); err != nil {
		if errors.Is(err, ErrConfig) {
			return nil, fmt.Errorf("%w: %w", ErrShapeMismatch, err)
		}
		return nil, err
	}
	return w, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = io.ErrUnexpectedEOF
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) u8() uint8 {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u16() uint16 {
	if b := d.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
