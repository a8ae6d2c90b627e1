package grade

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
)

// A run is one variation graded: its limits, the state it keeps of each
// worker and turn, the protocol rules it can find broken, and execute, which
// starts the workers and hands over to the scheduler.

// The run limits of docs/grade-protocol.md section 6.
const (
	maxCalls          = 5000
	maxProviderPerMsg = 100
	clockLimit        = 24 * time.Hour
	DefaultTurnBudget = 2 * time.Second
	// startBudget is the wall time from a worker's start to its hello: an
	// interpreter or a runtime on a loaded machine can take seconds to load.
	startBudget          = 15 * time.Second
	maxRestartsPerWorker = 20
)

type slotState int

const (
	starting slotState = iota // started, no call yet
	running                   // its turn: answered, not yet calling again
	blocked                   // waiting in a call
	exited                    // gone for good
)

// slot is one worker (worker-1, …) across its incarnations.
type slot struct {
	id    string
	n     int
	inc   *incarnation
	proc  *process
	state slotState
	call  *call     // the outstanding call while blocked
	wake  time.Time // when the outstanding call may be answered (a sleep, a held answer)
	held  *answer   // an answer the lab holds back (a stall), given at wake

	helloed  bool // this incarnation said hello
	done     bool // said done
	deadline time.Time
	restarts int
	exitNote string // how it ended, for the timeline
	out      *ring
	appName  string // PostgreSQL application_name of the current incarnation
}

func (s *slot) live() bool { return s.state != exited }

// turn is one stretch in which one worker ran: from an answer to its next call.
type turn struct {
	worker string
	inc    int
	at     time.Time // scenario time (it does not move during a turn)
	call   string    // the call whose answer began it
}

// run is one variation graded: the database, the provider, the clock, the
// server and the worker processes, scheduled one at a time.
type run struct {
	ctx    context.Context
	day    *Day
	v      variation
	cmd    command
	budget time.Duration
	start  time.Duration // the start budget; 0: startBudget
	loc    string
	pg     bool

	store *outbox.Store
	db    *sql.DB // the lab's own handle
	probe *sql.DB // SQLite: a handle with no busy timeout, to find a held write lock
	clk   *clock.ScenarioClock
	prov  *provider.Provider
	rng   *rand.Rand
	srv   *server
	calls chan *call
	over  chan struct{}

	slots   []*slot
	turns   []turn
	holder  *slot // whose turn it is; nil between turns
	changes []change
	lastSeq int64
	events  []event // the timeline as the lab saw it
	viol    map[string][]string
	nCalls  int
	perMsg  map[int64]int
	kills   int
	ended   string // why the run stopped early ("" when every worker finished)
	shape   string // the schema before the workers ran

	fired map[string]bool // the Day's faults that have happened (each fires once)

	refusal     *run       // Day 17: the run without an approver, before this one
	labWorker   *labWorker // Day 17: the lab's own worker, which drains while the workers sleep
	extraLogged []string   // tables the Day logs besides Payments and OutboxMessages
	statusBy    map[string][]statusCall
	stalled     *slot // the worker whose answer was held past its lease
	lateTurn    int   // the turn that began with the held answer; -1: none
}

// event is one timeline line: scenario time, who, what.
type event struct {
	at   time.Time
	who  string
	what string
}

func (r *run) log(who, format string, args ...any) {
	r.events = append(r.events, event{at: r.clk.Now(), who: who, what: fmt.Sprintf(format, args...)})
}

// violate records a broken protocol rule.
func (r *run) violate(rule, format string, args ...any) {
	if r.viol == nil {
		r.viol = map[string][]string{}
	}
	r.viol[rule] = append(r.viol[rule], fmt.Sprintf(format, args...))
}

// The protocol rules a run can break (their checks read these).
const (
	ruleHelloFirst = "hello first"
	ruleOneCall    = "one call at a time"
	ruleNoTx       = "no transaction across a call"
	ruleOwnTurn    = "row changes in own turn"
	ruleSchema     = "schema intact"
	ruleLimits     = "done within limits"
	ruleOwned      = "provider calls for owned messages"
	ruleBody       = "well-formed calls"
)

// execute drives the workers until every one has finished or a limit stops
// the run. The database is seeded and the change log installed already.
func (r *run) execute() error {
	r.calls = make(chan *call)
	r.over = make(chan struct{})
	srv, err := newServer(r.calls, r.over)
	if err != nil {
		return err
	}
	r.srv = srv
	defer func() {
		close(r.over)
		for _, s := range r.slots {
			r.stop(s)
		}
		srv.close()
	}()
	for i := 1; i <= r.v.Workers; i++ {
		s := &slot{id: "worker-" + strconv.Itoa(i), n: i, out: newRing(16 << 10)}
		r.slots = append(r.slots, s)
		if err := r.launch(s); err != nil {
			return err
		}
	}
	return r.loop()
}

// ddl is SQLite DDL in the run's database's words.
func (r *run) ddl(schema string) string {
	if !r.pg {
		return schema
	}
	d, err := dialect.PostgresDDL(schema)
	if err != nil {
		return schema // the server says what is wrong with it
	}
	return d
}

func (r *run) role() string {
	if r.day.role != "" {
		return r.day.role
	}
	return "worker"
}

// logged are the tables this run's change log records.
func (r *run) logged() []string {
	return append(append([]string{}, logged...), r.extraLogged...)
}
