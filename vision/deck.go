package vision

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/model"
	"ligretto/referee"
	"ligretto/vision/find"
)

// ErrDeckLayout: a picture of a deck whose cards cannot be sorted into
// the rows and columns of the layout (a row more or less than the
// colours, no row complete, two cards in one place).
var ErrDeckLayout = errors.New("the deck's layout cannot be read (lay the cards in one row per colour, 1 to 10 from the left, the whole deck in view)")

// DeckColumns is the cards of each colour's row: 1 to 10.
const DeckColumns = 10

// LaidCard is one card of a deck layout: the card its place says it is,
// where it was found and its crop, cut as the pipeline cuts a face.
type LaidCard struct {
	Face referee.Face
	Quad Quad
	Crop model.Crop
}

// DeckLayout is a deck laid out in rows as the camera sees it: the first
// colour of the order in the top row, each row 1 to 10 from the left.
type DeckLayout struct {
	Cards   []LaidCard     // in the order of the layout
	Missing []referee.Face // the places no card was found in
}

// ReadDeckLayout finds the cards of a deck laid out in rows (one a colour
// of order, 1 to 10 from the left) in a BGR picture, and labels each by
// its place, not by what the classifier reads: the labels are what the
// classifier is taught. wb are the white balance gains the pipeline's
// crops are corrected by (1, 1, 1 for none).
func ReadDeckLayout(img gocv.Mat, order []referee.Colour, wb [3]float64, cfg model.Config) (DeckLayout, error) {
	var out DeckLayout
	if img.Empty() || img.Channels() != 3 {
		return out, fmt.Errorf("deck layout: want a 3-channel BGR image")
	}
	quads := cardSized(findLaidCards(img))
	if len(quads) == 0 {
		return out, fmt.Errorf("%w: no card found", ErrDeckLayout)
	}
	rows := splitRows(quads)
	if len(rows) != len(order) {
		return out, fmt.Errorf("%w: %d rows of cards found, want %d (one a colour)", ErrDeckLayout, len(rows), len(order))
	}
	places, err := placeInColumns(rows)
	if err != nil {
		return out, err
	}
	for r, row := range places {
		for c, q := range row {
			face := referee.Face{Colour: order[r], Number: c + 1}
			if q == nil {
				out.Missing = append(out.Missing, face)
				continue
			}
			crop, err := cropFromCamera(img, *q, wb, cfg.Width, cfg.Height)
			if err != nil {
				return out, fmt.Errorf("deck layout: crop of %v: %w", face, err)
			}
			out.Cards = append(out.Cards, LaidCard{Face: face, Quad: *q, Crop: crop})
		}
	}
	return out, nil
}

// findLaidCards finds the cards of a layout both in the photo's way and
// in its edges alone, each finding some the other misses: a card whose
// centre lies in one found already is the same card.
func findLaidCards(img gocv.Mat) []Quad {
	quads := find.Cards(img, find.LayoutOptions(img.Cols(), img.Rows()))
	for _, q := range find.Cards(img, find.FrameOptions(img.Cols(), img.Rows())) {
		x, y := q.Centre()
		same := false
		for _, k := range quads {
			same = same || k.Contains(x, y)
		}
		if !same {
			quads = append(quads, q)
		}
	}
	return quads
}

// cardSized keeps the quads from half to twice the median area: the
// cards of one deck laid flat are of one size, a find of part of a card
// or of several together is not.
func cardSized(quads []Quad) []Quad {
	if len(quads) == 0 {
		return nil
	}
	areas := make([]float64, len(quads))
	for i, q := range quads {
		areas[i] = quadArea(q)
	}
	sorted := append([]float64(nil), areas...)
	sort.Float64s(sorted)
	med := sorted[len(sorted)/2]
	var out []Quad
	for i, q := range quads {
		if areas[i] >= med/2 && areas[i] <= med*2 {
			out = append(out, q)
		}
	}
	return out
}

// splitRows sorts quads into rows, top to bottom, each left to right: a
// new row begins where the next centre down is more than half a card's
// height below the row's last.
func splitRows(quads []Quad) [][]Quad {
	sort.Slice(quads, func(a, b int) bool {
		_, ya := quads[a].Centre()
		_, yb := quads[b].Centre()
		return ya < yb
	})
	heights := make([]float64, len(quads))
	for i, q := range quads {
		heights[i] = float64(q.Bounds().Dy())
	}
	sort.Float64s(heights)
	gap := heights[len(heights)/2] / 2
	var rows [][]Quad
	lastY := math.Inf(-1)
	for _, q := range quads {
		_, y := q.Centre()
		if y-lastY > gap {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], q)
		lastY = y
	}
	for _, row := range rows {
		sort.Slice(row, func(a, b int) bool {
			xa, _ := row[a].Centre()
			xb, _ := row[b].Centre()
			return xa < xb
		})
	}
	return rows
}

