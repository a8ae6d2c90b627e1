package retry

import (
	"regexp"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

// number is a figure as a report prints it: 300000, 155.001, 2,000,000, the
// 09 of a time stamp.
var number = regexp.MustCompile(`\d+(?:,\d{3})*(?:\.\d+)?`)

// figures are the numbers a text holds, as it prints them: a detail's 4 is
// not the 004 of NTF-004.
func figures(text string) map[string]bool {
	out := map[string]bool{}
	for _, n := range number.FindAllString(text, -1) {
		out[n] = true
	}
	return out
}

// whyLines are the WHY paragraphs of a body, each joined back into one line.
func whyLines(body string) []string {
	var out []string
	lines := strings.Split(body, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "  WHY   ") {
			continue
		}
		why := lines[i]
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "        ") {
			i++
			why += " " + strings.TrimSpace(lines[i])
		}
		out = append(out, why)
	}
	return out
}

// checksStart is where a body's checks begin: what is above them is the
// run's facts (its setup, timeline and tables).
func checksStart(body string) int {
	start := len(body)
	for _, head := range []string{"\n## Checks", "\n## Safety checks", "\n## " + report.BeforeChecks} {
		if i := strings.Index(body, head); i >= 0 {
			start = min(start, i)
		}
	}
	return start
}

// Every WHY and every check's detail is computed from the facts its check
// read: each number it prints appears in the run's own setup, timeline or
// tables, at the defaults, under FailsWith and under NotExercisedWith of
// every scenario of the family, and in the runs the issue found explained
// wrongly. A WHY that prints a figure of its own making
// (a span the run never showed, a longest hold that is not the table's)
// fails here.
func TestEveryWhyNumberIsInItsRun(t *testing.T) {
	// The runs the issue found explained wrongly, besides the declared ones.
	more := map[string][][]string{
		heldBackoff:      {{"--visibility-timeout", "2m"}, {"--visibility-timeout", "2m", "--consumers", "1"}, {"--max-attempts", "2"}},
		backoffSchedules: {{"--cap", "100ms"}, {"--budget", "1s"}},
		jitterWave:       {{"--cap", "100ms"}, {"--bucket", "1h"}},
	}
	for _, s := range scenarios.All() {
		if s.Family != "retry" {
			continue
		}
		for _, args := range append([][]string{nil, s.FailsWith, s.NotExercisedWith}, more[s.Name]...) {
			t.Run(s.Name+" "+caseName(args), func(t *testing.T) {
				t.Parallel()
				r := scenariotest.Run(t, s.Name, args...)
				body := r.Body()
				facts := figures(body[:checksStart(body)])
				var texts []string
				for _, c := range r.Result().Checks {
					texts = append(texts, c.Name+" → "+c.Detail)
				}
				texts = append(texts, whyLines(body)...)
				for _, text := range texts {
					// A check's name is a constant; only what follows its arrow is computed.
					_, computed, _ := strings.Cut(text, " → ")
					if computed == "" {
						computed = text
					}
					for _, n := range number.FindAllString(computed, -1) {
						if !facts[n] {
							t.Errorf("%s prints %s, which no table or line of the run shows:\n%s", strings.TrimSpace(text), n, body)
						}
					}
				}
			})
		}
	}
}

// Every scenario of the family declares flags under which its mechanism is
// not exercised, and under them its verdict says so: no check broke, one
// demonstrating check at least was not exercised.
func TestEveryRetryScenarioHasANotExercisedRun(t *testing.T) {
	for _, s := range scenarios.All() {
		if s.Family != "retry" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			if len(s.NotExercisedWith) == 0 {
				t.Fatal("no NotExercisedWith: declare the flags under which this scenario's mechanism is not exercised")
			}
			r := scenariotest.Run(t, s.Name, s.NotExercisedWith...)
			idle := 0
			for _, c := range r.Result().Checks {
				switch {
				case c.Outcome == report.OutcomeBroken:
					t.Errorf("%s: %q broke: %s", strings.Join(s.NotExercisedWith, " "), c.Name, c.Detail)
				case c.Outcome == report.OutcomeNotExercised && c.Role == report.RoleDemonstrates:
					idle++
				}
			}
			if idle == 0 || !strings.Contains(r.Body(), "VERDICT: "+report.VerdictNotExercised) {
				t.Errorf("%s: %d checks not exercised, verdict not %s:\n%s",
					strings.Join(s.NotExercisedWith, " "), idle, report.VerdictNotExercised, r.Body())
			}
		})
	}
}
