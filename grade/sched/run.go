// Package sched runs a Day's workers as real processes, one at a time
// (docs/grade-protocol.md, sections 1 and 6): it serves their calls
// (grade/labserver), answers one call at a time in an order drawn from the
// seed, moves the scenario clock when every worker sleeps, injects the
// Day's faults at the provider calls, and records what the lab saw for the
// judge: turns, row changes, the timeline and the protocol rules broken.
package sched

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/labserver"
	"outboxlab/grade/workerproc"
)

// The run limits of docs/grade-protocol.md section 6.
const (
	maxCalls          = 5000
	maxProviderPerMsg = 100
	clockLimit        = 24 * time.Hour
	// DefaultTurnBudget is the wall time a worker may run between two calls.
	DefaultTurnBudget = 2 * time.Second
	// defaultStartBudget is the wall time from a worker's start to its
	// hello: an interpreter or a runtime on a loaded machine can take
	// seconds to load.
	defaultStartBudget = 15 * time.Second
)

// The protocol rules a run can break (the judge's protocol checks read
// them in Run.Violations).
const (
	RuleHelloFirst = "hello first"
	RuleOneCall    = "one call at a time"
	RuleNoTx       = "no transaction across a call"
	RuleOwnTurn    = "row changes in own turn"
	RuleSchema     = "schema intact"
	RuleLimits     = "done within limits"
	RuleOwned      = "provider calls for owned messages"
	RuleBody       = "well-formed calls"
	RuleRecord     = "the change log holds every row change"
)

// ErrCannotStart marks a worker command that could not be started (exit 3).
var ErrCannotStart = errors.New("the worker command cannot be started")

// Config is one run: the worker command and its environment, the database
// the workers share, the lab's clock and provider, and what the Day adds
// (its fault, its restarts, the lab's own worker).
type Config struct {
	Command   workerproc.Command
	Workers   int
	Day, Role string      // OUTBOXLAB_DAY and OUTBOXLAB_ROLE
	Params    [][2]string // the Day's parameters, OUTBOXLAB_MAX_ATTEMPTS on, without the prefix
	// TurnBudget is the wall time a worker may run between two calls;
	// StartBudget from its start to its hello (0: 15 s, or TurnBudget when
	// longer).
	TurnBudget, StartBudget time.Duration

	Database dialect.Database // the database the workers get (its location, their sessions named)
	DB       *sql.DB          // the lab's own handle
	Shape    string           // the schema before any worker ran (changelog.Shape)
	Logged   []string         // the tables the change log records
	Clock    *clock.ScenarioClock
	Provider *provider.Provider
	Rand     *rand.Rand // who runs next, when several may

	// Fault is what the Day's fault does to the n-th provider call for a
	// message with key; fired are the faults that have happened. Nil: no
	// fault.
	Fault func(key string, n int, fired map[string]bool) Fault
	// Restarts is how many times a worker the fault killed is started again.
	Restarts int
	// LabWorker, when set, runs while every worker sleeps (Day 17).
	LabWorker LabWorker
	// MayAsk, when set, lets a worker ask the provider about message id
	// besides the ones it claimed (Day 17: the entries its redrive released).
	MayAsk func(changes []changelog.Change, id int64) bool
	// Hosting, when set, runs hosted workers (Day 18: hosting.go).
	Hosting *Hosting
	// OnCall, when set, is told of every lab call answered (a grade's
	// progress line); it must not block.
	OnCall func()
}

// Fault is what a Day's fault does to a status check; the zero Fault does
// nothing.
type Fault struct {
	Name     string // recorded in Run.Fired once it happened
	Kill     bool
	Answered bool          // the provider answers before the kill: the call was in flight
	Stall    time.Duration // hold the answer this long (scenario time), past the lease
	// Delay is how much scenario time the provider takes to answer (less
	// than the lease): the answer's now is later than the call's.
	Delay time.Duration
	// Boundary answers the call exactly at the next backoff gate of
	// another Pending message when it comes within Boundary, so that a
	// gate compared with < differs from the page's <=.
	Boundary time.Duration
	// RestartAtLease answers the restarted worker's hello exactly when the
	// killed claim's lease ends (a supervisor that waits), so that a lease
	// compared with <= differs from the page's <.
	RestartAtLease bool
	// Early answers that hello this much before the lease ends (1 ms: a
	// lease taken a millisecond early differs from the page's).
	Early time.Duration
	Why   string
}

// takes reports whether the fault takes the call away from the plain answer.
func (f Fault) takes() bool { return f.Kill || f.Stall > 0 || f.Delay > 0 || f.Boundary > 0 }

