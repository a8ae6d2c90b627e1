// Command outboxlab is a hands-on lab for how message processing fails and how to make it safe.
package main

import (
	// First: its init catches SIGINT and SIGTERM before the rest of the lab
	// is initialised, so a signal in the first milliseconds exits 3 too.
	"outboxlab/internal/interrupt"

	"os"

	"outboxlab/cli"
	"outboxlab/internal/invocation"
)

func main() {
	// The commands the lab prints start as the user started it (go run .,
	// ./outboxlab), so that each runs as printed.
	lab := invocation.Of(os.Args[0])
	os.Exit(cli.RunAs(interrupt.Context(), lab, os.Args[1:], os.Stdout, os.Stderr))
}
