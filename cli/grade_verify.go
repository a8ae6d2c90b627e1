package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/grade"
)

// verify reruns a grade report through rerunGrade (see GradeRerun).
func init() { GradeRerun = rerunGrade }

// rerunGrade reruns the Day, seed and variations a grade report records,
// with the worker given on verify's own command line (--worker), never a
// command found in the report, and returns the rerun's comparable body.
func rerunGrade(ctx context.Context, doc report.Doc, worker []string) (string, error) {
	r := doc.Info.Record
	day := grade.Lookup(strings.TrimPrefix(r.Scenario, "grade-"))
	if day == nil || day.ScenarioName() != r.Scenario {
		return "", notRerunnable(fmt.Sprintf("its header names grade, but %s is not a Day this lab's grade judges", cmdutil.Show(r.Scenario)))
	}
	opts := &grade.Options{Day: day, Command: worker, Stderr: io.Discard}
	var seed int64
	fs := pflag.NewFlagSet("grade", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindGradeParams(fs, opts, &seed)
	for _, p := range r.Params {
		if fs.Lookup(p.Name) == nil || len(p.Value) > maxParamValue {
			return "", notRerunnable(fmt.Sprintf("the header records --%s, which is not a parameter of grade", cmdutil.Show(p.Name)))
		}
		if err := fs.Set(p.Name, p.Value); err != nil {
			return "", notRerunnable(fmt.Sprintf("the header records --%s=%s, which grade refuses: %v", p.Name, cmdutil.Show(p.Value), err))
		}
	}
	if seed < 0 {
		return "", notRerunnable(fmt.Sprintf("the header records --seed %d, below 0", seed))
	}
	opts.Seed = uint64(seed)
	if err := opts.Validate(); err != nil {
		return "", notRerunnable("the recorded grade flags are refused: " + err.Error())
	}
	return rerunBody(ctx, day.Scenario(), opts, r.Shown, nil)
}
