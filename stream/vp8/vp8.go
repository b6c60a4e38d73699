// Package vp8 decodes VP8 frames one at a time with libvpx (through
// pion/mediadevices), for the server's camera ingest and the Go WHEP
// viewer alike, and reads a frame's tag.
package vp8

import (
	"errors"
	"fmt"
	"image"

	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/codec/vpx"
	"github.com/pion/mediadevices/pkg/prop"
)

// IsKeyframe reads the frame tag (RFC 6386, 9.1): bit 0 is 0 for a keyframe.
func IsKeyframe(b []byte) bool { return len(b) > 0 && b[0]&1 == 0 }

// KeyframeSize reads a keyframe's size (RFC 6386, 9.1): after the 3-byte
// frame tag, the start code 9d 01 2a, then 14-bit width and height.
func KeyframeSize(b []byte) (w, h int, ok bool) {
	if len(b) < 10 || !IsKeyframe(b) || b[3] != 0x9d || b[4] != 0x01 || b[5] != 0x2a {
		return 0, 0, false
	}
	return int(b[6]) | int(b[7]&0x3f)<<8, int(b[8]) | int(b[9]&0x3f)<<8, true
}

// Decoder decodes whole VP8 frames, one per call. It is not safe for
// concurrent use.
type Decoder struct {
	dec codec.VideoDecoder
	in  oneFrame
}

// errNoInput ends the decoder's Read when a frame gave no picture.
var errNoInput = errors.New("no more input")

// oneFrame hands the decoder, which pulls its input from a reader, the
// frame that Decode was given.
type oneFrame struct{ b []byte }

func (o *oneFrame) Read(p []byte) (int, error) {
	if o.b == nil {
		return 0, errNoInput
	}
	if len(o.b) > len(p) {
		o.b = nil
		return 0, errors.New("frame larger than the decoder's buffer")
	}
	n := copy(p, o.b)
	o.b = nil
	return n, nil
}

// NewDecoder makes a decoder; Close frees it.
func NewDecoder() (*Decoder, error) {
	d := &Decoder{}
	dec, err := vpx.NewDecoder(&d.in, prop.Media{})
	if err != nil {
		return nil, fmt.Errorf("vp8 decoder: %w", err)
	}
	d.dec = dec
	return d, nil
}

// Decode decodes one whole frame. The picture is nil (and the error too)
// when the frame shows nothing; it is a copy, the caller's to keep.
func (d *Decoder) Decode(frame []byte) (image.Image, error) {
	if len(frame) == 0 {
		return nil, errors.New("vp8: empty frame")
	}
	d.in.b = frame
	img, release, err := d.dec.Read()
	d.in.b = nil
	if errors.Is(err, errNoInput) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("vp8: decode: %w", err)
	}
	release() // the picture is a copy, not the decoder's buffer
	return img, nil
}

// Close frees the decoder.
func (d *Decoder) Close() error { return d.dec.Close() }
