package cli

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade/workerproc"
	"outboxlab/scenarios"
)

// errClassFails is returned by class when a submission fails or does not verify: exit 1.
var errClassFails = fmt.Errorf("submissions fail or do not verify: %w", cmdutil.ErrChecksFailed)

type classOptions struct {
	Reference string
	CSV       string
	JUnit     string
	Force     bool
	Pick      string
	Regrade   bool // grade the workers handed in (runs the students' code)
	Workers   regradeOptions
	Gradebook gradebookOptions
}

// outputs are the files the options ask class to write.
func (o classOptions) outputs() []output {
	return []output{{"--csv", o.CSV}, {"--junit", o.JUnit}, {"--gradebook", o.Gradebook.Path}}
}

func newClassCmd() *cobra.Command {
	var opts classOptions
	cmd := &cobra.Command{
		Use:   "class DIR --reference REF [--regrade [--sandbox]] [--csv FILE] [--junit FILE] [--force]",
		Short: "Judge a class's folder of reports: one row per student and scenario, each verified",
		Long: `Finds every report below DIR at any depth (recognised by its run-metadata
header, whatever its name; a copy with CRLF line ends, a byte-order mark or no
final newline is read as written) and lists every other file with why it was
skipped. The student is the first folder below DIR (DIR/alice/...), or, for a
report directly in DIR, the name its header records (--student). For each
report it prints one row: the student, the scenario, the flags not at their
default, the checks passed, the verdict, its standing, and how it differs
from the reference: the flags, and the checks whose result or figure is not
the reference's.

A row's standing is one of: passed (its checks held and the lab reproduced
it); failed (which checks); did not verify (the header disagrees with its
body, or rerunning the lab's own scenario with the recorded flags, checked as
that scenario's flags, does not reproduce the body); differs (the regrade of
the student's worker disagrees with the grade report handed in); not
regraded (a grade report with no worker regraded: its checks are the
student's word, so it never stands passed); copied.

Workers: a folder holding outboxlab-worker.json (exercise writes one: {"day":
"session-16", "command": ["go", "run", "."]}) is a worker the student handed
in, run from that folder; its program is one on PATH or one in the folder.
Each is compared with the shipped reference workers and every other
student's, once whitespace, comments and names are set aside: a match stands
copied, naming both and the similarity. With --regrade, class grades each
worker as grade does (the seed, variations and turn budget of the Day's
reference grade report, or --seed), --jobs at a time; a worker a wall-clock
budget stopped beside others is regraded alone once before it counts. A
regrade stands passed or failed, and differs when the grade report handed in
is not what the regrade printed. --regrade runs the students' code as you;
--sandbox runs each under bubblewrap, read-only outside its folder and the
run's. class never runs a command found in a report.

REF is a report, or a folder of reports (the newest of each scenario is its
reference); references are verified and reported apart from the students.

--csv FILE and --junit FILE write the same rows: CSV one line per report
(when it started, whether it is the run that counts, its standing and why);
JUnit XML one test suite per report, one test case per check (a check that
failed or was not exercised is a failure) and one for the standing. An
output file is never inside DIR, and never replaces a file unless --force.
--gradebook FILE writes Canvas's gradebook import: a row per student (names,
ids and sections from --roster, Canvas's export), a column per scenario (its
Canvas id from --assignment-id), 100 for a pass, the share of checks held for
a failure, blank for any other standing.

Exits 0 exactly when every student passed: each scenario they handed in
stands passed (the newest run of it, or the best with --pick best); 1 when
one did not (or no report was found); 2 when DIR, REF or a flag is not what
it should be; 3 when a rerun could not happen or an output file exists or
could not be written.`,
		Example: `  outboxlab class submissions/ --reference reports/session-16/Session-16-Retry-With-Dead-Letter-RunReport-20261130-091500.txt
  outboxlab class submissions/ --reference reference/ --csv class.csv --junit class.xml
  outboxlab class submissions/ --reference reference/ --pick best --csv class.csv --force
  outboxlab class submissions/ --reference reference/ --regrade --sandbox
  outboxlab class submissions/ --reference reference/ --gradebook grades.csv --roster canvas-export.csv`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cmdutil.Usagef("class takes one folder of reports, got %s", report.Plural(len(args), "argument"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runClass(cmd, args[0], opts) },
	}
	cmd.Flags().StringVar(&opts.Reference, "reference", "", "the reference report, or a folder of reference reports")
	cmd.Flags().StringVar(&opts.CSV, "csv", "", "also write the rows as CSV to FILE")
	cmd.Flags().StringVar(&opts.JUnit, "junit", "", "also write JUnit XML to FILE (a test case per check)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "replace output files that exist already")
	cmd.Flags().StringVar(&opts.Pick, "pick", string(pickNewest), "which of a student's runs of a scenario counts: newest or best")
	bindRegrade(cmd, &opts)
	bindGradebook(cmd, &opts.Gradebook)
	return cmd
}

// runClass is class's run: the flags checked, the folder judged, the table
// printed and the files written; the exit code is the students'.
func runClass(cmd *cobra.Command, dir string, opts classOptions) error {
	if opts.Reference == "" {
		return cmdutil.Usagef("class needs --reference REF: a report, or a folder of reports, to judge against")
	}
	if err := opts.validate(cmd); err != nil {
		return err
	}
	if err := isDir(dir); err != nil {
		return err
	}
	if err := checkOutputs(dir, opts.Force, opts.outputs()...); err != nil {
		return err
	}
	if opts.Workers.Sandbox {
		if err := workerproc.CanSandbox(); err != nil {
			return cmdutil.CannotRun(err)
		}
	}
	roster, err := readRoster(opts.Gradebook.Roster)
	if err != nil {
		return err
	}
	res, err := judgeClass(cmd.Context(), dir, opts)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	printClass(w, res, func(why string) string { return cmdutil.ForLayout(cmd, why) })
	book, notes := classGradebook(res, roster, opts.Gradebook.Assignments)
	files := map[string][]byte{"--csv": classCSV(res), "--junit": classJUnit(res), "--gradebook": book}
	for _, o := range opts.outputs() {
		if o.Path == "" {
			continue
		}
		if err := writeOutput(o, files[o.Flag], opts.Force); err != nil {
			return cmdutil.CannotRun(err)
		}
		fmt.Fprintf(w, "%-9s %s\n", strings.TrimPrefix(o.Flag, "--")+":", o.Path)
		if o.Flag == "--gradebook" {
			for _, n := range notes {
				fmt.Fprint(w, cmdutil.FitLines("  "+cmdutil.Show(n)+"\n"))
			}
		}
	}
	if !res.allPassed() {
		return errClassFails
	}
	return nil
}

// submission is one report of a class, judged.
type submission struct {
	Path     string // as found: relative to the class folder (or the reference's path)
	Student  string
	Note     string // about the student's name: the header says another
	Doc      report.Doc
	Checks   []report.Check // the body's: what the run printed
	Outcomes []string       // each check's outcome where the record says one, else ""
	Passed   bool
	Verify   verification
	RefDiff  string        // how it differs from its reference
	Worker   *handedWorker // the worker the student handed in for this Day; nil none
	Differs  string        // how this grade report differs from its worker's regrade; "" none
}

// class is a whole folder, judged.
type class struct {
	Dir        string
	References []submission
	Rows       []submission
	Skipped    []report.Skip
	Pick       pick // which of a student's runs of a scenario counts
	Workers    int  // the workers handed in (folders with a manifest)
	Regraded   bool // they were regraded (--regrade)
}

// allPassed reports whether there was a student and every student passed:
// each scenario they handed in (the run --pick counts) stands passed. The
// references are judged and reported apart: they change no exit code.
func (c class) allPassed() bool {
	students, passed := studentsPassed(c.Rows, c.Pick)
	return students > 0 && passed == students
}

func judgeClass(ctx context.Context, dir string, opts classOptions) (class, error) {
	c := class{Dir: dir, Pick: pick(opts.Pick)}
	refs, err := readReferences(ctx, opts.Reference)
	if err != nil {
		return c, err
	}
	refAbs := map[string]bool{}
	for _, r := range refs {
		abs, _ := filepath.Abs(r.Path)
		refAbs[abs] = true
	}
	found, skipped, err := report.FindReports(dir)
	if err != nil {
		return c, cmdutil.CannotRun(err)
	}
	c.Skipped = skipped
	for _, rel := range found {
		file := filepath.Join(dir, filepath.FromSlash(rel))
		if abs, _ := filepath.Abs(file); refAbs[abs] {
			continue // the reference, kept in the same folder
		}
		text, err := cmdutil.ReadReport(ctx, file, cmdutil.MaxReportSize)
		if err != nil {
			c.Skipped = append(c.Skipped, report.Skip{Path: rel, Reason: cmdutil.OneLine(err.Error())})
			continue
		}
		s, ok := judge(rel, text)
		if !ok {
			c.Skipped = append(c.Skipped, report.Skip{Path: rel, Reason: "not an outboxlab report"})
			continue
		}
		if s.Verify, err = verifyDoc(ctx, s.Doc, nil); err != nil {
			return c, err
		}
		if i := strings.Index(rel, "/"); i > 0 {
			s.Student = rel[:i]
		}
		if r := s.Doc.Info.Record; r != nil && r.Student != "" {
			if s.Student == "" {
				s.Student = r.Student
			} else if r.Student != s.Student {
				s.Note = fmt.Sprintf("its header records --student %s", cmdutil.Show(r.Student))
			}
		}
		s.RefDiff = refDifference(s, refs)
		c.Rows = append(c.Rows, s)
	}
	for i := range refs {
		if refs[i].Verify, err = verifyDoc(ctx, refs[i].Doc, nil); err != nil {
			return c, err
		}
	}
	c.References = refs
	if err := judgeWorkers(ctx, &c, opts); err != nil {
		return c, err
	}
	rank := cmdutil.Course().Rank()
	slices.SortStableFunc(c.Rows, func(a, b submission) int {
		if ra, rb := rank(scenarioOf(a)), rank(scenarioOf(b)); ra != rb {
			return ra - rb
		}
		return cmp.Or(strings.Compare(scenarioOf(a), scenarioOf(b)), strings.Compare(a.Student, b.Student))
	})
	return c, nil
}

// isDir refuses a path that is not a directory (exit 2) or cannot be looked at (exit 3).
func isDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return cmdutil.FileError("folder", dir, err)
	}
	if !fi.IsDir() {
		return cmdutil.Usagef("%s is not a directory", dir)
	}
	return nil
}