// placeInColumns puts each row's cards in their columns. Within a row,
// the gaps between neighbours in steps of the row's usual gap (its
// median) say how many places each gap skips; a row whose steps span all
// ten places is placed by them alone. The columns of the rows so placed
// give each column's line (x = a + b*y, for the picture's perspective),
// and a row that spans fewer places is moved along to the columns
// nearest its cards.
func placeInColumns(rows [][]Quad) ([][]*Quad, error) {
	offsets := make([][]int, len(rows))
	shift := make([]int, len(rows))
	var placed [][]*Quad
	for r, row := range rows {
		if len(row) > DeckColumns {
			return nil, fmt.Errorf("%w: a row of %d cards", ErrDeckLayout, len(row))
		}
		var err error
		if offsets[r], err = rowOffsets(row); err != nil {
			return nil, fmt.Errorf("row %d: %w", r+1, err)
		}
		span := offsets[r][len(row)-1]
		if span >= DeckColumns {
			return nil, fmt.Errorf("%w: the cards of row %d are spread over more than %d places", ErrDeckLayout, r+1, DeckColumns)
		}
		shift[r] = -1 // not placed yet
		if span == DeckColumns-1 {
			shift[r] = 0
			placed = append(placed, inPlaces(row, offsets[r], 0))
		}
	}
	if len(placed) == 0 {
		return nil, fmt.Errorf("%w: no row reaches from 1 to %d, so the columns are unknown", ErrDeckLayout, DeckColumns)
	}
	lines := columnLines(placed)
	out := make([][]*Quad, len(rows))
	for r, row := range rows {
		if shift[r] < 0 {
			shift[r] = nearestShift(row, offsets[r], lines)
		}
		out[r] = inPlaces(row, offsets[r], shift[r])
	}
	return out, nil
}

// rowOffsets is each card's place in its row counted from the first card:
// the gaps between neighbours in steps of the row's median gap, rounded.
// Two finds much nearer than a step (a card found twice, or a hand beside
// one) are an error: counting them as neighbours would number every card
// after them wrong.
func rowOffsets(row []Quad) ([]int, error) {
	off := make([]int, len(row))
	if len(row) < 2 {
		return off, nil
	}
	gaps := make([]float64, len(row)-1)
	for i := range gaps {
		x0, _ := row[i].Centre()
		x1, _ := row[i+1].Centre()
		gaps[i] = x1 - x0
	}
	sorted := append([]float64(nil), gaps...)
	sort.Float64s(sorted)
	step := sorted[(len(sorted)-1)/2]
	if step <= 0 {
		return nil, fmt.Errorf("%w: cards found on top of each other", ErrDeckLayout)
	}
	for i, g := range gaps {
		if g < minDeckStep*step {
			return nil, fmt.Errorf("%w: two cards found %.0f px apart, the row's cards %.0f px", ErrDeckLayout, g, step)
		}
		off[i+1] = off[i] + max(1, int(math.Round(g/step)))
	}
	return off, nil
}

// minDeckStep is the least gap between two cards of a row, in steps of the
// row's usual gap.
const minDeckStep = 0.6

// inPlaces lays a row's cards in the places their offsets and shift give.
func inPlaces(row []Quad, offsets []int, shift int) []*Quad {
	places := make([]*Quad, DeckColumns)
	for i := range row {
		places[offsets[i]+shift] = &row[i]
	}
	return places
}

// nearestShift is how far along a row of offsets must move for its cards
// to lie nearest the column lines.
func nearestShift(row []Quad, offsets []int, lines []func(float64) float64) int {
	best, bestD := 0, math.Inf(1)
	for s := 0; s+offsets[len(offsets)-1] < DeckColumns; s++ {
		d := 0.0
		for i, q := range row {
			x, y := q.Centre()
			d += math.Abs(x - lines[offsets[i]+s](y))
		}
		if d < bestD {
			best, bestD = s, d
		}
	}
	return best
}

// columnLines fits each column's x as a line in y through the centres of
// the rows placed in it (a constant with one).
func columnLines(placed [][]*Quad) []func(y float64) float64 {
	lines := make([]func(float64) float64, DeckColumns)
	for c := range DeckColumns {
		var sx, sy, sxy, syy, n float64
		for _, row := range placed {
			if row[c] == nil {
				continue
			}
			x, y := row[c].Centre()
			sx, sy, sxy, syy, n = sx+x, sy+y, sxy+x*y, syy+y*y, n+1
		}
		meanX, meanY := sx/n, sy/n
		slope := 0.0
		if v := syy/n - meanY*meanY; n > 1 && v > 1e-9 {
			slope = (sxy/n - meanX*meanY) / v
		}
		if n == 0 {
			continue // a place empty in every row placed: between its neighbours, below
		}
		lines[c] = func(y float64) float64 { return meanX + slope*(y-meanY) }
	}
	for c, l := range lines {
		if l == nil { // the first and last columns are never empty
			left, right := c-1, c+1
			for lines[right] == nil {
				right++
			}
			lo, hi, t := lines[left], lines[right], float64(c-left)/float64(right-left)
			lines[c] = func(y float64) float64 { return lo(y) + t*(hi(y)-lo(y)) }
		}
	}
	return lines
}
