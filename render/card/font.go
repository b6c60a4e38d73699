package card

import (
	"image"
	"math"
	"os"
	"strconv"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomediumitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/gofont/gosmallcaps"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// numeralFont is one typeface for the numerals, with its ten numeral masks
// built on first use.
type numeralFont struct {
	name     string
	data     []byte
	italic   bool    // slanted by design
	embolden float64 // extra stroke weight, as a fraction of the numeral height
	plain    bool    // no underline under 6 and 9 (the real Ligretto print has none)

	once  sync.Once
	masks [11]*glyphMask // by number 1..10; nil if the font failed to load
}

// goFonts are always available, so samples are the same on every machine.
var goFonts = []*numeralFont{
	{name: "gobold", data: gobold.TTF},
	{name: "gobolditalic", data: gobolditalic.TTF, italic: true},
	{name: "gomedium", data: gomedium.TTF, embolden: 0.04},
	{name: "gomediumitalic", data: gomediumitalic.TTF, italic: true, embolden: 0.04},
	{name: "goregular", data: goregular.TTF, embolden: 0.07},
	{name: "goitalic", data: goitalic.TTF, italic: true, embolden: 0.07},
	{name: "gomonobold", data: gomonobold.TTF},
	{name: "gomonobolditalic", data: gomonobolditalic.TTF, italic: true},
	{name: "gomono", data: gomono.TTF, embolden: 0.07},
	{name: "gosmallcaps", data: gosmallcaps.TTF, embolden: 0.06},
}

// printedFonts draw the real Ligretto print's heavy italic numerals: Go
// Bold Italic, and Go Bold to be slanted by a shear, both emboldened so that
// their strokes are heavy and their corners rounder, without underlines.
// They are not in goFonts, so the other styles draw as they always have.
var printedFonts = []*numeralFont{
	{name: "gobolditalic-printed", data: gobolditalic.TTF, italic: true, embolden: 0.035, plain: true},
	{name: "gobold-printed", data: gobold.TTF, embolden: 0.03, plain: true},
}

// systemFontPaths are Debian font files used when Params.SystemFonts is set
// and they exist. They are optional: nothing requires them.
var systemFontPaths = []struct {
	path     string
	italic   bool
	embolden float64
}{
	{"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/dejavu/DejaVuSans-BoldOblique.ttf", true, 0},
	{"/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/dejavu/DejaVuSerif-BoldItalic.ttf", true, 0},
	{"/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf", false, 0},
	{"/usr/share/fonts/truetype/freefont/FreeSansBold.ttf", false, 0},
	{"/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf", false, 0},
}

var (
	sysFontsOnce sync.Once
	sysFonts     []*numeralFont
)

func systemFonts() []*numeralFont {
	sysFontsOnce.Do(func() {
		for _, s := range systemFontPaths {
			b, err := os.ReadFile(s.path)
			if err != nil {
				continue
			}
			if _, err := opentype.Parse(b); err != nil {
				continue
			}
			sysFonts = append(sysFonts, &numeralFont{name: s.path, data: b, italic: s.italic, embolden: s.embolden})
		}
	})
	return sysFonts
}

// FontNames lists the typefaces the renderer draws numerals with: Go's own
// fonts, then (if system is true) the Debian fonts found on this machine.
func FontNames(system bool) []string {
	var n []string
	for _, f := range fontsFor(system) {
		n = append(n, f.name)
	}
	return n
}

func fontsFor(system bool) []*numeralFont {
	if !system {
		return goFonts
	}
	return append(append([]*numeralFont(nil), goFonts...), systemFonts()...)
}

// glyphMask is the alpha mask of one numeral (with its underline for 6 and
// 9) as a mip pyramid, so that it can be sampled at any scale without
// aliasing.
type glyphMask struct {
	levels []maskLevel
	// The numeral's ink box (without the underline) in level-0 pixels.
	cx, cy float64    // centre
	iw, ih float64    // width and height
	ink    [4]float64 // left, top, right, bottom of all ink, underline included
}

type maskLevel struct {
	w, h int
	a    []float32
}

func (f *numeralFont) mask(n int) *glyphMask {
	f.once.Do(f.build)
	return f.masks[n]
}

const maskSize = 128 // font size in pixels for the level-0 masks

func (f *numeralFont) build() {
	fnt, err := opentype.Parse(f.data)
	if err != nil {
		return
	}
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: maskSize, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return
	}
	defer face.Close()
	for n := 1; n <= 10; n++ {
		s := strconv.Itoa(n)
		if f.plain && n == 10 {
			s = "1O" // the Go fonts' zero is slashed; the print's is a plain round O
		}
		f.masks[n] = renderString(face, s, f.embolden, !f.plain && (n == 6 || n == 9))
	}
}

