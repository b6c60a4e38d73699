package stream

import (
	"errors"
	"fmt"
	"image"
	"image/draw"

	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"

	"ligretto/stream/vp8"
)

// vp8Encoder encodes pictures one at a time with libvpx through
// mediadevices, whose encoders pull from a video.Reader: ours hands over the
// picture that Encode was given, already in I420. One goroutine encodes;
// ForceKeyFrame may be called from any.
type vp8Encoder struct {
	enc    codec.ReadCloser
	keys   codec.KeyFrameController
	width  int
	height int
	cur    image.Image
	yuv    *image.YCbCr // conversion buffer for RGBA input
	rgba   *image.RGBA  // conversion buffer for other input
}

func newVP8Encoder(width, height, bitrate, keyEvery, speed int) (*vp8Encoder, error) {
	p, err := vpx.NewVP8Params()
	if err != nil {
		return nil, fmt.Errorf("%w: vp8 params: %v", ErrEncoder, err)
	}
	p.BitRate = bitrate
	p.KeyFrameInterval = keyEvery
	p.RateControlEndUsage = vpx.RateControlCBR
	p.LagInFrames = 0
	p.ErrorResilient = vpx.ErrorResilientDefault
	e := &vp8Encoder{width: width, height: height}
	r := video.ReaderFunc(func() (image.Image, func(), error) {
		if e.cur == nil {
			return nil, func() {}, errors.New("no picture")
		}
		return e.cur, func() {}, nil
	})
	enc, err := p.BuildVideoEncoder(r, prop.Media{Video: prop.Video{Width: width, Height: height}})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEncoder, err)
	}
	e.enc = enc
	if err := setCPUUsed(enc, -speed); err != nil {
		_ = enc.Close()
		return nil, err
	}
	if c, ok := enc.(codec.Controllable); ok {
		e.keys, _ = c.Controller().(codec.KeyFrameController)
	}
	return e, nil
}

// Encode compresses one picture of the encoder's size and reports whether
// the result is a keyframe.
func (e *vp8Encoder) Encode(img image.Image) ([]byte, bool, error) {
	b := img.Bounds()
	if b.Dx() != e.width || b.Dy() != e.height {
		return nil, false, fmt.Errorf("%w: picture is %dx%d, encoder %dx%d", ErrEncoder, b.Dx(), b.Dy(), e.width, e.height)
	}
	e.cur = e.toI420(img)
	out, release, err := e.enc.Read()
	e.cur = nil
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrEncoder, err)
	}
	release()
	return out, vp8.IsKeyframe(out), nil
}

func (e *vp8Encoder) toI420(img image.Image) image.Image {
	if y, ok := img.(*image.YCbCr); ok && y.SubsampleRatio == image.YCbCrSubsampleRatio420 {
		return y
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		if e.rgba == nil {
			e.rgba = image.NewRGBA(image.Rect(0, 0, e.width, e.height))
		}
		draw.Draw(e.rgba, e.rgba.Rect, img, img.Bounds().Min, draw.Src)
		rgba = e.rgba
	}
	if e.yuv == nil {
		e.yuv = image.NewYCbCr(image.Rect(0, 0, e.width, e.height), image.YCbCrSubsampleRatio420)
	}
	rgbaToI420(e.yuv, rgba)
	return e.yuv
}

// ForceKeyFrame makes the next encoded frame a keyframe.
func (e *vp8Encoder) ForceKeyFrame() {
	if e.keys != nil {
		_ = e.keys.ForceKeyFrame()
	}
}

// Close frees the encoder.
func (e *vp8Encoder) Close() error { return e.enc.Close() }
