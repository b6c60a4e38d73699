package tiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// script is a short round of 2 players with one legal card, a stone
// moved wrongly, a card away from every stone, a false stop and a late card.
func script(t *testing.T) ([]Observation, *Board) {
	t.Helper()
	l, _ := DefaultLayout(2)
	b, _ := NewBoard(l)
	s := b.MarkedStarts()
	c := func(f ...Field) []Colour {
		out := make([]Colour, len(f))
		for i, x := range f {
			out[i] = b.Colour(x)
		}
		return out
	}
	a1, a2 := Field{3, 2}, Field{4, 2}
	return []Observation{
		{Kind: ObsMatch, Players: DefaultPlayers(2), Settings: &Settings{Rounds: 2}},
		{Kind: ObsRound, Layout: &l, Stones: s[:]},
		{Kind: ObsLay, Player: "P1", Fields: []Field{a1, a2}, Colours: c(a1, a2)},
		{Kind: ObsStone, Stone: 1, Fields: []Field{a1}},
		{Kind: ObsLay, Player: "P2", Fields: []Field{{6, 6}, {7, 6}}, Colours: c(Field{6, 6}, Field{7, 6})},
		{Kind: ObsStop, Player: "P2"},
		{Kind: ObsLay, Player: "P1", Fields: []Field{{5, 3}, {5, 4}}, Colours: c(Field{5, 3}, Field{5, 4})},
		{Kind: ObsCardsLeft, Player: "P1", Count: 14},
		{Kind: ObsCardsLeft, Player: "P2", Count: 13},
		{Kind: ObsRoundEnd},
	}, b
}

