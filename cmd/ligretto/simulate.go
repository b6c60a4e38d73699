package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"time"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

func init() {
	register(command{name: "simulate", summary: "play rounds with bot players; write timeline.jsonl and result.json", run: runSimulate})
}

func runSimulate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("simulate", "--players N --seed S [--rounds R | --match] [--deadlock leader|restart] [--advanced] [--errors P] --out DIR [--render FILE.mkv [--fps F]]", stderr)
	var cfg sim.Config
	var deadlock, out string
	var live bool
	var speed float64
	var video string
	var fps float64
	fs.IntVar(&cfg.Players, "players", 4, "number of players, 2 to 12")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed: the same seed plays the same match")
	fs.IntVar(&cfg.Rounds, "rounds", 0, "play this many rounds (default 1 unless --match)")
	fs.BoolVar(&cfg.Match, "match", false, "play a whole match to the target (C16)")
	fs.IntVar(&cfg.Target, "target", referee.DefaultTarget, "points that end a match")
	fs.StringVar(&deadlock, "deadlock", "leader", "deadlock rule (C17): leader or restart")
	fs.BoolVar(&cfg.Advanced, "advanced", false, "advanced variant: cards may be laid on the row (C18)")
	fs.Float64Var(&cfg.ErrorRate, "errors", 0, "chance that a bot's play is illegal on purpose, 0..1")
	fs.StringVar(&out, "out", "", "directory for timeline.jsonl and result.json (required)")
	fs.BoolVar(&live, "live", false, "print a live scoreboard while playing")
	fs.Float64Var(&speed, "speed", 20, "with --live: how many times faster than real time")
	fs.StringVar(&video, "render", "", "also render what a camera above the table sees into this video (.mkv or .avi, Motion JPEG), with FILE.json for its frame timing")
	fs.Float64Var(&fps, "fps", 30, "with --render: frames per second")
	if err := parse(fs, args); err != nil {
		return err
	}
	if out == "" {
		fmt.Fprintln(stderr, "ligretto simulate: --out DIR is required")
		fs.Usage()
		return errUsage
	}
	rule, err := referee.ParseDeadlockRule(deadlock)
	if err != nil {
		return err
	}
	cfg.Deadlock = rule
	if err := cfg.Validate(); err != nil {
		return err
	}
	if video != "" && (fps <= 0 || fps > 240) {
		return fmt.Errorf("--fps %v: want more than 0 and at most 240", fps)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	timelinePath := filepath.Join(out, "timeline.jsonl")
	f, err := os.Create(timelinePath)
	if err != nil {
		return fmt.Errorf("create timeline: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	// The observed referee watches what a camera would see, and logs it, so
	// that `ligretto replay DIR/referee.jsonl` works on every simulation.
	logPath := filepath.Join(out, "referee.jsonl")
	lf, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("create referee log: %w", err)
	}
	defer lf.Close()
	ref := referee.New(referee.WithLog(lf))
	var board *scoreboard
	if live {
		board = newScoreboard(stdout, speed)
	}
	var events []sim.Event
	res, err := sim.Run(cfg, func(e sim.Event) error {
		if video != "" {
			events = append(events, e)
		}
		if board != nil {
			board.event(e)
		}
		for _, o := range e.Observations() {
			if _, err := ref.Apply(o); err != nil {
				return fmt.Errorf("observed referee refused %s at %d ms: %w", o.Kind, o.TimeMS, err)
			}
		}
		return enc.Encode(e)
	})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	if err := writeJSON(filepath.Join(out, "result.json"), res); err != nil {
		return err
	}
	winner := "none yet"
	if res.Winner != nil {
		winner = *res.Winner
	}
	fmt.Fprintf(stdout, "%d round(s), %d plays; totals %v; winner: %s\nwrote %s, %s and %s\n",
		len(res.Rounds), res.Plays, res.Totals, winner, timelinePath, filepath.Join(out, "result.json"), logPath)
	if got := ref.Match(); got == nil || !maps.Equal(got.Totals, res.Totals) {
		return fmt.Errorf("the observed referee's totals %v differ from the simulation's %v", got.Totals, res.Totals)
	}
	if video != "" {
		info, err := renderVideo(events, video, fps, cfg.Seed, scene.DefaultConfig(), stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rendered %d frames (%d of calibration preamble) at %g fps to %s and %s.json\n",
			info.Frames, info.PreambleFrames, fps, video, video)
	}
	return nil
}

// writeJSON writes v indented to path, through a temporary file so that a
// crash never leaves half a file.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// scoreboard prints a simulated match as it happens, paced to the
// simulated clock (speed times faster than real time).
type scoreboard struct {
	w      io.Writer
	speed  float64
	start  time.Time
	totals map[string]int
	names  []string
	piles  map[int]referee.Face
	plays  int
}

func newScoreboard(w io.Writer, speed float64) *scoreboard {
	if speed <= 0 {
		speed = 1
	}
	return &scoreboard{w: w, speed: speed, start: time.Now(), totals: map[string]int{}}
}

func (b *scoreboard) wait(ms int64) {
	due := b.start.Add(time.Duration(float64(ms)/b.speed) * time.Millisecond)
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
}

func (b *scoreboard) event(e sim.Event) {
	b.wait(e.TimeMS)
	clock := fmt.Sprintf("[%3d:%02d]", e.TimeMS/60000, e.TimeMS/1000%60)
	switch e.Kind {
	case sim.EvMatch:
		for _, p := range e.Players {
			b.names = append(b.names, p.Name)
		}
		fmt.Fprintf(b.w, "%s match of %d players, target %d, deadlock rule %s\n", clock, len(e.Players), e.Settings.Target, e.Settings.Deadlock)
	case sim.EvRound:
		b.piles, b.plays = map[int]referee.Face{}, 0
		fmt.Fprintf(b.w, "%s round %d: Ligretto!\n", clock, e.Round)
	case sim.EvPlay:
		b.piles[e.Pile] = e.Card.Face
		b.plays++
		if e.Violation != nil {
			fmt.Fprintf(b.w, "%s   ILLEGAL %s by %s: %s\n", clock, e.Card.Face, e.Player, e.Violation)
		}
		if b.plays%10 == 0 {
			fmt.Fprintf(b.w, "%s   %d cards down, %d piles: %s\n", clock, b.plays, len(b.piles), b.pileLine())
		}
	case sim.EvStop:
		fmt.Fprintf(b.w, "%s   %s: Ligretto stop!\n", clock, e.Player)
	case sim.EvRestart:
		fmt.Fprintf(b.w, "%s   nobody can play: shuffle and restart (C17)\n", clock)
	case sim.EvDeadlock:
		fmt.Fprintf(b.w, "%s   nobody can play: the round ends (C17)\n", clock)
	case sim.EvRoundEnd:
		fmt.Fprintf(b.w, "%s   round %d    %-6s %7s %6s %6s %6s\n", clock, e.Round, "player", "centre", "stack", "score", "total")
		for _, n := range b.names {
			p := e.Result.Players[n]
			b.totals[n] += p.Score
			fmt.Fprintf(b.w, "%s             %-6s %7d %6d %+6d %6d\n", clock, n, p.Centre, p.StackLeft, p.Score, b.totals[n])
		}
	case sim.EvMatchEnd:
		if e.Winner != nil {
			fmt.Fprintf(b.w, "%s %s wins the match with %d points\n", clock, *e.Winner, e.Totals[*e.Winner])
		}
	}
}

func (b *scoreboard) pileLine() string {
	s := ""
	for id := 1; id <= len(b.piles); id++ {
		f := b.piles[id]
		s += fmt.Sprintf(" %c%d", "?RGBY"[f.Colour], f.Number)
	}
	return s
}
