package scene

import (
	"math"
	"math/rand/v2"

	"ligretto/referee"
)

// Table layout constants, in millimetres.
const (
	slotPitch    = CardW + 12             // distance between seat slot centres
	zoneInset    = 22                     // from the table edge to the near edge of seat cards
	zoneDepth    = 170                    // depth of a seat zone from the edge
	cornerSpace  = 175                    // kept free at each end of a side (markers)
	markerSide   = 80                     // the black marker square
	paperSide    = 124                    // the white sheet it is printed on
	markerInset  = 28                     // from the table edges to the sheet
	cellW, cellH = CardW + 36, CardH + 32 // room for a pile's jitter with a finger's width between piles
	rowCascade   = 16                     // a C18 row card lies this far nearer the player than the one under it
)

// seat is one player's place at the table.
type seat struct {
	SeatGeometry
	side  int // 0 bottom, 1 left, 2 top, 3 right
	along Pt  // unit vector along the edge, to the player's right
	slots []pose
	look  player
}

// SeatGeometry is where a player sits, in table millimetres.
type SeatGeometry struct {
	Player string
	Back   string // back design ID
	Zone   Quad   // the seat zone: where the player's cards lie
	Edge   Pt     // middle of the seat's stretch of table edge
	Inward Pt     // unit vector from the edge towards the centre
	Slots  []Quad // card places: the Ligretto stack, the row slots, the counted-off pile
}

// layout is the table and everything fixed on it.
type layout struct {
	w, h    float64 // table size
	seats   []seat
	centre  [4]float64 // x0, y0, x1, y1 of the centre area
	cells   []Pt       // pile grid cell centres
	markers [4]marker
	rowSize int
}

type marker struct {
	id    int
	paper pose // the white sheet, a square of paperSide
	quad  Quad // the black square's corners: top-left, top-right, bottom-right, bottom-left as drawn
}

func sideLen(w, h float64, side int) float64 {
	if side%2 == 0 {
		return w
	}
	return h
}

// newLayout places n players round a table big enough for their cards and
// for the piles they can start.
func newLayout(players []referee.Player, rng *rand.Rand) *layout {
	n := len(players)
	L := &layout{rowSize: referee.RowSize(n)}
	zoneW := L.zoneW()
	count := seatCounts(n)
	need := func(k int) float64 { return 2*cornerSpace + float64(k)*zoneW }
	w := math.Max(1000, need(max(count[0], count[2])))
	h := math.Max(680, need(max(count[1], count[3])))
	for {
		m := func(s int) float64 {
			if count[s] > 0 {
				return zoneDepth + 25
			}
			return 70
		}
		L.centre = [4]float64{-w/2 + m(1), -h/2 + m(2), w/2 - m(3), h/2 - m(0)}
		cols := int((L.centre[2] - L.centre[0]) / cellW)
		rows := int((L.centre[3] - L.centre[1]) / cellH)
		if cols*rows >= 4*n+2 && w/h >= 1.3 {
			break
		}
		if w/h < 1.3 {
			w *= 1.05
		} else {
			w, h = w*1.04, h*1.04
		}
	}
	if w/h > 1.75 {
		h = w / 1.75
	}
	L.w, L.h = w, h
	m := func(s int) float64 {
		if count[s] > 0 {
			return zoneDepth + 25
		}
		return 70
	}
	L.centre = [4]float64{-w/2 + m(1), -h/2 + m(2), w/2 - m(3), h/2 - m(0)}

	// Pile grid: cells spread evenly over the centre area.
	cw, ch := L.centre[2]-L.centre[0], L.centre[3]-L.centre[1]
	cols, rows := int(cw/cellW), int(ch/cellH)
	for r := range rows {
		for c := range cols {
			L.cells = append(L.cells, Pt{
				L.centre[0] + cw*(float64(c)+0.5)/float64(cols),
				L.centre[1] + ch*(float64(r)+0.5)/float64(rows),
			})
		}
	}

	L.furnish(players, count, rng)
	return L
}

// zoneW is the width of a seat zone along the table edge.
func (L *layout) zoneW() float64 { return float64(L.rowSize+2)*slotPitch + 30 }

