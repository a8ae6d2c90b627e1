package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

func newAllCmd(cmdline string) *cobra.Command {
	var (
		common commonOptions
		family string
	)
	cmd := &cobra.Command{
		Use:   "all",
		Short: "Run every scenario with its defaults and print one summary row each",
		Long: `Runs every registered scenario (or one family's) with default flags, four
at a time (a scenario that measures wall-clock time runs alone, after the
others), writes each one's report, and prints one summary row per scenario in
catalogue order, each as soon as it and every row before it have finished. On a
terminal, a line on stderr says how many are done and which one is running.
Keeps the report directory's index.html (every report, newest first, figures
inline) and summary.json (the newest run of each scenario) up to date as it
goes. Exits 1 if any scenario's checks failed, and says which. With --database
(or OUTBOXLAB_DATABASE_URL) every scenario runs on that PostgreSQL server, each
in a schema of its own; a server that is down fails the whole run once (exit 3).`,
		Example: `  outboxlab all
  outboxlab all --family wassal --no-report
  outboxlab all --json
  export OUTBOXLAB_DATABASE_URL='postgres:///postgres?host=/tmp/outboxlab-postgres'
  outboxlab all`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAllCmd(cmd, family, common, cmdline) },
	}
	bindCommon(cmd.Flags(), &common)
	cmd.Flags().StringVar(&family, "family", "", "run only this family's scenarios")
	return cmd
}

// runAllCmd runs all: the list, the checks made once before any run, one
// summary row per scenario as soon as it and every row before it are done,
// and what the whole run ends with.
func runAllCmd(cmd *cobra.Command, family string, common commonOptions, cmdline string) error {
	list, err := cmdutil.FamilyScenarios(family)
	if err != nil {
		return err
	}
	if err := prepareAll(cmd, &common); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	rows := newSummaryRows(list, report.TerminalWidth(w))
	var (
		results []report.Result
		failed  []string
	)
	if !common.JSON {
		fmt.Fprint(w, rows.header())
	}
	// Each row is printed as soon as its run and every run before it
	// have finished, in catalogue order.
	emit := func(i int, out outcome) {
		res := out.result
		results = append(results, res)
		if !res.Passed {
			failed = append(failed, list[i].Name)
		}
		if !common.JSON {
			fmt.Fprint(w, rows.row(list[i], res))
		}
	}
	progress := report.Redrawable(cmd.ErrOrStderr())
	if err := runAll(cmd.Context(), list, common, cmdline, cmd.ErrOrStderr(), progress, emit); err != nil {
		return err
	}
	if err := writeAllEnd(w, common, results); err != nil {
		return err
	}
	if len(failed) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "outboxlab: checks failed in %d of %d scenarios: %s\n", len(failed), len(list), strings.Join(failed, ", "))
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// prepareAll settles, once before anything runs, what every run shares: the
// database (a server that is down fails the whole run once) and the report
// directory (a "resolves to" note is said once, not per scenario).
func prepareAll(cmd *cobra.Command, common *commonOptions) error {
	if err := selectDatabase(cmd, common); err != nil {
		return err
	}
	if !common.db.IsZero() {
		if err := probeDatabase(cmd.Context(), common.db); err != nil {
			return err
		}
	}
	if !common.NoReport {
		dir, err := cmdutil.ResolveReportDir(common.ReportDir, cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		common.ReportDir = dir
	}
	return nil
}

// writeAllEnd ends all's output: the results as JSON (--json), or where the
// index and the summary are.
func writeAllEnd(w io.Writer, common commonOptions, results []report.Result) error {
	if common.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(results); err != nil {
			return cmdutil.CannotRun(err)
		}
		return nil
	}
	if !common.NoReport {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "index:   %s\n", filepath.Join(common.ReportDir, report.IndexFile))
		fmt.Fprintf(w, "summary: %s\n", filepath.Join(common.ReportDir, report.SummaryFile))
	}
	return nil
}

// allParallel is how many scenarios all runs at once. Each has its own
// directory and databases; most wait on fsync, child processes or the
// scenario clock's bookkeeping rather than the CPU.
const allParallel = 4

// runAll runs list with its defaults, allParallel at a time, and calls
// emit with each outcome in list order, as soon as that run and every run
// before it have finished. A scenario that measures wall-clock time
// (Scenario.Alone) runs after the others, with nothing beside it. The first
// error to happen is returned, once the runs under way have finished (they
// are cancelled, and their own interruptions are its consequences); no new
// run starts and no row is emitted after an error. An interruption (ctx
// cancelled by a signal) is one error, whatever each run under way said of
// it: how many scenarios finished, and that their reports are complete. With
// progress set (a terminal that can redraw a line), a line there says how
// far the runs have got; it is cleared before each row and at the end.
func runAll(ctx context.Context, list []*scenarios.Scenario, common commonOptions, cmdline string, stderr io.Writer,
	progress bool, emit func(i int, out outcome)) error {
	signalled := ctx
	stderr = &lockedWriter{w: stderr} // runs side by side write their notes whole
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	runs := &allRuns{list: list, outs: make([]outcome, len(list)), errs: make([]error, len(list)), finished: make([]bool, len(list)),
		running: make([]bool, len(list)), progress: progress, stderr: stderr, emit: emit, cancel: cancel}
	run := func(i int) {
		s := list[i]
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		opts := s.Bind(fs)
		c := common
		c.params = scenarioParams(fs)
		runs.started(i)
		var out outcome
		err := ctx.Err()
		if err == nil {
			out, err = execute(ctx, s, opts, c, cmdline, stderr, func(string, *report.Report, report.Result) {})
		}
		runs.ended(i, out, err)
	}
	sem := make(chan struct{}, allParallel)
	var wg sync.WaitGroup
	for i, s := range list {
		if s.Alone {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			run(i)
		}()
	}
	wg.Wait()
	for i, s := range list {
		if s.Alone {
			run(i)
		}
	}
	runs.clearProgress()
	if signalled.Err() != nil {
		return allInterrupted(runs.errs, runs.finished, common.NoReport)
	}
	return runs.firstErr
}

