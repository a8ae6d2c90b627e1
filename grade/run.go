package grade

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/pgdb"
	"outboxlab/core/provider"
	"outboxlab/core/sqlitedb"
)

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
	d, err := claim.PostgresDDL(schema)
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

// startBudget is the wall time a new incarnation has until its hello.
func (r *run) startBudget() time.Duration {
	if r.start > 0 {
		return r.start
	}
	return max(startBudget, r.budget)
}

// launch starts a new incarnation of s.
func (r *run) launch(s *slot) error {
	n := 1
	if s.inc != nil {
		n = s.inc.n + 1
	}
	inc, err := r.srv.issue(s, n)
	if err != nil {
		return err
	}
	env, err := r.environment(s, inc)
	if err != nil {
		return err
	}
	p, err := start(r.cmd, env, s.out)
	if err != nil {
		return errCannotStart{err}
	}
	s.inc, s.proc, s.state, s.helloed, s.call, s.held = inc, p, starting, false, nil, nil
	s.deadline = time.Now().Add(r.startBudget())
	go func() {
		<-p.exited
		// Wake the loop: a nil call from this incarnation means it exited.
		select {
		case r.calls <- &call{owner: inc, name: "exit"}:
		case <-r.over:
		}
	}()
	return nil
}

// errCannotStart is a worker command that could not be started at all.
type errCannotStart struct{ err error }

func (e errCannotStart) Error() string { return e.err.Error() }
func (e errCannotStart) Unwrap() error { return e.err }

// environment is a worker's environment (docs/grade-protocol.md section 2).
func (r *run) environment(s *slot, inc *incarnation) ([]string, error) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OUTBOXLAB_") {
			env = append(env, kv)
		}
	}
	db, kind := r.loc, "sqlite"
	if r.pg {
		kind = "postgres"
		s.appName = fmt.Sprintf("%s-%s-%d", pgdb.AppName(r.loc), s.id, inc.n)
		var err error
		if db, err = pgdb.WithAppName(r.loc, s.appName); err != nil {
			return nil, err
		}
		s.appName = pgdb.AppName(db)
	}
	v := r.v
	vars := [][2]string{
		{"PROTOCOL", strconv.Itoa(ProtocolVersion)},
		{"DAY", r.day.EnvDay},
		{"ROLE", r.role()},
		{"LAB_URL", r.srv.URL()},
		{"TOKEN", inc.token},
		{"WORKER_ID", s.id},
		{"INCARNATION", strconv.Itoa(inc.n)},
		{"DB_KIND", kind},
		{"DATABASE", db},
		{"MAX_ATTEMPTS", strconv.Itoa(v.MaxAttempts)},
		{"BASE_BACKOFF_MS", strconv.FormatInt(v.BaseBackoff.Milliseconds(), 10)},
		{"MAX_BACKOFF_MS", strconv.FormatInt(v.MaxBackoff.Milliseconds(), 10)},
		{"LEASE_MS", strconv.FormatInt(v.Lease.Milliseconds(), 10)},
		{"BATCH_SIZE", strconv.Itoa(v.Batch)},
		{"BUSY_TIMEOUT_MS", "5000"},
	}
	if r.day.env != nil {
		vars = append(vars, r.day.env(v)...)
	}
	for _, kv := range vars {
		env = append(env, "OUTBOXLAB_"+kv[0]+"="+kv[1])
	}
	return env, nil
}

// loop is the scheduler: it waits while a worker runs (or starts), and
// between turns chooses who runs next.
func (r *run) loop() error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for r.ended == "" {
		if !slices.ContainsFunc(r.slots, (*slot).live) {
			return nil
		}
		if r.holder == nil && !slices.ContainsFunc(r.slots, func(s *slot) bool { return s.state == starting }) {
			if err := r.schedule(); err != nil {
				return err
			}
			continue
		}
		timer.Reset(time.Until(r.nextDeadline()))
		select {
		case c := <-r.calls:
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			if err := r.receive(c); err != nil {
				return err
			}
		case <-timer.C:
			r.overBudget()
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
	}
	return nil
}

