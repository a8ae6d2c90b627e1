package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade"
	"outboxlab/scenarios"
)

// dayIDs lists the Days grade and exercise accept, with their aliases.
func dayIDs() string {
	var lines []string
	for _, d := range grade.Days() {
		id := d.ID
		if len(d.Aliases) > 0 {
			id += " (" + strings.Join(d.Aliases, ", ") + ")"
		}
		lines = append(lines, "  "+id, "      "+d.Summary)
	}
	return strings.Join(lines, "\n")
}

// gradeLong is grade's help, before its list of Days.
const gradeLong = `grade runs your worker command as real processes against the Day's database (a
temporary SQLite file, or a PostgreSQL schema with --database), with the lab's
scenario clock and scripted provider served over HTTP on loopback
(docs/grade-protocol.md says everything a worker needs). Exactly one worker runs
at a time; the seed and the call history choose who runs next, so the same worker
with the same seed gets the same report body every time. The lab injects the
Day's faults at its own calls, then judges the rows, the change log its triggers
wrote and the provider's ledger with the Day's checks, for the Day's first run
(the course's own, on Days 15 to 17 and poison-counter) and each variation drawn from the seed. Exit 0 only when every check holds in
every run that exercises it and each is exercised in at least one run; 1 a check
failed or no run exercised it; 2 bad flags or an unknown day; 3 the worker
command could not be started.

The terminal shows a summary: the first failing check in full (its detail, the
runs it failed in, the protocol page's section and the starter's TODO), one line
for each other failing check, your worker's last output beside the verdict, and
the command that shows one run in full (--variation N --full). The report file
always keeps every line; --full prints all of it; --json carries the summary.

When a check fails, grade then searches (at most 40 reruns; --shrink=false skips
it) for the smallest run that still fails the first failing check: fewer
payments, one key of each kind, fewer workers, faults removed, lower counts. It
prints that case's parameters, its whole timeline, the check's detail and the
command that replays exactly it (--case '{"Payments":1,…}'), which exits 1 again
until the bug is fixed.

Days:
`

func newGradeCmd(cmdline string) *cobra.Command {
	var common commonOptions
	opts := &grade.Options{}
	var seed int64
	cmd := &cobra.Command{
		Use:   "grade <day> [flags] -- CMD [ARGS...]",
		Short: "Run your own worker (any language) against a Day's database, clock and provider, and judge it",
		Long:  gradeLong + dayIDs(),
		Example: `  outboxlab exercise session-16 ./day16     # a starting worker with TODOs
  outboxlab grade session-16 -- go run ./day16
  outboxlab grade day16 -- python3 worker.py
  outboxlab grade session-16 --seed 7 -- ./worker
  outboxlab grade session-16 --variation 2 --full -- ./worker   # one variation, every line
  outboxlab grade session-16 --database postgres:///postgres?host=/tmp -- ./worker`,
		GroupID: "lab",
		Args: func(cmd *cobra.Command, args []string) error {
			at := cmd.ArgsLenAtDash()
			if len(args) == 0 || at == 0 {
				return cmdutil.Usagef("grade needs a day and a worker command: outboxlab grade session-16 -- go run ./day16")
			}
			if at < 0 {
				return cmdutil.Usagef("give the worker command after --: outboxlab grade %s -- CMD [ARGS...]", args[0])
			}
			if at > 1 {
				return cmdutil.Usagef("grade takes one day before --, got %q", args[1])
			}
			if len(args) == at {
				return cmdutil.Usagef("no worker command after --: outboxlab grade %s -- go run ./day16", args[0])
			}
			return nil
		},
	}
	bindCommon(cmd.Flags(), &common)
	bindGradeParams(cmd.Flags(), opts, &seed)
	var full bool
	var res resultsOptions
	bindResults(cmd, &res)
	cmd.Flags().BoolVar(&opts.Shrink, "shrink", true, "when a check fails, search for the smallest case that still fails it (at most 40 reruns)")
	cmd.Flags().BoolVar(&full, "full", false, "print the whole report on the terminal (timelines, tables, every check) instead of the summary; the report file holds it either way")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		day, err := cmdutil.LookupDay(args[0])
		if err != nil {
			return err
		}
		if seed < 0 {
			return cmdutil.Usagef("--seed %d: want 0 or more", seed)
		}
		opts.Day, opts.Seed, opts.Command = day, uint64(seed), args[cmd.ArgsLenAtDash():]
		if err := res.check(); err != nil {
			return err
		}
		result, err := runGrade(cmd, opts, common, full, cmdline)
		if res.Path == "" || (err != nil && !errors.Is(err, cmdutil.ErrChecksFailed)) {
			return err // no results asked for, or grading did not run: exit 3
		}
		// A grader reads a non-zero exit as a grader that broke: grading ran.
		return writeResults(cmd, res, opts, result)
	}
	return cmd
}

