package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"ligretto/referee"
)

func init() {
	register(command{name: "replay", summary: "rebuild a referee log and print the state and scores", run: runReplay})
}

func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "[--json] LOG", stderr)
	asJSON := fs.Bool("json", false, "print the state as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open referee log: %w", err)
	}
	defer f.Close()
	ref, warns, err := referee.Replay(f)
	if err != nil {
		return fmt.Errorf("replay %q: %w", path, err)
	}
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s: %s\n", path, w)
	}
	st := ref.State()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printState(stdout, st)
	return nil
}

func printState(w io.Writer, st referee.State) {
	fmt.Fprintf(w, "phase: %s, round %d\n", st.Phase, st.Round)
	for _, p := range st.Piles {
		flag := ""
		if p.Violations > 0 {
			flag = fmt.Sprintf("  (%d illegal)", p.Violations)
		}
		fmt.Fprintf(w, "  pile %2d: %-10s %2d cards%s\n", p.ID, p.Top, p.Cards, flag)
	}
	for _, v := range st.Verdicts {
		if v.Status == referee.StatusViolation || v.Status == referee.StatusWarning || v.Status == referee.StatusLate {
			fmt.Fprintf(w, "  #%d %s %s: %s\n", v.Seq, v.Status, v.Rule, v.Reason)
		}
	}
	if st.Match == nil {
		return
	}
	fmt.Fprintf(w, "rounds scored: %d\n", len(st.Match.Rounds))
	for _, n := range st.Match.Players {
		fmt.Fprintf(w, "  %-8s %4d\n", n, st.Match.Totals[n])
	}
	switch {
	case st.Match.Winner != nil:
		fmt.Fprintf(w, "winner: %s\n", *st.Match.Winner)
	case st.Match.Over:
		fmt.Fprintln(w, "the match ended level")
	}
}
