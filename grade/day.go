package grade

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"
)

// The Day registry: what a Day declares (its defaults, variations, faults,
// checks and setup), and the Days grade accepts.

// faultAction is what a Day's fault does to a provider call.
type faultAction struct {
	kill     bool
	answered bool          // the provider answers before the kill: the call was in flight
	stall    time.Duration // hold the answer this long (scenario time)
	why      string
}

// Day is one Day grade can judge.
type Day struct {
	ID       string   // session-16
	Aliases  []string // day16
	EnvDay   string   // OUTBOXLAB_DAY
	Number   int      // the course Day, for the report's folder; 0 for an experiment
	Family   string   // the report's folder when Number is 0
	Title    string
	Summary  string
	defaults variation
	vary     func(rng *rand.Rand, label string) variation
	fault    func(r *run, s *slot, key string, id int64) faultAction
	restarts func(v variation) int
	judge    func(j *judge)
	describe func(v variation) []string // the setup lines of a variation

	design int                                     // the store's Day (16 unless set)
	role   string                                  // OUTBOXLAB_ROLE ("worker" unless set)
	env    func(v variation) [][2]string           // more OUTBOXLAB_ variables
	setup  func(ctx context.Context, r *run) error // builds the start state after seeding
}

func (d *Day) restartLimit(v variation) int {
	if d.restarts == nil {
		return 0
	}
	return d.restarts(v)
}

// ScenarioName is the name a grade's report is filed under: grade-session-16.
func (d *Day) ScenarioName() string { return "grade-" + d.ID }

var days []*Day

// Days lists the Days grade accepts, in the course's order.
func Days() []*Day { return slices.Clone(days) }

// Lookup finds a Day by id or alias.
func Lookup(name string) *Day {
	for _, d := range days {
		if d.ID == name || slices.Contains(d.Aliases, name) {
			return d
		}
	}
	return nil
}
