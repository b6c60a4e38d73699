package referee

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// playSome logs a short round to w and returns the referee.
func playSome(t *testing.T, w *bytes.Buffer) *Referee {
	r := newObserved(t, Settings{}, WithLog(w))
	for _, o := range []Observation{newPile(1, "red 1"), shows(1, "red 2"), newPile(2, "blue 2"),
		shows(1, "red 4"), {Kind: ObsUndo}, {Kind: ObsStop, Player: "P1"},
		{Kind: ObsCentre, Player: "P1", Count: 2}, {Kind: ObsCentre, Player: "P2", Count: 1},
		{Kind: ObsStackLeft, Player: "P2", Count: 3}, {Kind: ObsRoundEnd}} {
		must(t, r, o)
	}
	return r
}

func TestLog_ReplayRebuildsState(t *testing.T) {
	var buf bytes.Buffer
	r := playSome(t, &buf)
	got, warns, err := Replay(bytes.NewReader(buf.Bytes()))
	if err != nil || len(warns) > 0 {
		t.Fatalf("replay: %v %v", err, warns)
	}
	if !reflect.DeepEqual(got.State(), r.State()) {
		t.Fatalf("replayed state differs:\n%+v\n%+v", got.State(), r.State())
	}
}

func TestLog_TornLastLineIsSkippedWithItsLine(t *testing.T) {
	var buf bytes.Buffer
	playSome(t, &buf)
	data := buf.Bytes()
	lines := bytes.Count(data, []byte("\n"))
	torn := data[:len(data)-20] // cut into the last line
	r, warns, err := Replay(bytes.NewReader(torn))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].Line != lines || !strings.Contains(warns[0].Reason, "torn") {
		t.Fatalf("warnings %v, want one for line %d", warns, lines)
	}
	if r.State().Phase != PhaseCounting {
		t.Fatalf("all but the torn round_end should stand: %s", r.State().Phase)
	}
}

func TestLog_MalformedLineIsAnErrorWithItsLine(t *testing.T) {
	var buf bytes.Buffer
	playSome(t, &buf)
	lines := strings.SplitAfter(buf.String(), "\n")
	for _, bad := range []string{"{not json}\n", `{"seq":3,"obs":{"kind":"pile_new","pile":1,"card":{"colour":"mauve","number":1}},"verdict":{}}` + "\n", "\n"} {
		doc := lines[0] + lines[1] + bad + strings.Join(lines[3:], "")
		_, _, err := Replay(strings.NewReader(doc))
		var le *LogError
		if !errors.As(err, &le) || le.Line != 3 || !errors.Is(err, ErrMalformedLog) {
			t.Errorf("%q: got %v, want a LogError at line 3", bad, err)
		}
	}
	// An entry out of sequence.
	doc := lines[0] + lines[2]
	if _, _, err := Replay(strings.NewReader(doc)); !errors.Is(err, ErrMalformedLog) {
		t.Errorf("out of sequence: %v", err)
	}
}

func TestLog_ReplayThenAppendContinues(t *testing.T) {
	var buf bytes.Buffer
	playSome(t, &buf)
	r, _, err := Replay(bytes.NewReader(buf.Bytes()), WithLog(&buf))
	if err != nil {
		t.Fatal(err)
	}
	must(t, r, Observation{Kind: ObsRound})
	again, _, err := Replay(bytes.NewReader(buf.Bytes()))
	if err != nil || again.State().Round != 2 {
		t.Fatalf("appended log replays to round 2: %v", err)
	}
}