// allRuns is the bookkeeping of all's runs under way: which run and which
// have finished, the first row not emitted yet, and the first error (which
// cancels the rest). Its methods may be called from several goroutines.
type allRuns struct {
	list     []*scenarios.Scenario
	progress bool // a terminal that can redraw a line is on stderr
	stderr   io.Writer
	emit     func(i int, out outcome)
	cancel   context.CancelFunc

	mu                sync.Mutex
	outs              []outcome
	errs              []error // each run's own
	finished, running []bool
	next              int // the first row not emitted yet
	done              int
	firstErr          error
}

// started marks run i as running.
func (a *allRuns) started(i int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.running[i] = true
	a.drawProgress()
}

// ended records run i's outcome or error, and emits every row whose run and
// every run before it have finished, unless an error has happened.
func (a *allRuns) ended(i int, out outcome, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.outs[i], a.errs[i] = out, err
	a.running[i], a.finished[i] = false, true
	a.done++
	if err != nil && a.firstErr == nil {
		a.firstErr = err
		a.cancel()
	}
	if a.firstErr == nil && a.next < len(a.list) && a.finished[a.next] {
		a.clearProgress()
		for a.next < len(a.list) && a.finished[a.next] {
			a.emit(a.next, a.outs[a.next])
			a.next++
		}
	}
	a.drawProgress()
}

// drawProgress redraws the progress line; a.mu is held.
func (a *allRuns) drawProgress() {
	if !a.progress {
		return
	}
	line := fmt.Sprintf("%d/%d done", a.done, len(a.list))
	if i := slices.Index(a.running, true); i >= 0 {
		line += ", running " + a.list[i].Name
	}
	fmt.Fprintf(a.stderr, "\r\x1b[K%s", line)
}

func (a *allRuns) clearProgress() {
	if a.progress {
		fmt.Fprint(a.stderr, "\r\x1b[K")
	}
}

// allInterrupted is the one line of an interrupted all: how many scenarios
// finished (and wrote their reports, complete), out of how many.
func allInterrupted(errs []error, finished []bool, noReport bool) error {
	n := 0
	for i := range errs {
		if finished[i] && errs[i] == nil {
			n++
		}
	}
	switch {
	case n == 0:
		return cmdutil.Interrupted("all interrupted: none of %d scenarios finished; no report was written", len(errs))
	case noReport:
		return cmdutil.Interrupted("all interrupted: %d of %d scenarios finished (--no-report: no reports)", n, len(errs))
	}
	return cmdutil.Interrupted("all interrupted: %d of %d scenarios finished and their reports are complete; "+
		"the others wrote none", n, len(errs))
}

// summaryRows prints all's table a row at a time, as runs finish: columns
// sized from the catalogue in advance, the verdict wrapped in the last one,
// every line within width columns (the terminal's: report.TerminalWidth).
type summaryRows struct {
	name, kind int // column widths
	width      int
}

func newSummaryRows(list []*scenarios.Scenario, width int) summaryRows {
	r := summaryRows{name: report.Width("Scenario"), kind: report.Width("Kind"), width: width}
	for _, s := range list {
		r.name, r.kind = max(r.name, report.Width(s.Name)), max(r.kind, report.Width(string(s.Kind)))
	}
	return r
}

// widestOutcome is the widest verdict outcome a row shows.
var widestOutcome = max(report.Width(report.VerdictPass), report.Width(report.VerdictFail), report.Width(report.VerdictReproduced),
	report.Width(report.VerdictNotReproduced), report.Width(report.VerdictNotExercised))

// The fixed columns after the name and kind: checks passed and the exit code.
const (
	checksWidth = len("Checks")
	exitWidth   = len("Exit")
)

func (r summaryRows) cells(name, kind, checks, exit string) string {
	return cmdutil.Pad(name, r.name) + "  " + cmdutil.Pad(kind, r.kind) + "  " + cmdutil.Pad(checks, checksWidth) + "  " + cmdutil.Pad(exit, exitWidth) + "  "
}

func (r summaryRows) header() string {
	return r.cells("Scenario", "Kind", "Checks", "Exit") + "Verdict\n"
}

// row is one scenario's lines: its checks passed, exit code and verdict's
// outcome ([PASS ✅], ...), then the verdict's words on the next line,
// indented and wrapped; on a terminal too narrow for the outcome beside the
// columns (the widest outcome, so that every row does the same), the
// outcome starts the words' line.
func (r summaryRows) row(s *scenarios.Scenario, res report.Result) string {
	exit := cmdutil.ExitOK
	if !res.Passed {
		exit = cmdutil.ExitChecksFailed
	}
	outcome, words := report.Dash(res.Verdict), ""
	if strings.HasPrefix(outcome, "[") {
		if i := strings.Index(outcome, "] "); i > 0 {
			outcome, words = outcome[:i+1], outcome[i+2:]
		}
	}
	line := r.cells(s.Name, string(s.Kind), fmt.Sprintf("%d/%d", report.ChecksPassed(res.Checks), len(res.Checks)), strconv.Itoa(exit))
	if report.Width(line)+widestOutcome > r.width {
		line, words = strings.TrimRight(line, " "), strings.TrimSpace(outcome+" "+words)
	} else {
		line += outcome
	}
	line += "\n"
	if words != "" {
		line += cmdutil.Indent(report.Wrap(words, r.width-4), "    ") + "\n"
	}
	return line
}

// lockedWriter lets goroutines share one writer, a write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
