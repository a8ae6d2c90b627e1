package governance

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// Every governance scenario passes under its defaults, fails under its
// FailsWith and is NOT EXERCISED under its NotExercisedWith, with no check
// broken there; and in each of those runs every WHY is computed from the
// facts its check read: every number in a check's detail appears in the
// run's own body outside its checks and verdict (its setup, timeline,
// tables and rows).
func TestGovernanceRolesAndWhys(t *testing.T) {
	t.Parallel()
	for _, name := range names {
		s := scenarios.Lookup(name)
		if len(s.NotExercisedWith) == 0 {
			t.Errorf("%s declares no NotExercisedWith", name)
		}
		runs := []struct {
			label string
			args  []string
		}{{"defaults", nil}, {"FailsWith", s.FailsWith}, {"NotExercisedWith", s.NotExercisedWith}}
		for _, run := range runs {
			t.Run(name+" "+run.label, func(t *testing.T) {
				t.Parallel()
				rep := scenariotest.Run(t, name, run.args...)
				res := rep.Result()
				switch run.label {
				case "defaults":
					if !res.Passed {
						t.Errorf("verdict %q under the defaults, want a pass", res.Verdict)
					}
				case "FailsWith":
					if res.Passed {
						t.Errorf("%v: verdict %q, want the checks to fail", run.args, res.Verdict)
					}
				case "NotExercisedWith":
					if !strings.HasPrefix(res.Verdict, report.VerdictNotExercised) {
						t.Errorf("%v: verdict %q, want %s", run.args, res.Verdict, report.VerdictNotExercised)
					}
					for _, c := range res.Checks {
						if c.Outcome == report.OutcomeBroken {
							t.Errorf("%v: %q broke (%s) in a run that exercised nothing", run.args, c.Name, c.Detail)
						}
					}
				}
				WhysFromTheRun(t, rep)
			})
		}
	}
}

// number is a figure in a WHY: digits, with the separators of a time or a
// decimal ("09:00:15.004", "2.5").
var number = regexp.MustCompile(`\d+(?:[.:]\d+)*`)

// WhysFromTheRun fails for every number in a check's detail that the
// report's body does not show outside its checks and its verdict.
func WhysFromTheRun(t *testing.T, rep *report.Report) {
	t.Helper()
	facts := factsOf(rep.Body())
	for _, c := range rep.Result().Checks {
		for _, n := range number.FindAllString(c.Detail, -1) {
			if !strings.Contains(facts, n) {
				t.Errorf("check %q: %s is in its WHY (%s) but nowhere in the run's tables or rows", c.Name, n, c.Detail)
			}
		}
	}
}

// factsOf is a report body without its check and verdict sections.
func factsOf(body string) string {
	var b strings.Builder
	for i, sec := range strings.Split(body, "\n## ") {
		title, _, _ := strings.Cut(sec, "\n")
		if i > 0 && (strings.HasPrefix(title, "Checks") || strings.HasPrefix(title, "Safety checks") ||
			strings.HasPrefix(title, "Invariants") || strings.HasPrefix(title, "Verdict")) {
			continue
		}
		b.WriteString(sec)
		b.WriteByte('\n')
	}
	return b.String()
}
