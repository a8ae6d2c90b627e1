package cli

import (
	"bytes"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// runCode runs the lab in-process with args and no report, and returns its
// exit code and what it wrote to stderr.
func runCode(args ...string) (int, string) {
	code, _, stderr := runOutput(args...)
	return code, stderr
}

// runOutput is runCode with what the run printed on stdout too.
func runOutput(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(append(args, "--no-report"), &out, &errb)
	return code, out.String(), errb.String()
}

// TestEveryScenarioCanFail runs every scenario with the flags it declares
// make its checks fail, and requires exit 1: a scenario whose checks cannot
// fail proves nothing, so one without FailsWith fails this test.
func TestEveryScenarioCanFail(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			if len(s.FailsWith) == 0 {
				t.Fatal("no FailsWith: declare the flags under which this scenario's checks fail")
			}
			if run := runJudged(t, s, s.FailsWith...); run.code != cmdutil.ExitChecksFailed {
				t.Errorf("%s %s: exit %d, want %d; verdict %s", s.Name, strings.Join(s.FailsWith, " "), run.code, cmdutil.ExitChecksFailed, run.res.Verdict)
			}
		})
	}
}

// TestFlagExtremesRun drives every scenario's declared limits
// (scenariotest.Extremes): each at its minimum and maximum, all together,
// one step beyond each. Each run is shown on an 80-column terminal, and
// what it prints must fit there; the report body it writes must fit 100.
func TestFlagExtremesRun(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			scenariotest.ExtremesAt(t, s, func(args ...string) (int, string, string) {
				j := judgedRunOf(s, args[1:]...)
				if j.err != "" {
					t.Error(j.err)
				}
				if j.run.reported {
					scenariotest.Fits(t, strings.Join(args, " ")+" report body", j.run.fullBody)
				}
				return j.run.code, j.run.stdout, j.run.stderr
			}, 80)
		})
	}
}
