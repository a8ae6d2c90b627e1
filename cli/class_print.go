package cli

import (
	"fmt"
	"io"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// verdictWord is a verdict's outcome without its symbol: PASS, FAIL,
// REPRODUCED, NOT REPRODUCED.
func verdictWord(doc report.Doc) string {
	v := report.BodyVerdict(doc.Body)
	inner, _, ok := strings.Cut(strings.TrimPrefix(v, "["), "]")
	if !ok || !strings.HasPrefix(v, "[") {
		return v
	}
	var words []string
	for _, w := range strings.Fields(inner) {
		if strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ/") == "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

func flagsOf(doc report.Doc) string {
	r := doc.Info.Record
	if r == nil {
		return "unknown"
	}
	var words []string
	for _, p := range report.NonDefault(r.Params) {
		words = append(words, p.String())
	}
	words = append(words, r.Shown...)
	if len(words) == 0 {
		return "defaults"
	}
	return strings.Join(words, " ")
}

// printClass writes the class's table, then why each report that does not
// verify does not, the skipped files, and one line that sums it up; a
// command in a why starts as the user started the lab (commands: forLayout).
func printClass(w io.Writer, c class, commands func(string) string) {
	for _, r := range c.References {
		fmt.Fprintf(w, "reference: %s\n", cmdutil.Show(r.Path))
		fmt.Fprint(w, cmdutil.FitLines(fmt.Sprintf("           %s: %s, checks %d/%d, %s\n", runName(r.Doc),
			verdictWord(r.Doc), report.ChecksPassed(r.Checks), len(r.Checks), referenceWord(r))))
		if !r.Verify.Verified {
			fmt.Fprint(w, cmdutil.FitLines("           "+commands(cmdutil.Show(r.Verify.Reason))+"\n"))
		}
	}
	// One table per scenario, in course order: a row per student.
	for i := 0; i < len(c.Rows); {
		name := scenarioOf(c.Rows[i])
		var rows [][]string
		for ; i < len(c.Rows) && scenarioOf(c.Rows[i]) == name; i++ {
			s := c.Rows[i]
			rows = append(rows, []string{cmdutil.Show(report.Dash(s.Student)), cmdutil.Show(flagsAndWorker(s)),
				fmt.Sprintf("%d/%d", report.ChecksPassed(s.Checks), len(s.Checks)), cmdutil.Show(verdictWord(s.Doc)),
				string(standingWord(s)), cmdutil.Show(s.RefDiff)})
		}
		fmt.Fprintf(w, "\n## %s (%s)\n", cmdutil.Show(report.Dash(name)), kindOf(c.Rows[i-1]))
		fmt.Fprint(w, report.RenderTable([]string{"Student", "Flags · worker", "Checks", "Verdict", "Standing", "Against the reference"}, rows))
	}
	notes := 0
	for _, s := range c.Rows {
		st, why := standingOf(s)
		if st == standPassed && s.Note == "" {
			continue
		}
		if notes++; notes == 1 {
			fmt.Fprintln(w, "\nNot passed, or to look at:")
		}
		if s.Note != "" {
			why = strings.TrimPrefix(why+"; "+s.Note, "; ")
		}
		fmt.Fprint(w, cmdutil.FitLines(fmt.Sprintf("  %s (%s)\n    %s\n", cmdutil.Show(s.Path), st, commands(cmdutil.Show(why)))))
	}
	if len(c.Skipped) > 0 {
		fmt.Fprintf(w, "\nSkipped %s:\n", report.Plural(len(c.Skipped), "file"))
		for _, s := range c.Skipped {
			fmt.Fprint(w, cmdutil.FitLines(fmt.Sprintf("  %s: %s\n", cmdutil.Show(s.Path), s.Reason)))
		}
	}
	named, unnamed := map[string]bool{}, 0
	for _, s := range c.Rows {
		if s.Student == "" {
			unnamed++
		} else {
			named[s.Student] = true
		}
	}
	by := report.Plural(len(named), "student")
	if unnamed > 0 {
		by += fmt.Sprintf(" (and %d naming no student)", unnamed)
	}
	fmt.Fprintf(w, "\n%s by %s: %s\n", report.Plural(len(c.Rows), "report"), by, standingCounts(c.Rows))
	switch {
	case c.Workers > 0 && c.Regraded:
		fmt.Fprintf(w, "Workers: %d handed in, each regraded in its folder (%s)\n", c.Workers, seedsOf(c.Rows))
	case c.Workers > 0:
		fmt.Fprintf(w, "Workers: %d handed in, none regraded: --regrade grades them (it runs the students' code)\n", c.Workers)
	}
	students, passed := studentsPassed(c.Rows, c.Pick)
	fmt.Fprintf(w, "Students: %d of %d passed (each scenario's %s run counts)\n", passed, students, c.Pick)
}

// flagsAndWorker is a row's flags, and the command of the worker handed
// in with it (run from its folder).
func flagsAndWorker(s submission) string {
	f := flagsOf(s.Doc)
	if !s.Doc.HasHeader {
		f = "(no report)"
	}
	if s.Worker == nil {
		return f
	}
	w := f + " · " + s.Worker.Command()
	if rg := s.Worker.Regrade; rg != nil && rg.Alone {
		w += " (regraded again alone: a wall-clock budget stopped it beside others)"
	}
	return w
}

// seedsOf says which seeds the workers were regraded with.
func seedsOf(rows []submission) string {
	seen := map[string]bool{}
	var out []string
	for _, s := range rows {
		if s.Worker == nil || s.Worker.Regrade == nil {
			continue
		}
		if w := fmt.Sprintf("%s with --seed %d", s.Worker.Day.ID, s.Worker.Regrade.Seed); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return strings.Join(out, ", ")
}

// standingWord is a row's standing as its table cell says it.
func standingWord(s submission) standing {
	st, _ := standingOf(s)
	return st
}

// writeAtomic writes content to path whole or not at all (report.WriteAtomic).
func writeAtomic(path string, content []byte) error {
	if err := report.WriteAtomic(path, content); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// referenceWord says whether a reference verified (a rerun reproduced it).
func referenceWord(r submission) string {
	switch {
	case r.Verify.Verified:
		return "verified yes"
	case r.Verify.Rerun:
		return "verified NO: differs"
	}
	return "verified NO: not rerun"
}
