package training

import (
	"errors"
	"testing"

	"ligretto/model"
)

// batchOf makes a batch of n faces whose crops are filled with their index,
// so that a test can tell where each crop went.
func batchOf(cfg model.Config, n int, base float32) Batch {
	b := Batch{X: make([]float32, n*cfg.CropLen()), Side: make([]int, n), Colour: make([]int, n), Number: make([]int, n), BackClass: make([]int, n)}
	for i := range n {
		for j := range cfg.CropLen() {
			b.X[i*cfg.CropLen()+j] = base + float32(i)
		}
		b.Side[i], b.Colour[i], b.Number[i], b.BackClass[i] = model.SideFace, i%4, 1+i%10, -1
	}
	return b
}

func TestReplay_ShowsHardCropsAgainAtTheEnd(t *testing.T) {
	cfg := smallConfig()
	n := cfg.BatchSize
	if _, err := NewReplay(cfg, n, 2, 64); !errors.Is(err, ErrNoData) {
		t.Errorf("replacing a whole batch: err %v, want ErrNoData", err)
	}
	r, err := NewReplay(cfg, 2, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	first := batchOf(cfg, n, 0)
	if got := r.Mix(&first); got != 0 {
		t.Fatalf("nothing waiting, yet Mix replaced %d", got)
	}
	r.Note([]int{3, 5, 7})
	if r.Waiting() != 3 {
		t.Fatalf("%d waiting after 3 hard, want 3", r.Waiting())
	}
	second := batchOf(cfg, n, 100)
	if got := r.Mix(&second); got != 2 {
		t.Fatalf("Mix replaced %d, want 2 (perBatch)", got)
	}
	// The last two samples now hold the first two hard crops, with labels.
	cl := cfg.CropLen()
	for k, want := range []int{3, 5} {
		i := n - 1 - k
		if second.X[i*cl] != float32(want) || second.Number[i] != 1+want%10 || second.Colour[i] != want%4 {
			t.Errorf("sample %d holds crop %v number %d colour %d, want crop %d's", i, second.X[i*cl], second.Number[i], second.Colour[i], want)
		}
	}
	if second.X[0] != 100 {
		t.Errorf("sample 0 was replaced: %v", second.X[0])
	}
	// A replayed sample found hard again is not queued twice.
	r.Note([]int{n - 1})
	if r.Waiting() != 3 {
		t.Errorf("%d waiting, want 3 (7, then 3 and 5 once more)", r.Waiting())
	}
	third := batchOf(cfg, n, 200)
	r.Mix(&third)
	fourth := batchOf(cfg, n, 300)
	r.Mix(&fourth) // every crop shown twice now: gone
	if r.Waiting() != 0 {
		t.Errorf("%d waiting after every crop was shown twice, want 0", r.Waiting())
	}
}

func TestReplay_KeepsTheNewestWhenFull(t *testing.T) {
	cfg := smallConfig()
	r, err := NewReplay(cfg, 1, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := batchOf(cfg, cfg.BatchSize, 0)
	b.Side[2] = model.SideBack
	r.Mix(&b)                 // nothing waiting: b as it was
	r.Note([]int{1, 2, 4, 6}) // 2 is a back: never replayed
	if r.Waiting() != 2 {
		t.Fatalf("%d waiting, want 2 (the capacity)", r.Waiting())
	}
	next := batchOf(cfg, cfg.BatchSize, 100)
	r.Mix(&next)
	if got := next.X[(cfg.BatchSize-1)*cfg.CropLen()]; got != 4 {
		t.Errorf("replayed crop %v first, want 4 (1 was dropped for the newer)", got)
	}
}