// TestLog_SurvivesKill9 runs a child process that appends to a log file as
// fast as it can, kills it with SIGKILL, and replays what it left: every
// complete line stands, at most the last is torn.
func TestLog_SurvivesKill9(t *testing.T) {
	if path := os.Getenv("LIGRETTO_LOG_CHILD"); path != "" {
		logChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "referee.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLog_SurvivesKill9$")
	cmd.Env = append(os.Environ(), "LIGRETTO_LOG_CHILD="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(path); bytes.Count(b, []byte("\n")) > 500 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed", as meant
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, warns, err := Replay(f)
	if err != nil {
		t.Fatalf("replay after kill -9: %v", err)
	}
	if len(warns) > 1 {
		t.Fatalf("more than the last line lost: %v", warns)
	}
	b, _ := os.ReadFile(path)
	complete := bytes.Count(b, []byte("\n"))
	if complete < 500 || len(r.State().Verdicts) == 0 {
		t.Fatalf("child wrote %d complete lines", complete)
	}
}

// logChild appends observations to path until it is killed.
func logChild(path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		os.Exit(3)
	}
	r := New(WithLog(f))
	apply := func(o Observation) {
		if _, err := r.Apply(o); err != nil {
			os.Exit(4) // the parent sees too few lines
		}
	}
	apply(Observation{Kind: ObsMatch, Players: DefaultPlayers(2)})
	for {
		apply(Observation{Kind: ObsRound})
		c := Face{Red, 1}
		apply(Observation{Kind: ObsPileNew, Pile: 1, Card: &c})
		for n := 2; n <= 10; n++ {
			c := Face{Red, n}
			apply(Observation{Kind: ObsPileShows, Pile: 1, Card: &c})
		}
		apply(Observation{Kind: ObsStop})
		apply(Observation{Kind: ObsRoundEnd})
		if r.State().Phase == PhaseOver {
			apply(Observation{Kind: ObsMatch, Players: DefaultPlayers(2)})
		}
	}
}

func FuzzDecodeEntry(f *testing.F) {
	var buf bytes.Buffer
	playSome(&testing.T{}, &buf)
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		f.Add(sc.Bytes())
	}
	f.Add([]byte(`{"seq":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := DecodeEntry(line)
		if err != nil {
			return
		}
		b, err := encodeEntry(e)
		if err != nil {
			return // e.g. an unnamed colour decoded from a number is refused on the way out
		}
		again, err := DecodeEntry(bytes.TrimRight(b, "\n"))
		if err != nil || !reflect.DeepEqual(again, e) {
			t.Fatalf("round trip of %q: %v", line, err)
		}
	})
}

// FuzzReplay feeds arbitrary logs: never a panic, only a state or an error.
func FuzzReplay(f *testing.F) {
	var buf bytes.Buffer
	playSome(&testing.T{}, &buf)
	f.Add(buf.Bytes())
	f.Add([]byte("{}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _, err := Replay(bytes.NewReader(data))
		if err == nil {
			_ = r.State()
		}
	})
}

// FuzzObservation applies arbitrary observations to a playing referee:
// each is accepted with a verdict or refused with a known error, never a panic.
func FuzzObservation(f *testing.F) {
	f.Add("pile_new", 1, uint8(1), 1, "P1", 0)
	f.Add("pile_shows", 1, uint8(2), 5, "", 0)
	f.Add("centre_count", 0, uint8(0), 0, "P2", 41)
	f.Add("undo", 0, uint8(0), 0, "", 0)
	f.Fuzz(func(t *testing.T, kind string, pile int, colour uint8, number int, player string, count int) {
		r := New()
		for _, o := range []Observation{{Kind: ObsMatch, Players: DefaultPlayers(3)}, {Kind: ObsRound}} {
			if _, err := r.Apply(o); err != nil {
				t.Fatalf("%s: %v", o.Kind, err)
			}
		}
		c := Face{Colour(colour), number}
		for range 3 {
			_, err := r.Apply(Observation{Kind: Kind(kind), Pile: pile, Card: &c, Player: player, Count: count})
			if err != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrPhase) && !errors.Is(err, ErrUnknownPile) &&
				!errors.Is(err, ErrUnknownPlayer) && !errors.Is(err, ErrNothingToUndo) && !errors.Is(err, ErrIllegal) {
				t.Fatalf("unclassified error: %v", err)
			}
		}
		_ = fmt.Sprint(r.State())
	})
}