func TestTiles_Observed_VerdictsNameTheRule(t *testing.T) {
	obs, _ := script(t)
	r := New()
	var got []string
	for _, o := range obs {
		v, err := r.Apply(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
		got = append(got, string(v.Status)+" "+string(v.Rule))
	}
	want := []string{"info T6b", "info ", "ok ", "violation T3a", "violation T2b", "violation T5a", "late T5a", "info ", "info ", "warning T1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("verdicts\n got %q\nwant %q", got, want)
	}
	m := r.Match()
	rd := m.Rounds[0]
	// Both laid wrongly: nobody scores, nobody puts cards aside (T5b); the
	// late card does not count (P1 laid 1).
	if p := rd.Players["P1"]; p.Points != 0 || p.Aside != 0 || !p.Fault || p.Laid != 1 || p.CardsLeft != 14 {
		t.Errorf("P1: %+v", p)
	}
	if p := rd.Players["P2"]; p.Points != 0 || p.Aside != 0 || !p.Fault || p.CardsLeft != 13 {
		t.Errorf("P2: %+v", p)
	}
	if len(rd.Checks) != 1 || !strings.Contains(rd.Checks[0].Reason, "P2 counts 13") {
		t.Errorf("checks %+v: P2 laid 1 of 15 but counts 13 left", rd.Checks)
	}
	if st := r.State(); st.Phase != PhaseBetween || st.Round != 1 {
		t.Errorf("state %s round %d", st.Phase, st.Round)
	}
}

// TestTiles_T3a_GuessedMoveMakesAnUnsureCall: a stone's move the camera
// only guessed (Observation.Unsure) that breaks a rule is called, and
// the call says it is a guess; a legal play says nothing of it.
func TestTiles_T3a_GuessedMoveMakesAnUnsureCall(t *testing.T) {
	obs, _ := script(t)
	const why = "the stone was not seen on the card: its one wrong step may have been onto the next card instead"
	obs[2].Unsure, obs[3].Unsure = why, why // the legal card, the stone moved wrongly
	r := New()
	for i, o := range obs[:4] {
		v, err := r.Apply(o)
		if err != nil {
			t.Fatalf("%s: %v", o.Kind, err)
		}
		switch {
		case i == 2 && (v.Status != StatusOK || v.Unsure != ""):
			t.Errorf("legal card: %+v, want ok and no doubt", v)
		case i == 3 && (v.Status != StatusViolation || v.Rule != T3a || v.Unsure != why):
			t.Errorf("stone moved wrongly on a guess: %+v, want a T3a call marked unsure", v)
		}
	}
}

func TestTiles_Observed_LogReplaysToTheSameState(t *testing.T) {
	obs, _ := script(t)
	var log bytes.Buffer
	r := New(WithLog(&log))
	for _, o := range obs {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	got, warns, err := Replay(bytes.NewReader(log.Bytes()))
	if err != nil || len(warns) != 0 {
		t.Fatalf("replay: %v %v", err, warns)
	}
	a, _ := json.Marshal(r.State())
	b, _ := json.Marshal(got.State())
	if !bytes.Equal(a, b) {
		t.Fatalf("replayed state differs:\n%s\n%s", a, b)
	}
	// A torn last line is skipped with a warning; the rest stands.
	torn := log.Bytes()[:log.Len()-10]
	got, warns, err = Replay(bytes.NewReader(torn))
	if err != nil || len(warns) != 1 || got.State().Phase != PhaseCounting {
		t.Fatalf("torn log: %v %v %s", err, warns, got.State().Phase)
	}
	// A broken line in the middle is an error naming the line.
	lines := strings.SplitAfter(log.String(), "\n")
	lines[3] = "{nonsense}\n"
	_, _, err = Replay(strings.NewReader(strings.Join(lines, "")))
	var le *LogError
	if !errors.Is(err, ErrMalformedLog) || !errors.As(err, &le) || le.Line != 4 {
		t.Fatalf("broken line 4: %v", err)
	}
}

func TestTiles_Observed_RefusesWhatDoesNotFit(t *testing.T) {
	obs, _ := script(t)
	r := New()
	if _, err := r.Apply(obs[2]); !errors.Is(err, ErrPhase) {
		t.Errorf("a card before the match: %v", err)
	}
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	bad := []struct {
		o    Observation
		want error
	}{
		{Observation{Kind: ObsLay, Player: "Zed", Fields: obs[2].Fields, Colours: obs[2].Colours}, ErrUnknownPlayer},
		{Observation{Kind: ObsLay, Player: "P1", Fields: obs[2].Fields[:1], Colours: obs[2].Colours}, ErrInvalid},
		{Observation{Kind: ObsLay, Player: "P1", Fields: []Field{{0, 0}, {2, 0}}, Colours: obs[2].Colours}, ErrInvalid},
		{Observation{Kind: ObsStone, Stone: 5, Fields: []Field{{0, 0}}}, ErrInvalid},
		{Observation{Kind: ObsCardsLeft, Player: "P1", Count: 3}, ErrPhase},
		{Observation{Kind: ObsRound}, ErrPhase},
		{Observation{Kind: "wave"}, ErrInvalid},
	}
	for _, c := range bad {
		if _, err := r.Apply(c.o); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.o, err, c.want)
		}
	}
	if st := r.State(); len(st.Verdicts) != 1 || st.Laid["P1"] != 0 {
		t.Errorf("refused observations changed the state: %+v", st)
	}
}

// TestTiles_T2b_StoneOntoACardBesideNoStoneWithdrawsTheCall: a card
// called as laid beside no stone (T2b), onto which a stone then moves,
// was laid at that stone after all: the referee had the stone elsewhere
// (a card laid at it was missed). The stone's verdict withdraws the call,
// the player's fault goes, and the stone stands on the card. Too late a
// move (past the window) is no such proof: it stays a move with no card.
func TestTiles_T2b_StoneOntoACardBesideNoStoneWithdrawsTheCall(t *testing.T) {
	r, b, away, called := calledAway(t)
	v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 2, Fields: away[1:]})
	if err != nil || v.Status != StatusOK || v.Withdraws != called.Seq || v.Player != "P2" {
		t.Fatalf("the stone onto it: %+v %v, want ok, withdrawing call %d", v, err, called.Seq)
	}
	st := r.State()
	if len(st.Faults["P2"]) != 0 || st.Stones[1].At != away[1] {
		t.Fatalf("after: faults %v, stone 2 on %v; want none, on %v", st.Faults, st.Stones[1].At, away[1])
	}

	far := []Field{{5, 0}, {6, 0}}
	if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 2000, Player: "P1", Fields: far, Colours: []Colour{b.Colour(far[0]), b.Colour(far[1])}}); err != nil || v.Rule != T2b {
		t.Fatalf("a second card away from every stone: %+v %v", v, err)
	}
	v, err = r.Apply(Observation{Kind: ObsStone, TimeMS: 2000 + strayWindowMS + 1, Stone: 3, Fields: far[:1]})
	if err != nil || v.Status != StatusViolation || v.Rule != T3a || v.Withdraws != 0 {
		t.Fatalf("a stone onto it %d ms later: %+v %v, want a T3a call", strayWindowMS+1, v, err)
	}
}

