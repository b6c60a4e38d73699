package table

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gocv.io/x/gocv"
)

// ErrSource means a source cannot be opened or read.
var ErrSource = errors.New("source")

// IsCamera says whether spec names a camera (an index or a V4L2 device)
// rather than a file or folder.
func IsCamera(spec string) bool {
	_, err := strconv.Atoi(spec)
	return err == nil || strings.HasPrefix(spec, "/dev/video")
}

// Open opens a V4L2 camera (an index such as "0" or a device path such as
// /dev/video0), a folder of images (read in name order, at fps), or a
// video file (at its own frame rate, or fps if it names none). Frames come
// as fast as they are read; Paced plays them at their own pace.
func Open(spec string, fps float64) (Source, error) {
	if fps <= 0 {
		fps = 30
	}
	if idx, err := strconv.Atoi(spec); err == nil {
		return asSource(openCamera(spec, idx, ""))
	}
	if strings.HasPrefix(spec, "/dev/video") {
		return asSource(openCamera(spec, -1, spec))
	}
	st, err := os.Stat(spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: no such file, folder or camera", ErrSource, spec)
	}
	if st.IsDir() {
		return openFolder(spec, fps)
	}
	vc, err := gocv.VideoCaptureFile(spec)
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return nil, fmt.Errorf("%w: %s: not a video OpenCV can read", ErrSource, spec)
	}
	f := vc.Get(gocv.VideoCaptureFPS)
	if f <= 0 || f > 1000 {
		f = fps
	}
	return &videoSource{vc: vc, name: spec, fps: f}, nil
}

type videoSource struct {
	vc   *gocv.VideoCapture
	name string
	fps  float64
	n    int
}

func (v *videoSource) Next(dst *gocv.Mat) (Shot, error) {
	if !v.vc.Read(dst) || dst.Empty() {
		if v.n == 0 {
			return Shot{}, fmt.Errorf("%w: %s: no frame could be decoded (corrupt or empty video)", ErrSource, v.name)
		}
		return Shot{}, io.EOF
	}
	t := int64(float64(v.n) * 1000 / v.fps)
	v.n++
	return Shot{TimeMS: t}, nil
}

func (v *videoSource) Close() error { return v.vc.Close() }

type folderSource struct {
	files []string
	fps   float64
	n     int
}

func openFolder(dir string, fps float64) (Source, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSource, err)
	}
	var files []string
	for _, e := range ents {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".png", ".jpg", ".jpeg", ".bmp":
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: %s holds no images (.png, .jpg, .bmp)", ErrSource, dir)
	}
	return &folderSource{files: files, fps: fps}, nil
}

func (f *folderSource) Next(dst *gocv.Mat) (Shot, error) {
	if f.n >= len(f.files) {
		return Shot{}, io.EOF
	}
	path := f.files[f.n]
	t := int64(float64(f.n) * 1000 / f.fps)
	f.n++
	img := gocv.IMRead(path, gocv.IMReadColor)
	defer img.Close()
	if img.Empty() {
		return Shot{TimeMS: t}, fmt.Errorf("%w: %s: not an image OpenCV can read", ErrSource, path)
	}
	img.CopyTo(dst)
	return Shot{TimeMS: t}, nil
}

func (f *folderSource) Close() error { return nil }

// cameraSource reopens the camera when it drops, for up to reopenFor.
type cameraSource struct {
	name      string
	idx       int
	dev       string
	vc        *gocv.VideoCapture
	start     time.Time
	reopenFor time.Duration
	reopened  int
}

// reopenFor is how long a dropped camera is waited for: long enough to
// plug a USB cable back in.
const reopenFor = 10 * time.Second

func openCamera(name string, idx int, dev string) (*cameraSource, error) {
	c := &cameraSource{name: name, idx: idx, dev: dev, start: time.Now(), reopenFor: reopenFor}
	if err := c.open(); err != nil {
		return nil, err
	}
	return c, nil
}

// asSource keeps a nil *cameraSource from becoming a non-nil Source.
func asSource(c *cameraSource, err error) (Source, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *cameraSource) open() error {
	var vc *gocv.VideoCapture
	var err error
	if c.dev != "" {
		vc, err = gocv.OpenVideoCapture(c.dev)
	} else {
		vc, err = gocv.VideoCaptureDevice(c.idx)
	}
	if err != nil || !vc.IsOpened() {
		if vc != nil {
			vc.Close()
		}
		return fmt.Errorf("%w: camera %s cannot be opened (is it connected, and not in use?)", ErrSource, c.name)
	}
	c.vc = vc
	return nil
}

