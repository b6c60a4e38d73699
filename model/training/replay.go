package training

import (
	"fmt"

	"ligretto/model"
)

// Replay shows the network again the face crops it found hard (wrong, or
// not sure: Losses.Hard). Fresh synthetic crops are mostly easy by the
// end of a run: the last errors come from a few kinds of crop (a dim
// numeral on yellow, a numeral half hidden), and drawing those again spends
// more of each step where the network still errs, at no extra cost.
type Replay struct {
	perBatch int // samples of each batch replaced by hard ones
	times    int // how often one hard crop is shown again at most
	capacity int
	queue    []hardSample
	cropLen  int
	last     Batch // the batch Mix last filled, which Note reads
	mixed    int   // how many of its last samples Mix replaced
}

type hardSample struct {
	x                    []float32
	side, colour, number int
	shown                int
}

// NewReplay replaces up to perBatch samples of each batch with hard ones,
// shows each hard crop again at most times times, and keeps at most
// capacity of them waiting (the oldest go first).
func NewReplay(cfg model.Config, perBatch, times, capacity int) (*Replay, error) {
	if perBatch < 0 || perBatch >= cfg.BatchSize || times < 1 || capacity < perBatch {
		return nil, fmt.Errorf("%w: replay of %d per batch of %d, %d times, %d kept", ErrNoData, perBatch, cfg.BatchSize, times, capacity)
	}
	return &Replay{perBatch: perBatch, times: times, capacity: capacity, cropLen: cfg.CropLen()}, nil
}

// Mix replaces the last samples of b (up to perBatch, as many as are
// waiting) with hard ones, in place, and returns how many it replaced. Call
// Note with that step's hard samples before the next Mix.
func (r *Replay) Mix(b *Batch) int {
	n := min(r.perBatch, len(r.queue))
	size := len(b.Side)
	var again []hardSample // shown, but not often enough yet
	for k, h := range r.queue[:n] {
		i := size - 1 - k
		copy(b.X[i*r.cropLen:(i+1)*r.cropLen], h.x)
		b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = h.side, h.colour, h.number, -1
		if h.shown++; h.shown < r.times {
			again = append(again, h)
		}
	}
	r.queue = append(r.queue[n:], again...) // they wait behind the newer ones
	r.last, r.mixed = *b, n
	return n
}

// Note queues the samples listed in hard (Losses.Hard) of the batch
// Mix last filled. A sample Mix put there is not queued again: it waits
// already.
func (r *Replay) Note(hard []int) {
	b, size := r.last, len(r.last.Side)
	for _, i := range hard {
		if i >= size-r.mixed || b.Side[i] != model.SideFace {
			continue
		}
		x := append([]float32(nil), b.X[i*r.cropLen:(i+1)*r.cropLen]...)
		r.queue = append(r.queue, hardSample{x: x, side: b.Side[i], colour: b.Colour[i], number: b.Number[i]})
	}
	if over := len(r.queue) - r.capacity; over > 0 {
		r.queue = r.queue[over:]
	}
}

// Waiting is how many hard crops wait to be shown again.
func (r *Replay) Waiting() int { return len(r.queue) }