// readReferences reads REF: one report, or every report in a folder.
func readReferences(ctx context.Context, ref string) ([]submission, error) {
	fi, err := os.Stat(ref)
	if err != nil {
		return nil, cmdutil.FileError("reference", ref, err)
	}
	paths := []string{ref}
	if fi.IsDir() {
		found, _, err := report.FindReports(ref)
		if err != nil {
			return nil, cmdutil.CannotRun(err)
		}
		paths = paths[:0]
		for _, rel := range found {
			paths = append(paths, filepath.Join(ref, filepath.FromSlash(rel)))
		}
		if len(paths) == 0 {
			return nil, cmdutil.Usagef("--reference %s holds no report", ref)
		}
	}
	var refs []submission
	for _, p := range paths {
		text, err := cmdutil.ReadReport(ctx, p, cmdutil.MaxReportSize)
		if err != nil {
			return nil, err
		}
		s, ok := judge(p, text)
		if !ok || s.Doc.Info.Record == nil {
			return nil, cmdutil.Usagef("--reference %s is not an outboxlab report with a run-metadata header", p)
		}
		refs = append(refs, s)
	}
	return refs, nil
}

// judge reads one report's result from its body (what the run printed; a
// header may have been edited) and each check's outcome from its record.
func judge(rel, text string) (submission, bool) {
	doc, ok := report.Parse(text)
	if !ok || !doc.HasHeader {
		return submission{}, false
	}
	s := submission{Path: rel, Doc: doc, Checks: report.BodyChecks(doc.Body)}
	if len(s.Checks) == 1 && "FAIL  "+s.Checks[0].Name == report.NoChecks {
		s.Checks = nil
	}
	s.Passed = len(s.Checks) > 0 && report.ChecksPassed(s.Checks) == len(s.Checks)
	s.Outcomes = make([]string, len(s.Checks))
	if rec := recordOutcomes(text); len(rec) == len(s.Checks) {
		copy(s.Outcomes, rec)
	}
	return s, true
}

func scenarioOf(s submission) string {
	if r := s.Doc.Info.Record; r != nil {
		return r.Scenario
	}
	return ""
}

// kindOf is a submission's kind, from its record or the catalogue.
func kindOf(s submission) string {
	if r := s.Doc.Info.Record; r != nil && r.Kind != "" {
		return string(r.Kind)
	}
	if sc := scenarios.Lookup(scenarioOf(s)); sc != nil {
		return string(sc.Kind)
	}
	return ""
}

// relPath is a submission's path for the files class writes, with forward slashes.
func relPath(s submission) string { return path.Clean(filepath.ToSlash(s.Path)) }
