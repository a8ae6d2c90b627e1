package sched

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/proctree"
	"outboxlab/grade/labserver"
)

// A worker's lifecycle: each incarnation is launched with the protocol's
// environment, ends by itself or is stopped, and a fault's kill restarts it
// as a supervisor would.

// startBudget is the wall time a new incarnation has until its hello.
func (r *Run) startBudget() time.Duration {
	if r.cfg.StartBudget > 0 {
		return r.cfg.StartBudget
	}
	return max(defaultStartBudget, r.cfg.TurnBudget)
}

// launch starts a new incarnation of w.
func (r *Run) launch(w *Worker) error {
	n := 1
	if w.inc != nil {
		n = w.inc.N + 1
	}
	inc, err := r.srv.Issue(w.n-1, w.ID, n)
	if err != nil {
		return err
	}
	w.Tokens = append(w.Tokens, inc.Token)
	env, err := r.environment(w, inc)
	if err != nil {
		return err
	}
	p, err := r.cfg.Command.Start(env, w.Out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	w.inc, w.proc, w.state, w.helloed, w.call, w.held, w.late = inc, p, starting, false, nil, nil, false
	w.deadline = time.Now().Add(r.startBudget())
	go func() {
		<-p.Exited()
		// Wake the loop: an exit call from this incarnation means it exited.
		select {
		case r.calls <- &labserver.Call{Owner: inc, Name: "exit"}:
		case <-r.over:
		}
	}()
	return nil
}

// environment is a worker's environment (docs/grade-protocol.md section 2).
func (r *Run) environment(w *Worker, inc *labserver.Incarnation) (_ []string, err error) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OUTBOXLAB_") {
			env = append(env, kv)
		}
	}
	// The worker's sessions carry a name of their own (where the database
	// names sessions), so that the lab can find its open transaction and
	// end its sessions when it is stopped.
	db := r.cfg.Database
	db, w.appName, err = db.Named(fmt.Sprintf("%s-%s-%d", db.SessionName(), w.ID, inc.N))
	if err != nil {
		return nil, err
	}
	vars := [][2]string{
		{"PROTOCOL", strconv.Itoa(labserver.ProtocolVersion)},
		{"DAY", r.cfg.Day},
		{"ROLE", r.cfg.Role},
		{"LAB_URL", r.srv.URL()},
		{"TOKEN", inc.Token},
		{"WORKER_ID", w.ID},
		{"INCARNATION", strconv.Itoa(inc.N)},
		{"DB_KIND", db.Dialect().Name()},
		{"DATABASE", db.String()},
	}
	for _, kv := range append(vars, r.cfg.Params...) {
		env = append(env, "OUTBOXLAB_"+kv[0]+"="+kv[1])
	}
	return env, nil
}

// exited handles a worker process that ended by itself.
func (r *Run) exited(w *Worker) {
	if r.holder == w || w.state == starting {
		r.boundary(w)
	}
	if r.holder == w {
		r.holder = nil
	}
	how := w.proc.Exit()
	r.stop(w)
	switch {
	case w.Done && how == (proctree.Exit{}):
		r.Log(w.ID, "exited 0")
	case w.Done:
		r.Violate(RuleLimits, "%s exited %s after done", w.ID, how)
		r.Log(w.ID, "exited %s after done", how)
	default:
		r.Violate(RuleLimits, "%s exited %s without calling done", w.ID, how)
		r.Log(w.ID, "exited %s without calling done", how)
	}
}

// stop ends w's process tree (whatever is left of it) and, on PostgreSQL,
// its server sessions; w is then gone for good unless relaunched.
func (r *Run) stop(w *Worker) {
	if w.proc != nil {
		if err := w.proc.Kill(); err != nil {
			r.Violate(RuleLimits, "%s: %v", w.ID, err)
		}
	}
	if w.appName != "" {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 10*time.Second)
		r.cfg.Database.Dialect().EndSessions(ctx, r.cfg.DB, w.appName)
		cancel()
	}
	if w.inc != nil {
		r.srv.Revoke(w.inc)
	}
	if w.call != nil {
		w.call.Reply <- labserver.Gone()
		w.call = nil
	}
	if r.holder == w {
		r.holder = nil
	}
	w.state = exited
}

// kill is a fault: the lab kills w's whole process tree at a call, as a
// crash would, and starts it again as a supervisor would.
func (r *Run) kill(w *Worker, why string) error {
	r.Kills++
	r.Deaths = append(r.Deaths, Death{Worker: w.ID, Inc: w.inc.N, At: r.cfg.Clock.Now(), Turn: len(r.Turns)})
	r.Log(w.ID, "killed (SIGKILL to its process group): %s", why)
	w.call = nil // never answered
	r.stop(w)
	if w.Restarts >= r.cfg.Restarts {
		r.Log(w.ID, "not restarted: %d restarts is the lab's limit", w.Restarts)
		return nil
	}
	w.Restarts++
	if err := r.launch(w); err != nil {
		return err
	}
	r.Log(w.ID, "restarted as incarnation %d", w.inc.N)
	return nil
}