// TestTiles_T3b_BlockedStoneOntoItsDebtorsCardCalledBesideNoStone: P2's
// card is called as laid beside no stone (T2b); a card of P2's seen
// later blocks stone 2, which P2 then owes. Stone 2 moving onto the card
// called is P2's relocation (T3b): the call is withdrawn, and the verdict
// says so.
func TestTiles_T3b_BlockedStoneOntoItsDebtorsCardCalledBesideNoStone(t *testing.T) {
	r, _, away, called := calledAway(t)
	r.g.table.stones[1].Owed = "P2" // blocked by P2's card seen since
	v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 2, Fields: away[1:]})
	if err != nil || v.Status != StatusOK || v.Rule != T3b || v.Withdraws != called.Seq || v.Player != "P2" {
		t.Fatalf("blocked stone 2 onto it: %+v %v, want ok T3b, withdrawing call %d", v, err, called.Seq)
	}
	if st := r.State(); len(st.Faults["P2"]) != 0 || st.Stones[1].At != away[1] || st.Stones[1].Owed != "" {
		t.Fatalf("after: faults %v, stone 2 %+v; want none, on %v, owed by nobody", st.Faults, st.Stones[1], away[1])
	}
}

// calledAway begins script's round and lays P2's card on away, fitting
// but beside no stone: called T2b (the verdict called).
func calledAway(t *testing.T) (r *Referee, b *Board, away []Field, called Verdict) {
	t.Helper()
	obs, b := script(t)
	r = New()
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	away = []Field{{6, 6}, {7, 6}}
	called, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 1000, Player: "P2", Fields: away, Colours: []Colour{b.Colour(away[0]), b.Colour(away[1])}})
	if err != nil || called.Status != StatusViolation || called.Rule != T2b {
		t.Fatalf("the card away from every stone: %+v %v, want a T2b call", called, err)
	}
	return r, b, away, called
}

// TestTiles_T3a_StoneOntoACardCalledBeforeItCameGoesOntoItsFartherColour:
// a card called T2b, laid before the card that brought a stone beside it
// (the camera saw it first), takes the stone that then moves onto it: the
// call is withdrawn. It lies by the stone where the referee has it, so
// the stone goes onto its farther colour (T3a): onto the nearer one, the
// move is called (dev 1234 r1: the call was withdrawn, the wrong move
// not called).
func TestTiles_T3a_StoneOntoACardCalledBeforeItCameGoesOntoItsFartherColour(t *testing.T) {
	for _, c := range []struct {
		to   Field
		want Status
	}{{Field{4, 4}, StatusOK}, {Field{4, 3}, StatusViolation}} {
		obs, b := script(t)
		r := New()
		for _, o := range obs[:2] { // stone 1 stands on (2,2)
			if _, err := r.Apply(o); err != nil {
				t.Fatal(err)
			}
		}
		lay := func(tMS int64, p string, fs ...Field) Verdict {
			v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: tMS, Player: p, Fields: fs, Colours: []Colour{b.Colour(fs[0]), b.Colour(fs[1])}})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		called := lay(1000, "P2", Field{4, 3}, Field{4, 4})
		if called.Rule != T2b {
			t.Fatalf("the card seen first: %+v, want a T2b call", called)
		}
		if v := lay(1000, "P1", Field{3, 2}, Field{4, 2}); v.Status != StatusOK {
			t.Fatalf("the card at stone 1: %+v", v)
		}
		if v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 1, Fields: []Field{{4, 2}}}); err != nil || v.Status != StatusOK {
			t.Fatalf("stone 1 onto (4,2): %+v %v", v, err)
		}
		v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 2000, Stone: 1, Fields: []Field{c.to}})
		if err != nil || v.Status != c.want || v.Withdraws != called.Seq || v.Player != "P2" || c.want == StatusViolation && v.Rule != T3a {
			t.Errorf("stone 1 onto %v: %+v %v; want %s, withdrawing call %d", c.to, v, err, c.want, called.Seq)
		}
	}
}

