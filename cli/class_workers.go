package cli

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/spf13/cobra"

	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade/dayspec"
	"outboxlab/internal/invocation"
	"outboxlab/workers"
)

// A handedWorker is a worker a student handed in: a folder of the class
// holding a manifest (workers.ManifestFile), which says its Day and the
// command that runs it from the folder.
type handedWorker struct {
	Student string
	Folder  string // relative to the class folder, with forward slashes
	Abs     string // the folder, absolute
	Day     *dayspec.Day
	Argv    []string
	Copied  string    // the worker it matches, named, with the score; "" none
	Regrade *regraded // nil: not regraded
}

// Command is the worker's command as a shell would take it, from its folder.
func (w *handedWorker) Command() string {
	words := make([]string, len(w.Argv))
	for i, a := range w.Argv {
		words[i] = invocation.Quote(a)
	}
	return "(cd " + invocation.Quote(w.Folder) + " && " + strings.Join(words, " ") + ")"
}

// A regraded is the lab's own grade of a handed-in worker.
type regraded struct {
	Seed       uint64
	Variations int
	Body       string // the comparable body
	Checks     []report.Check
	Passed     bool
	Alone      bool   // graded again alone after a wall-clock budget stopped it beside others
	Err        string // why it could not be graded (a build that failed): it stands failed
}

// findWorkers finds every manifest below dir; a manifest class cannot use
// is listed as skipped, with why. The student is the first folder below dir.
func findWorkers(dir string) (found []*handedWorker, skipped []report.Skip, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // FindReports lists what cannot be read
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor" ||
				strings.Count(rel, "/") >= 8) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != workers.ManifestFile {
			return nil
		}
		if !d.Type().IsRegular() {
			skipped = append(skipped, report.Skip{Path: rel, Reason: "a worker manifest that is not a regular file"})
			return nil
		}
		student, _, ok := strings.Cut(rel, "/")
		if !ok {
			skipped = append(skipped, report.Skip{Path: rel, Reason: "a worker manifest directly in the class folder: whose is it? (one folder per student)"})
			return nil
		}
		m, err := workers.ReadManifest(p)
		if err != nil {
			why := strings.TrimPrefix(cmdutil.OneLine(err.Error()), workers.ManifestFile+": ")
			skipped = append(skipped, report.Skip{Path: rel, Reason: "a worker manifest class will not run: " + why})
			return nil
		}
		abs, err := filepath.Abs(filepath.Dir(p))
		if err != nil {
			return err
		}
		d2, _ := cmdutil.LookupDay(m.Day)
		found = append(found, &handedWorker{Student: student, Folder: path.Dir(rel), Abs: abs, Day: d2, Argv: m.Command})
		return nil
	})
	return found, skipped, err
}

// attachWorkers gives each worker to its student's grade reports of its
// Day, and adds a row for a worker handed in without one.
func attachWorkers(c *class, found []*handedWorker) {
	for _, w := range found {
		attached := false
		for i := range c.Rows {
			s := &c.Rows[i]
			if s.Student == w.Student && isGradeReport(s.Doc) && scenarioOf(*s) == w.Day.ScenarioName() {
				s.Worker, attached = w, true
			}
		}
		if !attached {
			row := workerRow(w)
			row.RefDiff = refDifference(row, c.References)
			c.Rows = append(c.Rows, row)
		}
	}
}

// workerRow is the row of a worker handed in without a grade report.
func workerRow(w *handedWorker) submission {
	rec := &report.Record{Scenario: w.Day.ScenarioName(), Kind: report.After}
	s := submission{Path: w.Folder + "/", Student: w.Student, Worker: w,
		Doc: report.Doc{Info: report.Info{Record: rec, Command: "outboxlab grade " + w.Day.ID}}}
	if rg := w.Regrade; rg != nil && rg.Err == "" {
		// What the row shows is the regrade's.
		s.Doc.Body, s.Checks, s.Passed = rg.Body, rg.Checks, rg.Passed
		s.Outcomes = make([]string, len(rg.Checks))
	}
	return s
}

// copiedNote says what a worker's row shows about copying.
func copiedNote(name string, score float64) string {
	return fmt.Sprintf("matches %s (similarity %.2f once whitespace, comments and names are set aside)", name, score)
}

// bindRegrade registers class's flags for the workers handed in.
func bindRegrade(cmd *cobra.Command, opts *classOptions) {
	f := cmd.Flags()
	f.BoolVar(&opts.Regrade, "regrade", false, "grade each worker handed in (a folder with "+workers.ManifestFile+"): runs the students' code")
	f.Int64Var(&opts.Workers.Seed, "seed", -1, "regrade with this seed (default: each Day's reference grade report's, else grade's)")
	f.BoolVar(&opts.Workers.Sandbox, "sandbox", false, "regrade each worker under bubblewrap: read-only outside its folder and the run's (Linux)")
	f.IntVar(&opts.Workers.Jobs, "jobs", runtime.NumCPU(), "workers regraded at once [1..64]")
}

// validate checks class's flags before anything is read or run.
func (o classOptions) validate(cmd *cobra.Command) error {
	switch p := pick(o.Pick); {
	case p != pickNewest && p != pickBest:
		return cmdutil.Usagef("--pick %s: want newest or best", cmdutil.Show(o.Pick))
	case o.Workers.Jobs < 1 || o.Workers.Jobs > 64:
		return cmdutil.Usagef("--jobs %d: want 1 to 64", o.Workers.Jobs)
	case o.Workers.Seed < -1 || cmd.Flags().Changed("seed") && o.Workers.Seed < 0:
		return cmdutil.Usagef("--seed %d: want 0 or more", o.Workers.Seed)
	case !o.Regrade && (cmd.Flags().Changed("seed") || o.Workers.Sandbox || cmd.Flags().Changed("jobs")):
		return cmdutil.Usagef("--seed, --sandbox and --jobs say how to regrade: give --regrade too")
	}
	return nil
}

// judgeWorkers finds the workers handed in, gives each to its student's
// grade reports of its Day (or a row of its own), looks for copies, and
// with --regrade grades them and compares each report handed in with its
// worker's grade. The files of a worker's folder are its, not skipped
// reports: they are not listed.
func judgeWorkers(ctx context.Context, c *class, opts classOptions) error {
	found, skipped, err := findWorkers(c.Dir)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	c.Workers = len(found)
	c.Skipped = slices.DeleteFunc(c.Skipped, func(s report.Skip) bool {
		return path.Base(s.Path) == workers.ManifestFile ||
			slices.ContainsFunc(found, func(w *handedWorker) bool { return strings.HasPrefix(s.Path, w.Folder+"/") })
	})
	c.Skipped = append(c.Skipped, skipped...)
	if len(found) == 0 {
		return nil
	}
	if err := findCopies(found); err != nil {
		return cmdutil.CannotRun(err)
	}
	if opts.Regrade {
		if err := regradeAll(ctx, found, c.References, opts.Workers); err != nil {
			return err
		}
		c.Regraded = true
	}
	attachWorkers(c, found)
	compareHandedIn(c.Rows)
	return nil
}
