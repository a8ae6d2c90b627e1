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
others), writes each one's report, and prints one summary row per scenario,
in catalogue order. Keeps the
report directory's index.html (every report, newest first, figures inline)
and summary.json (the newest run of each scenario) up to date as it goes.
Exits 1 if any scenario's checks failed, and says which. With --database (or
OUTBOXLAB_DATABASE) every scenario runs on that PostgreSQL server, each in a
schema of its own; a server that is down fails the whole run once (exit 3).`,
		Example: `  outboxlab all
  outboxlab all --family wassal --no-report
  outboxlab all --json
  OUTBOXLAB_DATABASE='postgres:///postgres?host=/tmp/outboxlab-postgres' outboxlab all`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list := scenarios.All()
			if family != "" {
				if !slices.Contains(scenarios.Families(), family) {
					return usagef("--family %q is not a family (have: %s)", family, strings.Join(scenarios.Families(), ", "))
				}
				list = slices.DeleteFunc(list, func(s *scenarios.Scenario) bool { return s.Family != family })
			}
			if err := selectDatabase(cmd, &common); err != nil {
				return err
			}
			if common.Database != "" {
				// Once, before anything runs: a server that is down fails the whole run once.
				if err := probeDatabase(cmd.Context(), common.Database); err != nil {
					return err
				}
			}
			var (
				results []report.Result
				failed  []string
				rows    [][]string
			)
			if !common.NoReport {
				// Resolve once: a "resolves to" note is said once, not per scenario.
				dir, err := resolveReportDir(common.ReportDir, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				common.ReportDir = dir
			}
			progress := smartTerminal(cmd.ErrOrStderr())
			outs, err := runAll(cmd.Context(), list, common, cmdline, cmd.ErrOrStderr(), progress)
			if err != nil {
				return err
			}
			for i, s := range list {
				res := outs[i].result
				results = append(results, res)
				passed := 0
				for _, c := range res.Checks {
					if c.Passed {
						passed++
					}
				}
				exit := ExitOK
				if !res.Passed {
					exit = ExitChecksFailed
					failed = append(failed, s.Name)
				}
				rows = append(rows, []string{s.Name, string(s.Kind), fmt.Sprintf("%d/%d", passed, len(res.Checks)),
					strconv.Itoa(exit), res.Verdict, report.Dash(res.ReportPath)})
			}
			if progress {
				fmt.Fprint(cmd.ErrOrStderr(), "\r\x1b[K")
			}
			w := cmd.OutOrStdout()
			if common.JSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(results); err != nil {
					return cannotRun(err)
				}
			} else {
				fmt.Fprint(w, report.RenderTable([]string{"Scenario", "Kind", "Checks", "Exit", "Verdict", "Report"}, rows))
				if !common.NoReport {
					fmt.Fprintf(w, "index:   %s\n", filepath.Join(common.ReportDir, report.IndexFile))
					fmt.Fprintf(w, "summary: %s\n", filepath.Join(common.ReportDir, report.SummaryFile))
				}
			}
			if len(failed) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "outboxlab: checks failed in %d of %d scenarios: %s\n", len(failed), len(list), strings.Join(failed, ", "))
				return ErrChecksFailed
			}
			return nil
		},
	}
	bindCommon(cmd.Flags(), &common)
	cmd.Flags().StringVar(&family, "family", "", "run only this family's scenarios")
	return cmd
}

// allParallel is how many scenarios all runs at once. Each has its own
// directory and databases; most wait on fsync, child processes or the
// scenario clock's bookkeeping rather than the CPU.
const allParallel = 4

// runAll runs list with its defaults, allParallel at a time, and returns
// each outcome in list order. A scenario that measures wall-clock time
// (Scenario.Alone) runs after the others, with nothing beside it. The first
// error to happen is returned, once the runs under way have finished (they
// are cancelled, and their own interruptions are its consequences); no new
// run starts after an error.
func runAll(ctx context.Context, list []*scenarios.Scenario, common commonOptions, cmdline string, stderr io.Writer, progress bool) ([]outcome, error) {
	outs := make([]outcome, len(list))
	errs := make([]error, len(list))  // each run's own, so no two goroutines write one variable
	stderr = &lockedWriter{w: stderr} // runs side by side write their notes whole
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		done     int
		firstErr error
	)
	run := func(i int) {
		s := list[i]
		fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
		opts := s.Bind(fs)
		c := common
		c.params = scenarioParams(fs)
		if ctx.Err() == nil {
			outs[i], errs[i] = execute(ctx, s, opts, c, cmdline, stderr, func(string, report.Result) {})
		} else {
			errs[i] = ctx.Err()
		}
		mu.Lock()
		defer mu.Unlock()
		if errs[i] != nil && firstErr == nil {
			firstErr = errs[i]
			cancel()
		}
		done++
		if progress {
			fmt.Fprintf(stderr, "\r\x1b[K[%d/%d] %s", done, len(list), s.Name)
		}
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
	if firstErr != nil {
		return nil, firstErr
	}
	return outs, nil
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
