package wassal

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// detailFigure is a number as a check's detail states it: a key (PAY-004), a
// scenario time (09:00:00.201Z), or a plain number (10, 200, 1.5).
var detailFigure = regexp.MustCompile(`[A-Z]+-\d+|\d{2}:\d{2}:\d{2}\.\d{3}Z|\d+(?:\.\d+)?`)

// facts is the part of a report a check's detail must be read from: the
// setup, the timeline, the tables and the ledgers, everything before the
// checks, with the ledgers in full (--verbose).
func facts(body string) string {
	end := len(body)
	for _, h := range []string{"\n## " + report.BeforeChecks, "\n## Safety checks", "\n## Verdict"} {
		if i := strings.Index(body, h); i >= 0 && i < end {
			end = i
		}
	}
	return body[:end]
}

// stated reports whether n appears in text as a figure of its own: not
// inside a longer number (3 is not in 300, nor in PAY-003).
func stated(text, n string) bool {
	re := regexp.MustCompile(`(^|[^0-9A-Za-z-])` + regexp.QuoteMeta(n) + `([^0-9]|$)`)
	if strings.Contains(n, "-") || strings.HasSuffix(n, "Z") {
		re = regexp.MustCompile(regexp.QuoteMeta(n))
	}
	return re.MatchString(text)
}

// Every number in a check's detail (its WHY) is one its run shows: in the
// setup, the timeline, the per-message table, the metrics or the ledgers of
// that same run. A detail that states a figure the run does not show was not
// read from the run. Days 13-16, at their defaults, FailsWith and
// NotExercisedWith.
func TestEveryWhyStatesOnlyItsRunsFigures(t *testing.T) {
	t.Parallel()
	for _, s := range wassalScenarios(t) {
		if s.Day == 17 {
			continue
		}
		for _, args := range append([][]string{nil, s.FailsWith, s.NotExercisedWith}, moreWhys[s.Name]...) {
			t.Run(s.Name+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				rep := runVerbose(t, s, args...)
				shown := facts(rep.Body())
				for _, c := range rep.Result().Checks {
					for _, n := range detailFigure.FindAllString(c.Detail, -1) {
						if !stated(shown, n) {
							t.Errorf("check %q states %s, which its run does not show: %q", c.Name, n, c.Detail)
						}
					}
				}
			})
		}
	}
}

// moreWhys are flags under which a check explains itself in words of its
// own: a breaking flag, a second reason not exercised, a transient failure.
var moreWhys = map[string][][]string{
	session14Before: {{"--crash-at", "PAY-003"}},
	session15After:  {{"--lease", "1m"}},
	session16Before: {{"--batch", "1"}, {"--poison-key", "none"}, {"--batch", "1", "--poison-key", "PAY-006"},
		{"--flaky-key", "PAY-004:2"}},
	session16After: {{"--base-backoff", "0s"}, {"--flaky-key", "PAY-004:2", "--max-attempts", "2"}, {"--max-attempts", "1"},
		{"--batch", "1", "--base-backoff", "0s", "--dead-letter=false"}, {"--max-attempts", "30"}},
}

// runVerbose runs a scenario with the ledgers in full.
func runVerbose(t *testing.T, s *scenarios.Scenario, args ...string) *report.Report {
	t.Helper()
	o := scenariotest.Bind(t, s.Name, args...)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	env := scenarios.NewEnv(t.TempDir())
	env.Verbose = true
	r, err := o.Run(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The rule above can fail: a figure the run never shows (the 401 ms between
// the AFTER's second and third calls, which no table prints) is caught, and
// the checks' own lines do not count as showing it.
func TestWhyRuleCatchesAFigureTheRunDoesNotShow(t *testing.T) {
	t.Parallel()
	rep := runVerbose(t, scenarios.Lookup(session16After))
	shown := facts(rep.Body())
	for n, want := range map[string]bool{"200": true, "400": true, "09:00:00.602Z": true, "PAY-006": true,
		"401": false, "3": true, "PAY-007": false, "09:00:00.603Z": false} {
		if got := stated(shown, n); got != want {
			t.Errorf("stated(%s) = %v, want %v", n, got, want)
		}
	}
	if strings.Contains(shown, "PASS  ") || strings.Contains(shown, "VERDICT") {
		t.Error("the facts include the checks or the verdict")
	}
}