// LabWorkerID is the lab's own worker's id in the timeline, its turns and
// its rows' LockedBy.
const LabWorkerID = "lab-worker"

// LabWorker is work the lab does itself, in process, on the run's database
// (Day 17: its own Day 16 worker draining what the redrive releases). It
// runs only when every worker process sleeps, at the scenario time the
// scheduler stands at: the scheduler, not the lab's worker, moves the clock.
type LabWorker interface {
	// Step claims and handles what is due at now.
	Step(ctx context.Context, now time.Time) (LabStep, error)
}

// LabStep is what one step of the lab's worker did.
type LabStep struct {
	Idle    bool      // nothing left to wait for
	Claimed bool      // it claimed and handled something
	Wake    time.Time // when it would run next, when it claimed nothing
	Events  []string  // timeline lines
}

// Run is one run of the workers. Its exported fields are what the lab saw,
// for the judge to read once Execute has returned.
type Run struct {
	Workers    []*Worker
	Turns      []Turn
	Changes    []changelog.Change
	Events     []Event // the timeline as the lab saw it
	Violations map[string][]string
	Calls      int // lab calls answered
	Kills      int
	Ended      string          // why the run stopped early ("" when every worker finished)
	OverBudget bool            // a worker was killed for going over a wall-clock budget
	Fired      map[string]bool // the Day's faults that have happened
	Stalled    string          // the worker whose answer was held past its lease; "" none
	LateTurn   int             // the turn that began with the held answer; -1: none
	StatusBy   map[string][]StatusCall
	// A hosted run's (hosting.go): the handlers as the lab timed them, its
	// drains, the kills and the times it inserted new work.
	Handlers []Handler
	Drains   []Drain
	Deaths   []Death
	Acts     []time.Time

	cfg     Config
	ctx     context.Context
	probe   dialect.TxProbe // finds a worker holding a transaction open across a call
	srv     *labserver.Server
	calls   chan *labserver.Call
	over    chan struct{}
	holder  *Worker          // whose turn it is; nil between turns
	guard   *changelog.Guard // the lab's hold on the change log (guard.go)
	lastSeq int64
	perMsg  map[int64]int

	inserted                        int
	drainPlanned, drained, shutdown bool
	drainAt                         time.Time
	drainWho                        *Worker
}

// Turn is one stretch in which one worker ran: from an answer to its next call.
type Turn struct {
	Worker string
	Inc    int
	At     time.Time // scenario time (it does not move during a turn)
	Call   string    // the call whose answer began it
}

// Event is one timeline line: scenario time, who, what.
type Event struct {
	At   time.Time
	Who  string
	What string
}

// StatusCall is a status check a worker made, as the lab answered it.
type StatusCall struct {
	Worker      string
	Inc         int
	MessageID   int64
	At          time.Time
	Outcome, Tx string
	Seq         int64 // the change log's last row when it was asked
}

// New prepares a run of cfg; Execute runs it.
func New(ctx context.Context, cfg Config) *Run {
	return &Run{cfg: cfg, ctx: ctx, perMsg: map[int64]int{}, Fired: map[string]bool{}, LateTurn: -1}
}

// Continue makes r go on from prev, a run before it on the same database:
// the change log is read from where prev stopped, and prev's turns, row
// changes, provider calls and faults count in r too.
func (r *Run) Continue(prev *Run) {
	r.lastSeq, r.Changes, r.Turns, r.guard = prev.lastSeq, prev.Changes, prev.Turns, prev.guard
	r.perMsg, r.Fired = prev.perMsg, prev.Fired
}

// Log adds a timeline line at the scenario time.
func (r *Run) Log(who, format string, args ...any) {
	r.Events = append(r.Events, Event{At: r.cfg.Clock.Now(), Who: who, What: fmt.Sprintf(format, args...)})
}

// Violate records a broken protocol rule.
func (r *Run) Violate(rule, format string, args ...any) {
	if r.Violations == nil {
		r.Violations = map[string][]string{}
	}
	r.Violations[rule] = append(r.Violations[rule], fmt.Sprintf(format, args...))
}

// Refused are the requests the lab refused with status.
func (r *Run) Refused(status int) []string { return r.srv.Refused(status) }

// Summary says in one line what the run saw: its row changes, the calls it
// answered, and how it ended.
func (r *Run) Summary() string {
	calls := 0
	for _, t := range r.Turns {
		if t.Worker != LabWorkerID {
			calls++
		}
	}
	ended := r.Ended
	if ended == "" {
		ended = "exited"
	}
	return fmt.Sprintf("%s, %s, %s", report.Plural(len(r.Changes), "row change"),
		report.Plural(calls, "answered call"), ended)
}
