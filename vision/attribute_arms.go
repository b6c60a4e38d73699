package vision

// Attribution, part 3: the arms reaching from the seats to the piles.

import (
	"gocv.io/x/gocv"
)

// armFrame is what of the low table image was not bare table in one frame:
// cards, hands and arms.
type armFrame struct {
	t int64
	m []byte // 255 where not bare table
}

// watchArms notes what of the table is not bare table in this frame
// (in every colour channel: a yellow card on a beige table differs in
// blue): cards, hands and arms.
func (a *Attributor) watchArms(tMS int64) {
	if a.bgLow.Empty() {
		return
	}
	gocv.AbsDiff(a.low, a.bgLow, &a.fg)
	m := maxChannel(a.fg)
	defer m.Close()
	gocv.Threshold(m, &m, fgThreshold, 255, gocv.ThresholdBinary)
	b, err := m.DataPtrUint8()
	if err != nil {
		return
	}
	var buf []byte
	for len(a.hist) > 0 && tMS-a.hist[0].t > histMS {
		buf = a.hist[0].m[:0] // reuse the oldest
		a.hist = a.hist[1:]
	}
	a.hist = append(a.hist, armFrame{t: tMS, m: append(buf, b...)})
	a.notTable = a.hist[len(a.hist)-1].m
}

// armScores counts, per seat, the frames shortly before t in which what
// lay on the pile (a hand) reached off the table on the seat's side (its
// arm).
func (a *Attributor) armScores(pile int, t int64) map[string]int {
	if a.locate == nil || len(a.hist) == 0 {
		return nil
	}
	cp, ok := a.locate(pile)
	if !ok {
		return nil
	}
	pp := a.toLow.Apply(cp)
	W, H := a.lowSize.X, a.lowSize.Y
	px, py := int(pp.X), int(pp.Y)
	if px < 0 || py < 0 || px >= W || py >= H {
		return nil
	}
	out := map[string]int{}
	if len(a.seen) != W*H {
		a.seen = make([]int32, W*H)
	}
	seen, stack := a.seen, a.stack[:0]
	for k, h := range a.hist {
		if h.t < t-armWindowMS || h.t > t {
			continue
		}
		mark := int32(k + 1)
		var reached uint16 // seats, as bits
		stack = append(stack[:0], py*W+px)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[i] == mark || h.m[i] == 0 {
				continue
			}
			seen[i] = mark
			if o := a.rim[i]; o > 0 {
				reached |= 1 << (o - 1)
			}
			x, y := i%W, i/W
			if x > 0 {
				stack = append(stack, i-1)
			}
			if x < W-1 {
				stack = append(stack, i+1)
			}
			if y > 0 {
				stack = append(stack, i-W)
			}
			if y < H-1 {
				stack = append(stack, i+W)
			}
		}
		for si, s := range a.seats {
			if reached&(1<<si) != 0 {
				out[s.player]++
			}
		}
	}
	clear(seen)
	a.stack = stack
	return out
}

// loneArm names the seat whose arm alone reached the pile, in at least
// minArmFrames frames, or "".
func loneArm(arms map[string]int) string {
	who := ""
	for name, n := range arms {
		if n <= 0 {
			continue
		}
		if who != "" {
			return ""
		}
		who = name
	}
	if who == "" || arms[who] < minArmFrames {
		return ""
	}
	return who
}
