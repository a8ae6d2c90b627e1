package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// A verification is what verify (and class) found of one report: whether
// rerunning what its header records reproduces its body, and if not, why.
type verification struct {
	Verified bool
	Reason   string // the first difference, or why it could not be rerun; "" when verified
	Rerun    bool   // the lab reran the run (false: refused before running)
}

// maxParamValue is the longest recorded flag value a rerun accepts: the
// lab's own flags are numbers, durations, keys and short lists.
const maxParamValue = 4096

// GradeRerun reruns the run a `grade` report records, with the student's
// worker given again (`verify REPORT --worker -- CMD`), and returns the
// rerun's comparable body. It is nil until the grade command provides it
// (grade's init sets it): without it, a grade report cannot be verified.
// verify never runs a command found in a report; the worker comes from the
// person verifying, on their command line.
var GradeRerun func(ctx context.Context, doc report.Doc, worker []string) (body string, err error)

// notRerunnable is GradeRerun's error for a report whose header records a
// run it will not rerun (not a Day grade judges, a flag grade does not
// have): the report does not verify (exit 1), it is not a failed rerun.
type notRerunnable string

func (n notRerunnable) Error() string { return string(n) }

// isGradeReport reports whether doc was written by `outboxlab grade`: its
// header's command names grade. Its body depends on a student's worker,
// which the report names but verify must never run from there.
func isGradeReport(doc report.Doc) bool { return report.GradeReport(doc.Info) }

// verifyDoc checks doc against a rerun of what its header records: first
// that the header agrees with its own body, then that the lab's scenario,
// rerun on SQLite with the recorded parameters and presentation flags,
// prints the same comparable body. worker is the command given with
// --worker (a grade report's), nil otherwise. An error is a rerun that
// could not happen (exit 3); a report that does not verify is not an error.
func verifyDoc(ctx context.Context, doc report.Doc, worker []string) (verification, error) {
	r := doc.Info.Record
	switch {
	case !doc.HasHeader:
		return refused("a body without its run-metadata header records no scenario or flags to rerun"), nil
	case r == nil:
		return refused("its header records no scenario and flags (an older report)"), nil
	}
	if d := report.Disagreements(doc); len(d) > 0 {
		return refused("its header disagrees with its own body: " + d[0]), nil
	}
	var (
		body string
		err  error
	)
	if isGradeReport(doc) {
		switch {
		case worker == nil:
			return refused("a grade report cannot be rerun without --worker " +
				"(outboxlab verify REPORT --worker -- CMD): verify never runs a command found in a report"), nil
		case GradeRerun == nil:
			return refused("a grade report, and this lab has no grade command to rerun it with"), nil
		}
		body, err = GradeRerun(ctx, doc, worker)
		var not notRerunnable
		if errors.As(err, &not) {
			return refused(string(not) + versionNote(r)), nil
		}
	} else {
		s := scenarios.Lookup(r.Scenario)
		if s == nil || s.Name != r.Scenario {
			return refused(fmt.Sprintf("%s is not a scenario of outboxlab %s%s", cmdutil.Show(r.Scenario), cmdutil.Version, versionNote(r))), nil
		}
		opts, why := recordedOptions(s, r)
		if why != "" {
			return refused(why + versionNote(r)), nil
		}
		body, err = rerunBody(ctx, s, opts, r.Shown, r.Params)
	}
	if err != nil {
		return verification{}, err
	}
	if body == doc.Body {
		return verification{Verified: true, Rerun: true}, nil
	}
	if r.Version != cmdutil.Version {
		// Another lab version writes its reports differently: a difference
		// found line by line would blame the report for the lab's change.
		return verification{Rerun: true, Reason: otherVersion(doc)}, nil
	}
	return verification{Rerun: true, Reason: firstDifference(doc.Body, body)}, nil
}

func refused(why string) verification { return verification{Reason: why} }

// otherVersion is why a report made by another lab version does not
// verify, in one line: both versions, and the run to make again with this
// one.
func otherVersion(doc report.Doc) string {
	again := "make it again with this lab: " + report.LabName + " " + runName(doc)
	if isGradeReport(doc) {
		again = "grade the worker again with this lab"
	}
	return fmt.Sprintf("the report was made by outboxlab %s, and outboxlab %s writes this run differently: %s",
		cmdutil.Show(doc.Info.Record.Version), cmdutil.Version, again)
}

