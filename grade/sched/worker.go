package sched

import (
	"time"

	"outboxlab/grade/labserver"
	"outboxlab/grade/workerproc"
)

type workerState int

const (
	starting workerState = iota // started, no call yet
	running                     // its turn: answered, not yet calling again
	blocked                     // waiting in a call
	exited                      // gone for good
)

// Worker is one worker (worker-1, …) across its incarnations.
type Worker struct {
	ID       string
	Done     bool // said done
	Restarts int
	Out      *workerproc.Ring // what it printed: the terminal's, never the report's
	Tokens   []string         // every token the lab gave it: never shown, even if it prints one

	n        int
	inc      *labserver.Incarnation
	proc     *workerproc.Process
	state    workerState
	call     *labserver.Call   // the outstanding call while blocked
	wake     time.Time         // when the outstanding call may be answered (a sleep, a held answer)
	held     *labserver.Answer // an answer the lab holds back (a stall, a delay), given at wake
	late     bool              // held is a stall's: given past the lease
	helloAt  time.Time         // a restarted incarnation's hello is answered no earlier
	helloed  bool              // this incarnation said hello
	deadline time.Time
	appName  string // PostgreSQL application_name of the current incarnation

	// A hosted run's (hosting.go): why a wait ended, the drain announced.
	woken             string
	drainBy           time.Time
	drainIdx          int
	restartAfterDrain bool
}

func (w *Worker) live() bool { return w.state != exited }
