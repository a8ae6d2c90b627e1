package wassal

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

// The Day 16 checks, read from the rows and the provider's ledger: the
// AFTER's bounded retry, backoff, exit and recovery; the BEFORE's unbounded
// loop; the starvation a batch the poison can fill shows; and what both
// designs keep.

// noPoison is the why of every poison check when --poison-key none leaves
// no message that fails every time.
const noPoison = "no poison key (--poison-key none): no message failed every time; name one with --poison-key"

func (o *session16Options) afterChecks(r *report.Report, f session16Metrics) {
	if len(o.PoisonKeys) == 0 {
		r.NotExercised("poison tried exactly MaxAttempts", noPoison)
		r.NotExercised("poison dead-lettered with LastError", noPoison)
	} else {
		r.Check("poison tried exactly MaxAttempts",
			report.AllEqual(f.poisonCalls, o.MaxAttempts) && slices.Equal(f.poisonAttempts, f.poisonCalls),
			o.triedDetail(f))
		errText := "error set"
		if !f.poisonErrorsSet {
			errText = "error missing"
		}
		r.Check("poison dead-lettered with LastError",
			report.AllEqual(f.poisonStatuses, outbox.DeadLettered) && f.poisonErrorsSet,
			fmt.Sprintf("status %s, %s", report.JoinStrings(f.poisonStatuses), errText))
	}
	o.backoffCheck(r, f)
	o.starvationCheck(r, f)
	if o.flaky.key != "" {
		o.flakyCheck(r, f)
	}
	r.Check("queue drained", f.pending == 0 && f.processing == 0,
		fmt.Sprintf("%d pending / %d processing", f.pending, f.processing))
	if len(o.PoisonKeys) > 0 {
		r.Check("dead-lettering lost no money", f.poisonMoneyTaken == 0 && report.AllEqual(f.poisonPayments, outbox.PendingConfirmation),
			fmt.Sprintf("poison payments %s; provider calls that paid: %d",
				report.JoinStrings(f.poisonPayments), f.poisonMoneyTaken))
	}
	o.integrityChecks(r, f)
}

// triedDetail is the metric of "poison tried exactly MaxAttempts": the
// status checks the provider received per poison key, against MaxAttempts,
// and why they differ when they do.
func (o *session16Options) triedDetail(f session16Metrics) string {
	detail := fmt.Sprintf("%s / %d", report.JoinInts(f.poisonCalls), o.MaxAttempts)
	if !slices.Equal(f.poisonAttempts, f.poisonCalls) {
		detail += fmt.Sprintf(" (the rows' AttemptCount says %s)", report.JoinInts(f.poisonAttempts))
	}
	if !report.AllEqual(f.poisonCalls, o.MaxAttempts) && !o.DeadLetter && f.capped {
		detail += fmt.Sprintf("; the dead-letter exit is off, so only the demo cap (--retry-cap %d) stopped them", o.RetryCap)
	}
	return detail
}

// backoffCheck judges the backoff from the provider's ledger: every retry of
// a message came no sooner than the course's backoff (base × 2^(n-1), at
// most --max-backoff) after its call before, and that wait was positive, so
// the claim was gated by NextAttemptUtc and the message was not hammered.
func (o *session16Options) backoffCheck(r *report.Report, f session16Metrics) {
	const name = "each retry waited its backoff (NextAttemptUtc)"
	if len(f.retried) == 0 {
		why := noPoison
		if o.flaky.key != "" || len(o.PoisonKeys) > 0 {
			why = fmt.Sprintf("no message was retried: MaxAttempts %d dead-letters at the first failure; "+
				"a higher --max-attempts retries", o.MaxAttempts)
		}
		r.NotExercised(name, why)
		return
	}
	var held []string
	for _, k := range f.retried {
		if bad := f.tooSoon[k]; bad != "" {
			r.Check(name, false, bad)
			return
		}
		held = append(held, fmt.Sprintf("%s retried %s", k, report.Plural(f.retries[k], "time")))
	}
	r.Check(name, true, fmt.Sprintf("%s, each called no sooner than its backoff (%s) after the call before",
		strings.Join(held, ", "), backoffRange(f.backoffs)))
}