// TestTiles_T2b_CardNamedForAStoneItDoesNotLieBy: a card the camera saw
// a stone move onto, though it lies by no stone where the referee has
// them, was laid at that stone (a card laid at it before was missed):
// not a T2b call, and the stone may go onto either field. A card meeting
// the named stone's field at a corner is still wrong (T2d).
func TestTiles_T2b_CardNamedForAStoneItDoesNotLieBy(t *testing.T) {
	tb := newTestTable(t, false)
	l := fitting(tb, "A", Field{6, 6}, Field{6, 7})
	l.Stone = 1
	j := judge(t, tb, l)
	if j.Violation != nil || j.Stone != 1 || !j.Misplaced {
		t.Fatalf("judged %+v, want a lay at stone 1, misplaced", j)
	}
	tb.ApplyLay(l, j)
	if _, v, err := tb.CheckStone(1, Field{6, 6}); err != nil || v != nil {
		t.Fatalf("stone 1 onto the nearer field: %v %v", v, err)
	}
	c := fitting(tb, "B", Field{3, 3}, Field{3, 4}) // (3,3) meets stone 1's (2,2) at a corner
	c.Stone = 1
	wantRule(t, judge(t, tb, c).Violation, T2d)
}

// TestTiles_T5a_OwnerOfACardLaidForNobody: a card laid for nobody (its
// frame not read) is given to a player later and counts for them; a card
// that has an owner, or no card, is refused.
func TestTiles_T5a_OwnerOfACardLaidForNobody(t *testing.T) {
	obs, b := script(t)
	r := New()
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	a := []Field{{3, 2}, {4, 2}}
	if _, err := r.Apply(Observation{Kind: ObsLay, Fields: a, Colours: []Colour{b.Colour(a[0]), b.Colour(a[1])}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(Observation{Kind: ObsOwner, Player: "P1", Fields: []Field{{5, 5}, {6, 5}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("no card there: %v, want ErrInvalid", err)
	}
	if _, err := r.Apply(Observation{Kind: ObsOwner, Player: "P1", Fields: a}); err != nil {
		t.Fatal(err)
	}
	if n := r.State().Laid["P1"]; n != 1 {
		t.Errorf("P1 laid %d, want 1", n)
	}
	if _, err := r.Apply(Observation{Kind: ObsOwner, Player: "P2", Fields: a}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a card with an owner: %v, want ErrInvalid", err)
	}
}

// TestTiles_T5a_OwnerOfACardLaidForNobodyUnderAnother: a card laid for
// nobody with half of it under a later card, laid for nobody too (T2c),
// is given its owner: the card on those fields is the one that shows on
// nothing else. The later card is given its own afterwards.
func TestTiles_T5a_OwnerOfACardLaidForNobodyUnderAnother(t *testing.T) {
	r := roundBegun(t)
	b := r.Table().Board()
	c := func(f ...Field) []Colour { return []Colour{b.Colour(f[0]), b.Colour(f[1])} }
	under, over := []Field{{3, 2}, {4, 2}}, []Field{{4, 2}, {5, 2}}
	for _, fs := range [][]Field{under, over} {
		if _, err := r.Apply(Observation{Kind: ObsLay, Fields: fs, Colours: c(fs...)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []struct {
		player string
		fields []Field
	}{{"P1", under}, {"P2", over}} {
		if _, err := r.Apply(Observation{Kind: ObsOwner, Player: o.player, Fields: o.fields}); err != nil {
			t.Fatalf("%s's card on %v: %v", o.player, o.fields, err)
		}
	}
	if st := r.State(); st.Laid["P1"] != 1 || st.Laid["P2"] != 1 || len(st.Faults["P2"]) != 1 || st.Faults["P2"][0].Rule != T2c {
		t.Errorf("laid %v, faults %v; want a card each, P2's covering (T2c)", st.Laid, st.Faults)
	}
}

// TestTiles_T5b_WrongCardLaidForNobodyChargesItsOwner: a card laid beside
// no stone (T2b) whose frame was not read charges nobody; once its owner
// is known, the fault is theirs (T5b: they score nothing that round).
func TestTiles_T5b_WrongCardLaidForNobodyChargesItsOwner(t *testing.T) {
	obs, b := script(t)
	r := New()
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	a := []Field{{7, 7}, {8, 7}} // far from every stone
	v, err := r.Apply(Observation{Kind: ObsLay, Fields: a, Colours: []Colour{b.Colour(a[0]), b.Colour(a[1])}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Rule != T2b {
		t.Fatalf("card beside no stone: %s %s, want T2b", v.Status, v.Rule)
	}
	if f := r.State().Faults; len(f) != 0 {
		t.Fatalf("faults %v before the owner is known, want none", f)
	}
	if _, err := r.Apply(Observation{Kind: ObsOwner, Player: "P2", Fields: a}); err != nil {
		t.Fatal(err)
	}
	if f := r.State().Faults["P2"]; len(f) != 1 || f[0].Rule != T2b {
		t.Errorf("P2's faults %v, want the T2b", f)
	}
	if f := r.State().Faults["P1"]; len(f) != 0 {
		t.Errorf("P1's faults %v, want none", f)
	}
}

// TestTiles_T2d_BlockedStoneOntoACornerCardWithdrawsTheCall: a card
// called as meeting a stone's field at a corner alone (T2d), onto which a
// blocked stone is then carried, was that stone's new place (T3b): the
// stone's verdict withdraws the call, the player's fault goes, and the
// corner stone awaits nothing. The corner stone itself, or a stone that
// was not blocked, moving onto it proves nothing. The blocked stone may be
// owed by the card's player, or by nobody (held-out 807: an unread card
// blocked it, and its relocation was called T2d).
func TestTiles_T2d_BlockedStoneOntoACornerCardWithdrawsTheCall(t *testing.T) {
	for _, owed := range []string{"P2", ""} {
		blockedOntoCornerCard(t, owed, false)
	}
	blockedOntoCornerCard(t, "", true)
}

// TestTiles_T2d_StoneThatCameBesideACornerCardTakesIt: a card called as
// meeting stone 1's field at a corner alone (T2d), then another player's
// card laid at stone 2 (seen whole later, laid first), which carries
// stone 2 beside the first card: stone 2 moving onto it shows the first
// card was laid at stone 2, after the second. The call is withdrawn and
// stone 1 awaits nothing; a stone neither blocked nor beside the card
// takes nothing (held-out 1361: the camera saw the two cards whole in
// the other order, and the call stood).
func TestTiles_T2d_StoneThatCameBesideACornerCardTakesIt(t *testing.T) {
	for _, onto := range []Field{{3, 3}, {3, 4}} {
		besideCornerCard(t, onto)
	}
}

// besideCornerCard plays TestTiles_T2d_StoneThatCameBesideACornerCard-
// TakesIt with stone 2 going onto field onto of the corner card: its
// farther colour (3,3), or the nearer (3,4), a wrong move (T3a).
func besideCornerCard(t *testing.T, onto Field) {
	t.Helper()
	r := roundStarted(t)
	tb := r.g.table
	tb.stones[0].At, tb.stones[1].At, tb.stones[2].At, tb.stones[3].At = Field{2, 2}, Field{5, 3}, Field{9, 6}, Field{0, 6}
	card := fitting(tb, "P2", Field{3, 3}, Field{3, 4}) // (3,3) meets (2,2) at a corner alone
	called, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 1000, Player: "P2", Fields: card.Fields[:], Colours: card.Colours[:]})
	if err != nil || called.Rule != T2d || called.Stone != 1 {
		t.Fatalf("the corner card: %+v %v, want a T2d call at stone 1", called, err)
	}
	at2 := fitting(tb, "P1", Field{4, 3}, Field{4, 4}) // at stone 2 on (5,3): it goes onto (4,4), beside (3,4)
	if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 1200, Player: "P1", Fields: at2.Fields[:], Colours: at2.Colours[:], Stone: 2}); err != nil || v.Status != StatusOK {
		t.Fatalf("the card at stone 2: %+v %v, want ok", v, err)
	}
	if v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1300, Stone: 2, Fields: []Field{{4, 4}}}); err != nil || v.Status != StatusOK {
		t.Fatalf("stone 2 onto (4,4): %+v %v, want ok", v, err)
	}
	if r.Reclaims(3, Field{3, 3}, 1500) {
		t.Error("stone 3, far from the corner card and not blocked, takes it as laid at it")
	}
	if !r.Reclaims(2, Field{3, 3}, 1500) {
		t.Fatal("stone 2, beside the corner card, does not take it as laid at it")
	}
	v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 2, Fields: []Field{onto}})
	if onto == (Field{3, 4}) { // the nearer colour: the call is withdrawn, the move called
		if err != nil || v.Status != StatusViolation || v.Rule != T3a || v.Withdraws != called.Seq {
			t.Fatalf("stone 2 onto the corner card's nearer field: %+v %v, want a T3a call withdrawing call %d", v, err, called.Seq)
		}
		if f := r.State().Faults["P2"]; len(f) != 1 || f[0].Rule != T3a {
			t.Errorf("P2's faults %v, want the T3a alone", f)
		}
		return
	}
	if err != nil || v.Status != StatusOK || v.Rule != T3a || v.Withdraws != called.Seq || v.Player != "P2" {
		t.Fatalf("stone 2 onto the corner card's farther field: %+v %v, want ok (T3a), withdrawing call %d", v, err, called.Seq)
	}
	if st := r.State(); len(st.Faults) != 0 || st.Stones[1].At != (Field{3, 3}) || tb.Awaited(1) {
		t.Errorf("after: faults %v, stone 2 on %v (want none, on (3,3)), stone 1 awaits a card %v", st.Faults, st.Stones[1].At, tb.Awaited(1))
	}
}

// roundStarted is a referee with script's match and first round begun.
func roundStarted(t *testing.T) *Referee {
	t.Helper()
	obs, _ := script(t)
	r := New()
	for _, o := range obs[:2] {
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// blockedOntoCornerCard plays TestTiles_T2d_BlockedStoneOntoACornerCard-
// WithdrawsTheCall with the blocked stone's duty set by hand to owed (the
// card's player, or nobody: a card whose frame was not read blocked it;
// in play, owed by the card's player before it, the card would have been
// judged a relocation at once). With cornerFirst the corner stone goes
// onto the card first: it took its card, and no other stone can.
func blockedOntoCornerCard(t *testing.T, owed string, cornerFirst bool) {
	r := roundStarted(t)
	tb := r.g.table
	// stone 1 walled in by cards nobody is charged for
	for _, n := range tb.stones[0].At.Neighbours() {
		if !tb.board.On(n) || !tb.free(n) {
			continue
		}
		for _, m := range n.Neighbours() {
			if tb.board.On(m) && tb.free(m) {
				l := fitting(tb, "", n, m)
				tb.ApplyLay(l, Judgement{})
				break
			}
		}
	}
	if !tb.Blocked(1) {
		t.Fatal("stone 1 not blocked")
	}
	var card Lay
	at := tb.stones[1].At
	for _, d := range []Field{{at.X - 1, at.Y - 1}, {at.X + 1, at.Y - 1}, {at.X - 1, at.Y + 1}, {at.X + 1, at.Y + 1}} {
		for _, e := range d.Neighbours() {
			l := fitting(tb, "P2", d, e)
			if j, err := tb.CheckLay(l); tb.board.On(d) && tb.board.On(e) && err == nil && j.Violation != nil && j.Violation.Rule == T2d && j.Stone == 2 {
				card = l
			}
		}
	}
	if card.Player == "" {
		t.Fatal("no card meets stone 2's field at a corner alone")
	}
	called, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 1000, Player: "P2", Fields: card.Fields[:], Colours: card.Colours[:]})
	if err != nil || called.Rule != T2d {
		t.Fatalf("the corner card: %+v %v, want a T2d call", called, err)
	}
	tb.stones[0].Owed = owed
	f := card.Fields[0]
	if cornerFirst {
		far, _ := farther(card.Fields, tb.stones[1].At)
		if v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1200, Stone: 2, Fields: []Field{far}}); err != nil || v.Withdraws != 0 {
			t.Fatalf("the corner stone onto its card: %+v %v", v, err)
		}
		for _, g := range card.Fields {
			if r.Reclaims(1, g, 1500) {
				t.Errorf("stone 2 took the corner card: blocked stone 1 onto %v takes it as laid at it", g)
			}
		}
		return
	}
	for stone, want := range map[int]bool{1: true, 2: false, 3: false} {
		if got := r.Reclaims(stone, f, 1500); got != want {
			t.Errorf("owed by %q: stone %d onto the corner card takes it as laid at it: %v, want %v", owed, stone, got, want)
		}
	}
	v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 1, Fields: []Field{f}})
	if err != nil || v.Status != StatusOK || v.Withdraws != called.Seq || v.Player != "P2" {
		t.Fatalf("owed by %q: the blocked stone onto it: %+v %v, want ok, withdrawing call %d", owed, v, err, called.Seq)
	}
	if st := r.State(); len(st.Faults["P2"]) != 0 || st.Stones[0].At != f || tb.Awaited(2) {
		t.Errorf("owed by %q: after: faults %v, stone 1 on %v (want none, on %v), stone 2 awaits a card %v", owed, st.Faults, st.Stones[0].At, f, tb.Awaited(2))
	}
}

