package grade

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/proctree"
)

// A worker's lifecycle: each incarnation is launched with the protocol's
// environment, ends by itself or is stopped, and a fault's kill restarts it
// as a supervisor would.

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

// exited handles a worker process that ended by itself.
func (r *run) exited(s *slot) {
	if r.holder == s || s.state == starting {
		r.boundary(s)
	}
	if r.holder == s {
		r.holder = nil
	}
	how := s.proc.exit()
	r.stop(s)
	switch {
	case s.done && how == (proctree.Exit{}):
		r.log(s.id, "exited 0")
	case s.done:
		r.violate(ruleLimits, "%s exited %s after done", s.id, how)
		r.log(s.id, "exited %s after done", how)
	default:
		r.violate(ruleLimits, "%s exited %s without calling done", s.id, how)
		r.log(s.id, "exited %s without calling done", how)
	}
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
