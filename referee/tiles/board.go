package tiles

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"ligretto/referee"
)

// Colour is a field's or a card half's colour: the same four as classic
// Ligretto's (red, green, blue, yellow), so the type is shared.
type Colour = referee.Colour

// PartSize is the side of a board part in fields. The rulebook's pictures
// are not in its text, so this is decided from its counts: 4 players lay up
// to 60 cards (120 fields) and 8 jokers on 9 parts. Parts of 3x3 (81
// fields) could not hold a normal round; 4x4 (144 fields, 96 for 2
// players on 6 parts) hold every card and joker with room for dead ends.
const PartSize = 4

// Part is one board part: PartSize x PartSize coloured fields, [row][col].
type Part [PartSize][PartSize]Colour

var letters = map[Colour]byte{referee.Red: 'R', referee.Green: 'G', referee.Blue: 'B', referee.Yellow: 'Y'}

// String writes the part as rows of colour letters: "RGBY/GBYR/BYRG/YRGB".
func (p Part) String() string {
	var b strings.Builder
	for r, row := range p {
		if r > 0 {
			b.WriteByte('/')
		}
		for _, c := range row {
			if l, ok := letters[c]; ok {
				b.WriteByte(l)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}

// ParsePart reads the form String writes.
func ParsePart(s string) (Part, error) {
	var p Part
	rows := strings.Split(s, "/")
	if len(rows) != PartSize {
		return p, fmt.Errorf("%w: board part %q: want %d rows", ErrInvalid, s, PartSize)
	}
	for r, row := range rows {
		if len(row) != PartSize {
			return p, fmt.Errorf("%w: board part %q: row %d has %d fields, want %d", ErrInvalid, s, r+1, len(row), PartSize)
		}
		for c := range PartSize {
			col, ok := colourOf(row[c])
			if !ok {
				return p, fmt.Errorf("%w: board part %q: %q is not R, G, B or Y", ErrInvalid, s, row[c])
			}
			p[r][c] = col
		}
	}
	return p, nil
}

func colourOf(l byte) (Colour, bool) {
	for c, x := range letters {
		if x == l || x == l-'a'+'A' {
			return c, true
		}
	}
	return 0, false
}

// MarshalText writes the part's letters.
func (p Part) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a part's letters.
func (p *Part) UnmarshalText(b []byte) error {
	v, err := ParsePart(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Latin reports whether every row and column of the part holds each colour
// once. Every card shows two different colours, so two edge-adjacent fields
// of one colour could never take a card: the default parts avoid them.
func (p Part) Latin() bool {
	for i := range PartSize {
		var row, col [5]bool
		for j := range PartSize {
			a, b := p[i][j], p[j][i]
			if !a.Valid() || !b.Valid() || row[a] || col[b] {
				return false
			}
			row[a], col[b] = true, true
		}
	}
	return true
}

func mustPart(s string) Part {
	p, err := ParsePart(s)
	if err != nil {
		panic(err)
	}
	return p
}

// DefaultParts is the default set of 9 board parts, in the order they lie
// (3 to a row; 2 players use the first 6, T1). Each is a Latin square, and
// they are chosen so that no two edge-adjacent fields of the board, across
// part borders too, share a colour: every field pair can take some card.
var DefaultParts = [9]Part{
	mustPart("YRBG/GBYR/RYGB/BGRY"),
	mustPart("BRYG/YGRB/RBGY/GYBR"),
	mustPart("BYGR/RGYB/GRBY/YBRG"),
	mustPart("GYBR/BRYG/RBGY/YGRB"),
	mustPart("YBRG/BGYR/GRBY/RYGB"),
	mustPart("BRGY/GYRB/RBYG/YGBR"),
	mustPart("GRBY/YBRG/RYGB/BGYR"),
	mustPart("GRBY/BYRG/RGYB/YBGR"),
	mustPart("GRYB/YBGR/RGBY/BYRG"),
}

// GenerateParts returns n seeded random board parts: each a Latin square
// (a shuffled cyclic square with shuffled rows, columns and colours).
func GenerateParts(n int, rng *rand.Rand) []Part {
	out := make([]Part, n)
	for k := range out {
		out[k] = randomPart(rng)
	}
	return out
}

func randomPart(rng *rand.Rand) Part {
	var p Part
	rows, cols, sym := rng.Perm(PartSize), rng.Perm(PartSize), rng.Perm(PartSize)
	for r := range PartSize {
		for c := range PartSize {
			p[r][c] = referee.Colours[sym[(rows[r]+cols[c])%PartSize]]
		}
	}
	return p
}

// GenerateLayout returns a seeded random board for n players with the
// default set's property: no two edge-adjacent fields share a colour.
func GenerateLayout(players int, rng *rand.Rand) (Layout, error) {
	n, cols, err := PartsFor(players)
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Cols: cols, Parts: make([]Part, n)}
	for i := 0; i < n; i++ {
		// About 1 in 10 random parts fits its left and upper neighbours.
		for {
			p := randomPart(rng)
			if i%cols > 0 && !bordersDiffer(l.Parts[i-1], p, true) || i >= cols && !bordersDiffer(l.Parts[i-cols], p, false) {
				continue
			}
			l.Parts[i] = p
			break
		}
	}
	return l, nil
}

// bordersDiffer reports whether a's right (or lower) edge and b's left
// (or upper) edge differ field by field.
func bordersDiffer(a, b Part, side bool) bool {
	for k := range PartSize {
		if side && a[k][PartSize-1] == b[k][0] || !side && a[PartSize-1][k] == b[0][k] {
			return false
		}
	}
	return true
}

// PartsFor returns how many board parts n players use (T1), and the grid
// they are laid out in: 6 parts 3 wide and 2 high, or 9 in a 3x3 square
// (the rulebook's "Spielaufbau" pictures are not in its text; these are
// the compact grids of those counts).
func PartsFor(players int) (parts, cols int, err error) {
	switch players {
	case 2:
		return 6, 3, nil
	case 3, 4:
		return 9, 3, nil
	}
	return 0, 0, fmt.Errorf("%w: %d players: the tile game takes 2 to 4 (T1)", ErrInvalid, players)
}

// Layout is the board as laid out: parts in rows of Cols, left to right,
// top to bottom.
type Layout struct {
	Cols  int    `json:"cols"`
	Parts []Part `json:"parts"`
}

// Field is a square of the board: column X and row Y from the top left.
type Field struct {
	X int `json:"x"`
	Y int `json:"y"`
}

func (f Field) String() string { return fmt.Sprintf("(%d,%d)", f.X, f.Y) }

// Neighbours returns the four fields that share an edge with f.
func (f Field) Neighbours() [4]Field {
	return [4]Field{{f.X, f.Y - 1}, {f.X + 1, f.Y}, {f.X, f.Y + 1}, {f.X - 1, f.Y}}
}

// Adjacent reports whether f and g share an edge.
func (f Field) Adjacent(g Field) bool { return abs(f.X-g.X)+abs(f.Y-g.Y) == 1 }

// Diagonal reports whether f and g meet at a corner alone.
func (f Field) Diagonal(g Field) bool { return abs(f.X-g.X) == 1 && abs(f.Y-g.Y) == 1 }

// dist2 is the squared distance between two fields' centres.
func (f Field) dist2(g Field) int { return (f.X-g.X)*(f.X-g.X) + (f.Y-g.Y)*(f.Y-g.Y) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Board is the laid-out board's fields and their colours. It never changes.
type Board struct {
	layout Layout
	w, h   int
	colour []Colour // [y*w+x]
}

// NewBoard lays the parts out in rows of cols.
func NewBoard(l Layout) (*Board, error) {
	if l.Cols < 1 || len(l.Parts) == 0 || len(l.Parts)%l.Cols != 0 {
		return nil, fmt.Errorf("%w: %d board parts do not fill rows of %d", ErrInvalid, len(l.Parts), l.Cols)
	}
	rows := len(l.Parts) / l.Cols
	b := &Board{layout: Layout{Cols: l.Cols, Parts: append([]Part(nil), l.Parts...)}, w: l.Cols * PartSize, h: rows * PartSize}
	b.colour = make([]Colour, b.w*b.h)
	for i, p := range l.Parts {
		px, py := i%l.Cols*PartSize, i/l.Cols*PartSize
		for r := range PartSize {
			for c := range PartSize {
				if !p[r][c].Valid() {
					return nil, fmt.Errorf("%w: board part %d field (%d,%d) has no colour", ErrInvalid, i+1, c, r)
				}
				b.colour[(py+r)*b.w+px+c] = p[r][c]
			}
		}
	}
	return b, nil
}

// DefaultLayout is the default board for n players: the first 6 or 9
// default parts (T1).
func DefaultLayout(players int) (Layout, error) {
	n, cols, err := PartsFor(players)
	if err != nil {
		return Layout{}, err
	}
	return Layout{Cols: cols, Parts: append([]Part(nil), DefaultParts[:n]...)}, nil
}

// Layout returns a copy of the board's layout.
func (b *Board) Layout() Layout {
	return Layout{Cols: b.layout.Cols, Parts: append([]Part(nil), b.layout.Parts...)}
}

// Size returns the board's width and height in fields.
func (b *Board) Size() (w, h int) { return b.w, b.h }

// On reports whether f is a field of the board.
func (b *Board) On(f Field) bool { return f.X >= 0 && f.Y >= 0 && f.X < b.w && f.Y < b.h }

// Colour returns f's colour, or 0 off the board.
func (b *Board) Colour(f Field) Colour {
	if !b.On(f) {
		return 0
	}
	return b.colour[f.Y*b.w+f.X]
}

func (b *Board) index(f Field) int { return f.Y*b.w + f.X }

// MarkedStarts returns the stones' suggested starting places ("für die
// ersten Runden ... auf die markierten Spielplanteile"): the marks are in
// the pictures only, so the referee takes the four corner parts, each on
// its field nearest the board's centre.
func (b *Board) MarkedStarts() [4]Field {
	l, r, t, d := PartSize/2, b.w-1-PartSize/2, PartSize/2, b.h-1-PartSize/2
	return [4]Field{{l, t}, {r, t}, {l, d}, {r, d}}
}

// RandomStarts returns 4 seeded starting places anywhere on the board
// ("auf beliebige quadratische Felder"), no two on the same or
// edge-adjacent fields, so that no stone starts blocked by another.
func (b *Board) RandomStarts(rng *rand.Rand) [4]Field {
	var s [4]Field
	for i := 0; i < 4; {
		f := Field{rng.IntN(b.w), rng.IntN(b.h)}
		ok := true
		for _, g := range s[:i] {
			if g == f || g.Adjacent(f) || g.Diagonal(f) {
				ok = false
			}
		}
		if ok {
			s[i] = f
			i++
		}
	}
	return s
}
