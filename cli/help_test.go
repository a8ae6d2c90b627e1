package cli

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/scenarios"
)

// TestEveryScenarioTeaches holds every scenario to what its --help promises a
// student: a description of what the run shows, and two or three examples
// with flags that change the story.
func TestEveryScenarioTeaches(t *testing.T) {
	for _, s := range scenarios.All() {
		if len(s.Long) < 200 {
			t.Errorf("%s: Long is %d characters; say what the run shows", s.Name, len(s.Long))
		}
		if s.Summary == "" || strings.Contains(s.Summary, "\n") {
			t.Errorf("%s: Summary must be one line", s.Name)
		}
		examples, withFlags := 0, 0
		for _, line := range strings.Split(s.Example, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "outboxlab ") {
				examples++
				if strings.Contains(line, " --") {
					withFlags++
				}
			}
		}
		if examples < 2 || withFlags < 1 {
			t.Errorf("%s: %d examples, %d with flags; want 2-3 examples, at least one changing a flag", s.Name, examples, withFlags)
		}
		fails := ": the checks fail, exit 1\n  outboxlab " + s.Name + " " + strings.Join(s.FailsWith, " ")
		idle := notExercisedExample + "\n  outboxlab " + s.Name + " " + strings.Join(s.NotExercisedWith, " ")
		if slices.Equal(s.FailsWith, s.NotExercisedWith) {
			// A BEFORE that fails only by not being exercised shows that once.
			fails = idle
		}
		if len(s.FailsWith) > 0 && !strings.HasSuffix(scenarioExample(s), fails) {
			t.Errorf("%s: --help does not show the flags that make its checks fail", s.Name)
		}
		if len(s.NotExercisedWith) > 0 && !strings.Contains(scenarioExample(s), idle) {
			t.Errorf("%s: --help does not show the flags under which nothing is exercised", s.Name)
		}
		if s.Pair != "" {
			p := scenarios.Lookup(s.Pair)
			if p == nil || p.Pair != s.Name {
				t.Errorf("%s pairs with %s, which does not pair back", s.Name, s.Pair)
			}
		}
	}
}
