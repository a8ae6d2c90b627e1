package grade

import (
	"slices"

	"outboxlab/grade/day15"
	"outboxlab/grade/day16"
	"outboxlab/grade/day17"
	"outboxlab/grade/day18"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/poisoncounter"
)

// days are the Days grade judges, in the course's order: the one list of
// Days, which grade, exercise, verify and the workers' starters and tests
// read. A Day's ids and aliases are its own (dayspec.Day).
var days = []*dayspec.Day{day15.Day, day16.Day, day17.Day, day18.Day, poisoncounter.Day}

// Days lists the Days grade accepts, in the course's order.
func Days() []*dayspec.Day { return slices.Clone(days) }

// Lookup finds a Day by id or alias.
func Lookup(name string) *dayspec.Day {
	for _, d := range days {
		if d.ID == name || slices.Contains(d.Aliases, name) {
			return d
		}
	}
	return nil
}
