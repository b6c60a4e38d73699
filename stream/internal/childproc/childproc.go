// Package childproc runs a benchmark's helpers (a fleet of viewers) in a
// child process, this test binary started again, so that their CPU is not
// counted as the process under measure, and talks to it by lines: a
// command on the child's stdin, an answer line that starts with "fleet: ".
package childproc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Child is the running child process.
type Child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// Start runs os.Args[0] with args and env added to this process's; the
// child is killed when the test ends if Close did not end it.
func Start(tb testing.TB, args, env []string) *Child {
	tb.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill() })
	return &Child{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
}

// Ask sends one command and returns the fields of the child's answer.
func (c *Child) Ask(tb testing.TB, cmd string) []string {
	tb.Helper()
	if _, err := fmt.Fprintln(c.stdin, cmd); err != nil {
		tb.Fatalf("fleet %q: %v", cmd, err)
	}
	for c.out.Scan() {
		if rest, ok := strings.CutPrefix(c.out.Text(), "fleet: "); ok {
			return strings.Fields(rest)
		}
	}
	tb.Fatalf("fleet %q: the child ended (%v)", cmd, c.out.Err())
	return nil
}

// Close ends the child's stdin, which tells it to leave, and waits.
func (c *Child) Close() {
	c.stdin.Close()
	_ = c.cmd.Wait()
}
