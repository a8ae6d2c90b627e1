package workers

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/report"
)

// Validate holds the run to the declared ranges, then to the rules between
// flags and to the work budgets.
func (o *throughputOptions) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	if len(o.Workers) == 0 {
		return fmt.Errorf("--workers needs at least one worker count")
	}
	if len(o.Workers) > maxWorkerCounts {
		return fmt.Errorf("--workers lists %d counts; at most %d", len(o.Workers), maxWorkerCounts)
	}
	seen := map[int]int{}
	for _, w := range o.Workers {
		if seen[w]++; seen[w] > 2 {
			return fmt.Errorf("--workers lists %d %d times; twice at most (two series of one count show the noise)", w, seen[w])
		}
	}
	if o.ServiceTime > o.Tick {
		return fmt.Errorf("--service-time must be at most one --tick (%s), got %s", o.Tick, o.ServiceTime)
	}
	if w := o.drainWork(); w.work > drainBudget || w.waits > waitBudget {
		as := ""
		if o.Processes {
			as = " as processes"
		}
		return fmt.Errorf("--messages %d over --workers %s%s, --batch %d, --repeats %d and --handler-delay %s is about %s of drain work "+
			"(%d write transactions) and %s of handler waits; the limits are %s and %s",
			o.Messages, joinWorkers(o.Workers), as, o.Batch, o.Repeats, o.HandlerDelay, w.work.Round(time.Second), w.tx,
			w.waits.Round(time.Millisecond), drainBudget, waitBudget)
	}
	if w := o.plan().work(o); w.total > overloadBudget {
		return fmt.Errorf("--produce-rate %d for --produce-for %s against --consumers %d at --service-time %s per --tick %s "+
			"is about %s of overload work (%d ticks, %d write transactions); the limit is %s",
			o.ProduceRate, o.ProduceFor, o.Consumers, o.ServiceTime, o.Tick, w.total.Round(time.Second), w.ticks, w.tx,
			overloadBudget)
	}
	return nil
}

// The work budgets and the cost model behind them. Validate refuses a run
// whose arithmetic says it needs more than a budget. The costs are what this
// lab measured on a loaded two-core machine, rounded up, so a run within the
// budgets finishes well inside a minute there. No stopwatch is involved: the
// same flags are always accepted or always refused.
const (
	drainBudget    = 15 * time.Second
	waitBudget     = 25 * time.Second // handler waits are idle time: they load nothing
	overloadBudget = 6 * time.Second

	txCost         = 300 * time.Microsecond // one BEGIN IMMEDIATE claim or settlement
	emptyClaimCost = 150 * time.Microsecond // a claim that finds nothing
	messageCost    = 50 * time.Microsecond  // claiming, settling and recording one message in a batch
	crowdCost      = 250 * time.Microsecond // × workers²: a crowd of workers queueing for the one write lock
	drainFileCost  = 20 * time.Millisecond  // opening, preparing and reading back one configuration's file
	roundCost      = time.Millisecond       // writing a round's messages and starting its workers
	seedCost       = 20 * time.Microsecond  // writing one backlog message
	processCost    = 50 * time.Millisecond  // starting one worker process
	sleepSlack     = 200 * time.Microsecond // what a handler's wait costs beyond --handler-delay
	insertCost     = 10 * time.Microsecond  // the producer writing one message
	depthRowCost   = 100 * time.Nanosecond  // reading one queued row when sampling the depth
	ledgerRowCost  = 10 * time.Nanosecond   // counting one ledger row when sampling
)

// maxHandlerDelay is --handler-delay's largest value: with the largest
// --messages and --batch, one worker handles every message of every round
// in a row, within waitBudget.
const maxHandlerDelay = 5 * time.Millisecond

// maxWorkerCounts is how many counts --workers may list.
const maxWorkerCounts = 8

// drainWork is part 1's cost by arithmetic.
type drainWork struct {
	tx          int           // write transactions: claims and settlements
	work, waits time.Duration // everything but the handler waits; the waits on the busiest worker
}

