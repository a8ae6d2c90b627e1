// Package index is `outboxlab index`: rebuilds a report directory's
// HTML index (cmdutil.UpdateIndex keeps it current after each run).
package index

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// NewCmd is the index command.
func NewCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Rebuild the class index (index.html, summary.json) of a report directory",
		Long: `Rebuilds DIR/index.html from the report files on disk: every report below DIR
at any depth, recognised by its run-metadata header whatever its name (a
class folder of per-student folders, renamed files); every other file is
listed with why it was skipped. The page starts with a class summary (every
BEFORE beside its AFTER, in course order); then one section per scenario in
course order, one row per report, newest first: checks, verdict, exit code,
the student (the first folder below DIR when it is not one of the lab's group
folders such as session-16, else the header's --student), the flags not at their default, when,
and links to the report and its HTML twin, whose verdict and checks come
first. Figures are shown full width. A row whose header disagrees with its
own body (an edited report) is marked, and shows the body's checks and verdict.

Also writes DIR/summary.json (what it summarises, every failing report, the
skipped files, the newest run of each scenario and student) and the HTML twin
of any report that has none.

Every run that writes a report, and every 'all', rebuilds the index by
itself; this command is for a directory copied, merged or tidied by hand.
The pages are static files: open index.html in any browser, no server.

Exits 0 when the index is written, 2 when DIR is not a directory, 3 when
it cannot be written.`,
		Example: `  outboxlab index
  outboxlab index --report-dir class-2026-12`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clean, err := cmdutil.ResolveReportDir(dir, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fi, err := os.Stat(clean)
			if err != nil {
				return cmdutil.FileError("report directory", clean, err)
			}
			if !fi.IsDir() {
				return cmdutil.Usagef("%s is not a directory", clean)
			}
			sc, err := report.RebuildIndex(clean, time.Now(), cmdutil.Version, cmdutil.Course())
			if err != nil {
				return cmdutil.CannotRun(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "indexed %s", report.Plural(len(sc.Entries), "report"))
			if len(sc.Skipped) > 0 {
				fmt.Fprintf(w, "; skipped %s:", report.Plural(len(sc.Skipped), "file"))
			}
			fmt.Fprintln(w)
			for _, s := range sc.Skipped {
				fmt.Fprint(w, cmdutil.FitLines(fmt.Sprintf("  %s: %s\n", cmdutil.Show(s.Path), s.Reason)))
			}
			fmt.Fprintf(w, "index:    %s\n", filepath.Join(clean, report.IndexFile))
			fmt.Fprintf(w, "summary:  %s\n", filepath.Join(clean, report.SummaryFile))
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "report-dir", "reports", "the report directory to index")
	return cmd
}
