package emission

import (
	"time"

	"outboxlab/core/backoff"
)

// Status is a governance outbox entry's state.
type Status string

// The entry states. Delivered and DeadLettered are the drain's terminal
// states; Quarantined is a terminal state only a host policy writes.
const (
	Pending  Status = "Pending"
	Deferred Status = "Deferred"
	Failed   Status = "Failed" // a failed result: due again at NextRetryAt
	// RetryableFailure is a retryable-failure result (throttled, try later):
	// due again at NextRetryAt, and a failed attempt exactly as Failed is.
	RetryableFailure Status = "RetryableFailure"
	Delivered        Status = "Delivered"
	DeadLettered     Status = "DeadLettered"
	Quarantined      Status = "Quarantined"
)

// FailedAttempt reports whether s records a failed attempt still to be
// retried: Failed or RetryableFailure, both counted toward the threshold.
func (s Status) FailedAttempt() bool { return s == Failed || s == RetryableFailure }

// Terminal reports whether s ends an entry's life in the outbox.
func (s Status) Terminal() bool {
	return s == Delivered || s == DeadLettered || s == Quarantined
}

// ResultKind is what an emitter said about one emission.
type ResultKind string

// The emitter results.
const (
	ResultDelivered ResultKind = "delivered"
	ResultFailed    ResultKind = "failed"
	// ResultRetryableFailure is a failure the provider says is worth retrying
	// (throttled, busy): it counts toward the threshold like any failure.
	ResultRetryableFailure ResultKind = "retryable-failure"
	ResultPending          ResultKind = "pending"
	ResultDeferred         ResultKind = "deferred"
	ResultDeadLetter       ResultKind = "dead-letter" // the provider says: never again
)

// Result is one emission's outcome. Code and Message are provider-neutral;
// RetryAfter is when a pending or deferred entry should be tried again.
type Result struct {
	Kind       ResultKind
	Code       string
	Message    string
	RetryAfter time.Duration
}

// The codes the drain records when the emitter gave none of its own.
const (
	CodeUnexpectedError  = "emitter.unexpected_error"
	CodePanic            = "emitter.panic"
	CodeUnknownResult    = "emitter.unknown_result"
	CodeProviderRejected = "provider.dead_letter"
)

// Transition is what the drain persists after one emission.
type Transition struct {
	To            Status
	RetryCount    int       // the entry's RetryCount after the transition
	NextRetryAt   time.Time // zero: no next retry
	Delay         time.Duration
	ErrorCode     string // the failed attempt's code (Failed, and a threshold DeadLettered)
	ErrorMessage  string
	ReasonCode    string // terminal reason (DeadLettered)
	ReasonMessage string
	// Threshold is set when the threshold policy dead-lettered the entry.
	Threshold bool
	// PastThreshold is set when the failed attempt reached MaxRetryAttempts
	// but DeadLetterOnMaxRetryAttempts is off, so the entry stays retryable.
	PastThreshold bool
	At            time.Time
}

// Policy is the one threshold policy both drain modes apply.
type Policy struct {
	Options Options         // resolved
	Backoff backoff.Backoff // the delay after failed attempt n is Backoff.Delay(n)
}

// Decide turns an emission's result into the transition to persist, for an
// entry whose RetryCount was retryCount when it was selected. For a failure
// it evaluates the next failed attempt before anything is written:
//
//	next failed attempt <  MaxRetryAttempts           → Failed or RetryableFailure, next retry after the backoff
//	next failed attempt >= MaxRetryAttempts, DL on    → DeadLettered, stable code and message, no next retry
//	next failed attempt >= MaxRetryAttempts, DL off   → Failed or RetryableFailure, still retryable (PastThreshold)
//
// A failed and a retryable-failure result are both failed attempts: each
// increments RetryCount and counts toward the threshold; the status says
// which one the provider returned.
//
// Pending and deferred results never touch RetryCount; a provider-returned
// dead-letter is terminal at once.
func (p Policy) Decide(retryCount int, res Result, now time.Time) Transition {
	t := Transition{RetryCount: retryCount, At: now}
	switch res.Kind {
	case ResultDelivered:
		t.To = Delivered
	case ResultPending, ResultDeferred:
		t.To, t.Delay, t.NextRetryAt = Deferred, res.RetryAfter, now.Add(res.RetryAfter)
	case ResultDeadLetter:
		t.To, t.ReasonCode, t.ReasonMessage = DeadLettered, res.Code, res.Message
		if t.ReasonCode == "" {
			t.ReasonCode = CodeProviderRejected
		}
	default:
		if res.Kind != ResultFailed && res.Kind != ResultRetryableFailure {
			res = Result{Kind: ResultFailed, Code: CodeUnknownResult, Message: "emitter returned result " + string(res.Kind)}
		}
		return p.onFailure(t, res)
	}
	return t
}

func (p Policy) onFailure(t Transition, res Result) Transition {
	next := t.RetryCount + 1
	t.RetryCount, t.ErrorCode, t.ErrorMessage = next, res.Code, res.Message
	if next >= p.Options.MaxRetryAttempts {
		if p.Options.DeadLetterOnMaxRetryAttempts {
			t.To, t.Threshold = DeadLettered, true
			t.ReasonCode, t.ReasonMessage = p.Options.DeadLetterReasonCode, p.Options.DeadLetterReasonMessage
			return t
		}
		t.PastThreshold = true
	}
	t.To, t.Delay = Failed, p.Backoff.Delay(next)
	if res.Kind == ResultRetryableFailure {
		t.To = RetryableFailure
	}
	t.NextRetryAt = t.At.Add(t.Delay)
	return t
}
