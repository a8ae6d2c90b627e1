package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade"
	"outboxlab/internal/invocation"
)

// A grade's terminal, unless --full: its summary (grade.Summary) on stdout,
// the worker's last output on stderr beside the verdict, and the command
// that shows one variation in full.

// gradeResult is grade's --json document: the run's result and its summary.
type gradeResult struct {
	report.Result
	Summary *grade.Summary `json:"summary,omitempty"`
}

// showSummary shows a finished grade's summary, laid out for the
// terminal's width, its commands started as the user started the lab.
func showSummary(cmd *cobra.Command, common commonOptions, opts *grade.Options) showFunc {
	return func(_ string, _ *report.Report, res report.Result) {
		s := opts.Summary()
		if common.JSON || s == nil {
			return
		}
		s.Commands = gradeCommands(cmd, s)
		w := cmd.OutOrStdout()
		width := report.TerminalWidth(w)
		lay := func(lines []string) string {
			text := report.View(cmdutil.ForLayout(cmd, strings.Join(lines, "\n")+"\n"), width)
			if cmdutil.UseColor(w) {
				text = cmdutil.Colorize(text, res)
			}
			return text
		}
		io.WriteString(w, lay(s.Lines()))
		if len(s.Output) > 0 {
			fmt.Fprintln(cmd.ErrOrStderr())
			for _, l := range s.Output {
				fmt.Fprintln(cmd.ErrOrStderr(), l)
			}
		}
		io.WriteString(w, lay(s.Closing()))
	}
}

// gradeCommands are the commands a grade's summary offers, with the lab's
// name (the terminal starts them as the user started the lab): the
// variation the summary names, in full.
func gradeCommands(cmd *cobra.Command, s *grade.Summary) map[string]string {
	run := func(names []string, what ...string) string {
		args := []string{invocation.Name, "grade", s.Day}
		for _, name := range names {
			if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
				args = append(args, "--"+name+"="+invocation.Quote(f.Value.String()))
			}
		}
		args = append(append(args, what...), "--")
		at := cmd.Flags().ArgsLenAtDash()
		for _, a := range cmd.Flags().Args()[at:] {
			args = append(args, invocation.Quote(a))
		}
		return strings.Join(args, " ")
	}
	all := []string{"seed", "variations", "turn-budget"}
	out := map[string]string{"in_full": run(all, fmt.Sprintf("--variation=%d", s.InFull), "--full")}
	if s.Case != "" {
		out["in_full"] = run([]string{"seed", "turn-budget"}, "--case="+invocation.Quote(s.Case), "--full")
	}
	switch c := s.Smallest; {
	case c == nil:
	case c.JSON != "":
		out["case"] = run([]string{"seed", "turn-budget"}, "--case="+invocation.Quote(c.JSON))
	default:
		out["case"] = run(all, fmt.Sprintf("--variation=%d", c.Variation))
	}
	return out
}

// showFull shows a grade's whole report, as showRun shows a run's, with
// each timeline's identical rounds folded (grade.Options.Folded): the
// report file keeps every line.
func showFull(cmd *cobra.Command, common commonOptions, opts *grade.Options) showFunc {
	return func(header string, rep *report.Report, res report.Result) {
		if common.JSON {
			return
		}
		w := cmd.OutOrStdout()
		width := report.TerminalWidth(w)
		content := report.View(cmdutil.ForLayout(cmd, header), width) + report.View(cmdutil.ForLayout(cmd, opts.Folded(rep.Body())), width)
		if cmdutil.UseColor(w) {
			content = cmdutil.Colorize(content, res)
		}
		io.WriteString(w, content)
	}
}