// versionNote names the lab version that wrote a report, when it is not this one.
func versionNote(r *report.Record) string {
	if r.Version == cmdutil.Version {
		return ""
	}
	return fmt.Sprintf(" (the report was made by outboxlab %s, this is outboxlab %s)", cmdutil.Show(r.Version), cmdutil.Version)
}

// recordedOptions binds s's flags afresh and sets them to the values r
// records, as a command line would, after checking that each is one of the
// scenario's own parameters (never a common flag: no --report-dir, no
// --database) and a value its flag accepts. why says what was refused.
func recordedOptions(s *scenarios.Scenario, r *report.Record) (scenarios.Options, string) {
	fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
	opts := s.Bind(fs)
	defaults := map[string]string{}
	for _, p := range scenarioParams(fs) {
		defaults[p.Name] = p.Value
	}
	for _, p := range r.Params {
		_, own := defaults[p.Name]
		switch {
		case notParameters[p.Name] || !own:
			return nil, fmt.Sprintf("the header records --%s, which is not a parameter of %s", cmdutil.Show(p.Name), s.Name)
		case len(p.Value) > maxParamValue || strings.IndexFunc(p.Value, cmdutil.UnsafeRune) >= 0:
			return nil, fmt.Sprintf("the header records a value of --%s no flag accepts", p.Name)
		case p.Value == defaults[p.Name]:
			continue
		}
		if err := fs.Set(p.Name, p.Value); err != nil {
			return nil, fmt.Sprintf("the header records --%s=%s, which the flag refuses: %v", p.Name, cmdutil.Show(p.Value), err)
		}
	}
	if err := opts.Validate(); err != nil {
		return nil, "the recorded flags are refused: " + err.Error()
	}
	if v, ok := opts.(scenarios.BackendValidator); ok {
		if err := v.ValidateOn("sqlite"); err != nil {
			return nil, "the recorded flags are refused on SQLite: " + err.Error()
		}
	}
	return opts, ""
}

// rerunBody runs s with opts on a temporary SQLite file, as a run with the
// presentation flags shown would, and returns its comparable body. Bodies
// are the same on SQLite and PostgreSQL, so a run made on either verifies
// here.
func rerunBody(ctx context.Context, s *scenarios.Scenario, opts scenarios.Options, shown []string, params []report.Param) (string, error) {
	cmdutil.SweepRunDirs()
	tmp, err := cmdutil.MakeRunDir(s.Name)
	if err != nil {
		return "", cmdutil.CannotRun(err)
	}
	defer os.RemoveAll(tmp)
	env := scenarios.NewEnv(tmp)
	env.Verbose = slices.Contains(shown, "--verbose")
	rep, err := runGuarded(ctx, s, opts, env, params)
	if ctx.Err() != nil {
		return "", cmdutil.CannotRun(fmt.Errorf("rerun of %s interrupted", s.Name))
	}
	if err != nil {
		return "", cmdutil.CannotRun(fmt.Errorf("rerun %s: %w", s.Name, err))
	}
	if !slices.Contains(shown, "--schema") {
		rep.DropSection(report.SchemaTitle)
	}
	return report.Comparable(rep.Body()), nil
}

// firstDifference names the first line where the report's body and the
// rerun's differ: its number, its section, and both texts.
func firstDifference(reported, rerun string) string {
	a, b := strings.Split(reported, "\n"), strings.Split(rerun, "\n")
	section := "the top"
	for i := 0; i < max(len(a), len(b)); i++ {
		la, lb := lineAt(a, i), lineAt(b, i)
		if la == lb {
			if t, ok := strings.CutPrefix(la, "## "); ok {
				section = t
			}
			continue
		}
		from := differAt(la, lb)
		return fmt.Sprintf("body line %d (under %s): the report reads %s, the rerun %s",
			i+1, cmdutil.Show(section), quoteLine(la, from, i < len(a)), quoteLine(lb, from, i < len(b)))
	}
	return "the bodies differ"
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// differAt is the rune index where a and b first differ.
func differAt(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	return i
}

// quoteLine quotes a line for a one-line message: the part around rune
// from, where it differs from the other line, or says it is missing.
func quoteLine(l string, from int, present bool) string {
	if !present {
		return "nothing (the body ends)"
	}
	r := []rune(l)
	start := max(0, from-24)
	text := string(r[start:])
	if start > 0 {
		text = "…" + text
	}
	return fmt.Sprintf("%q", cmdutil.Cut(text, 56))
}