// renderString renders s as a mask, optionally emboldened by a fraction of
// its height and underlined.
func renderString(face font.Face, s string, embolden float64, underline bool) *glyphMask {
	b, _ := font.BoundString(face, s)
	pad := maskSize / 2
	w := (b.Max.X - b.Min.X).Ceil() + 2*pad
	h := (b.Max.Y - b.Min.Y).Ceil() + 2*pad
	al := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: al, Src: image.Opaque, Face: face,
		Dot: fixed.Point26_6{X: fixed.I(pad) - b.Min.X, Y: fixed.I(pad) - b.Min.Y}}
	d.DrawString(s)
	a := make([]float32, w*h)
	for i, v := range al.Pix {
		a[i] = float32(v) / 255
	}
	x0, y0, x1, y1 := inkBox(a, w, h)
	if embolden > 0 {
		r := int(math.Round(embolden * float64(y1-y0)))
		if r > 0 {
			bl := boxBlur(a, w, h, r)
			for i := range a {
				t := smoothstep(0.15, 0.21, bl[i])
				if t > a[i] {
					a[i] = t
				}
			}
			x0, y0, x1, y1 = inkBox(a, w, h)
		}
	}
	ih := float64(y1 - y0)
	iw := float64(x1 - x0)
	cx := float64(x0+x1) / 2
	cy := float64(y0+y1) / 2
	if underline {
		// The underline real cards print under 6 and 9, so that the two
		// are told apart whichever way up the card lies.
		top := float64(y1) + 0.08*ih
		bot := top + 0.11*ih
		left, right := cx-0.36*iw, cx+0.36*iw
		fillRectAA(a, w, h, left, top, right, bot)
	}
	m := &glyphMask{cx: cx, cy: cy, iw: iw, ih: ih}
	ax0, ay0, ax1, ay1 := inkBox(a, w, h)
	m.ink = [4]float64{float64(ax0), float64(ay0), float64(ax1), float64(ay1)}
	m.levels = append(m.levels, maskLevel{w, h, a})
	for {
		l := m.levels[len(m.levels)-1]
		if l.w < 8 || l.h < 8 {
			break
		}
		m.levels = append(m.levels, halve(l))
	}
	return m
}

func inkBox(a []float32, w, h int) (x0, y0, x1, y1 int) {
	x0, y0, x1, y1 = w, h, 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if a[y*w+x] > 0.5 {
				x0, y0 = min(x0, x), min(y0, y)
				x1, y1 = max(x1, x+1), max(y1, y+1)
			}
		}
	}
	if x1 <= x0 {
		return 0, 0, w, h
	}
	return
}

func fillRectAA(a []float32, w, h int, l, t, r, b float64) {
	for y := max(0, int(t)); y < min(h, int(b)+1); y++ {
		cy := clampf(math.Min(b, float64(y+1))-math.Max(t, float64(y)), 0, 1)
		for x := max(0, int(l)); x < min(w, int(r)+1); x++ {
			cx := clampf(math.Min(r, float64(x+1))-math.Max(l, float64(x)), 0, 1)
			v := float32(cx * cy)
			if v > a[y*w+x] {
				a[y*w+x] = v
			}
		}
	}
}

func smoothstep(e0, e1, x float32) float32 {
	t := clamp01((x - e0) / (e1 - e0))
	return t * t * (3 - 2*t)
}

// boxBlur blurs with a (2r+1)^2 box, separably.
func boxBlur(a []float32, w, h, r int) []float32 {
	tmp := make([]float32, len(a))
	out := make([]float32, len(a))
	n := float32(2*r + 1)
	for y := 0; y < h; y++ {
		row := a[y*w : y*w+w]
		var s float32
		for x := -r; x <= r; x++ {
			if x >= 0 && x < w {
				s += row[x]
			}
		}
		for x := 0; x < w; x++ {
			tmp[y*w+x] = s / n
			if x-r >= 0 {
				s -= row[x-r]
			}
			if x+r+1 < w {
				s += row[x+r+1]
			}
		}
	}
	for x := 0; x < w; x++ {
		var s float32
		for y := -r; y <= r; y++ {
			if y >= 0 && y < h {
				s += tmp[y*w+x]
			}
		}
		for y := 0; y < h; y++ {
			out[y*w+x] = s / n
			if y-r >= 0 {
				s -= tmp[(y-r)*w+x]
			}
			if y+r+1 < h {
				s += tmp[(y+r+1)*w+x]
			}
		}
	}
	return out
}

func halve(l maskLevel) maskLevel {
	w, h := (l.w+1)/2, (l.h+1)/2
	a := make([]float32, w*h)
	at := func(x, y int) float32 {
		if x >= l.w || y >= l.h {
			return 0
		}
		return l.a[y*l.w+x]
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a[y*w+x] = (at(2*x, 2*y) + at(2*x+1, 2*y) + at(2*x, 2*y+1) + at(2*x+1, 2*y+1)) / 4
		}
	}
	return maskLevel{w, h, a}
}

// levelFor picks the mip level for a footprint of foot level-0 pixels per
// destination pixel.
func (m *glyphMask) levelFor(foot float64) int {
	if foot <= 1 {
		return 0
	}
	l := int(math.Log2(foot))
	return min(l, len(m.levels)-1)
}

// at samples level l bilinearly at (x,y) in level-0 pixel coordinates.
func (m *glyphMask) at(l int, x, y float64) float32 {
	lv := &m.levels[l]
	s := 1 / float64(int(1)<<l)
	x = x*s - 0.5
	y = y*s - 0.5
	if x <= -1 || y <= -1 || x >= float64(lv.w) || y >= float64(lv.h) {
		return 0
	}
	x0, y0 := int(x+1)-1, int(y+1)-1 // floor, for x, y > -1
	tx, ty := float32(x-float64(x0)), float32(y-float64(y0))
	if x0 >= 0 && y0 >= 0 && x0+1 < lv.w && y0+1 < lv.h {
		i := y0*lv.w + x0
		a := lv.a[i : i+lv.w+2 : i+lv.w+2]
		top := a[0] + (a[1]-a[0])*tx
		bot := a[lv.w] + (a[lv.w+1]-a[lv.w])*tx
		return top + (bot-top)*ty
	}
	get := func(xi, yi int) float32 {
		if xi < 0 || yi < 0 || xi >= lv.w || yi >= lv.h {
			return 0
		}
		return lv.a[yi*lv.w+xi]
	}
	top := get(x0, y0)*(1-tx) + get(x0+1, y0)*tx
	bot := get(x0, y0+1)*(1-tx) + get(x0+1, y0+1)*tx
	return top*(1-ty) + bot*ty
}
