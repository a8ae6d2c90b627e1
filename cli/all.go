package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
		Long: `Runs every registered scenario (or one family's) with default flags, writes
each one's report, and prints one summary row per scenario. Keeps the
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
			for i, s := range list {
				if progress {
					fmt.Fprintf(cmd.ErrOrStderr(), "\r\x1b[K[%d/%d] %s", i+1, len(list), s.Name)
				}
				fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
				opts := s.Bind(fs)
				common.params = scenarioParams(fs)
				out, err := execute(cmd.Context(), s, opts, common, cmdline, cmd.ErrOrStderr(), func(string, report.Result) {})
				if err != nil {
					return err
				}
				res := out.result
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