// nextDeadline is the earliest wall-clock deadline of a running or starting worker.
func (r *run) nextDeadline() time.Time {
	var d time.Time
	for _, s := range r.slots {
		if (s.state == running || s.state == starting) && (d.IsZero() || s.deadline.Before(d)) {
			d = s.deadline
		}
	}
	if d.IsZero() {
		d = time.Now().Add(time.Hour)
	}
	return d
}

// overBudget kills the workers past their turn's wall-clock budget and ends
// the run: it is judged as it stands.
func (r *run) overBudget() {
	now := time.Now()
	for _, s := range r.slots {
		if (s.state == running || s.state == starting) && !now.Before(s.deadline) {
			what := "its turn"
			if s.state == starting {
				what = "its start (no hello)"
			} else if s.done {
				what = "exiting after done"
			}
			r.boundary(s)
			budget := r.budget
			if s.state == starting {
				budget = r.startBudget()
			}
			r.violate(ruleLimits, "%s took more than %s of wall time for %s: killed",
				s.id, budget, what)
			r.log(s.id, "killed: over the turn budget (%s)", what)
			r.stop(s)
			r.ended = s.id + " went over the turn budget"
		}
	}
}

// receive handles a call (or an exit) from a worker.
func (r *run) receive(c *call) error {
	s := c.owner.slot
	if c.owner != s.inc || s.state == exited {
		if c.name != "exit" {
			c.reply <- gone()
		}
		return nil // a killed incarnation's last word
	}
	if c.name == "exit" {
		r.exited(s)
		return nil
	}
	r.boundary(s)
	switch {
	case s.state == blocked:
		// The handler refuses a second outstanding call; this cannot happen.
		c.reply <- answer{status: http.StatusConflict, body: timed(map[string]any{"error": "a call is outstanding"}, r.clk.Now())}
		return nil
	case !s.helloed && c.name != "hello":
		r.violate(ruleHelloFirst, "%s called %s before hello", s.id, c.name)
		r.refuse(s, c, http.StatusConflict, "call hello first")
		return nil
	case s.helloed && c.name == "hello":
		r.violate(ruleHelloFirst, "%s said hello twice", s.id)
		r.refuse(s, c, http.StatusConflict, "hello is the first call, once")
		return nil
	case s.done:
		r.violate(ruleLimits, "%s called %s after done", s.id, c.name)
		r.refuse(s, c, http.StatusConflict, "the worker said done")
		return nil
	}
	s.state, s.call, r.holder = blocked, c, nil
	s.wake = time.Time{}
	if c.name == "sleep" {
		s.wake = c.until
	}
	return nil
}

// refuse answers a call at once with an error; the worker keeps its turn.
func (r *run) refuse(s *slot, c *call, status int, msg string) {
	r.srv.mu.Lock()
	r.srv.bad[status] = append(r.srv.bad[status], s.id+": "+msg)
	r.srv.mu.Unlock()
	c.reply <- answer{status: status, body: timed(map[string]any{"error": msg}, r.clk.Now())}
	if s.state == running {
		s.deadline = time.Now().Add(r.budget)
	}
}

// boundary ends the turn of s (or its start) as the lab sees it: the rows
// it changed are read from the change log and attributed to it, and a
// transaction it left open is found.
func (r *run) boundary(s *slot) {
	turnIdx := -1
	if r.holder == s {
		turnIdx = len(r.turns) - 1
	}
	news, err := readChanges(r.ctx, r.db, r.lastSeq)
	if err != nil {
		r.violate(ruleSchema, "the change log cannot be read: %v", oneLine(err))
	}
	for _, c := range news {
		c.Turn = turnIdx
		r.lastSeq = c.Seq
		r.changes = append(r.changes, c)
		who := s.id
		if turnIdx < 0 {
			r.violate(ruleOwnTurn, "%s row %d changed (%s) outside a turn of %s (before its hello)",
				c.Table, c.RowID, c.Op, s.id)
			who = "(no turn)"
		}
		r.log(who, "%s", describeChange(c))
	}
	if s.state == running || s.state == starting {
		if held, what := r.holdsTransaction(s); held {
			r.violate(ruleNoTx, "%s held %s across a lab call", s.id, what)
			r.log(s.id, "holds %s across a lab call", what)
		}
	}
}

