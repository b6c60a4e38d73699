package vision

import (
	"errors"
	"fmt"
	"io"
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

// Source gives frames. Read fills dst with the next BGR frame and returns
// its time in ms from the start of the source; it returns io.EOF at the
// end. A simulated match rendered live (demo) fits the same interface.
type Source interface {
	Read(dst *gocv.Mat) (int64, error)
	Close() error
}

// OpenSource opens a V4L2 camera (an index such as "0" or a device path
// such as /dev/video0), a folder of images (read in name order, at fps),
// or a video file.
func OpenSource(spec string, fps float64) (Source, error) {
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

func (v *videoSource) Read(dst *gocv.Mat) (int64, error) {
	if !v.vc.Read(dst) || dst.Empty() {
		if v.n == 0 {
			return 0, fmt.Errorf("%w: %s: no frame could be decoded (corrupt or empty video)", ErrSource, v.name)
		}
		return 0, io.EOF
	}
	t := int64(float64(v.n) * 1000 / v.fps)
	v.n++
	return t, nil
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

func (f *folderSource) Read(dst *gocv.Mat) (int64, error) {
	for f.n < len(f.files) {
		path := f.files[f.n]
		t := int64(float64(f.n) * 1000 / f.fps)
		f.n++
		img := gocv.IMRead(path, gocv.IMReadColor)
		if img.Empty() {
			img.Close()
			return t, fmt.Errorf("%w: %s: not an image OpenCV can read", ErrSource, path)
		}
		img.CopyTo(dst)
		img.Close()
		return t, nil
	}
	return 0, io.EOF
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

func (c *cameraSource) Read(dst *gocv.Mat) (int64, error) {
	deadline := time.Now().Add(c.reopenFor)
	for {
		if c.vc != nil && c.vc.Read(dst) && !dst.Empty() {
			return time.Since(c.start).Milliseconds(), nil
		}
		if c.vc != nil {
			c.vc.Close()
			c.vc = nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%w: camera %s dropped and did not come back within %v", ErrSource, c.name, c.reopenFor)
		}
		time.Sleep(min(500*time.Millisecond, c.reopenFor/4))
		_ = c.open()
	}
}

func (c *cameraSource) Close() error {
	if c.vc != nil {
		return c.vc.Close()
	}
	return nil
}
