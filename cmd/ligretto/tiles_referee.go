package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"ligretto/referee/tiles"
	"ligretto/table"
	ttable "ligretto/table/tiles"
)

// tilesCall is a wrong play the referee called, in the shape of
// result.json's injected wrong plays, so that the two compare line by line.
type tilesCall struct {
	Seq    int           `json:"seq"` // the verdict's
	Round  int           `json:"round"`
	TimeMS int64         `json:"t_ms"`
	Player string        `json:"player"`
	Rule   tiles.Rule    `json:"rule"`
	Fields []tiles.Field `json:"fields,omitempty"`
	Reason string        `json:"reason"`
	Unsure string        `json:"unsure,omitempty"` // the call is a guess: why
}

// tilesRefereeResult is `tiles referee`'s result.json: the match as
// `tiles simulate` writes it, with what the camera made of it.
type tilesRefereeResult struct {
	tiles.MatchResult
	Called []tilesCall `json:"called"` // wrong plays called, with their rule
	Lays   int         `json:"lays"`   // cards the referee judged
	Jokers int         `json:"jokers"`
	EndMS  int64       `json:"end_ms"` // the last frame's time
	Unsure []string    `json:"unsure"` // what was seen but not reported or guessed
}

// tilesLine is one JSON line of --json output.
type tilesLine struct {
	Obs     tiles.Observation `json:"obs"`
	Verdict *tiles.Verdict    `json:"verdict,omitempty"`
	Error   string            `json:"error,omitempty"`
}

func runTilesReferee(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tiles referee", "--source SRC --players N [--names A,B,..] [--styles plain,double,..] [--rounds R] [--strict] [--log FILE] [--json] [--out result.json]", stderr)
	src := fs.String("source", "", "camera index or /dev/videoN, video file, or folder of images (required)")
	n := fs.Int("players", 0, "number of players, 2 to 4 (required)")
	names := fs.String("names", "", "the players' names in seat order, comma-separated (default P1,P2,..: the simulator's)")
	styles := fs.String("styles", "", "their cards' frame styles in seat order: plain, double, dashed, dotted (default in that order: the simulator's)")
	rounds := fs.Int("rounds", tiles.DefaultRounds, "rounds in the match (T6b)")
	strict := fs.Bool("strict", false, "count a card laid with its colours swapped as a wrong play (T2e)")
	fps := fs.Float64("fps", 30, "frames per second of a folder of images (a video says its own)")
	logPath := fs.String("log", "", "also write the referee's log (JSON lines) to this new file")
	asJSON := fs.Bool("json", false, "print observations and verdicts as JSON lines, then the result")
	out := fs.String("out", "", "write the result to this `FILE`, in the shape of tiles simulate's result.json")
	if err := parse(fs, args); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "ligretto tiles referee: "+format+"\n", a...)
		fs.Usage()
		return errUsage
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q", fs.Arg(0))
	case *src == "":
		return bad("--source SRC is required")
	case *n < 2 || *n > 4:
		return bad("--players %d: want 2 to 4 (T1)", *n)
	case *rounds < 1:
		return bad("--rounds %d: want at least 1", *rounds)
	case *fps <= 0 || *fps > 240:
		return bad("--fps %v: want more than 0 and at most 240", *fps)
	}
	players, err := tilesPlayers(*n, *names, *styles)
	if err != nil {
		return bad("%v", err)
	}
	settings := tiles.Settings{Rounds: *rounds, StrictOrientation: *strict}
	if _, err := tiles.NewMatch(players, settings); err != nil {
		return bad("%v", err)
	}
	var opts []tiles.Option
	if *logPath != "" {
		// A new file only: an earlier match's log is never overwritten.
		lf, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("referee log: %w (choose a new file)", err)
		}
		defer lf.Close()
		opts = append(opts, tiles.WithLog(lf))
	}
	source, err := table.Open(*src, *fps)
	if err != nil {
		return err
	}
	if !table.IsCamera(*src) {
		// A file is decoded a frame ahead, beside the watcher.
		source = table.Prefetch(source)
	}
	defer source.Close()
	ref := tiles.New(opts...)
	p := &tilesPrinter{out: stdout, enc: json.NewEncoder(stdout), asJSON: *asJSON, ref: ref}
	var endMS int64
	loop, err := ttable.New(ttable.Config{Players: players, Settings: settings, OnVerdict: p.print,
		OnFrame: func(f table.Frame) { endMS = f.TimeMS },
		Log:     slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}, ref)
	if err != nil {
		return err
	}
	defer loop.Close()
	runErr := loop.Run(context.Background(), source)
	if p.err != nil {
		return p.err
	}
	m := ref.Match()
	if m == nil {
		if runErr != nil {
			return runErr
		}
		return fmt.Errorf("%s: no board of %d parts with its 4 stones was found between the 4 table markers", *src, tilesParts(*n))
	}
	res := tilesRefereeResult{MatchResult: *m, Called: p.called, Lays: p.lays, Jokers: p.jokers, EndMS: endMS, Unsure: loop.Unsure()}
	if res.Called == nil {
		res.Called = []tilesCall{}
	}
	if res.Unsure == nil {
		res.Unsure = []string{}
	}
	if *asJSON {
		if err := p.enc.Encode(res); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%d round(s) scored, %d cards and %d jokers judged, %d wrong plays called, %d unsure; totals %v\n",
			len(res.Rounds), res.Lays, res.Jokers, len(res.Called), len(res.Unsure), res.Totals)
	}
	if st := ref.State(); st.Phase == tiles.PhasePlaying || st.Phase == tiles.PhaseCounting {
		fmt.Fprintf(stderr, "the source ended during round %d (%s): that round is not scored\n", st.Round, st.Phase)
	}
	if *out != "" {
		if err := writeJSON(*out, res); err != nil {
			return err
		}
	}
	if runErr != nil {
		return fmt.Errorf("%w (the scores so far are above)", runErr)
	}
	return nil
}

