package retry

import (
	"outboxlab/core/backoff"
	"outboxlab/core/outbox"
)

// The audit log's actors and actions this family writes and reads: codes
// the metrics select entries by. The Detail beside them is prose for the
// timeline, never parsed.
const (
	supervisor         = "supervisor"
	actionStarted      = "started"
	actionDelivered    = "delivered"
	actionProcessed    = "processed"
	actionDeadLettered = "dead-lettered" // written by outbox.DeadLetterTx
	actionDied         = "died"
	actionExited       = "exited"
	actionGaveUp       = "gave-up"
	actionHandler      = "handler" // a handler call, committed before the handler runs
)

// exitActions are the actions under which a consumer records, in the
// transaction of a dead letter, which budget ran out.
var exitActions = map[backoff.Exit]string{
	backoff.RetryBudgetOut: "retry-budget-out",
	backoff.TimeBudgetOut:  "time-budget-out",
}

// exitsOf reads from the audit log which budget dead-lettered each message,
// by message id.
func exitsOf(audit []outbox.AuditEntry) map[int64]backoff.Exit {
	out := map[int64]backoff.Exit{}
	for _, a := range audit {
		for exit, action := range exitActions {
			if a.Action == action {
				out[a.MessageID] = exit
			}
		}
	}
	return out
}