func (c *cameraSource) Next(dst *gocv.Mat) (Shot, error) {
	deadline := time.Now().Add(c.reopenFor)
	for {
		if c.vc != nil && c.vc.Read(dst) && !dst.Empty() {
			return Shot{TimeMS: time.Since(c.start).Milliseconds()}, nil
		}
		if c.vc != nil {
			c.vc.Close()
			c.vc = nil
		}
		if time.Now().After(deadline) {
			return Shot{}, fmt.Errorf("%w: camera %s dropped and did not come back within %v", ErrSource, c.name, c.reopenFor)
		}
		time.Sleep(min(500*time.Millisecond, c.reopenFor/4))
		if c.open() == nil {
			c.reopened++
		}
	}
}

// Reconnects counts the times the camera was opened again after it
// dropped.
func (c *cameraSource) Reconnects() int { return c.reopened }

func (c *cameraSource) Close() error {
	if c.vc != nil {
		return c.vc.Close()
	}
	return nil
}

// Paced plays src no faster than its own clock, speed times as fast: a
// recorded game streams as it was played. It never skips a frame (each is
// refereed); when the loop is slower than the clock it simply falls behind.
func Paced(src Source, speed float64) Source {
	if speed <= 0 {
		speed = 1
	}
	return &paced{Source: src, speed: speed}
}

type paced struct {
	Source
	speed float64
	start time.Time
	first int64
	begun bool
}

func (p *paced) Next(dst *gocv.Mat) (Shot, error) {
	s, err := p.Source.Next(dst)
	if err != nil {
		return s, err
	}
	if !p.begun || s.NewTable {
		p.start, p.first, p.begun = time.Now(), s.TimeMS, true
		return s, nil
	}
	due := p.start.Add(time.Duration(float64(s.TimeMS-p.first) / p.speed * float64(time.Millisecond)))
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
	return s, nil
}

// Reconnects passes on the paced source's count.
func (p *paced) Reconnects() int {
	if r, ok := p.Source.(interface{ Reconnects() int }); ok {
		return r.Reconnects()
	}
	return 0
}

// Reopen keeps a camera going however long it is away: when the source
// breaks, it is opened again every few seconds (with open) until it
// answers or ctx ends, and its clock runs on from where it was, so that
// the match goes on with nothing counted twice. For a live table; a file
// that breaks stays broken.
func Reopen(ctx context.Context, src Source, open func() (Source, error), log *slog.Logger) Source {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &reopening{ctx: ctx, src: src, open: open, log: log, wait: 2 * time.Second}
}

type reopening struct {
	ctx      context.Context
	src      Source
	open     func() (Source, error)
	log      *slog.Logger
	wait     time.Duration
	base     int64     // added to the current source's times
	last     int64     // the last time given
	lastAt   time.Time // when the last frame was given
	reopened int
}

func (r *reopening) Next(dst *gocv.Mat) (Shot, error) {
	for {
		if r.src != nil {
			s, err := r.src.Next(dst)
			if err == nil {
				s.TimeMS += r.base
				if s.TimeMS <= r.last {
					// A reopened camera's clock starts again: continue it.
					r.base += r.last + 1 - s.TimeMS
					s.TimeMS = r.last + 1
				}
				r.last, r.lastAt = s.TimeMS, time.Now()
				return s, nil
			}
			if errors.Is(err, io.EOF) {
				return s, err
			}
			r.log.Warn("the camera dropped; trying to open it again every few seconds (the match goes on when it is back)", slog.Any("err", err))
			r.src.Close()
			r.src = nil
		}
		select {
		case <-r.ctx.Done():
			return Shot{}, r.ctx.Err()
		case <-time.After(r.wait):
		}
		src, err := r.open()
		if err != nil {
			continue
		}
		r.src = src
		r.reopened++
		// The time it was away passes on the match's clock too.
		if !r.lastAt.IsZero() {
			r.base = r.last + time.Since(r.lastAt).Milliseconds()
		}
		r.log.Info("the camera is back", slog.Duration("away", time.Since(r.lastAt).Round(time.Millisecond)))
	}
}

// Reconnects counts the reopenings, the source's own and this wrapper's.
func (r *reopening) Reconnects() int {
	n := r.reopened
	if c, ok := r.src.(interface{ Reconnects() int }); ok {
		n += c.Reconnects()
	}
	return n
}

func (r *reopening) Close() error {
	if r.src != nil {
		return r.src.Close()
	}
	return nil
}