func tilesParts(players int) int {
	parts, _, _ := tiles.PartsFor(players)
	return parts
}

// tilesPlayers are the simulator's default players for n, renamed and
// restyled as the flags say.
func tilesPlayers(n int, names, styles string) ([]tiles.Player, error) {
	ps := tiles.DefaultPlayers(n)
	if names != "" {
		ns := strings.Split(names, ",")
		if len(ns) != n {
			return nil, fmt.Errorf("--names: %d names for %d players", len(ns), n)
		}
		for i, s := range ns {
			ps[i].Name = strings.TrimSpace(s)
		}
	}
	if styles != "" {
		ss := strings.Split(styles, ",")
		if len(ss) != n {
			return nil, fmt.Errorf("--styles: %d frame styles for %d players", len(ss), n)
		}
		for i, s := range ss {
			ps[i].Frame = tiles.Frame(strings.TrimSpace(s))
		}
	}
	return ps, nil
}

// tilesPrinter prints the calls as they come, as text or JSON lines, and
// keeps the wrong plays called; err is the first line it failed to write.
type tilesPrinter struct {
	out    io.Writer
	enc    *json.Encoder
	asJSON bool
	ref    *tiles.Referee
	called []tilesCall
	lays   int
	jokers int
	err    error
}

// owned names player in the calls on a card laid for nobody on fs, whose
// owner was read or inferred since: the fault is theirs (T5).
func (p *tilesPrinter) owned(fs []tiles.Field, player string) {
	for i, c := range p.called {
		if c.Player == "" && len(c.Fields) == 2 && len(fs) == 2 && slices.Contains(fs, c.Fields[0]) && slices.Contains(fs, c.Fields[1]) {
			p.called[i].Player = player
		}
	}
}

func (p *tilesPrinter) print(tv ttable.Verdict) {
	o, v := tv.Obs, tv.Verdict
	if tv.Err == nil {
		switch o.Kind {
		case tiles.ObsLay:
			p.lays++
		case tiles.ObsJoker:
			p.jokers++
		case tiles.ObsRetract:
			p.lays-- // judged again later
		}
		if v.Withdraws > 0 { // a call found wrong: the play was legal
			p.called = slices.DeleteFunc(p.called, func(c tilesCall) bool { return c.Seq == v.Withdraws })
		}
		if o.Kind == tiles.ObsOwner && v.Status == tiles.StatusInfo {
			p.owned(o.Fields, v.Player)
		}
		if v.Status == tiles.StatusViolation {
			p.called = append(p.called, tilesCall{Seq: v.Seq, Round: p.ref.State().Round, TimeMS: o.TimeMS, Player: v.Player, Rule: v.Rule, Fields: o.Fields, Reason: v.Reason, Unsure: v.Unsure})
		}
	}
	line := tilesLine{Obs: o}
	if tv.Err != nil {
		line.Error = tv.Err.Error()
	} else {
		line.Verdict = &v
	}
	switch {
	case p.asJSON:
		if err := p.enc.Encode(line); err != nil && p.err == nil {
			p.err = err
		}
	case line.Verdict != nil:
		fmt.Fprintf(p.out, "%7d ms  %-10s %-9s %-3s %s\n", o.TimeMS, o.Kind, v.Status, v.Rule, v.Reason)
		if v.Unsure != "" {
			fmt.Fprintf(p.out, "%7s     unsure: %s\n", "", v.Unsure)
		}
	default:
		fmt.Fprintf(p.out, "%7d ms  %-10s refused: %s\n", o.TimeMS, o.Kind, line.Error)
	}
}