// seatCounts shares n players out among the four sides: bottom, left,
// top, right (the long sides take more).
func seatCounts(n int) [4]int {
	var count [4]int
	weight := [4]float64{1.6, 1, 1.6, 1}
	for range n {
		best := 0
		for s := 1; s < 4; s++ {
			if weight[s]/float64(count[s]+1) > weight[best]/float64(count[best]+1) {
				best = s
			}
		}
		count[best]++
	}
	return count
}

// furnish seats the players (count a side) round a table of L.w x L.h and
// tapes the markers to its corners.
func (L *layout) furnish(players []referee.Player, count [4]int, rng *rand.Rand) {
	w, h, zoneW := L.w, L.h, L.zoneW()
	// Seats, clockwise from the near side: bottom, left, top, right.
	idx := 0
	for side := range 4 {
		k := count[side]
		sl := sideLen(w, h, side)
		for j := range k {
			// Position along the side, as seen from the player facing the
			// centre: the side is walked left to right.
			off := -sl/2 + cornerSpace + (sl-2*cornerSpace)*(float64(j)+0.5)/float64(k)
			var edge, in, along Pt
			switch side {
			case 0:
				edge, in, along = Pt{-off, h / 2}, Pt{0, -1}, Pt{-1, 0}
			case 1:
				edge, in, along = Pt{-w / 2, -off}, Pt{1, 0}, Pt{0, -1}
			case 2:
				edge, in, along = Pt{off, -h / 2}, Pt{0, 1}, Pt{1, 0}
			case 3:
				edge, in, along = Pt{w / 2, off}, Pt{-1, 0}, Pt{0, 1}
			}
			p := players[idx]
			idx++
			s := seat{side: side, along: along}
			s.Player, s.Back, s.Edge, s.Inward = p.Name, p.Back, edge, in
			a := math.Atan2(in.Y, in.X) - math.Pi/2 // card long axis along the inward normal
			nSlots := L.rowSize + 2
			for i := range nSlots {
				c := edge.add(along.mul((float64(i) - float64(nSlots-1)/2) * slotPitch)).add(in.mul(zoneInset + CardH/2))
				s.slots = append(s.slots, pose{c, a})
				s.Slots = append(s.Slots, pose{c, a}.card())
			}
			half := zoneW / 2
			s.Zone = Quad{edge.add(along.mul(-half)), edge.add(along.mul(half)),
				edge.add(along.mul(half)).add(in.mul(zoneDepth)), edge.add(along.mul(-half)).add(in.mul(zoneDepth))}
			s.look = player{
				body:     edge.add(in.mul(-330)),
				shoulder: [2]Pt{edge.add(in.mul(-290)).add(along.mul(-165)), edge.add(in.mul(-290)).add(along.mul(165))},
				skin:     skinTone(rng),
				sleeve:   clothTone(rng),
				hair:     hsv(20+20*rng.Float64(), 0.3+0.4*rng.Float64(), 0.05+0.35*rng.Float64()),
			}
			L.seats = append(L.seats, s)
		}
	}

	// Markers 0..3 at the corners: top-left, top-right, bottom-right, bottom-left.
	corner := []Pt{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}
	for i := range 4 {
		c := Pt{corner[i].X * (w/2 - markerInset - paperSide/2), corner[i].Y * (h/2 - markerInset - paperSide/2)}
		a := (rng.Float64()*2 - 1) * 2.5 * math.Pi / 180
		pp := pose{c.add(Pt{rng.Float64()*6 - 3, rng.Float64()*6 - 3}), a}
		L.markers[i] = marker{id: i, paper: pp, quad: pp.quad(markerSide, markerSide)}
	}
}

// skinTone draws a skin colour (linear-ish RGB, 0..1).
func skinTone(rng *rand.Rand) [3]float32 {
	v := 0.28 + 0.62*rng.Float64()
	hue := 18 + 14*rng.Float64()
	sat := 0.32 + 0.25*rng.Float64() - 0.1*(v-0.6)
	return hsv(hue, sat, v)
}

// clothTone draws a sleeve or shirt colour.
func clothTone(rng *rand.Rand) [3]float32 {
	return hsv(360*rng.Float64(), 0.15+0.55*rng.Float64(), 0.15+0.55*rng.Float64())
}

func hsv(h, s, v float64) [3]float32 {
	h = math.Mod(h, 360) / 60
	i := int(h)
	f := h - float64(i)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch i {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return [3]float32{float32(r), float32(g), float32(b)}
}
