// Command outboxlab is a hands-on lab for how message processing fails and how to make it safe.
package main

import (
	// First: its init catches SIGINT and SIGTERM before the rest of the lab
	// is initialised, so a signal in the first milliseconds exits 3 too.
	"outboxlab/internal/interrupt"

	"os"

	"outboxlab/cli"
)

func main() {
	os.Exit(cli.Run(interrupt.Context(), os.Args[1:], os.Stdout, os.Stderr))
}
