package find

import (
	"image"
	"math"
	"sort"
)

// Score is how the card finder did on labelled photos.
type Score struct {
	Labelled   int `json:"labelled"`    // cards labelled
	Found      int `json:"found"`       // labelled cards matched by a find
	FalseFinds int `json:"false_finds"` // finds that match no labelled card
}

// Add sums two scores.
func (s Score) Add(o Score) Score {
	return Score{s.Labelled + o.Labelled, s.Found + o.Found, s.FalseFinds + o.FalseFinds}
}

// MinIoU is the overlap of a find's bounding box with a labelled
// card's box that counts as finding that card.
const MinIoU = 0.5

// ScoreWholeCards matches finds to labelled whole-card boxes one to one,
// the best overlaps first; a find matches when the boxes' intersection
// over union is at least MinIoU.
func ScoreWholeCards(finds []Quad, cards []image.Rectangle) Score {
	type pair struct {
		f, c int
		iou  float64
	}
	var pairs []pair
	for i, q := range finds {
		b := q.Bounds()
		for j, c := range cards {
			if v := iou(b, c); v >= MinIoU {
				pairs = append(pairs, pair{i, j, v})
			}
		}
	}
	sort.Slice(pairs, func(a, b int) bool { return pairs[a].iou > pairs[b].iou })
	usedF, usedC := make([]bool, len(finds)), make([]bool, len(cards))
	s := Score{Labelled: len(cards)}
	for _, p := range pairs {
		if usedF[p.f] || usedC[p.c] {
			continue
		}
		usedF[p.f], usedC[p.c] = true, true
		s.Found++
	}
	s.FalseFinds = len(finds) - s.Found
	return s
}

// ScoreMarkedCards scores finds against labels that mark a point of each
// card (the centre of its corner index, as the UNO photos' labels do): a
// find that contains marked points finds one card, the nearest to its
// centre, and a card is found when some find credits it; a find
// containing no point is false.
func ScoreMarkedCards(finds []Quad, points []image.Point) Score {
	s := Score{Labelled: len(points)}
	credited := make([]bool, len(points))
	for _, q := range finds {
		cx, cy := q.Centre()
		best, bd := -1, math.Inf(1)
		for i, p := range points {
			if !q.Contains(float64(p.X), float64(p.Y)) {
				continue
			}
			if d := math.Hypot(float64(p.X)-cx, float64(p.Y)-cy); d < bd {
				best, bd = i, d
			}
		}
		if best < 0 {
			s.FalseFinds++
			continue
		}
		credited[best] = true
	}
	for _, c := range credited {
		if c {
			s.Found++
		}
	}
	return s
}

func iou(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	if in.Empty() {
		return 0
	}
	ia := float64(in.Dx() * in.Dy())
	return ia / (float64(a.Dx()*a.Dy()+b.Dx()*b.Dy()) - ia)
}
