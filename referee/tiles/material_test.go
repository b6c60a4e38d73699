package tiles

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestTiles_T1_DefaultPartsAreLatinAndDistinct(t *testing.T) {
	seen := map[Part]bool{}
	for i, p := range DefaultParts {
		if !p.Latin() {
			t.Errorf("default part %d %s is not a Latin square", i+1, p)
		}
		if seen[p] {
			t.Errorf("default part %d %s appears twice", i+1, p)
		}
		seen[p] = true
	}
}

func TestTiles_T1_GeneratedPartsAreSeededLatinSquares(t *testing.T) {
	a := GenerateParts(9, rand.New(rand.NewPCG(1, 2)))
	b := GenerateParts(9, rand.New(rand.NewPCG(1, 2)))
	c := GenerateParts(9, rand.New(rand.NewPCG(3, 2)))
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Fatal("parts do not follow the seed")
	}
	for _, p := range append(a, c...) {
		if !p.Latin() {
			t.Fatalf("%s is not a Latin square", p)
		}
	}
}

func TestTiles_T1_PartTextRoundTrips(t *testing.T) {
	for _, p := range DefaultParts {
		q, err := ParsePart(p.String())
		if err != nil || q != p {
			t.Fatalf("%s: %v %v", p, q, err)
		}
	}
	for _, bad := range []string{"RGBY/GRYB/BYRG", "RGBY/GRYB/BYRG/YBGX", "RGBYR/GRYB/BYRG/YBGR"} {
		if _, err := ParsePart(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", bad, err)
		}
	}
}

func TestTiles_T1_BoardPartsPerPlayerCount(t *testing.T) {
	for n, want := range map[int][2]int{2: {12, 8}, 3: {12, 12}, 4: {12, 12}} {
		l, err := DefaultLayout(n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewBoard(l)
		if err != nil {
			t.Fatal(err)
		}
		if w, h := b.Size(); w != want[0] || h != want[1] {
			t.Errorf("%d players: board %dx%d, want %dx%d", n, w, h, want[0], want[1])
		}
	}
	for _, n := range []int{1, 5} {
		if _, _, err := PartsFor(n); !errors.Is(err, ErrInvalid) {
			t.Errorf("%d players: %v, want ErrInvalid", n, err)
		}
	}
	// The parts lie where the layout says: part 2's top-left field is (4,0).
	l, _ := DefaultLayout(4)
	b, _ := NewBoard(l)
	if got := b.Colour(Field{4, 0}); got != DefaultParts[1][0][0] {
		t.Errorf("field (4,0) is %v, want part 2's first field %v", got, DefaultParts[1][0][0])
	}
	if got := b.Colour(Field{1, 6}); got != DefaultParts[3][2][1] {
		t.Errorf("field (1,6) is %v, want part 4's (1,2) %v", got, DefaultParts[3][2][1])
	}
}

func TestTiles_T1_DecksHold15TwoColourCardsBalancedOverTheTable(t *testing.T) {
	count := map[[2]Colour]int{}
	for seat := range 4 {
		d := Deck("P", seat)
		if len(d) != CardsPerPlayer {
			t.Fatalf("seat %d: %d cards", seat, len(d))
		}
		ids := map[int]bool{}
		for _, c := range d {
			if c.Colours[0] == c.Colours[1] || !c.Colours[0].Valid() || !c.Colours[1].Valid() {
				t.Fatalf("%v does not show two colours", c)
			}
			ids[c.ID] = true
			count[c.Colours]++
		}
		if len(ids) != CardsPerPlayer {
			t.Fatalf("seat %d: card IDs repeat", seat)
		}
	}
	for p, n := range count {
		if n != 10 {
			t.Errorf("pair %v: %d cards over 4 decks, want 10", p, n)
		}
	}
}

func TestTiles_T1_StartingPlaces(t *testing.T) {
	l, _ := DefaultLayout(2)
	b, _ := NewBoard(l)
	if got, want := b.MarkedStarts(), [4]Field{{2, 2}, {9, 2}, {2, 5}, {9, 5}}; got != want {
		t.Errorf("marked starts %v, want %v", got, want)
	}
	s := b.RandomStarts(rand.New(rand.NewPCG(5, 5)))
	for i, f := range s {
		if !b.On(f) {
			t.Fatalf("stone %d off the board at %v", i+1, f)
		}
		for _, g := range s[:i] {
			if f == g || f.Adjacent(g) || f.Diagonal(g) {
				t.Fatalf("stones at %v and %v touch", f, g)
			}
		}
	}
	if _, err := NewTable(b, [4]Field{{0, 0}, {0, 0}, {3, 3}, {5, 5}}, false); !errors.Is(err, ErrInvalid) {
		t.Errorf("two stones on one field: %v", err)
	}
}

func TestTiles_T1_MatchNeedsTwoToFourPlayersWithDistinctFrames(t *testing.T) {
	for _, ps := range [][]Player{
		DefaultPlayers(1),
		{{"A", Plain}, {"B", Plain}},
		{{"A", Plain}, {"A", Double}},
		{{"A", Plain}, {"B", "wavy"}},
		append(DefaultPlayers(4), Player{"E", Plain}),
	} {
		if _, err := NewMatch(ps, Settings{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%v: %v, want ErrInvalid", ps, err)
		}
	}
	if _, err := NewMatch(DefaultPlayers(3), Settings{Rounds: -1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative rounds: %v", err)
	}
}

// noTwins checks that no two edge-adjacent fields share a colour.
func noTwins(t *testing.T, l Layout) {
	t.Helper()
	b, err := NewBoard(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dominoes(b) {
		if b.Colour(d[0]) == b.Colour(d[1]) {
			t.Fatalf("fields %v and %v are both %v", d[0], d[1], b.Colour(d[0]))
		}
	}
}

func TestTiles_T1_BoardsHaveNoSameColourNeighbours(t *testing.T) {
	for n := 2; n <= 4; n++ {
		l, _ := DefaultLayout(n)
		noTwins(t, l)
		for seed := range uint64(20) {
			g, err := GenerateLayout(n, rand.New(rand.NewPCG(seed, 9)))
			if err != nil {
				t.Fatal(err)
			}
			noTwins(t, g)
		}
	}
}
