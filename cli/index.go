package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"outboxlab/core/report"
)

func newIndexCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Rebuild the class index (index.html, summary.json) of a report directory",
		Long: `Rebuilds DIR/index.html from the report files on disk: one row per report
(scenario, kind, when, the flags not at their default, checks passed, verdict,
exit code), newest first, grouped by scenario, linking to each report and its
HTML twin and showing its figures. Also writes DIR/summary.json (the newest
run of each scenario) and the HTML twin of any report that has none.

Every run that writes a report, and every 'all', rebuilds the index by
itself; this command is for a directory copied, merged or tidied by hand.
The pages are static files: open index.html in any browser, no server.

Exits 0 when the index is written, 2 when DIR is not a directory, 3 when
it cannot be written.`,
		Example: `  outboxlab index
  outboxlab index --report-dir class-2026-12`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clean, err := resolveReportDir(dir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fi, err := os.Stat(clean)
			if err != nil {
				return fileError("report directory", clean, err)
			}
			if !fi.IsDir() {
				return usagef("%s is not a directory", clean)
			}
			entries, err := report.RebuildIndex(clean, time.Now(), Version)
			if err != nil {
				return cannotRun(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "indexed %d reports\n", len(entries))
			fmt.Fprintf(w, "index:    %s\n", filepath.Join(clean, report.IndexFile))
			fmt.Fprintf(w, "summary:  %s\n", filepath.Join(clean, report.SummaryFile))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "report-dir", "reports", "the report directory to index")
	return cmd
}

// updateIndex writes the HTML twin of the report just written and rebuilds
// its directory's index. The run has happened and its report is on disk, so
// a failure here is said in one line and changes no exit code.
func updateIndex(reportDir, reportPath string, stderr io.Writer) {
	if err := report.WriteTwinAndIndex(reportDir, reportPath, time.Now(), Version); err != nil {
		fmt.Fprintf(stderr, "outboxlab: index not updated: %s\n", oneLine(err.Error()))
	}
}
