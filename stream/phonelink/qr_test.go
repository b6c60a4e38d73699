package phonelink

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gzqr "github.com/makiuchi-d/gozxing/qrcode"
)

const testURL = "https://192.168.1.23:8443/phone?t=Zm9vYmFyYmF6"

// decodeQR reads a QR code from a picture with an independent decoder.
func decodeQR(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gzqr.NewQRCodeReader().Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_PURE_BARCODE: false})
	if err != nil {
		t.Fatalf("decode the QR code: %v", err)
	}
	return res.GetText()
}

func TestPNGQR_RoundTrip(t *testing.T) {
	for _, size := range []int{256, 300, 512} {
		b, err := PNGQR(testURL, size)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := img.Bounds().Size(); got != image.Pt(size, size) {
			t.Fatalf("size %v, want %d", got, size)
		}
		if got := decodeQR(t, img); got != testURL {
			t.Fatalf("decoded %q, want %q", got, testURL)
		}
		// The quiet zone: the corners are white.
		for _, p := range []image.Point{{0, 0}, {size - 1, 0}, {0, size - 1}, {size - 1, size - 1}} {
			if r, _, _, _ := img.At(p.X, p.Y).RGBA(); r != 0xffff {
				t.Fatalf("corner %v is not white", p)
			}
		}
	}
	if _, err := PNGQR(testURL, 20); !errors.Is(err, ErrQR) {
		t.Fatalf("a 20 px code: %v", err)
	}
	if _, err := PNGQR("", 256); !errors.Is(err, ErrQR) {
		t.Fatalf("empty text: %v", err)
	}
	if _, err := PNGQR(strings.Repeat("x", 5000), 2048); !errors.Is(err, ErrQR) {
		t.Fatalf("too long a text: %v", err)
	}
}

// TestTerminalQR: the text output, read back cell by cell into modules, is
// the library's matrix, and a picture drawn from it decodes to the text.
func TestTerminalQR(t *testing.T) {
	var out bytes.Buffer
	if err := TerminalQR(&out, testURL); err != nil {
		t.Fatal(err)
	}
	want, err := qrModules(testURL)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != (len(want)+1)/2 {
		t.Fatalf("%d lines for %d module rows", len(lines), len(want))
	}
	got := make([][]bool, len(want))
	for i, l := range lines {
		// Every line forces the colours and resets them, so neither theme
		// changes it and nothing leaks into the next line.
		if !strings.HasPrefix(l, ansiDarkOnLight) || !strings.HasSuffix(l, ansiReset) {
			t.Fatalf("line %d lacks the colour escapes: %q", i, l)
		}
		cells := []rune(strings.TrimSuffix(strings.TrimPrefix(l, ansiDarkOnLight), ansiReset))
		if len(cells) != len(want) {
			t.Fatalf("line %d has %d cells, want %d", i, len(cells), len(want))
		}
		top, bottom := make([]bool, len(cells)), make([]bool, len(cells))
		for x, c := range cells {
			switch c {
			case '█':
				top[x], bottom[x] = true, true
			case '▀':
				top[x] = true
			case '▄':
				bottom[x] = true
			case ' ':
			default:
				t.Fatalf("line %d: unexpected %q", i, c)
			}
		}
		got[2*i] = top
		if 2*i+1 < len(want) {
			got[2*i+1] = bottom
		} else if strings.ContainsAny(string(cells), "▄█") {
			t.Fatalf("the last line draws below the code")
		}
	}
	for y := range want {
		for x := range want[y] {
			if got[y][x] != want[y][x] {
				t.Fatalf("module (%d,%d) = %v, want %v", x, y, got[y][x], want[y][x])
			}
		}
	}
	// The quiet zone: the first and last rows and columns are light.
	n := len(want)
	for i := range n {
		if got[0][i] || got[n-1][i] || got[i][0] || got[i][n-1] {
			t.Fatalf("quiet zone has a dark module at %d", i)
		}
	}
	// Draw what a terminal shows (4 px a module) and read it.
	const px = 4
	img := image.NewGray(image.Rect(0, 0, n*px, n*px))
	for y := range n {
		for x := range n {
			c := color.Gray{255}
			if got[y][x] {
				c = color.Gray{0}
			}
			for dy := range px {
				for dx := range px {
					img.SetGray(x*px+dx, y*px+dy, c)
				}
			}
		}
	}
	if s := decodeQR(t, img); s != testURL {
		t.Fatalf("terminal code decodes to %q", s)
	}
	if err := TerminalQR(&out, ""); !errors.Is(err, ErrQR) {
		t.Fatalf("empty text: %v", err)
	}
}

func TestPickLAN(t *testing.T) {
	cidr := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	up := net.FlagUp | net.FlagBroadcast
	got := pickLAN([]ifaceAddrs{
		{net.FlagUp | net.FlagLoopback, []net.Addr{cidr("127.0.0.1/8"), cidr("::1/128")}},
		{up, []net.Addr{cidr("fe80::1/64"), cidr("2001:db8::5/64"), cidr("192.168.1.23/24"), cidr("169.254.3.4/16")}},
		{net.FlagBroadcast, []net.Addr{cidr("10.9.9.9/8")}}, // down
		{up, []net.Addr{&net.IPAddr{IP: net.ParseIP("10.0.0.7")}, cidr("192.168.1.23/24"), cidr("224.0.0.1/4")}},
	})
	var s []string
	for _, ip := range got {
		s = append(s, ip.String())
	}
	if want := "192.168.1.23 10.0.0.7 2001:db8::5"; strings.Join(s, " ") != want {
		t.Fatalf("got %v, want %s", s, want)
	}
	for _, ip := range LANAddresses() { // whatever this machine has, none is loopback
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() {
			t.Fatalf("LANAddresses gave %v", ip)
		}
	}
}
