package cli

// --stop-after K: a run ends after its K-th timeline event, its database as
// that event left it (kept with --keep-db), and no report is written.

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/changelog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// maxStopAfter bounds --stop-after: no scenario's run has more events.
const maxStopAfter = 1_000_000

func bindStopAfter(fs *pflag.FlagSet, c *commonOptions) {
	fs.IntVar(&c.StopAfter, "stop-after", 0,
		"end the run after its K-th timeline event, writing no report (with --keep-db the database stays as it stood then)")
}

// stoppedRun is the outcome of a run --stop-after ended: the event it
// stopped after and where its database is.
func stoppedRun(ctx context.Context, env scenarios.Env, pg *postgresRun, keepDir, keepAt bool, tmp string) outcome {
	last, _ := env.Recorder.Last()
	return outcome{stopped: &last, dbNote: databaseNote(ctx, env, pg, keepDir, keepAt, tmp)}
}

// printStopped says which event the run stopped after, and where its
// database is: the report is not written, the run did not finish.
func printStopped(cmd *cobra.Command, out outcome, c commonOptions) error {
	w := cmd.OutOrStdout()
	s := out.stopped
	first, _, _ := strings.Cut(s.Text, "\n")
	width := report.TerminalWidth(w) // COLUMNS, like every other output
	fmt.Fprintf(w, "\n%s\n", report.Wrap(fmt.Sprintf("stopped after event %d (%s design, %s); no report was written",
		s.N, s.Design, s.At), width))
	io.WriteString(w, report.Labelled("event:    ", report.Wrap(first, width-10)))
	io.WriteString(w, cmdutil.Printed(cmd, report.Labelled("database: ", out.dbNote+keepAtNote(c))))
	return nil
}

// noteNotStopped says, when --stop-after was given, that the run had fewer
// events than that and ran to its end.
func noteNotStopped(stderr io.Writer, k int, rec *changelog.Recorder) {
	if k > 0 {
		fmt.Fprintf(stderr, "outboxlab: --stop-after %d: the run has %s; it ran to its end\n",
			k, report.Plural(len(rec.Log().Steps), "event"))
	}
}