// runGrade runs a grade whose options are set, shows it (its summary, or
// with full the whole report) and maps its verdict to the exit code.
func runGrade(cmd *cobra.Command, opts *grade.Options, common commonOptions, full bool, cmdline string) (report.Result, error) {
	if full {
		opts.Stderr = cmd.ErrOrStderr() // each failing variation's output as it ends
	}
	if report.Redrawable(cmd.ErrOrStderr()) {
		opts.Progress = cmd.ErrOrStderr()
	}
	common.params = gradeParams(cmd.Flags())
	if err := selectDatabase(cmd, &common); err != nil {
		return report.Result{}, err
	}
	show := showFull(cmd, common, opts)
	if !full {
		show = showSummary(cmd, common, opts)
	}
	out, err := execute(cmd.Context(), opts.Day.Scenario(), opts, common, cmdline, cmd.ErrOrStderr(), show)
	if err != nil {
		return report.Result{}, err // a worker command that cannot start is the run's error: exit 3
	}
	return out.result, finishRun(cmd, common, out, opts.Summary())
}

// gradeParams are grade's parameters as its report records them: --full
// and the results flags say how to show the run, not what runs.
func gradeParams(fs *pflag.FlagSet) []report.Param {
	var out []report.Param
	for _, p := range scenarioParams(fs) {
		if !notRecorded[p.Name] && p.Name != "shrink" { // --shrink: a search after the runs the report records
			out = append(out, p)
		}
	}
	return out
}

// bindGradeParams registers grade's own parameters: the ones its report
// records, and verify sets again to rerun it.
func bindGradeParams(fs *pflag.FlagSet, opts *grade.Options, seed *int64) {
	fs.Int64Var(seed, "seed", grade.DefaultSeed, "the seed the variations (and the choice of who runs next) are drawn from")
	fs.IntVar(&opts.Variations, "variations", grade.DefaultVariations, "variations to run after the defaults [0..20]")
	fs.DurationVar(&opts.TurnBudget, "turn-budget", grade.DefaultTurnBudget, "wall time a worker may run between two lab calls before it is killed [100ms..1m]")
	fs.IntVar(&opts.Only, "variation", 0, "run only variation N (1: the course's run), as the whole grade runs it; 0 runs them all")
	fs.StringVar(&opts.Case, "case", "", "run only this case, the JSON of the fields that differ from the Day's defaults (as a grade's smallest failing case prints it)")
	fs.SetAnnotation("case", scenarios.MaxLengthAnnotation, []string{strconv.Itoa(maxCaseLength)})
}

// maxCaseLength is the longest --case: a Day's every field set.
const maxCaseLength = 400

// finishRun prints what follows a run's report (its path, or the JSON) and
// maps its verdict to the exit code.
func finishRun(cmd *cobra.Command, common commonOptions, out outcome, sum *grade.Summary) error {
	w := cmd.OutOrStdout()
	if common.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if sum != nil {
			sum.Commands = gradeCommands(cmd, sum)
		}
		doc := gradeResult{Result: out.result, Summary: sum}
		if err := enc.Encode(doc); err != nil && !closedOutput(err) {
			return cmdutil.CannotRun(fmt.Errorf("print result: %w", err))
		}
	} else {
		fmt.Fprintln(w)
		if out.result.ReportPath != "" {
			fmt.Fprintf(w, "report:   %s\n", out.result.ReportPath)
		}
		fmt.Fprint(w, cmdutil.Printed(cmd, "Next:     outboxlab grade --help (the Days, --seed); docs/grade-protocol.md\n"))
	}
	if !out.result.Passed {
		return cmdutil.ErrChecksFailed
	}
	return nil
}
