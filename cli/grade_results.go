package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade"
	"outboxlab/grade/results"
)

// resultsOptions are grade's flags for a grader's results file.
type resultsOptions struct {
	Path, Format string
	Force        bool
}

// notRecorded are grade's flags that say where its results go, not what
// runs: its report does not record them, and verify does not set them.
var notRecorded = map[string]bool{"full": true, "results": true, "results-format": true, "force": true}

func bindResults(cmd *cobra.Command, o *resultsOptions) {
	f := cmd.Flags()
	f.StringVar(&o.Path, "results", "", "also write the results for a grader to FILE (--results-format); exit 0 whenever grading ran")
	f.StringVar(&o.Format, "results-format", "", "the results file's format: "+strings.Join(results.Formats, ", "))
	f.BoolVar(&o.Force, "force", false, "replace a results file that exists already")
}

// check refuses results flags that cannot work, before anything runs.
func (o resultsOptions) check() error {
	switch {
	case o.Path == "" && o.Format != "":
		return cmdutil.Usagef("--results-format says the format of --results FILE: give --results too")
	case o.Path == "":
		return nil
	case o.Format == "":
		return cmdutil.Usagef("--results %s needs --results-format: %s", o.Path, strings.Join(results.Formats, ", "))
	case !results.Known(o.Format):
		return cmdutil.Usagef("--results-format %s: want %s", cmdutil.Show(o.Format), strings.Join(results.Formats, ", "))
	}
	return checkOutputs("", o.Force, output{"--results", o.Path})
}

// writeResults writes the grade's results file, when asked for one.
func writeResults(cmd *cobra.Command, o resultsOptions, opts *grade.Options, res report.Result) error {
	if o.Path == "" {
		return nil
	}
	r := results.Results{Day: opts.Day.ID, Title: "Grade — " + opts.Day.Title, Seed: opts.Seed, Verdict: "VERDICT: " + res.Verdict}
	for _, c := range res.Checks {
		r.Checks = append(r.Checks, results.Check{Name: c.Name, Detail: c.Detail, Passed: c.Passed,
			NotExercised: c.Outcome == report.OutcomeNotExercised})
	}
	if sum := opts.Summary(); sum != nil {
		r.Output = sum.Output
	}
	data, err := results.Write(o.Format, r)
	if err != nil {
		return cmdutil.CannotRun(err)
	}
	if err := writeOutput(output{"--results", o.Path}, data, o.Force); err != nil {
		return cmdutil.CannotRun(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "results:  %s (%s)\n", o.Path, o.Format)
	return nil
}