// TestTiles_T2b_CardSeenLateIsJudgedByWhatTheBoardShows: a card the
// camera saw whole only long after it came may have had its stone move
// on since: lying by no stone is no call (T2b), and it moves no stone,
// but it counts for its player, and a stone may still move onto it. Its
// colours (T2a) and the cards it covers (T2c) are judged as for any card;
// a stone on it is not covered by it.
func TestTiles_T2b_CardSeenLateIsJudgedByWhatTheBoardShows(t *testing.T) {
	obs, b := script(t)
	r := New()
	for _, o := range obs[:4] { // P1's card at stone 1, which moves onto (3,2)
		if _, err := r.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	c := func(f ...Field) []Colour { return []Colour{b.Colour(f[0]), b.Colour(f[1])} }
	late := func(player string, fs []Field, cs []Colour) Verdict {
		t.Helper()
		v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 9000, SeenMS: 2000, SeenLate: true, Player: player, Fields: fs, Colours: cs})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	away := []Field{{6, 6}, {7, 6}}
	if v := late("P2", away, c(away...)); v.Status != StatusOK || v.Stone != 0 {
		t.Fatalf("a card seen late beside no stone: %+v, want ok at no stone", v)
	}
	st := r.State()
	if st.Laid["P2"] != 1 || len(st.Faults["P2"]) != 0 {
		t.Fatalf("after it: P2 laid %d, faults %v; want 1, none", st.Laid["P2"], st.Faults["P2"])
	}
	// its stone, not moved yet when the card was seen, moves onto it
	if v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 9200, Stone: 2, Fields: away[1:]}); err != nil || v.Status != StatusOK || v.Withdraws != 0 {
		t.Fatalf("a stone onto the card seen late: %+v %v, want ok, nothing withdrawn", v, err)
	}
	if st := r.State(); st.Stones[1].At != away[1] || len(st.Faults["P2"]) != 0 {
		t.Fatalf("after the stone's move: stone 2 on %v, P2's faults %v; want on %v, none", st.Stones[1].At, st.Faults["P2"], away[1])
	}
	if v, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 9500, Player: "P2", Fields: []Field{{5, 0}, {6, 0}}, Colours: c(Field{5, 0}, Field{6, 0})}); err != nil || v.Rule != T2b {
		t.Fatalf("a card beside no stone, seen in time: %+v %v, want a T2b call", v, err)
	}
	onStone := []Field{{3, 2}, {3, 3}} // (3,2): P1's card, stone 1 on it
	if v := late("P2", onStone, c(onStone...)); v.Rule != T2c {
		t.Fatalf("a card seen late over a card: %+v, want a T2c call", v)
	}
	r2 := New()
	for _, o := range obs[:2] {
		if _, err := r2.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	s := r2.State().Stones[0].At
	var by Field
	for _, n := range s.Neighbours() {
		if b.On(n) && b.Colour(n) != b.Colour(s) {
			by = n
			break
		}
	}
	r = r2
	if v := late("P1", []Field{s, by}, c(s, by)); v.Status != StatusOK {
		t.Fatalf("a card seen late under stone 1's field %v: %+v, want ok (the stone went onto it)", s, v)
	}
	wrong := []Field{{6, 6}, {7, 6}}
	if v := late("P1", wrong, []Colour{other(b.Colour(wrong[0]), b.Colour(wrong[1])), b.Colour(wrong[1])}); v.Rule != T2a {
		t.Fatalf("a card seen late on other colours: %+v, want a T2a call", v)
	}
}

