// Command outboxlab is a hands-on lab for how message processing fails and how to make it safe.
package main

import (
	"os"

	"outboxlab/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
