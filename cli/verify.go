package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// errNotVerified is returned by verify when a report does not verify: exit 1.
var errNotVerified = fmt.Errorf("reports do not verify: %w", cmdutil.ErrChecksFailed)

func newVerifyCmd() *cobra.Command {
	var worker bool
	cmd := &cobra.Command{
		Use:   "verify REPORT... [--worker -- CMD [ARGS]]",
		Short: "Rerun each report's recorded scenario and flags and compare the bodies",
		Long: `Reruns what each report's run-metadata header records (its scenario, every
parameter, and the presentation flags --schema and --verbose) on a temporary
SQLite file, and compares the rerun's body with the report's as compare does
(less measured and [database] lines): bodies are the same on SQLite and
PostgreSQL, so a run made on either verifies here. Before it reruns anything
it checks that the header agrees with its own body (its checks, exit code and
verdict), and that every recorded flag is a parameter of the scenario with a
value the flag accepts.

verify never runs a command found in a report. A report written by grade
depends on a student's worker: it is verified only when the worker is given
again after --worker and --, and otherwise says it cannot be rerun.

Exits 0 when every report verifies, 1 when one does not (the first
difference is named: an edited report, or one made by another lab version,
which it names), 2 when an argument is not a report, 3 when a rerun could
not happen.`,
		Example: `  outboxlab verify reports/session-16/*.txt
  outboxlab verify submissions/alice/Day16.txt --worker -- ./alice-worker`,
		RunE: func(cmd *cobra.Command, args []string) error {
			reports, command := args, []string(nil)
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				reports, command = args[:dash], args[dash:]
			}
			switch {
			case len(reports) == 0:
				return cmdutil.Usagef("verify takes one or more report files")
			case worker && len(command) == 0:
				return cmdutil.Usagef("--worker needs the worker's command after --: outboxlab verify REPORT --worker -- CMD")
			case !worker && len(command) > 0:
				return cmdutil.Usagef("a command after -- is the worker of a grade report: give --worker too")
			}
			docs := make([]report.Doc, len(reports))
			for i, path := range reports {
				doc, err := cmdutil.ReadDoc(cmd.Context(), path)
				if err != nil {
					return err
				}
				docs[i] = doc
			}
			w, failed := cmd.OutOrStdout(), 0
			for i, doc := range docs {
				v, err := verifyDoc(cmd.Context(), doc, command)
				if err != nil {
					return err
				}
				// The path alone after its label (it may be long), then the
				// run it records, then why it does not verify.
				word := "verified  "
				if !v.Verified {
					word = "DIFFERS   "
					failed++
				}
				text := "          " + runName(doc) + "\n"
				if !v.Verified {
					text += "          " + cmdutil.ForLayout(cmd, cmdutil.Show(v.Reason)) + "\n"
				}
				io.WriteString(w, word+cmdutil.Show(reports[i])+"\n"+cmdutil.FitLines(text))
			}
			if failed > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "outboxlab: %d of %s %s not verify\n", failed, report.Plural(len(docs), "report"),
					map[bool]string{true: "does", false: "do"}[failed == 1])
				return errNotVerified
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&worker, "worker", false, "the command after -- is the worker a grade report was made with")
	return cmd
}

// runName is a report's run as one would type it: its scenario and the
// flags not at their defaults.
func runName(doc report.Doc) string {
	r := doc.Info.Record
	if r == nil {
		return "(no record)"
	}
	words := append([]string{r.Scenario}, r.Shown...)
	for _, p := range report.NonDefault(r.Params) {
		words = append(words, p.String())
	}
	return cmdutil.Show(strings.Join(words, " "))
}
