package ordered

import (
	"context"
	"fmt"
	"slices"
	"time"

	"outboxlab/core/dialect"
	"outboxlab/core/keyedlog"
	"outboxlab/scenarios"
)

// execute drives d on the run's database named db ("outbox" is the
// scenario's own); see executeAt.
func (o *options) execute(ctx context.Context, env scenarios.Env, db string, d design, ref []orderState) (*run, error) {
	location, err := env.DB(ctx, db)
	if err != nil {
		return nil, err
	}
	return o.executeAt(ctx, env, location, d, ref)
}

// executeAt drives d on the database at location. The in-order reference
// run goes to a database of its own (outbox-in-order), unless ref already
// holds its states: every design after the first shares the first one's
// reference (the handler is the same).
func (o *options) executeAt(ctx context.Context, env scenarios.Env, db dialect.Database, d design, ref []orderState) (*run, error) {
	run, err := o.drive(ctx, db, d)
	if err != nil {
		return nil, err
	}
	if ref != nil {
		run.inOrder = ref
		return run, nil
	}
	refLocation, err := env.DB(ctx, "outbox-in-order")
	if err != nil {
		return nil, err
	}
	run.inOrder, run.inOrderDLQ, err = o.inOrder(ctx, refLocation, d)
	if err != nil {
		return nil, fmt.Errorf("run the in-order reference: %w", err)
	}
	if run.inOrderDLQ > 0 {
		return nil, fmt.Errorf("the in-order reference run dead-lettered %d records", run.inOrderDLQ)
	}
	return run, nil
}

// failingRecord is the record the bug hits, as produced.
func (o *options) failingRecord(run *run) keyedlog.Record {
	for _, rec := range run.log {
		if rec.Key == orderKey(o.FailingOrder) && rec.Type == o.FailingMessage {
			return rec
		}
	}
	return keyedlog.Record{}
}

// later is how many messages of the failing order come after the failing one.
func (o *options) later() int { return 3 - o.failingSeq() }

// applications are the handler's successful calls, in the order it made
// them: its ledger of what it applied.
func applications(run *run) []call {
	var out []call
	for _, c := range run.calls {
		if c.err == nil {
			out = append(out, c)
		}
	}
	return out
}

// outOfOrder counts the applications, in the handler's ledger, whose
// dependency had not been applied before them.
func outOfOrder(run *run) int {
	applied := map[string]bool{}
	n := 0
	for _, c := range applications(run) {
		if c.rec.DependsOn > 0 && !applied[fmt.Sprintf("%s/%d", c.rec.CorrelationID, c.rec.DependsOn)] {
			n++
		}
		applied[fmt.Sprintf("%s/%d", c.rec.CorrelationID, c.rec.Sequence)] = true
	}
	return n
}

// failedCalls counts the handler's failed calls on the log record id during st.
func failedCalls(run *run, id int64, st stage) int {
	n := 0
	for _, c := range run.calls {
		if c.rec.ID == id && c.stage == st && c.err != nil {
			n++
		}
	}
	return n
}

// deadLetterOf finds the DeadLetters row of the log record id in a snapshot.
func deadLetterOf(sn snapshot, id int64) (keyedlog.SetAside, bool) {
	for _, d := range sn.dead {
		if d.Record.ID == id {
			return d, true
		}
	}
	return keyedlog.SetAside{}, false
}

func recordByID(run *run, id int64) keyedlog.Record {
	for _, rec := range run.finalLog {
		if rec.ID == id {
			return rec
		}
	}
	return keyedlog.Record{}
}

// othersLate are the other orders that had not reached their in-order state
// when the consumer first went idle, before any fix.
func (o *options) othersLate(run *run) []int {
	var late []int
	for i, s := range run.idle.states {
		if s.ID != o.FailingOrder && s != run.inOrder[i] {
			late = append(late, s.ID)
		}
	}
	return late
}

// othersComplete counts the other orders that had reached their in-order
// state when the consumer first went idle, before any fix.
func (o *options) othersComplete(run *run) (done, total int) {
	for i, s := range run.idle.states {
		if s.ID == o.FailingOrder {
			continue
		}
		total++
		if s == run.inOrder[i] {
			done++
		}
	}
	return done, total
}

// stopped is what a run held back when the consumer went idle, waiting for the fix.
type stopped struct {
	others        []int // other orders with at least one record held back
	otherRecords  int
	failingRecord int
}

func (o *options) stoppedAtIdle(run *run) stopped {
	var st stopped
	var held []keyedlog.Record
	held = append(held, run.idle.waiting...)
	for _, a := range slices.Concat(run.idle.dead, run.idle.parked) {
		held = append(held, a.Record)
	}
	for _, rec := range held {
		id := orderOf(rec)
		if id == o.FailingOrder {
			st.failingRecord++
			continue
		}
		st.otherRecords++
		if !slices.Contains(st.others, id) {
			st.others = append(st.others, id)
		}
	}
	slices.Sort(st.others)
	return st
}

// longestWait is the longest time a record of another order waited between
// being produced and being applied.
func (o *options) longestWait(run *run) time.Duration {
	var longest time.Duration
	for _, a := range run.applied {
		rec := recordByID(run, a.LogRecordID)
		if orderOf(rec) != o.FailingOrder {
			longest = max(longest, a.At.Sub(rec.ProducedAt))
		}
	}
	return longest
}

// endSame counts the orders whose end state equals the in-order run's.
func endSame(run *run) (int, []int) { return sameStates(run.end.states, run.inOrder) }

// failedAttempts counts the handler's failures over the whole run, from its ledger.
func failedAttempts(run *run) int {
	return len(run.calls) - len(applications(run))
}