// backoffRange is the backoffs waited, or the first and the last of many.
func backoffRange(ds []time.Duration) string {
	if len(ds) > 4 {
		return clock.Millis(ds[0]) + " … " + clock.Millis(ds[len(ds)-1])
	}
	return joinMillis(ds)
}

// flakyCheck judges the transient failure from its row: it fails a few
// times and then pays, so a policy that gives up before that has
// dead-lettered a message that would have recovered.
func (o *session16Options) flakyCheck(r *report.Report, f session16Metrics) {
	k := o.flaky.key
	const name = "the transient failure recovered"
	switch {
	case f.flakyStatus == outbox.Processed && f.flakyPayment == outbox.Paid:
		r.Check(name, true, fmt.Sprintf("%s failed %s, then paid at attempt %d: Processed",
			k, report.Plural(o.flaky.fails, "time"), f.flakyAttempts))
	case f.flakyStatus == outbox.DeadLettered:
		// The policy held (bounded, backed off, dead-lettered): it gave up
		// too soon, which is what the verdict says.
		r.CheckLead(name, false, fmt.Sprintf("%s DeadLettered after %s (MaxAttempts %d), though it fails only %d "+
			"times, then pays: a --max-attempts of %d or less gives up on a message that would have recovered",
			k, report.Plural(f.flakyAttempts, "attempt"), o.MaxAttempts, o.flaky.fails, o.flaky.fails),
			fmt.Sprintf("MAXATTEMPTS %d GAVE UP ON A MESSAGE THAT WOULD HAVE RECOVERED", o.MaxAttempts))
	default:
		r.Check(name, false, fmt.Sprintf("%s ended %s after %s, payment %s",
			k, f.flakyStatus, report.Plural(f.flakyAttempts, "attempt"), f.flakyPayment))
	}
}

func (o *session16Options) beforeChecks(r *report.Report, run *session16Run, f session16Metrics) {
	loop := []string{"poison retried with no limit", "no dead-letter exit", "provider calls wasted on the poison", "queue never drains"}
	switch {
	case len(o.PoisonKeys) == 0 && o.flaky.key != "":
		// A transient failure is no poison: the naive loop retried it until it paid.
		recovered := fmt.Sprintf("no poison key; %s failed %s, then %s at attempt %d",
			o.flaky.key, report.Plural(o.flaky.fails, "time"), f.flakyStatus, f.flakyAttempts)
		r.Check(loop[0], false, recovered)
		r.Check(loop[1], false, fmt.Sprintf("%d dead-lettered; no message needed an exit: %s", f.deadLettered, recovered))
		r.Check(loop[2], false, fmt.Sprintf("%d of %d status checks failed, none for a poison", f.failedCalls, f.calls))
		r.Check(loop[3], f.pending+f.processing > 0, fmt.Sprintf("%d pending / %d processing when the run ended by itself", f.pending, f.processing))
		o.integrityChecks(r, f)
		return
	case len(o.PoisonKeys) == 0:
		for _, name := range loop {
			r.NotExercised(name, noPoison)
		}
		o.integrityChecks(r, f)
		return
	}
	retried := slices.ContainsFunc(f.poisonAttempts, func(n int) bool { return n > 1 })
	noRetry := fmt.Sprintf("the demo cap (--retry-cap %d) stopped the run at %s's first attempt, before any retry; "+
		"a higher --retry-cap shows the loop", o.RetryCap, keysText(f.atCap))
	detail := fmt.Sprintf("AttemptCount %s at the demo cap of %d, status %s", report.JoinInts(f.poisonAttempts), o.RetryCap, report.JoinStrings(f.poisonStatuses))
	if !slices.Equal(f.poisonAttempts, f.poisonCalls) {
		detail += fmt.Sprintf("; the provider was asked %s times", report.JoinInts(f.poisonCalls))
	}
	if retried {
		r.Check(loop[0], len(f.atCap) > 0 && report.AllEqual(f.poisonStatuses, outbox.Pending) && slices.Equal(f.poisonAttempts, f.poisonCalls), detail)
		detail = fmt.Sprintf("%d dead-lettered", f.deadLettered)
		if f.poisonCeilings > 0 {
			detail += "; " + report.Plural(f.poisonCeilings, "poison row carries", "poison rows carry") + " a MaxAttempts ceiling"
		}
		r.Check(loop[1], f.deadLettered == 0 && f.poisonCeilings == 0 && len(f.atCap) > 0, detail)
	} else {
		r.NotExercised(loop[0], noRetry)
		r.NotExercised(loop[1], noRetry)
	}
	wasted := 0
	for _, n := range f.poisonAttempts {
		wasted += n
	}
	detail = fmt.Sprintf("%d of %d status checks failed", f.failedCalls, f.calls)
	if f.flakyFails > 0 {
		detail += fmt.Sprintf(", %d for the poison, %d for %s (transient)", wasted, f.flakyFails, o.flaky.key)
	}
	r.Check(loop[2], f.failedCalls > 0 && f.failedCalls == wasted+f.flakyFails, detail)
	ended := "when the run was stopped"
	if !run.capped {
		ended = "when the run ended by itself"
	}
	if retried {
		r.Check(loop[3], f.pending+f.processing > 0,
			fmt.Sprintf("%d pending / %d processing %s", f.pending, f.processing, ended))
	} else {
		r.NotExercised(loop[3], noRetry)
	}
	o.starvationCheck(r, f)
	o.integrityChecks(r, f)
}

