package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"sort"

	"gocv.io/x/gocv"

	"ligretto/referee/tiles"
	tilesim "ligretto/referee/tiles/sim"
	"ligretto/render/scene"
	rtiles "ligretto/render/tiles"
)

// The tile game of rulebook 002 is a different game from classic
// Ligretto; its subcommands live under one command of their own.
func init() {
	register(command{name: "tiles", summary: "the tile-laying Ligretto (rulebook 002): ligretto tiles simulate|referee ...", run: runTiles})
}

var tilesCommands = map[string]struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}{
	"simulate": {"play a match with bot players; write timeline.jsonl, referee.jsonl and result.json", runTilesSimulate},
	"referee":  {"referee a table from a camera, video or images: the calls as they come, then the scores", runTilesReferee},
}

func tilesUsage(w io.Writer) {
	fmt.Fprintln(w, "ligretto tiles: the tile-laying Ligretto of rulebook 002 (rules T1-T6, docs/tiles.md)")
	fmt.Fprintln(w, "\nUsage: ligretto tiles <command> [flags]   (ligretto tiles <command> -h for its flags)\n\nCommands:")
	names := make([]string, 0, len(tilesCommands))
	for n := range tilesCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, tilesCommands[n].summary)
	}
	fmt.Fprintln(w, "\n`tiles simulate --render DIR/video.mkv` videos are refereed with `tiles referee --source DIR/video.mkv --players N`.")
}

func runTiles(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		tilesUsage(stdout)
		return nil
	}
	c, ok := tilesCommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ligretto tiles: unknown command %q\n\n", args[0])
		tilesUsage(stderr)
		return errUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func runTilesSimulate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tiles simulate", "--players N --seed S [--rounds R] [--errors P] [--board default|random] [--marked-starts] [--strict] --out DIR [--render DIR2/video.mkv [--fps F]]", stderr)
	var cfg tilesim.Config
	var board, out, video string
	var fps float64
	fs.IntVar(&cfg.Players, "players", 4, "number of players, 2 to 4")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed: the same seed plays the same match")
	fs.IntVar(&cfg.Rounds, "rounds", tiles.DefaultRounds, "rounds in the match (T6b)")
	fs.Float64Var(&cfg.ErrorRate, "errors", 0, "chance that a bot's turn is a wrong play on purpose, 0..1")
	fs.StringVar(&board, "board", "default", "board parts: default (the default set) or random (seeded, new each round)")
	fs.BoolVar(&cfg.MarkedStarts, "marked-starts", false, "put the stones on the suggested starting places instead of seeded random fields")
	fs.BoolVar(&cfg.Strict, "strict", false, "count a card laid with its colours swapped as a wrong play (T2e)")
	fs.StringVar(&out, "out", "", "directory for timeline.jsonl, referee.jsonl and result.json (required)")
	fs.StringVar(&video, "render", "", "also render what a camera above the table sees into this video (.mkv or .avi, Motion JPEG), with FILE.json for its frame timing and truth.jsonl beside it")
	fs.Float64Var(&fps, "fps", 30, "with --render: frames per second")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg.Board = tilesim.BoardKind(board)
	bad := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "ligretto tiles simulate: "+format+"\n", a...)
		fs.Usage()
		return errUsage
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q", fs.Arg(0))
	case out == "":
		return bad("--out DIR is required")
	case cfg.Rounds < 1:
		return bad("--rounds %d: want at least 1", cfg.Rounds)
	case video != "" && (fps <= 0 || fps > 240):
		return bad("--fps %v: want more than 0 and at most 240", fps)
	}
	if err := cfg.Validate(); err != nil {
		return bad("%v", err)
	}
	if video != "" {
		check := video
		if filepath.Clean(filepath.Dir(video)) == filepath.Clean(out) {
			check = filepath.Base(video) // into --out, made below
		}
		if err := checkVideoPath(check); err != nil {
			return bad("%v", err)
		}
	}
	res, logPath, events, err := tilesSimulate(cfg, out)
	if err != nil {
		return err
	}
	winner := "none (a shared top)"
	if res.Winner != nil {
		winner = *res.Winner
	}
	fmt.Fprintf(stdout, "%d round(s), %d cards and %d jokers laid, %d wrong plays; totals %v; winner: %s\nwrote %s, %s and %s\n",
		len(res.Rounds), res.Lays, res.Jokers, len(res.Injected), res.Totals, winner,
		filepath.Join(out, "timeline.jsonl"), filepath.Join(out, "result.json"), logPath)
	if video != "" {
		info, err := renderTilesVideo(events, video, fps, cfg.Seed, scene.DefaultConfig(), stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rendered %d frames (%d of preamble) at %g fps to %s, with %s.json and %s\n",
			info.Frames, info.PreambleFrames, fps, video, video, filepath.Join(filepath.Dir(video), "truth.jsonl"))
	}
	return nil
}

