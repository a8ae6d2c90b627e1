// Package compare is `outboxlab compare`: two reports side by side, their
// parameters, checks, metrics and body lines.
package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// errDifferent is returned by compare when the reports differ: exit 1.
var errDifferent = fmt.Errorf("reports differ: %w", cmdutil.ErrChecksFailed)

type compareOptions struct {
	Checks  bool
	Metrics bool
	Raw     bool
}

// NewCmd is the compare command.
func NewCmd() *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare REPORT-A REPORT-B",
		Short: "Compare two reports, ignoring the run-metadata header and measured lines",
		Long: `Compares the bodies of two run reports: everything after the run-metadata
header, less the lines marked ` + report.MeasuredMarker + `. Either file may be a body without
the header: a golden body from testdata/golden/ (made with the scenario's
defaults, except where the scenario declares GoldenArgs: worker-throughput's
is a --messages 2000 --batch 100 --produce-for 10s run; compare says so), or
a report with its header stripped. Two runs of the same
scenario with the same flags have identical bodies.

First it says whether the runs used the same parameters (from the headers;
unknown for a body without one) and lists the flags that differ; that is
information, not a difference that changes the exit code; and names the
presentation flags (--schema, --verbose) when the runs were shown with
different ones, which change what a body shows, not what ran. Then:

  (default)   the body: text lines as a diff, tables cell by cell (a row is
              shown only when one of its cells changed, wrapped rows read
              whole); lines that differ only where a changed flag's value
              is printed in its place (attempt 1/N, MaxAttempts N) are
              counted, never an equal number elsewhere
  --checks    only the checks (name, PASS/FAIL, figure) and the verdict
  --metrics   only the metrics, as a table, and the verdict
  --raw       the body's lines as written, as a unified diff

Exits 0 when what is compared is the same, 1 when it differs, 2 when an
argument is not a report: missing, not a regular file (a directory, a
pipe, a device), larger than ` + cmdutil.ByteSize(cmdutil.MaxReportSize) + `, or neither with a run-metadata
header nor a report body; 3 when a report cannot be read (permission denied).`,
		Example: `  outboxlab compare testdata/golden/session-16-retry-with-dead-letter.txt reports/session-16/Session-16-Retry-With-Dead-Letter-RunReport-20261130-091500.txt
  outboxlab compare --checks A.txt B.txt
  outboxlab compare --metrics A.txt B.txt
  outboxlab compare --checks --metrics A.txt B.txt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return cmdutil.Usagef("compare takes two report files, got %s", report.Plural(len(args), "argument"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Raw && (opts.Checks || opts.Metrics) {
				return cmdutil.Usagef("--raw shows the whole body; it does not go with --checks or --metrics")
			}
			a, err := cmdutil.ReadDoc(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			b, err := cmdutil.ReadDoc(cmd.Context(), args[1])
			if err != nil {
				return err
			}
			// What compare says fits the terminal (fitLines); --raw is a
			// unified diff and stays as written.
			var out bytes.Buffer
			err = runCompare(cmd.Context(), &out, cmd.ErrOrStderr(), opts, args[0], a, args[1], b)
			text := out.String()
			if !opts.Raw {
				text = cmdutil.FitLines(text)
			}
			io.WriteString(cmd.OutOrStdout(), text)
			return err
		},
	}
	cmd.Flags().BoolVar(&opts.Checks, "checks", false, "compare only the checks (name, result, figure) and the verdict")
	cmd.Flags().BoolVar(&opts.Metrics, "metrics", false, "compare only the metrics (by key, as a table) and the verdict")
	cmd.Flags().BoolVar(&opts.Raw, "raw", false, "show the body's lines as written, as a unified diff")
	return cmd
}

func runCompare(ctx context.Context, w, stderr io.Writer, opts compareOptions, nameA string, a report.Doc, nameB string, b report.Doc) error {
	echoes := describeParams(w, nameA, a, nameB, b)
	var what []string
	if opts.Checks {
		if !compareChecks(w, a, b) {
			what = append(what, "checks")
		}
	}
	if opts.Metrics {
		if !compareMetrics(w, a, b) {
			what = append(what, "metrics")
		}
	}
	if opts.Checks || opts.Metrics {
		va, vb := report.BodyVerdict(a.Body), report.BodyVerdict(b.Body)
		if va == vb {
			fmt.Fprintf(w, "verdict: the same: %s\n", cmdutil.Show(va))
		} else {
			fmt.Fprintf(w, "verdict: differs\n  A  %s\n  B  %s\n", cmdutil.Show(va), cmdutil.Show(vb))
			what = append(what, "verdicts")
		}
		if len(what) == 0 {
			return nil
		}
		fmt.Fprintf(stderr, "outboxlab: the %s differ\n", strings.Join(what, " and "))
		return errDifferent
	}
	same, err := compareBodies(ctx, w, opts.Raw, nameA, a.Body, nameB, b.Body, echoes)
	if err != nil || same {
		return err
	}
	fmt.Fprint(w, shownNote(a, b))
	fmt.Fprintln(stderr, "outboxlab: the report bodies differ")
	return errDifferent
}

// describeParams says whether the two runs used the same parameters and
// returns the ones that differ, for the body diff to recognise where they
// are printed.
func describeParams(w io.Writer, nameA string, a report.Doc, nameB string, b report.Doc) []report.Echo {
	ra, rb := a.Info.Record, b.Info.Record
	if ra == nil || rb == nil {
		var unknown []string
		for _, s := range []struct {
			name, path string
			d          report.Doc
		}{{"A", nameA, a}, {"B", nameB, b}} {
			switch {
			case !s.d.HasHeader && goldenArgs(s.path) != "":
				unknown = append(unknown, s.name+" is a golden body, made with "+goldenArgs(s.path))
			case !s.d.HasHeader:
				unknown = append(unknown, s.name+" is a body without a run-metadata header")
			case s.d.Info.Record == nil:
				unknown = append(unknown, s.name+"'s header does not record them (an older report)")
			}
		}
		fmt.Fprintf(w, "parameters: unknown: %s\n", strings.Join(unknown, "; "))
		return nil
	}
	if ra.Scenario != rb.Scenario {
		fmt.Fprintf(w, "scenarios differ: A ran %s, B ran %s\n", cmdutil.Show(ra.Scenario), cmdutil.Show(rb.Scenario))
	}
	if ra.Version != rb.Version {
		fmt.Fprintf(w, "lab versions differ: A %s, B %s\n", cmdutil.Show(ra.Version), cmdutil.Show(rb.Version))
	}
	if sa, sb := shownText(ra), shownText(rb); sa != sb {
		fmt.Fprintf(w, "shown differs (presentation flags: what the body shows, not what ran): A %s, B %s\n", sa, sb)
	}
	var (
		echoes []report.Echo
		lines  []string
	)
	pa := map[string]report.Param{}
	for _, p := range ra.Params {
		pa[p.Name] = p
	}
	seen := map[string]bool{}
	for _, p := range rb.Params {
		seen[p.Name] = true
		q, ok := pa[p.Name]
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("  --%s  A (no such flag)  B %s", cmdutil.Show(p.Name), cmdutil.Show(p.Value)))
		case q.Value != p.Value:
			lines = append(lines, fmt.Sprintf("  --%s  A %s  B %s", cmdutil.Show(p.Name), cmdutil.Show(q.Value), cmdutil.Show(p.Value)))
			echoes = append(echoes, report.Echo{Name: p.Name, A: q.Value, B: p.Value})
		}
	}
	for _, p := range ra.Params {
		if !seen[p.Name] {
			lines = append(lines, fmt.Sprintf("  --%s  A %s  B (no such flag)", cmdutil.Show(p.Name), cmdutil.Show(p.Value)))
		}
	}
	if len(lines) == 0 {
		changed := report.NonDefault(ra.Params)
		if len(changed) == 0 {
			fmt.Fprintln(w, "parameters: the same (all at their defaults)")
		} else {
			fmt.Fprintf(w, "parameters: the same (%s)\n", cmdutil.Show(joinParams(changed)))
		}
		return nil
	}
	fmt.Fprintf(w, "parameters differ (A → B; information, not a difference in the result):\n%s\n",
		strings.Join(lines, "\n"))
	return echoes
}

// shownText is the presentation flags a run was given, or "none".
func shownText(r *report.Record) string {
	if len(r.Shown) == 0 {
		return "none"
	}
	return cmdutil.Show(strings.Join(r.Shown, " "))
}

// shownNote explains a body difference that presentation flags make, or "".
func shownNote(a, b report.Doc) string {
	ra, rb := a.Info.Record, b.Info.Record
	if ra == nil || rb == nil || shownText(ra) == shownText(rb) {
		return ""
	}
	return fmt.Sprintf("(A was shown with %s, B with %s: lines only one of them shows differ by that, "+
		"not by what ran)\n", shownText(ra), shownText(rb))
}

// goldenArgs says with what flags the golden body at path was made, when
// path is testdata/golden/<scenario>.txt: the scenario's defaults, or its
// GoldenArgs for a scenario whose default run is too long for a unit test.
func goldenArgs(path string) string {
	if filepath.Base(filepath.Dir(path)) != "golden" {
		return ""
	}
	s := scenarios.Lookup(strings.TrimSuffix(filepath.Base(path), ".txt"))
	switch {
	case s == nil:
		return ""
	case len(s.GoldenArgs) == 0:
		return "the scenario's defaults"
	}
	return strings.Join(s.GoldenArgs, " ") + " (the other flags at their defaults)"
}

func joinParams(ps []report.Param) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, " ")
}

// compareBodies prints the difference of the two bodies and reports whether
// they are the same. The diff can take long on large bodies that differ
// everywhere; it gives up when ctx is done (Ctrl-C).
func compareBodies(ctx context.Context, w io.Writer, raw bool, nameA, a, nameB, b string, echoes []report.Echo) (bool, error) {
	if a == b {
		fmt.Fprintln(w, "same: the report bodies are identical")
		return true, nil
	}
	done := make(chan string, 1)
	go func() {
		if raw {
			done <- report.Diff(nameA, a, nameB, b)
			return
		}
		d := report.CellDiff(a, b, echoes)
		text := fmt.Sprintf("--- A %s\n+++ B %s\n%s", nameA, nameB, d.Text)
		if d.Echoed > 0 {
			text += fmt.Sprintf("(and %d lines that differ only where a changed flag's value is printed; "+
				"--raw shows them)\n", d.Echoed)
		}
		done <- text
	}()
	select {
	case d := <-done:
		fmt.Fprint(w, showLines(d))
		return false, nil
	case <-ctx.Done():
		return false, cmdutil.CannotRun(errors.New("compare interrupted"))
	}
}

// showLines escapes control characters on every line of text (a report is
// a file anyone could have written) and keeps the line breaks.
func showLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = cmdutil.Show(l)
	}
	return strings.Join(lines, "\n")
}
