package tiles

import (
	"errors"
	"fmt"
)

// Audit checks that every player's 15 cards are somewhere, each exactly
// once (hand, discard pile, turned up, aside or on the board), that nobody
// laid more than 2 jokers, and that the stones stand on 4 fields of the
// board (T1). It holds after any play, a wrong one too.
func (r *Round) Audit() error {
	for _, n := range r.names {
		s := r.seats[n]
		var seen [CardsPerPlayer + 1]bool
		count := 0
		for _, cs := range [][]Card{s.Hand, s.Discard, s.Aside, r.onBoard[n], upCards(s)} {
			for _, c := range cs {
				if c.Owner != n || c.ID < 1 || c.ID > CardsPerPlayer || seen[c.ID] {
					return fmt.Errorf("%s: card %v is out of place or counted twice", n, c)
				}
				seen[c.ID] = true
				count++
			}
		}
		if count != CardsPerPlayer {
			return fmt.Errorf("%s: %d cards accounted for, want %d", n, count, CardsPerPlayer)
		}
		if r.t.jokers[n] > JokersPerPlayer {
			return fmt.Errorf("%s laid %d jokers", n, r.t.jokers[n])
		}
	}
	return r.t.auditStones()
}

func upCards(s *Seat) []Card {
	if s.Up == nil {
		return nil
	}
	return []Card{*s.Up}
}

func (t *Table) auditStones() error {
	for i, s := range t.stones {
		if !t.board.On(s.At) {
			return fmt.Errorf("stone %d is off the board at %v", i+1, s.At)
		}
		for j, o := range t.stones[:i] {
			if o.At == s.At {
				return fmt.Errorf("stones %d and %d share %v", j+1, i+1, s.At)
			}
		}
	}
	return nil
}

// ErrBoard means a board breaks a placement rule; CheckBoard wraps it.
var ErrBoard = errors.New("board not legal")

// CheckBoard checks the board as a whole, for rounds without wrong plays:
// nobody made one (T5b), every card shows both halves on two edge-adjacent
// fields of its colours (T2a, T2c, T2e when strict), every joker lies
// whole, every stone stands on a piece or on a bare field (its start), and
// no stone waits to be moved.
func (t *Table) CheckBoard() error {
	for n, f := range t.faults {
		if len(f) > 0 {
			return fmt.Errorf("%w: %s made a wrong play: %v", ErrBoard, n, f[0].Reason)
		}
	}
	// Each piece's fields by its seq: a card shows on 2, a joker on 1.
	fields := make([][3]Field, t.seq+1)
	count := make([]int, t.seq+1)
	w, h := t.board.Size()
	for y := range h {
		for x := range w {
			f := Field{x, y}
			if p := t.pieces[t.board.index(f)]; p.Kind != "" {
				if count[p.Seq] < 3 {
					fields[p.Seq][count[p.Seq]] = f
				}
				count[p.Seq]++
			}
		}
	}
	for seq := 1; seq <= t.seq; seq++ {
		if count[seq] == 0 {
			return fmt.Errorf("%w: piece %d of %d is covered", ErrBoard, seq, t.seq)
		}
		if err := t.checkPiece(seq, fields[seq][:min(count[seq], 3)]); err != nil {
			return err
		}
	}
	for i, p := range t.pending {
		if p != nil {
			return fmt.Errorf("%w: stone %d waits to be moved", ErrBoard, i+1)
		}
	}
	return t.auditStones()
}

func (t *Table) checkPiece(seq int, fs []Field) error {
	p := t.pieces[t.board.index(fs[0])]
	if p.Kind == PieceJoker {
		if len(fs) != 1 {
			return fmt.Errorf("%w: joker %d lies on %d fields", ErrBoard, seq, len(fs))
		}
		return nil
	}
	if len(fs) != 2 || !fs[0].Adjacent(fs[1]) {
		return fmt.Errorf("%w: card %d (%s) shows on %v", ErrBoard, seq, p.Owner, fs)
	}
	q := t.pieces[t.board.index(fs[1])]
	l := Lay{Player: p.Owner, Fields: [2]Field{fs[0], fs[1]}, Colours: [2]Colour{p.Colour, q.Colour}}
	if v := t.checkColours(l); v != nil {
		return fmt.Errorf("%w: %v", ErrBoard, v)
	}
	return nil
}
