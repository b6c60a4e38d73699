package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// command is one subcommand. Each lives in a file of its own and registers
// itself in init, so that adding one touches nothing else.
type command struct {
	name    string
	summary string
	// run gets the arguments after the subcommand's name.
	run func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// errUsage means the arguments were wrong; the usage has been printed.
var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				_ = c.run([]string{"-h"}, stdout, stderr)
				return 0
			}
		}
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ligretto: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(stderr, "ligretto %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ligretto: a computer-vision referee for the card game Ligretto")
	fmt.Fprintln(w, "\nUsage: ligretto <command> [flags]   (ligretto <command> -h for its flags)\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
}

// newFlags makes a flag set that prints its usage to stderr and returns
// errors instead of exiting.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: ligretto %s %s\n\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags and maps a parse failure to errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}

// explicit reports whether the flag name was given on the command line
// (not left at its default).
func explicit(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
