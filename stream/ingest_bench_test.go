//go:build linux

package stream

import (
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"os"
	"testing"
	"time"
)

// BenchmarkIngestDecode720p measures what the WHIP ingest spends decoding
// a phone's 1280x720 VP8 (vp8Decoder.Decode, as Server.receive calls it
// for each whole frame). The frames are encoded once, before the timer,
// from a rendered table (testdata/table720.jpg, frame 380 of the rendered
// round the e2e tests make: 2 players, piles in the centre, a hand) with
// what a phone's camera adds: a hand moving over the table and fresh
// sensor noise (sigma about 3 levels) in every picture, at 4 Mbit/s and
// 10 fps, a keyframe then 59 delta frames; the decoder goes round them
// (starting again at the keyframe). It reports ns/op per frame,
// frames/s, the CPU per frame (getrusage: what one core spends, whatever
// else runs on the machine) and the frames' mean size.
//
//	go test -run '^$' -bench IngestDecode720p -benchtime 600x ./stream
func BenchmarkIngestDecode720p(b *testing.B) {
	frames := phoneFrames(b, 60)
	dec, err := newVP8Decoder()
	if err != nil {
		b.Fatal(err)
	}
	defer dec.Close()
	bytes := 0
	for _, f := range frames {
		bytes += len(f)
	}
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		img, err := dec.Decode(frames[i%len(frames)])
		if err != nil {
			b.Fatalf("frame %d: %v", i%len(frames), err)
		}
		if img == nil || img.Bounds().Dx() != 1280 || img.Bounds().Dy() != 720 {
			b.Fatalf("frame %d decoded to %v", i%len(frames), img)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/frame")
	b.ReportMetric(float64(bytes)/float64(len(frames))/1024, "KiB/frame")
}

// phoneFrames encodes n pictures of the rendered table as a phone would
// send them: a keyframe, then delta frames.
func phoneFrames(tb testing.TB, n int) [][]byte {
	tb.Helper()
	f, err := os.Open("testdata/table720.jpg")
	if err != nil {
		tb.Fatal(err)
	}
	src, err := jpeg.Decode(f)
	f.Close()
	if err != nil {
		tb.Fatal(err)
	}
	bounds := src.Bounds()
	base := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	draw.Draw(base, base.Rect, src, bounds.Min, draw.Src)
	w, h := base.Rect.Dx(), base.Rect.Dy()
	enc, err := newVP8Encoder(w, h, 4_000_000, 250, 8)
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	pic := image.NewRGBA(base.Rect)
	rng := uint32(7)
	noise := func() int { // about N(0, 3): the sum of four uniform -3..3
		s := 0
		for range 4 {
			rng ^= rng << 13
			rng ^= rng >> 17
			rng ^= rng << 5
			s += int(rng%7) - 3
		}
		return s
	}
	clamp := func(v int) uint8 { return uint8(max(0, min(255, v))) }
	skin := color.RGBA{150, 100, 75, 255}
	var out [][]byte
	start := time.Now()
	for k := range n {
		copy(pic.Pix, base.Pix)
		// A hand (an ellipse and a forearm) sweeping over the piles.
		cx := float64(w)*0.2 + float64(w)*0.6*float64(k)/float64(n)
		cy := float64(h)*0.45 + 40*math.Sin(float64(k)/5)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				dx, dy := (float64(x)-cx)/70, (float64(y)-cy)/90
				arm := math.Abs(float64(x)-cx) < 45 && float64(y) > cy && float64(y) < float64(h)
				if dx*dx+dy*dy <= 1 || arm {
					pic.SetRGBA(x, y, skin)
				}
			}
		}
		for i := 0; i < len(pic.Pix); i += 4 {
			d := noise()
			pic.Pix[i] = clamp(int(pic.Pix[i]) + d)
			pic.Pix[i+1] = clamp(int(pic.Pix[i+1]) + d)
			pic.Pix[i+2] = clamp(int(pic.Pix[i+2]) + d)
		}
		if k == 0 {
			enc.ForceKeyFrame()
		}
		// libvpx's rate control divides the bitrate by the time between
		// pictures, which mediadevices takes from the clock: keep 10 fps.
		if wait := time.Until(start.Add(time.Duration(k) * 100 * time.Millisecond)); wait > 0 {
			time.Sleep(wait)
		}
		data, key, err := enc.Encode(pic)
		if err != nil {
			tb.Fatal(err)
		}
		if k == 0 && !key {
			tb.Fatal("the first frame is not a keyframe")
		}
		if len(data) == 0 {
			continue // rate control skipped it
		}
		out = append(out, append([]byte(nil), data...))
	}
	if len(out) < n/2 {
		tb.Fatalf("only %d of %d pictures encoded", len(out), n)
	}
	return out
}
