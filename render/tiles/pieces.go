package tiles

import (
	"image"
	"math"

	"ligretto/referee"
	"ligretto/referee/tiles"
	"ligretto/render/card"
	"ligretto/render/scene"
)

// sprites are the pieces' images, made once each at k pixels per mm.
type sprites struct {
	k                              float64
	parts                          map[tiles.Part]*scene.Sprite
	cards                          map[cardKey]*scene.Sprite
	jokers                         map[tiles.Frame]*scene.Sprite
	stone, stoneShadow, partShadow *scene.Sprite
	cardShadow, jokerShadow        *scene.Sprite
	cardLifted, jokerLifted        *scene.Sprite
}

type cardKey struct {
	a, b  tiles.Colour
	frame tiles.Frame
}

func newSprites(k float64) sprites {
	s := sprites{k: k, parts: map[tiles.Part]*scene.Sprite{}, cards: map[cardKey]*scene.Sprite{}, jokers: map[tiles.Frame]*scene.Sprite{}}
	s.partShadow = scene.NewCardShadow(PartMM, PartMM, 1.5, k)
	s.cardShadow = scene.NewCardShadow(CardLong, CardShort, 1.2, k)
	s.jokerShadow = scene.NewCardShadow(CardShort, CardShort, 1.2, k)
	s.cardLifted = scene.NewCardShadow(CardLong, CardShort, 4, k)
	s.jokerLifted = scene.NewCardShadow(CardShort, CardShort, 4, k)
	s.stone = paintSprite(StoneMM+2, StoneMM+2, k, stoneInk)
	s.stoneShadow = paintSprite(StoneMM+8, StoneMM+8, k, func(x, y float64) (rgb, float64) {
		return rgb{}, smooth01(0.5 - (math.Hypot(x, y)-StoneMM/2)/4)
	})
	return s
}

// rgb is a colour with components in 0..1.
type rgb [3]float64

// Inks.
var (
	frameInk  = rgb{0.08, 0.08, 0.10}
	cardWhite = rgb{0.96, 0.96, 0.94}
	gridWhite = rgb{0.93, 0.92, 0.88}
	cardboard = rgb{0.88, 0.86, 0.80}
)

// printColour is a Ligretto colour as render/card prints it.
func printColour(c tiles.Colour) rgb {
	v := card.PrintColour(c)
	return rgb{float64(v.R) / 255, float64(v.G) / 255, float64(v.B) / 255}
}

// paintSprite paints a sprite of wmm x hmm mm at k pixels per mm from fn,
// which gives the colour and coverage at a point (mm from the centre),
// supersampled 3x3.
func paintSprite(wmm, hmm, k float64, fn func(x, y float64) (rgb, float64)) *scene.Sprite {
	w, h := max(1, int(math.Round(wmm*k))), max(1, int(math.Round(hmm*k)))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	const ss = 3
	for j := range h {
		for i := range w {
			var acc rgb
			cover := 0.0
			for sy := range ss {
				for sx := range ss {
					x := (float64(i)+(float64(sx)+0.5)/ss)/float64(w)*wmm - wmm/2
					y := (float64(j)+(float64(sy)+0.5)/ss)/float64(h)*hmm - hmm/2
					c, a := fn(x, y)
					for n := range 3 {
						acc[n] += c[n] * a
					}
					cover += a
				}
			}
			p := img.Pix[img.PixOffset(i, j):]
			for n := range 3 {
				p[n] = uint8(math.Min(255, acc[n]/ss/ss*255+0.5))
			}
			p[3] = uint8(math.Min(255, cover/ss/ss*255+0.5))
		}
	}
	return scene.NewSprite(img, wmm, hmm)
}

func smooth01(x float64) float64 {
	x = math.Max(0, math.Min(1, x))
	return x * x * (3 - 2*x)
}

// sdRoundRect is the signed distance to a rectangle of half-size (hw, hh)
// centred at the origin with corner radius r.
func sdRoundRect(x, y, hw, hh, r float64) float64 {
	qx, qy := math.Abs(x)-hw+r, math.Abs(y)-hh+r
	if qx <= 0 || qy <= 0 {
		return math.Max(qx, qy) - r
	}
	return math.Hypot(qx, qy) - r
}

