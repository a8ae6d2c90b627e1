// Package cli is the outboxlab command line: the root command, one command
// per scenario and the runner behind them, all, grade, verify and class; the
// other commands are packages of cli/cmd, and what they share is cmdutil.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmd/compare"
	"outboxlab/cli/cmd/exercise"
	"outboxlab/cli/cmd/index"
	"outboxlab/cli/cmd/inspect"
	"outboxlab/cli/cmd/list"
	"outboxlab/cli/cmdutil"
	"outboxlab/core/child"
	"outboxlab/internal/invocation"
	"outboxlab/scenarios"
)

// Version is the lab's version (cmdutil.Version), and these the exit codes
// of every command (docs/CONTRACT.md), for the callers of Main and RunAs.
const (
	Version          = cmdutil.Version
	ExitOK           = cmdutil.ExitOK
	ExitChecksFailed = cmdutil.ExitChecksFailed
	ExitUsage        = cmdutil.ExitUsage
	ExitCannotRun    = cmdutil.ExitCannotRun
)

// Main runs the command line with args and returns the process exit code,
// catching SIGINT and SIGTERM from its start (interruptible). The lab's
// binary catches them earlier still and calls Run (main.go).
func Main(args []string, stdout, stderr io.Writer) int {
	if code, ok := child.RunIfChild(); ok {
		return code
	}
	ctx, stop := interruptible(context.Background(), stderr)
	defer stop()
	return Run(ctx, args, stdout, stderr)
}

// Run runs the command line with args under ctx, which the first SIGINT or
// SIGTERM cancels (main.go hands it internal/interrupt's context, caught
// from the process's first moments), and returns the process exit code: 3
// for any run a signal interrupted. The commands it prints start with the
// lab's name, outboxlab (see RunAs).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunAs(ctx, invocation.Name, args, stdout, stderr)
}

// RunAs is Run for a lab the user started as lab (invocation.Of: "go run .",
// "./outboxlab"): every command the terminal shows starts that way, so that
// it runs as printed; report files keep outboxlab.
func RunAs(ctx context.Context, lab string, args []string, stdout, stderr io.Writer) int {
	if code, ok := child.RunIfChild(); ok {
		return code
	}
	survivePipeClose()
	root := newRoot(args)
	root.Annotations = map[string]string{cmdutil.InvocationAnnotation: lab}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if closedOutput(err) {
		// The reader closed our output (`| head`): what it wanted was printed.
		err = nil
	}
	err = cmdutil.AfterInterrupt(ctx, err)
	if err != nil && !errorAlreadyReported(err) {
		fmt.Fprintf(stderr, "outboxlab: %s\n", cmdutil.Printed(root, cmdutil.OneLine(err.Error())))
	}
	return cmdutil.ExitCode(err)
}

// errorAlreadyReported is true for errors whose story has been told already:
// a failed check is in the report, a difference in the diff.
func errorAlreadyReported(err error) bool {
	return errors.Is(err, cmdutil.ErrChecksFailed)
}

func newRoot(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "outboxlab",
		Short: "A hands-on lab for how message processing fails and how to make it safe",
		Long: `outboxlab reproduces, as real runs on a real SQLite file, the course experiments on
the transactional outbox, leasing, bounded retries with backoff and jitter, poison
messages, dead letters, ordered messages and dead-letter redrive.

Each scenario seeds a temporary outbox, runs workers against a deterministic
scenario clock, prints its timeline, tables, ledgers, checks and verdict, and
writes a timestamped report with its pictures (SVG) beside it. Most come in
BEFORE/AFTER pairs: a BEFORE reproduces a failure (its checks say REPRODUCED),
its AFTER shows the fix holding (PASS). The payments course's Days 13-17 come
first, then Day 18, the lab's own continuation beyond the course text. Where to start and the families, then every scenario in the order to
meet them:

  outboxlab list
  outboxlab list --all

Start here: outboxlab ` + scenarios.StartHere + `

--schema shows the tables' schema, --verbose the full ledgers. With
--database postgres://... (or OUTBOXLAB_DATABASE_URL) a run uses a schema of
its own on that PostgreSQL server instead of a SQLite file, and drops it
afterwards.

Exit codes: 0 every check held, 1 a check failed (the report is still written),
2 usage error, 3 the run could not happen.`,
		Example: `  outboxlab list
  outboxlab session-13-pending-lost-on-restart
  outboxlab retry-with-dead-letter --max-attempts 5 --no-report
  outboxlab all --family wassal
  export OUTBOXLAB_DATABASE_URL='postgres:///postgres?host=/tmp/outboxlab-postgres'
  outboxlab session-15-outbox-leasing --keep-db`,
		Version:       cmdutil.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Args = unknownCommand(root)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		// `outboxlab retry-with-dead-leter --no-report`: cobra found no such
		// command and parsed the flags as the root's; the name is the mistake.
		if cmd == root {
			if word := firstWord(args); word != "" && !isCommand(root, word) {
				return root.Args(root, []string{word})
			}
		}
		return flagError(cmd, err)
	})
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		return cmdutil.CheckStringFlags(cmd.Flags())
	}
	root.SetHelpCommand(newHelpCmd(root))
	root.SetHelpTemplate(helpTemplate)
	root.SetUsageTemplate(usageTemplate)
	root.SetHelpFunc(quietHelp(root.HelpFunc()))
	root.CompletionOptions.HiddenDefaultCmd = false

	// The header records the command line with any password redacted.
	cmdline := "outboxlab " + redactArgs(args)
	for _, family := range scenarios.Families() {
		root.AddGroup(&cobra.Group{ID: family, Title: scenarios.FamilyTitle(family)})
	}
	for _, s := range scenarios.All() {
		root.AddCommand(newScenarioCmd(s, cmdline))
	}
	root.AddGroup(&cobra.Group{ID: "lab", Title: "Lab commands:"})
	for _, c := range []*cobra.Command{list.NewCmd(), newAllCmd(cmdline), compare.NewCmd(), index.NewCmd(), inspect.NewCmd(), newVerifyCmd(), newClassCmd(), newGradeCmd(cmdline), exercise.NewCmd()} {
		c.GroupID = "lab"
		root.AddCommand(c)
	}
	for _, c := range root.Commands() {
		if c.Args != nil {
			c.Args = cmdutil.WithStringLimits(withBoolHint(c.Args, args))
		}
	}
	cmdutil.AnnotateStringFlags(root)
	return root
}