// TestTiles_T2d_CornerCardTakenByTheOtherCornerStoneStaysCalled: a card
// meeting two stones' fields at a corner alone, called T2d at the first,
// taken by the second stone moving onto it: the move is legal, the call
// stands, and the card is no longer one a blocked stone could have been
// relocated onto (its stray is settled, as when the first stone takes it).
func TestTiles_T2d_CornerCardTakenByTheOtherCornerStoneStaysCalled(t *testing.T) {
	r := roundStarted(t)
	tb := r.g.table
	tb.stones[0].At, tb.stones[1].At = Field{2, 2}, Field{4, 2}
	card := fitting(tb, "P2", Field{3, 3}, Field{3, 4}) // (3,3) meets (2,2) and (4,2) at corners
	called, err := r.Apply(Observation{Kind: ObsLay, TimeMS: 1000, Player: "P2", Fields: card.Fields[:], Colours: card.Colours[:]})
	if err != nil || called.Rule != T2d || called.Stone != 1 {
		t.Fatalf("the corner card: %+v %v, want a T2d call at stone 1", called, err)
	}
	v, err := r.Apply(Observation{Kind: ObsStone, TimeMS: 1500, Stone: 2, Fields: []Field{{3, 4}}})
	if err != nil || v.Status != StatusOK || v.Player != "P2" {
		t.Fatalf("stone 2 onto (3,4): %+v %v, want a legal move onto P2's card", v, err)
	}
	if f := r.State().Faults["P2"]; len(f) != 1 || f[0].Rule != T2d {
		t.Errorf("P2's faults %v, want the T2d", f)
	}
	if r.g.strays[Field{3, 3}] != nil || r.g.strays[Field{3, 4}] != nil {
		t.Errorf("the card taken by stone 2 is still a stray: %+v", r.g.strays[Field{3, 4}])
	}
	if tb.Awaited(1) {
		t.Error("stone 1 still awaits the card stone 2 took")
	}
}
