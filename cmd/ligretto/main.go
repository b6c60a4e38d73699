// Command ligretto is the Ligretto table referee. Run `ligretto help` for
// its subcommands.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
