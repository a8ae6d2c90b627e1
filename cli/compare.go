package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"outboxlab/core/report"
)

// errDifferent is returned by compare when the reports differ: exit 1.
var errDifferent = fmt.Errorf("reports differ: %w", ErrChecksFailed)

func newCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare REPORT-A REPORT-B",
		Short: "Compare two reports, ignoring the run-metadata header and measured lines",
		Long: `Compares the bodies of two run reports: everything after the run-metadata
header, less the lines marked ` + report.MeasuredMarker + `. Two runs of the same scenario
with the same flags have identical bodies; a run with other flags differs.

Exits 0 when the bodies are the same, 1 when they differ (a unified diff is
printed), 2 when an argument is not a report: missing, not a regular file
(a directory, a pipe, a device), larger than ` + byteSize(maxReportSize) + `, or without a
run-metadata header; 3 when a report cannot be read (permission denied).`,
		Example: `  outboxlab compare reference.txt reports/session-16/Session-16-Retry-With-Dead-Letter-RunReport-20261130-091500.txt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("compare takes two report files, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := readBody(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			b, err := readBody(cmd.Context(), args[1])
			if err != nil {
				return err
			}
			d, err := diff(cmd.Context(), args[0], a, args[1], b)
			if err != nil {
				return err
			}
			if d == "" {
				fmt.Fprintln(cmd.OutOrStdout(), "same: the report bodies are identical")
				return nil
			}
			fmt.Fprint(cmd.OutOrStdout(), d)
			fmt.Fprintln(cmd.ErrOrStderr(), "outboxlab: the report bodies differ")
			return errDifferent
		},
	}
}

func readBody(ctx context.Context, path string) (string, error) {
	raw, err := readReport(ctx, path, maxReportSize)
	if err != nil {
		return "", err
	}
	body, ok := report.ComparableBody(raw)
	if !ok {
		return "", usagef("%s is not an outboxlab report (no run-metadata header)", path)
	}
	return body, nil
}

// diff runs report.Diff, which can take long on large bodies that differ
// everywhere, and gives up when ctx is done (Ctrl-C).
func diff(ctx context.Context, nameA, a, nameB, b string) (string, error) {
	done := make(chan string, 1)
	go func() { done <- report.Diff(nameA, a, nameB, b) }()
	select {
	case d := <-done:
		return d, nil
	case <-ctx.Done():
		return "", cannotRun(errors.New("compare interrupted"))
	}
}
