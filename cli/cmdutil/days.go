package cmdutil

import (
	"fmt"
	"strings"

	"outboxlab/grade"
	"outboxlab/grade/dayspec"
	"outboxlab/scenarios"
	"outboxlab/workers"
)

// LookupDay finds a Day by id or alias; an unknown one is a usage error with suggestions.
func LookupDay(name string) (*dayspec.Day, error) {
	if d := grade.Lookup(name); d != nil {
		return d, nil
	}
	var names []string
	for _, d := range grade.Days() {
		names = append(names, d.ID)
		names = append(names, d.Aliases...)
	}
	return nil, Usagef("unknown day %q: grade accepts %s%s", name, strings.Join(names, ", "),
		DidYouMean("", Closest(name, names)))
}

// WorkerDay is the Day exercise writes a starting worker for and grade
// judges, for scenario s (its Day's, or its own: poison-counter), or "".
func WorkerDay(s *scenarios.Scenario) string {
	for _, id := range workers.Days() {
		if id == s.Name || (s.Day > 0 && id == fmt.Sprintf("session-%d", s.Day)) {
			return id
		}
	}
	return ""
}
