// Package dayspec declares what a Day that grade judges is: its names (the
// one table of its ids and aliases, which grade, exercise and the workers'
// starters read), its parameters — a Policy every Day has and the Day's own
// — and what it does with them: its faults, its setup, its checks. Each Day
// is a value of a package of its own (grade/day16, …).
package dayspec

import (
	"context"
	"math/rand/v2"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
	"outboxlab/scenarios"
	"outboxlab/scenarios/wassal"
)

// Day is one Day grade can judge.
type Day struct {
	ID      string   // session-16
	Aliases []string // day16
	EnvDay  string   // OUTBOXLAB_DAY
	Number  int      // the course Day, for the report's folder; 0 for an experiment
	Family  string   // the report's folder when Number is 0
	Title   string
	Summary string
	// Starter is the folder of the Day's starting worker under
	// workers/_starter, and its go.mod's module name ("": none).
	Starter string

	Design int    // the store's Day (wassal.Day): 16, or 17 with its audit log
	Role   string // OUTBOXLAB_ROLE ("worker" unless set)
	// Tables are the Day's own tables beside Payments and OutboxMessages:
	// the change log records them; one with a Show is read back after the
	// run and shown after the Payments table.
	Tables []Table
	// MayAsk, when set, lets a worker ask the provider about message id
	// besides the ones it claimed (Day 17: the entries its redrive released).
	MayAsk func(changes []changelog.Change, id int64) bool

	Defaults Variation // the course's numbers
	// CourseRun says that Defaults is the course's own run, figure for
	// figure (Day 16's: 8 status checks, 3 failed, 8 claims); the report
	// calls its first run so.
	CourseRun bool
	Vary      func(*rand.Rand) Variation // another variation, drawn from the seed
}

// Table is one of a Day's own tables.
type Table struct {
	Name string
	// Show writes the table's rows, read back after the run, into the
	// report; nil: the table is not shown.
	Show func(rep *report.Report, rows []changelog.Row)
}

// ScenarioName is the name a grade's report is filed under: grade-session-16.
func (d *Day) ScenarioName() string { return "grade-" + d.ID }

// Scenario is the grade's entry as the registry knows a scenario: its
// name, and the folder its reports go to.
func (d *Day) Scenario() *scenarios.Scenario {
	return &scenarios.Scenario{Name: d.ScenarioName(), Family: d.Family, Day: d.Number, Kind: report.After}
}

// Policy is what every variation of every Day sets: the payments seeded,
// the key the provider declines, and the numbers a worker gets in its
// environment (docs/grade-protocol.md section 2). A Day's variation type
// embeds it; its methods are what a Day with no fault, setup or
// environment of its own does.
type Policy struct {
	Payments    int
	Declined    string
	MaxAttempts int
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	Lease       time.Duration
	Batch       int
	Workers     int
}

// Variation is one set of a Day's parameters, its Policy and the Day's own
// (its keys, its faults), with what the Day does with them.
type Variation interface {
	// Common is the variation's Policy.
	Common() Policy
	// Describe is the variation's setup lines in the report.
	Describe() []string
	// Provider is the provider, scripted for the variation.
	Provider() *provider.Provider
	// Env are the OUTBOXLAB_ variables the Day adds to section 2's.
	Env() [][2]string
	// Fault is what the Day's fault does to the n-th provider call for a
	// message with key; fired are the faults that have happened.
	Fault(key string, n int, fired map[string]bool) sched.Fault
	// Restarts is how many times the lab starts again a worker its fault killed.
	Restarts() int
	// Setup builds the start state after seeding; it may return the lab's
	// own worker, which runs while the workers sleep.
	Setup(ctx context.Context, b *Bench) (sched.LabWorker, error)
	// FirstRun is a run of the workers before the graded one that must
	// refuse, and what the timeline calls it (Day 17: its redrive without an
	// approver); nil when the Day has none.
	FirstRun() (Variation, string)
	// Judge adds the Day's own checks.
	Judge(j *judge.Judge)
}

// Hosted is a Variation whose workers are hosted workers (Day 18): the lab
// times their handlers, inserts new work and drains them. Hosting is called
// after Setup, before the change log is installed.
type Hosted interface {
	Hosting(ctx context.Context, b *Bench) (*sched.Hosting, error)
}

// Common is p itself.
func (p Policy) Common() Policy { return p }

// Provider pays every key but the declined one.
func (p Policy) Provider() *provider.Provider { return wassal.NewProvider(nil, p.Declined) }

// Env adds nothing.
func (Policy) Env() [][2]string { return nil }

// Fault is no fault.
func (Policy) Fault(string, int, map[string]bool) sched.Fault { return sched.Fault{} }

// Restarts is none.
func (Policy) Restarts() int { return 0 }

// Setup does nothing after seeding.
func (Policy) Setup(context.Context, *Bench) (sched.LabWorker, error) { return nil, nil }

// FirstRun is none.
func (Policy) FirstRun() (Variation, string) { return nil, "" }

// Backoff is the backoff after failed attempt n: base × 2^(n-1), capped at
// MaxBackoff when it is set.
func (p Policy) Backoff(n int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < n; i++ {
		d *= 2
		if p.MaxBackoff > 0 && d >= p.MaxBackoff {
			break
		}
	}
	if p.MaxBackoff > 0 && d > p.MaxBackoff {
		d = p.MaxBackoff
	}
	return d
}

// Bench is what a Day's Setup works on: the seeded database, the run's
// clock and provider, before any worker starts.
type Bench struct {
	Store    *outbox.Store
	Clock    *clock.ScenarioClock
	Provider *provider.Provider
}

// DDL is SQLite DDL in the words of the bench's database.
func (b *Bench) DDL(schema string) string {
	d, err := b.Store.Dialect().DDL(schema)
	if err != nil {
		return schema // the server says what is wrong with it
	}
	return d
}