// integrityChecks are what both designs must keep: nothing is a lie.
func (o *session16Options) integrityChecks(r *report.Report, f session16Metrics) {
	r.Invariant("no duplicate payment/outbox rows", f.maxPayRows <= 1 && f.maxMsgRows <= 1,
		fmt.Sprintf("max %d per key", max(f.maxPayRows, f.maxMsgRows)))
	f.txIDs.invariant(r)
}

// starves reports whether a run's batch can be filled by the poison alone:
// then a poison message claimed again at every poll keeps the rest waiting,
// unless a backoff takes it out of the way.
func (o *session16Options) starves() bool {
	return len(o.PoisonKeys) > 0 && o.Batch <= len(o.PoisonKeys)
}

// starvationCheck judges, when the poison can fill a poll (starves), the
// messages queued behind it: the naive loop keeps them waiting (BEFORE), the
// policy's backoff lets them through (AFTER).
func (o *session16Options) starvationCheck(r *report.Report, f session16Metrics) {
	if !o.starves() {
		return
	}
	s := f.starvation
	name := "the poison starves the messages behind it"
	if o.after {
		name = "no message starved behind the poison"
	}
	if len(s.behind) == 0 {
		r.NotExercised(name, fmt.Sprintf("%s is the last message in the queue: nothing waits behind it; "+
			"an earlier --poison-key queues messages behind the poison", s.head))
		return
	}
	detail := fmt.Sprintf("%d of the %s behind %s never claimed (AttemptCount 0, no status check): %s",
		len(s.starved), report.Plural(len(s.behind), "message"), s.head, keysText(s.starved))
	if len(s.starved) == len(s.behind) {
		detail = fmt.Sprintf("the %s behind %s never claimed (AttemptCount 0, no status check): %s",
			report.Plural(len(s.behind), "message"), s.head, keysText(s.starved))
	}
	if len(s.starved) == 0 {
		detail = fmt.Sprintf("every one of the %s behind %s claimed", report.Plural(len(s.behind), "message"), s.head)
	}
	if o.after {
		r.Check(name, len(s.starved) == 0, detail)
		return
	}
	r.Check(name, len(s.starved) > 0, detail)
}