func (o *throughputOptions) drainWork() drainWork {
	var w drainWork
	sizes := rounds(o.Messages, o.Repeats)
	for _, batch := range []int{1, o.Batch} {
		for _, workers := range o.Workers {
			n := time.Duration(o.Messages)
			w.work += n*(messageCost+seedCost) + drainFileCost + time.Duration(workers*workers)*crowdCost
			for _, m := range sizes {
				batches := ceilDiv(m, batch)
				tx := 2*batches + workers // a claim and a settlement per batch, an empty claim per worker
				w.tx += tx
				w.work += time.Duration(tx)*txCost + roundCost
				if o.Processes {
					w.work += time.Duration(workers) * processCost
				}
				if o.HandlerDelay > 0 {
					// A free worker claims the next batch, so the busiest handles
					// ⌈batches/workers⌉ of them, and a last batch may be short.
					w.waits += time.Duration(min(m, ceilDiv(batches, workers)*batch)) * (o.HandlerDelay + sleepSlack)
				}
			}
		}
	}
	return w
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// overloadPlan is part 2 by arithmetic alone: what the producer writes and
// what each tick should show, from the first tick to the one that drains the
// queue.
type overloadPlan struct {
	total    int   // messages the producer writes
	depths   []int // queue depth at the end of each tick
	produced []int // messages written by the end of each tick
	busy     []int // consumers whose claim finds messages, each tick
	stopTick int   // index of the tick in which production ends
}

// plan runs the arithmetic: each tick the producer writes the messages
// created during it, and the consumers, one after the other, each finish up
// to Tick/ServiceTime of what is there.
func (o *throughputOptions) plan() overloadPlan {
	p := overloadPlan{total: o.total(), stopTick: -1}
	produced, done := 0, 0
	for k := 1; ; k++ {
		end := o.tickEnd(k)
		for produced < p.total && o.createdAt(produced).Before(end) {
			produced++
		}
		finished := min(o.Consumers*o.perTick(), produced-done)
		done += finished
		p.depths, p.produced = append(p.depths, produced-done), append(p.produced, produced)
		p.busy = append(p.busy, ceilDiv(finished, o.perTick()))
		if produced == p.total && p.stopTick < 0 {
			p.stopTick = k - 1
		}
		if produced == p.total && done == produced {
			return p
		}
	}
}

// overloadWork is part 2's cost by arithmetic.
type overloadWork struct {
	ticks, tx int
	total     time.Duration
}

func (p overloadPlan) work(o *throughputOptions) overloadWork {
	w := overloadWork{ticks: len(p.depths)}
	var busy, depthRows, ledgerRows int
	for i, d := range p.depths {
		busy += p.busy[i]
		depthRows += d
		ledgerRows += p.produced[i] - d
	}
	empty := w.ticks*o.Consumers - busy
	// Each tick the producer's transaction; a busy consumer claims and settles,
	// an idle one claims nothing.
	w.tx = w.ticks + 2*busy + empty
	w.total = time.Duration(w.ticks+2*busy)*txCost + time.Duration(empty)*emptyClaimCost +
		time.Duration(p.total)*(insertCost+messageCost) +
		time.Duration(depthRows)*depthRowCost + time.Duration(ledgerRows)*ledgerRowCost
	return w
}

// joinWorkers prints a --workers list as the flag takes it.
func joinWorkers(ws []int) string { return strings.ReplaceAll(report.JoinInts(ws), " ", "") }

// On PostgreSQL with initdb's defaults every commit waits for a WAL flush,
// shared by the workers that commit together. Measured on this lab's 2-core
// machine under load (a disk-backed server): the defaults' 2,860 write
// transactions in 10 s, 17,315 in 26 s, 34,060 in 44 s, so about 1.3 ms a
// transaction at the large end. ValidateOn prices a run at 1.5 ms a
// transaction and a drain's processes at processCost a round, and refuses
// one over pgBudget, so that every accepted combination finishes within
// about a minute there.
const (
	pgTxCost = 1500 * time.Microsecond
	pgBudget = 60 * time.Second
)

// ValidateOn refuses, on PostgreSQL, a run whose write transactions alone
// would take longer than pgBudget (see scenarios.BackendValidator).
func (o *throughputOptions) ValidateOn(backend string) error {
	if backend != "postgres" {
		return nil
	}
	drain, over := o.drainWork(), o.plan().work(o)
	tx := drain.tx + over.tx + ceilingTransactions
	// Every worker is a process there, started for every round of each claim
	// size; a drain's processes start together.
	starts := 2 * time.Duration(len(o.Workers)*len(rounds(o.Messages, o.Repeats))) * processCost
	if est := time.Duration(tx)*pgTxCost + drain.waits + starts; est > pgBudget {
		return fmt.Errorf("on PostgreSQL, --messages %d over --workers %s with --batch %d, --produce-rate %d for --produce-for %s "+
			"is about %s of work (%d write transactions at about %s each, a WAL flush per commit); the limit is %s",
			o.Messages, joinWorkers(o.Workers), o.Batch, o.ProduceRate, o.ProduceFor, est.Round(time.Second), tx, pgTxCost, pgBudget)
	}
	return nil
}