// part returns the sprite of a board part.
func (s *sprites) part(p tiles.Part) *scene.Sprite {
	if sp, ok := s.parts[p]; ok {
		return sp
	}
	var cols [tiles.PartSize][tiles.PartSize]rgb
	for r := range tiles.PartSize {
		for c := range tiles.PartSize {
			cols[r][c] = printColour(p[r][c])
		}
	}
	half := 2 * FieldMM
	sp := paintSprite(PartMM, PartMM, s.k, func(x, y float64) (rgb, float64) {
		d := sdRoundRect(x, y, PartMM/2, PartMM/2, 3)
		if d > 0 {
			return rgb{}, 0
		}
		if d > -0.7 { // the cut edge
			return cardboard.scale(0.75), 1
		}
		if math.Abs(x) >= half || math.Abs(y) >= half {
			return cardboard, 1
		}
		gx, gy := x+half, y+half
		fx, fy := min(int(gx/FieldMM), 3), min(int(gy/FieldMM), 3)
		lx, ly := gx-float64(fx)*FieldMM, gy-float64(fy)*FieldMM
		if min(lx, FieldMM-lx, ly, FieldMM-ly) < 0.6 {
			return gridWhite, 1
		}
		return cols[fy][fx], 1
	})
	s.parts[p] = sp
	return sp
}

func (c rgb) scale(k float64) rgb { return rgb{c[0] * k, c[1] * k, c[2] * k} }

// card returns the sprite of a card: colour a on its left half (local
// x < 0), b on its right, in frame style f.
func (s *sprites) card(a, b tiles.Colour, f tiles.Frame) *scene.Sprite {
	key := cardKey{a, b, f}
	if sp, ok := s.cards[key]; ok {
		return sp
	}
	ca, cb := printColour(a), printColour(b)
	hx, hy := CardLong/2, CardShort/2
	sp := paintSprite(CardLong, CardShort, s.k, func(x, y float64) (rgb, float64) {
		d := sdRoundRect(x, y, hx, hy, 2.5)
		if d > 0 {
			return rgb{}, 0
		}
		if f.Inked(x, y, -d, hx, hy) {
			return frameInk, 1
		}
		switch {
		case d > -1.2, math.Abs(x) < 0.5:
			return cardWhite, 1
		case x < 0:
			return ca, 1
		}
		return cb, 1
	})
	s.cards[key] = sp
	return sp
}

// joker returns the sprite of a joker in frame style f: the four colours
// in quarters under a white star.
func (s *sprites) joker(f tiles.Frame) *scene.Sprite {
	if sp, ok := s.jokers[f]; ok {
		return sp
	}
	q := [4]rgb{printColour(referee.Red), printColour(referee.Green), printColour(referee.Blue), printColour(referee.Yellow)}
	h := CardShort / 2
	sp := paintSprite(CardShort, CardShort, s.k, func(x, y float64) (rgb, float64) {
		d := sdRoundRect(x, y, h, h, 2.5)
		if d > 0 {
			return rgb{}, 0
		}
		if f.Inked(x, y, -d, h, h) {
			return frameInk, 1
		}
		if d > -1.2 || inStar(x, y, 11, 4.6) {
			return cardWhite, 1
		}
		switch {
		case x < 0 && y < 0:
			return q[0], 1
		case y < 0:
			return q[1], 1
		case x >= 0:
			return q[2], 1
		}
		return q[3], 1
	})
	s.jokers[f] = sp
	return sp
}

// inStar reports whether (x, y) is inside a five-pointed star, point up,
// of outer radius ro and inner radius ri.
func inStar(x, y, ro, ri float64) bool {
	r := math.Hypot(x, y)
	if r > ro {
		return false
	}
	if r < ri*0.8 {
		return true
	}
	a := math.Atan2(x, -y) // 0 at the top, clockwise
	seg := 2 * math.Pi / 5
	t := math.Mod(a+2*math.Pi, seg)/seg*2 - 1 // -1..1 across a point
	// The star's edge from the point (t = 0, ro) to the notch (|t| = 1, ri),
	// in polar form along the straight line between them.
	p0 := Pt{X: 0, Y: ro}
	th := seg / 2
	p1 := Pt{X: ri * math.Sin(th), Y: ri * math.Cos(th)}
	ang := math.Abs(t) * th
	dx, dy := p1.X-p0.X, p1.Y-p0.Y
	// Ray at angle ang from the centre: (sin, cos) * s meets p0 + u (dx, dy).
	sn, cs := math.Sin(ang), math.Cos(ang)
	den := sn*dy - cs*dx
	if den == 0 {
		return true
	}
	s := (p0.X*dy - p0.Y*dx) / den
	return r <= s
}

// Frame geometry: the band of a frame's ink, in mm from the card's edge.
const ()

// stoneInk paints a stone: a black disc, its rim caught by the light, a
// highlight towards the top left.
func stoneInk(x, y float64) (rgb, float64) {
	r := math.Hypot(x, y)
	R := StoneMM / 2
	if r > R {
		return rgb{}, 0
	}
	v := 0.07 + 0.22*math.Exp(-((x+4)*(x+4)+(y+4)*(y+4))/18)
	if r > R-1.5 {
		v += 0.1
	}
	return rgb{v, v, v * 1.05}, 1
}
