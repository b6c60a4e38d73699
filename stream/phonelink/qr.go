package phonelink

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"

	"github.com/skip2/go-qrcode"
)

// qrLevel is medium error correction (15%): small enough for a URL at a
// glance, robust to a glare on a laptop screen.
const qrLevel = qrcode.Medium

// ErrQR: the text cannot be drawn as a QR code (empty, too long, or the
// picture asked for is too small for it).
var ErrQR = errors.New("cannot make a QR code")

// qrModules returns the code's modules, true for dark, with the 4-module
// quiet zone that readers need around it.
func qrModules(text string) ([][]bool, error) {
	if text == "" {
		return nil, fmt.Errorf("%w: empty text", ErrQR)
	}
	q, err := qrcode.New(text, qrLevel)
	if err != nil {
		return nil, fmt.Errorf("%w of %d bytes: %v", ErrQR, len(text), err)
	}
	return q.Bitmap(), nil // includes the quiet zone
}

// Terminal colours: black on bright white, set explicitly, so that the
// code reads the same on a dark and on a light terminal (a reader needs
// dark modules on a light ground, and some will not read the inverse).
const (
	ansiDarkOnLight = "\x1b[30;107m"
	ansiReset       = "\x1b[0m"
)

// TerminalQR draws text as a QR code for a terminal, two modules to a
// character cell with the half blocks ▀ ▄ █ and spaces, quiet zone
// included. Polarity: the ink is the foreground and light modules are
// spaces, with the colours forced to black on bright white by ANSI escapes
// on every line (reset at each line's end), so a dark terminal theme does
// not invert it. A terminal that ignores colours shows its own foreground
// as the dark modules, which reads on a light theme.
func TerminalQR(w io.Writer, text string) error {
	m, err := qrModules(text)
	if err != nil {
		return err
	}
	var b strings.Builder
	for y := 0; y < len(m); y += 2 {
		b.WriteString(ansiDarkOnLight)
		for x := range m[y] {
			top := m[y][x]
			bottom := y+1 < len(m) && m[y+1][x]
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteString(ansiReset + "\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// PNGQR draws text as a size x size PNG, black on white, quiet zone
// included. Every module is a whole number of pixels (the code is centred,
// with a little more margin where size is not a multiple), so it stays
// sharp when scaled by the browser.
func PNGQR(text string, size int) ([]byte, error) {
	m, err := qrModules(text)
	if err != nil {
		return nil, err
	}
	n := len(m)
	if size < n {
		return nil, fmt.Errorf("%w: %d px is less than the %d modules of this text", ErrQR, size, n)
	}
	scale := size / n
	off := (size - n*scale) / 2
	// A two-colour palette keeps the PNG small.
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{color.White, color.Black})
	for y := range n {
		for x := range n {
			if !m[y][x] {
				continue
			}
			for py := off + y*scale; py < off+(y+1)*scale; py++ {
				row := img.Pix[py*img.Stride:]
				for px := off + x*scale; px < off+(x+1)*scale; px++ {
					row[px] = 1
				}
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("encode the QR code: %w", err)
	}
	return b.Bytes(), nil
}
