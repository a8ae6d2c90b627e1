package governance

import (
	"outboxlab/core/emission"
)

// What the checks judge a drain run by: never the metrics the drain or the
// policy computed for their events, but what was recorded outside them.

// emitCall is one emitter call as the sources of truth recorded it: the
// provider's ledger, the transition the drain persisted for it (the
// transition log) and the entry's row right after, read back from the database.
type emitCall struct {
	call   emission.Call
	log    emission.LogEntry // zero when no transition was persisted for the call
	logged bool
	row    emission.Entry // zero when the row was not read back
	before int            // the entry's RetryCount as persisted before the call
}

// failed reports whether the provider's ledger shows the call as a failed
// attempt: a failed result, an error or a panic.
func (e emitCall) failed() bool { return failedStep(e.call.Step) }

// retryStatus is the status a failed attempt below the threshold must be
// persisted with, by what the provider's ledger shows: RetryableFailure for
// a retryable-failure result, Failed for any other failure.
func (e emitCall) retryStatus() emission.Status {
	if e.kind() == emission.ResultRetryableFailure {
		return emission.RetryableFailure
	}
	return emission.Failed
}

// kind is the result the provider's ledger shows ("" for an error or a panic).
func (e emitCall) kind() emission.ResultKind {
	if e.call.Step.Panic != "" || e.call.Step.Error != "" {
		return ""
	}
	return e.call.Step.Result.Kind
}

// emissions pairs key's calls in the provider's ledger with the transitions
// the drain persisted for it, in order: one drain writes one transition per
// call. Host decisions (a quarantine) are in the log under another actor.
func (r *driveRun) emissions(key string) []emitCall {
	id := r.entry(key).ID
	var logs []emission.LogEntry
	for _, l := range r.log {
		if l.EntryID == id && l.Actor == r.owner {
			logs = append(logs, l)
		}
	}
	rows := r.rows[key]
	before := r.seeded[key].RetryCount
	var out []emitCall
	for _, c := range r.calls {
		if c.Key != key {
			continue
		}
		e := emitCall{call: c, before: before}
		if i := len(out); i < len(logs) {
			e.log, e.logged, before = logs[i], true, logs[i].RetryCount
		}
		if i := len(out); i < len(rows) {
			e.row = rows[i]
		}
		out = append(out, e)
	}
	return out
}

// failedCalls counts the failed attempts key's ledger shows.
func (r *driveRun) failedCalls(key string) int {
	n := 0
	for _, c := range r.calls {
		if c.Key == key && failedStep(c.Step) {
			n++
		}
	}
	return n
}

// keys returns the entry keys of a run in creation order.
func (r *driveRun) keys() []string {
	out := make([]string, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Key
	}
	return out
}