// holdsTransaction reports whether s left a transaction open: on SQLite a
// write lock the lab's BEGIN IMMEDIATE cannot take at once, on PostgreSQL a
// session of s idle in transaction.
func (r *run) holdsTransaction(s *slot) (bool, string) {
	if r.pg {
		var n int
		err := r.db.QueryRowContext(r.ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND state LIKE 'idle in transaction%'`, s.appName).Scan(&n)
		return err == nil && n > 0, "an open transaction (idle in transaction)"
	}
	tx, err := r.probe.BeginTx(r.ctx, nil)
	if err != nil {
		return sqlitedb.IsBusy(err), "the database's write lock"
	}
	tx.Rollback()
	return false, ""
}

// exited handles a worker process that ended by itself.
func (r *run) exited(s *slot) {
	if r.holder == s || s.state == starting {
		r.boundary(s)
	}
	if r.holder == s {
		r.holder = nil
	}
	code, signal := s.proc.code, s.proc.signal
	r.stop(s)
	switch {
	case s.done && code == 0:
		r.log(s.id, "exited 0")
	case s.done:
		r.violate(ruleLimits, "%s exited %s after done", s.id, exitText(code, signal))
		r.log(s.id, "exited %s after done", exitText(code, signal))
	default:
		r.violate(ruleLimits, "%s exited %s without calling done", s.id, exitText(code, signal))
		r.log(s.id, "exited %s without calling done", exitText(code, signal))
	}
}

func exitText(code int, signal string) string {
	if signal != "" {
		return "on " + signal
	}
	return "with status " + strconv.Itoa(code)
}

// stop ends s's process group (whatever is left of it) and, on PostgreSQL,
// its server sessions; s is then gone for good unless relaunched.
func (r *run) stop(s *slot) {
	if s.proc != nil {
		if err := s.proc.kill(); err != nil {
			r.violate(ruleLimits, "%s: %v", s.id, err)
		}
	}
	if r.pg && s.appName != "" {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 10*time.Second)
		pgdb.TerminateBackends(ctx, r.db, s.appName)
		cancel()
	}
	if s.inc != nil {
		r.srv.revoke(s.inc)
	}
	if s.call != nil {
		s.call.reply <- gone()
		s.call = nil
	}
	if r.holder == s {
		r.holder = nil
	}
	s.state = exited
}

// kill is a fault: the lab kills s's whole process group at a call, as a
// crash would, and starts it again as a supervisor would.
func (r *run) kill(s *slot, why string) error {
	r.kills++
	r.log(s.id, "killed (SIGKILL to its process group): %s", why)
	s.call = nil // never answered
	r.stop(s)
	if s.restarts >= r.day.restartLimit(r.v) {
		r.log(s.id, "not restarted: %d restarts is the lab's limit", s.restarts)
		return nil
	}
	s.restarts++
	if err := r.launch(s); err != nil {
		return err
	}
	r.log(s.id, "restarted as incarnation %d", s.inc.n)
	return nil
}

// schedule chooses the next worker to run among those whose call can be
// answered now (seeded PRNG); when every live worker sleeps it moves the
// clock to the earliest wake time (ties: the lowest worker id).
func (r *run) schedule() error {
	now := r.clk.Now()
	var ready []*slot
	for _, s := range r.slots {
		if s.state == blocked && !s.wake.After(now) {
			ready = append(ready, s)
		}
	}
	if len(ready) == 0 {
		var first *slot
		for _, s := range r.slots {
			if s.state == blocked && (first == nil || s.wake.Before(first.wake)) {
				first = s
			}
		}
		if first == nil {
			return errors.New("no worker can run") // cannot happen: the loop checked
		}
		if r.labWorker != nil {
			wake, err := r.labWorker.drain(r)
			if err != nil {
				return err
			}
			if !wake.IsZero() && !wake.After(first.wake) && wake.Sub(clock.Start) <= clockLimit {
				r.clk.AdvanceTo(wake)
				return nil // the loop schedules again at the new time
			}
		}
		if first.wake.Sub(clock.Start) > clockLimit {
			r.violate(ruleLimits, "%s slept past the scenario clock's limit (%s)", first.id, clock.ISO(first.wake))
			r.log(first.id, "sleeps until %s: past the clock's limit, the run stops", clock.DayStamp(first.wake))
			r.ended = "the scenario clock's limit"
			return nil
		}
		r.clk.AdvanceTo(first.wake)
		ready = []*slot{first}
	}
	s := ready[0]
	if len(ready) > 1 {
		s = ready[r.rng.IntN(len(ready))]
	}
	return r.answer(s)
}

// answer answers s's outstanding call and gives s the turn.
func (r *run) answer(s *slot) error {
	c := s.call
	now := r.clk.Now()
	r.nCalls++
	if r.nCalls > maxCalls {
		r.violate(ruleLimits, "more than %d lab calls", maxCalls)
		r.ended = fmt.Sprintf("%d lab calls", maxCalls)
		return nil
	}
	var a answer
	switch {
	case s.held != nil:
		a = *s.held
		r.lateTurn = len(r.turns)
		r.log(s.id, "gets its held status answer, past its lease")
	case c.name == "hello":
		s.helloed = true
		a = answer{status: http.StatusOK, body: map[string]any{"protocol": ProtocolVersion, "worker_id": s.id, "incarnation": s.inc.n}}
		r.log(s.id, "hello (incarnation %d)", s.inc.n)
	case c.name == "now":
		a = answer{status: http.StatusOK}
		r.log(s.id, "clock now")
	case c.name == "sleep":
		a = answer{status: http.StatusOK}
		r.log(s.id, "slept until %s", clock.DayStamp(c.until))
	case c.name == "status" || c.name == "charge":
		var stop bool
		var err error
		if a, stop, err = r.provider(s, c); err != nil || stop {
			return err
		}
	case c.name == "done":
		s.done = true
		a = answer{status: http.StatusOK, body: map[string]any{"ok": true}}
		r.log(s.id, "done")
	}
	s.call, s.held, s.wake = nil, nil, time.Time{}
	s.state, r.holder = running, s
	s.deadline = time.Now().Add(r.budget)
	r.turns = append(r.turns, turn{worker: s.id, inc: s.inc.n, at: now, call: c.name})
	a.body = timed(a.body, now)
	c.reply <- a
	return nil
}

// provider serves a status check or a charge, unless the Day's fault takes
// the call (a kill, a stall): stop is then true, or the answer is held.
func (r *run) provider(s *slot, c *call) (a answer, stop bool, err error) {
	id, key := *c.req.MessageID, c.req.PaymentKey
	r.perMsg[id]++
	if r.perMsg[id] > maxProviderPerMsg {
		r.violate(ruleLimits, "more than %d provider calls for message %d", maxProviderPerMsg, id)
		r.ended = "the provider-call limit"
		return a, true, nil
	}
	if owner, ok := r.owns(s, id, key); !ok {
		r.violate(ruleOwned, "%s asked about message %d (%s) while %s", s.id, id, key, owner)
	}
	now := r.clk.Now()
	if c.name == "charge" {
		ans, err := r.prov.Charge(r.ctx, key, *c.req.AmountCents, now)
		r.log(s.id, "provider charge %s %d → %s", key, *c.req.AmountCents, chargeText(ans, err))
		if err != nil {
			return answer{status: http.StatusServiceUnavailable, body: map[string]any{"error": err.Error()}}, false, nil
		}
		return answer{status: http.StatusOK, body: map[string]any{"outcome": string(ans.Outcome), "transaction_id": ans.TransactionID}}, false, nil
	}
	if r.day.fault != nil {
		act := r.day.fault(r, s, key, id)
		if act.kill && act.answered {
			a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
			r.log(s.id, "provider status %s (message %d) → %s, never delivered", key, id, answerText(a))
			return a, true, r.kill(s, act.why)
		}
		if act.kill {
			r.log(s.id, "provider status %s (message %d) → the handler crashes", key, id)
			return a, true, r.kill(s, act.why)
		}
		if act.stall > 0 {
			a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
			r.log(s.id, "provider status %s (message %d) → %s, held for %s", key, id, answerText(a), clock.Millis(act.stall))
			s.held, s.wake, s.state = &a, now.Add(act.stall), blocked
			r.stalled = s
			return a, true, nil
		}
	}
	a = statusAnswer(r.prov.CheckStatus(r.ctx, key, now))
	r.log(s.id, "provider status %s (message %d) → %s", key, id, answerText(a))
	if r.statusBy == nil {
		r.statusBy = map[string][]statusCall{}
	}
	tx, _ := a.body["transaction_id"].(string)
	out, _ := a.body["outcome"].(string)
	r.statusBy[key] = append(r.statusBy[key], statusCall{worker: s.id, at: now, outcome: out, tx: tx, seq: r.lastSeq})
	return a, false, nil
}

// statusCall is a status check a worker made, as the lab answered it.
type statusCall struct {
	worker      string
	at          time.Time
	outcome, tx string
	seq         int64 // the change log's last row when it was asked
}

func statusAnswer(ans provider.Answer, err error) answer {
	if err != nil {
		return answer{status: http.StatusServiceUnavailable, body: map[string]any{"error": err.Error()}}
	}
	body := map[string]any{"outcome": string(ans.Outcome)}
	if ans.TransactionID != "" {
		body["transaction_id"] = ans.TransactionID
	}
	return answer{status: http.StatusOK, body: body}
}

func answerText(a answer) string {
	if a.status != http.StatusOK {
		return "503 unavailable"
	}
	if id, ok := a.body["transaction_id"].(string); ok {
		return fmt.Sprintf("%v %s", a.body["outcome"], id)
	}
	return fmt.Sprint(a.body["outcome"])
}

func chargeText(a provider.Answer, err error) string {
	if err != nil {
		return "failed"
	}
	return string(a.Outcome) + " " + a.TransactionID
}

// owns reports whether s's current incarnation has claimed message id (for
// key), as the change log shows it: a worker that was stalled may ask about a
// message it lost meanwhile (its record is then refused), never about one it
// never claimed.
func (r *run) owns(s *slot, id int64, key string) (string, bool) {
	for _, c := range r.changes {
		if c.Table != "OutboxMessages" || c.RowID != id || !isClaim(c) || c.Turn < 0 {
			continue
		}
		if t := r.turns[c.Turn]; t.worker == s.id && t.inc == s.inc.n {
			if k, _ := c.value("MessageKey"); k != key {
				return fmt.Sprintf("message %d is %s's", id, k), false
			}
			return "", true
		}
	}
	if r.role() == "redrive" && r.redriven(id) {
		return "", true // the redrive verifies the entries it released
	}
	return "it never claimed it", false
}

// redriven reports whether a Redrives row for message id was written.
func (r *run) redriven(id int64) bool {
	for _, c := range r.changes {
		if c.Table == "Redrives" && c.Op == "INSERT" && c.New["messageid"] == strconv.FormatInt(id, 10) {
			return true
		}
	}
	return false
}

// orDash is s, or a dash for nothing.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
