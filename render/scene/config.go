package scene

import (
	"errors"
	"fmt"
)

// Errors.
var (
	// ErrConfig means a Config field is out of range.
	ErrConfig = errors.New("scene: bad config")
	// ErrEvent means an event does not fit the scene: out of time order,
	// refused by the rules, or about players the scene was not made for.
	ErrEvent = errors.New("scene: bad event")
	// ErrFrame means the destination of Render has the wrong size or type.
	ErrFrame = errors.New("scene: bad frame")
)

// Table surfaces.
const (
	TableRandom = ""      // chosen from the seed
	TableWood   = "wood"  // planks with grain
	TableCloth  = "cloth" // felt or baize
	TableLinen  = "linen" // a woven table cloth
	TableLight  = "light" // a pale laminate
)

// Config says how the camera sees the table. Start from DefaultConfig.
type Config struct {
	Width, Height int // frame size (default 1280x720)

	// Camera.
	TiltDeg    float64 // how far the camera looks away from straight down (default 16)
	Jitter     float64 // how much the seed varies tilt, yaw, roll and framing, 0..1 (default 1)
	Distortion float64 // barrel distortion: k1 in normalised (half-diagonal) units, 0..0.3 (default 0.05)
	Blur       float64 // Gaussian defocus sigma in pixels, 0..3 (default 0.5; 0: none)

	// Light and sensor.
	Light       float64 // strength of the lighting gradient and its slow drift in brightness and colour temperature, 0..1 (default 1)
	Vignette    float64 // darkening at the corners, 0..0.8 (default 0.3)
	Noise       float64 // sensor noise sigma, in 8-bit levels, 0..30 (default 3)
	JPEGQuality int     // 1..100: JPEG round trip of every frame; 0: none (default 0)

	// A shade across part of the table (someone standing in the lamp's
	// light, a cloud): from ShadeFromMS to ShadeToMS the frame on one side
	// of a soft line through the table's centre, at an angle the seed
	// chooses, is ShadeDepth darker (0..0.8; default 0: none). It comes and
	// goes over ShadeRampMS (default 600 when ShadeDepth > 0).
	ShadeDepth             float64
	ShadeFromMS, ShadeToMS int64
	ShadeRampMS            int64

	Table string // a Table* surface; "" chooses from the seed

	// Timing, in ms.
	Preamble    bool  // render the calibration preamble before time 0 (default true)
	TravelMinMS int64 // a played card travels for TravelMinMS..TravelMaxMS before its event (default 300..500)
	TravelMaxMS int64
	CountDelay  int64 // from the stop to the count layout (default 1500)
}

// DefaultConfig returns the default camera: 1280x720, tilted, mildly
// distorted, with drifting light and sensor noise.
func DefaultConfig() Config {
	return Config{
		Width: 1280, Height: 720,
		TiltDeg: 16, Jitter: 1, Distortion: 0.05, Blur: 0.5,
		Light: 1, Vignette: 0.3, Noise: 3,
		Preamble: true, TravelMinMS: 300, TravelMaxMS: 500, CountDelay: 1500,
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	for _, check := range []func() error{c.validateCamera, c.validateLight, c.validatePlay} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// badField is the error for field f out of range at v.
func badField(f string, v any) error { return fmt.Errorf("%w: %s = %v", ErrConfig, f, v) }

// validateCamera checks the frame's size and the camera's tilt, jitter,
// distortion and blur.
func (c Config) validateCamera() error {
	bad := badField
	switch {
	case c.Width < 64 || c.Height < 64 || c.Width > 7680 || c.Height > 4320:
		return bad("Width x Height", fmt.Sprintf("%dx%d", c.Width, c.Height))
	case c.TiltDeg < 0 || c.TiltDeg > 40:
		return bad("TiltDeg", c.TiltDeg)
	case c.Jitter < 0 || c.Jitter > 1:
		return bad("Jitter", c.Jitter)
	case c.Distortion < 0 || c.Distortion > 0.3:
		return bad("Distortion", c.Distortion)
	case c.Blur < 0 || c.Blur > 3:
		return bad("Blur", c.Blur)
	}
	return nil
}

// validateLight checks the light, vignette, noise, shade and JPEG.
func (c Config) validateLight() error {
	bad := badField
	switch {
	case c.Light < 0 || c.Light > 1:
		return bad("Light", c.Light)
	case c.Vignette < 0 || c.Vignette > 0.8:
		return bad("Vignette", c.Vignette)
	case c.Noise < 0 || c.Noise > 30:
		return bad("Noise", c.Noise)
	case c.ShadeDepth < 0 || c.ShadeDepth > 0.8:
		return bad("ShadeDepth", c.ShadeDepth)
	case c.ShadeDepth > 0 && (c.ShadeToMS < c.ShadeFromMS || c.ShadeRampMS < 0 || c.ShadeRampMS > 10000):
		return bad("ShadeFromMS..ShadeToMS, ShadeRampMS", fmt.Sprint(c.ShadeFromMS, c.ShadeToMS, c.ShadeRampMS))
	case c.JPEGQuality < 0 || c.JPEGQuality > 100:
		return bad("JPEGQuality", c.JPEGQuality)
	}
	return nil
}

// validatePlay checks the table and the play's timing.
func (c Config) validatePlay() error {
	bad := badField
	switch {
	case c.Table != TableRandom && c.Table != TableWood && c.Table != TableCloth && c.Table != TableLinen && c.Table != TableLight:
		return bad("Table", c.Table)
	case c.TravelMinMS < 50 || c.TravelMaxMS < c.TravelMinMS || c.TravelMaxMS > 2000:
		return bad("TravelMinMS..TravelMaxMS", fmt.Sprint(c.TravelMinMS, c.TravelMaxMS))
	case c.CountDelay < 0 || c.CountDelay > 60000:
		return bad("CountDelay", c.CountDelay)
	}
	return nil
}
