package governance

import (
	"fmt"
	"math"
	"time"

	"outboxlab/core/emission"
)

// The lab's budget: what one run may cost, whatever flags it was given.
// Validate computes a run's cost from its flags and refuses one beyond it.
const (
	// maxCalls bounds the emitter calls of one run, every drain together.
	// Each call is a claim or a selection, an emission and a transaction:
	// about a millisecond or two, so a run at the limit takes about two seconds.
	maxCalls = 1200
	// maxSpan bounds a run's scenario time, from its start to the last time
	// it stores, so stored times stay four-digit years and every duration
	// between two of them fits in an int64.
	maxSpan = 100 * 365 * 24 * time.Hour
)

// maxSpanText is maxSpan as a refusal names it.
const maxSpanText = "100 years"

// load is what a run will cost, computed from its flags before it starts.
type load struct {
	calls int           // emitter calls; past maxCalls the count stops
	span  time.Duration // scenario time the run covers; saturates
}

// add is two loads run one after the other.
func (l load) add(m load) load {
	return load{calls: l.calls + m.calls, span: addSat(l.span, m.span)}
}

// alongside is two loads run side by side on one clock: the calls add up,
// the time is the longer one's.
func (l load) alongside(m load) load {
	return load{calls: l.calls + m.calls, span: max(l.span, m.span)}
}

// drains is l run n times, each drain in its own database on its own clock.
func (l load) drains(n int) load {
	return load{calls: l.calls * n, span: l.span}
}

// withinBudget refuses a run whose load passes the lab's budget, naming the
// flags the user gave and the limit they pass.
func (f *drainFlags) withinBudget(l load) error {
	switch {
	case l.calls > maxCalls:
		return fmt.Errorf("%s make more than %d emitter calls in one run, the lab's limit: lower them", f.given(), maxCalls)
	case l.span > maxSpan:
		return fmt.Errorf("%s schedule scenario time more than %s ahead, the lab's limit: cap the backoff (--max-retry-backoff) or lower them",
			f.given(), maxSpanText)
	}
	return nil
}

// entriesLoad is one drain of specs, entries side by side.
func (f *drainFlags) entriesLoad(specs []entrySpec) load {
	var l load
	for _, s := range specs {
		l = l.alongside(f.entryLoad(s))
	}
	return l
}

// entryLoad plays one entry's script against the documented rules, the way
// the drain will meet it: a failure counts toward MaxRetryAttempts and waits
// the schedule's delay, a pending or deferred result waits what it asks, a
// delivery or a provider dead-letter ends the entry; with dead-lettering off
// the demo cap ends the run. Every wake-up may add WakeupSlack. It stops
// counting once the calls pass the budget.
func (f *drainFlags) entryLoad(s entrySpec) load {
	failed := s.PriorFailures
	var l load
	for k := 0; l.calls <= maxCalls; k++ {
		step := emission.Deliver()
		if len(s.Steps) > 0 {
			step = s.Steps[min(k, len(s.Steps)-1)]
		}
		l.calls++
		l.span = addSat(l.span, wakeupSlack)
		switch {
		case failedStep(step):
			failed++
			if failed >= f.MaxRetryAttempts && f.DeadLetterOnMaxRetryAttempts {
				return l
			}
			l.span = addSat(l.span, scheduledDelay(f.RetryBackoff, f.MaxRetryBackoff, failed))
			if !f.DeadLetterOnMaxRetryAttempts && failed >= f.RetryCap {
				return l
			}
		case step.Result.Kind == emission.ResultPending || step.Result.Kind == emission.ResultDeferred:
			l.span = addSat(l.span, step.Result.RetryAfter)
		default:
			return l
		}
	}
	return l
}

// failedStep reports whether a scripted step is a failed attempt: a failed
// result, an error, a panic, or a result the drain does not know.
func failedStep(s emission.Step) bool {
	switch {
	case s.Panic != "" || s.Error != "":
		return true
	}
	switch s.Result.Kind {
	case emission.ResultDelivered, emission.ResultPending, emission.ResultDeferred, emission.ResultDeadLetter:
		return false
	}
	return true
}

// scheduledDelay is the documented retry schedule, computed on its own (not
// by the policy's code): failed attempt n waits base × 2^(n-1), at most cap
// when cap is set; a product past int64 saturates.
func scheduledDelay(base, cap time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	shift := max(n-1, 0)
	d := time.Duration(math.MaxInt64)
	if shift < 63 && base <= math.MaxInt64>>shift {
		d = base << shift
	}
	if cap > 0 && d > cap {
		return cap
	}
	return d
}

// addSat adds two non-negative durations, saturating instead of overflowing.
func addSat(a, b time.Duration) time.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulSat multiplies a non-negative duration by a count, saturating.
func mulSat(d time.Duration, n int) time.Duration {
	if n <= 0 || d <= 0 {
		return 0
	}
	if d > math.MaxInt64/time.Duration(n) {
		return math.MaxInt64
	}
	return d * time.Duration(n)
}