// tilesSimulate runs the match, writing the timeline and the observed
// referee's log as it goes, then result.json. The observed referee sees
// only what a camera would; its totals must be the simulator's.
func tilesSimulate(cfg tilesim.Config, out string) (tilesim.Result, string, []tilesim.Event, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return tilesim.Result{}, "", nil, fmt.Errorf("create output directory: %w", err)
	}
	f, err := os.Create(filepath.Join(out, "timeline.jsonl"))
	if err != nil {
		return tilesim.Result{}, "", nil, fmt.Errorf("create timeline: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	logPath := filepath.Join(out, "referee.jsonl")
	lf, err := os.Create(logPath)
	if err != nil {
		return tilesim.Result{}, "", nil, fmt.Errorf("create referee log: %w", err)
	}
	defer lf.Close()
	ref := tiles.New(tiles.WithLog(lf))
	var events []tilesim.Event
	res, err := tilesim.Run(cfg, func(e tilesim.Event) error {
		events = append(events, e)
		for _, o := range e.Observations() {
			if _, err := ref.Apply(o); err != nil {
				return fmt.Errorf("observed referee refused %s at %d ms: %w", o.Kind, o.TimeMS, err)
			}
		}
		return enc.Encode(e)
	})
	if err != nil {
		return tilesim.Result{}, "", nil, err
	}
	if err := w.Flush(); err != nil {
		return tilesim.Result{}, "", nil, fmt.Errorf("write timeline: %w", err)
	}
	if err := f.Close(); err != nil {
		return tilesim.Result{}, "", nil, fmt.Errorf("write timeline: %w", err)
	}
	if err := writeJSON(filepath.Join(out, "result.json"), res); err != nil {
		return tilesim.Result{}, "", nil, err
	}
	if got := ref.Match(); got == nil || !maps.Equal(got.Totals, res.Totals) {
		return tilesim.Result{}, "", nil, fmt.Errorf("the observed referee's totals differ from the simulation's %v", res.Totals)
	}
	return res, logPath, events, nil
}

// renderTilesVideo renders the tile match in events as a camera above the
// table sees it, as renderVideo does the classic game's: path (.mkv or
// .avi, Motion JPEG) at fps, path+".json" with the frame timing, and
// truth.jsonl beside it: for every timeline event, the first frame on
// which its result is fully visible (not under a hand).
func renderTilesVideo(events []tilesim.Event, path string, fps float64, seed uint64, cfg scene.Config, progress io.Writer) (videoInfo, error) {
	var players []tiles.Player
	for _, e := range events {
		if e.Kind == tilesim.EvMatch {
			players = e.Players
			break
		}
	}
	if players == nil {
		return videoInfo{}, errors.New("render: the timeline has no match event")
	}
	if err := checkVideoPath(path); err != nil {
		return videoInfo{}, err
	}
	sc, err := rtiles.New(cfg, players, seed)
	if err != nil {
		return videoInfo{}, fmt.Errorf("render: %w", err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			return videoInfo{}, fmt.Errorf("render: %w", err)
		}
	}
	clip, err := sc.Clip(fps)
	if err != nil {
		return videoInfo{}, fmt.Errorf("render: %w", err)
	}
	err = encodeVideo(path, fps, cfg.Width, cfg.Height, clip.Frames, progress, func(write func(k int, img gocv.Mat) error) error {
		return sc.RenderClip(clip, func(f rtiles.Frame) error { return write(f.Index, f.Image) })
	})
	if err != nil {
		return videoInfo{}, err
	}
	info := videoInfo{Clip: clip, Video: filepath.Base(path), Codec: videoCodec, Width: cfg.Width, Height: cfg.Height, Seed: seed,
		Note: "frame k shows timeline time floor((k - preamble_frames) * 1000 / fps) ms; frames before preamble_frames show the empty table"}
	if err := writeVideoInfo(path, info); err != nil {
		return videoInfo{}, err
	}
	tf, err := os.Create(filepath.Join(filepath.Dir(path), "truth.jsonl"))
	if err != nil {
		return videoInfo{}, fmt.Errorf("render: %w", err)
	}
	defer tf.Close()
	tw := bufio.NewWriter(tf)
	enc := json.NewEncoder(tw)
	for _, et := range sc.Visible(clip) {
		if err := enc.Encode(et); err != nil {
			return videoInfo{}, fmt.Errorf("render: truth: %w", err)
		}
	}
	if err := tw.Flush(); err != nil {
		return videoInfo{}, fmt.Errorf("render: truth: %w", err)
	}
	return info, tf.Close()
}
