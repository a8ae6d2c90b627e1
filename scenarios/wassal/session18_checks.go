package wassal

import (
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
)

func (o *session18Options) checks(r *report.Report, own *session18Run, f session18Metrics) {
	if !o.after {
		o.beforeChecks(r, own, f)
	} else {
		o.afterChecks(r, own, f)
	}
	if !o.after && !o.Fencing {
		o.overwritten(r, own, f)
	} else {
		o.oneCompletion(r, own, f)
	}
	f.txIDs.invariant(r)
}

// noRival says why no message could be taken from a running handler.
const noRival = "worker-c polled only once the handlers had returned (--rival=false): nobody was there " +
	"to take a message whose lease ended; drop --rival=false"

func (o *session18Options) beforeChecks(r *report.Report, run *session18Run, f session18Metrics) {
	const lost = "a handler longer than its lease lost its message"
	const twice = "the provider was asked twice while the first handler ran"
	if !o.Rival {
		r.NotExercised(lost, noRival)
		r.NotExercised(twice, noRival)
		return
	}
	key := PaymentKey(1)
	row, ns := messageOf(run.ledger, key), f.notified[key]
	first := f.calls[key]
	var asked string
	if len(first) > 0 {
		asked = clock.Stamp(first[0].At.Add(o.Handler))
	}
	taken := row.ClaimToken >= 2 && len(ns) > 0 && ns[0].by != "worker-a"
	detail := fmt.Sprintf("%s kept one claim (token %d): worker-a's handler (--handler %s) returned within its lease (--lease %s)",
		key, row.ClaimToken, durationText(o.Handler), durationText(o.Lease))
	if taken {
		detail = fmt.Sprintf("%s: claimed %d times (token %d, attempt %d), first notified by %s, while worker-a's handler ran until %s",
			key, row.ClaimToken, row.ClaimToken, row.AttemptCount, notifiedText(ns[:1]), asked)
	}
	r.Check(lost, taken, detail)
	var parts []string
	for _, k := range f.whileRunning {
		cs := f.calls[k]
		parts = append(parts, fmt.Sprintf("%s at %s and %s", k, clock.Stamp(cs[0].At), clock.Stamp(cs[1].At)))
	}
	detail = fmt.Sprintf("%d status checks for %d payments, none while a handler of the same payment ran", f.callCount, payments18)
	if len(parts) > 0 {
		detail = "asked again before the first handler returned: " + strings.Join(parts, "; ")
	}
	r.Check(twice, len(f.whileRunning) > 0, detail)
}

func (o *session18Options) afterChecks(r *report.Report, run *session18Run, f session18Metrics) {
	o.keptByRenewal(r, run, f)
	o.renewalsInTime(r, run, f)
	o.lostAtCap(r, run, f)
}

// keptByRenewal judges the handlers that outlive one lease but not the
// cap: each message claimed once, the provider asked once, the customer
// notified once, by the worker that claimed it.
func (o *session18Options) keptByRenewal(r *report.Report, run *session18Run, f session18Metrics) {
	const name = "a handler longer than its lease kept its claim by renewing"
	var keys, broken []string
	for i, k := range PaymentKeys(payments18) {
		h := o.handlerOf(k)
		if h <= o.Lease || h > o.RenewCap {
			continue
		}
		keys = append(keys, k)
		row, ns, worker := messageOf(run.ledger, k), f.notified[k], []string{"worker-a", "worker-b"}[i]
		if row.ClaimToken != 1 || len(f.calls[k]) != 1 || len(ns) != 1 || ns[0].by != worker {
			broken = append(broken, fmt.Sprintf("%s: token %d, %d status checks, notified by %s",
				k, row.ClaimToken, len(f.calls[k]), report.Dash(notifiedText(ns))))
		}
	}
	switch {
	case len(keys) == 0:
		r.NotExercised(name, fmt.Sprintf("no handler ran longer than one lease (--lease %s) and within the cap (--renew-cap %s): "+
			"nothing needed renewing; --handler between the two does", durationText(o.Lease), durationText(o.RenewCap)))
	case len(broken) > 0:
		r.Check(name, false, strings.Join(broken, "; "))
	default:
		r.Check(name, true, fmt.Sprintf("%s: one claim, one status check, notified once by its own worker", keysText(keys)))
	}
}

// renewalsInTime judges every renewal by the row read right before and
// right after it: made by the row's holder with its token, at least the
// margin before the lease ended, moving the lease forward, never past the
// cap from the claim.
func (o *session18Options) renewalsInTime(r *report.Report, run *session18Run, f session18Metrics) {
	const name = "each renewal by the holder, the margin before its lease ended, within the cap"
	if len(f.renewals) == 0 {
		r.NotExercised(name, fmt.Sprintf("no lease was renewed: no handler outlived its lease's first %s; "+
			"a --handler longer than --lease makes one", durationText(o.Lease-o.margin())))
		return
	}
	claimed := map[string]time.Time{}
	for _, c := range run.claims {
		if _, ok := claimed[c.key]; !ok {
			claimed[c.key] = c.at
		}
	}
	for _, x := range f.renewals {
		left := x.before.LockedUntil.Sub(x.at)
		switch {
		case x.before.LockedBy != x.worker || x.before.ClaimToken != x.token:
			r.Check(name, false, fmt.Sprintf("%s renewed %s at %s while the row named %s with token %d",
				x.worker, x.key, clock.Stamp(x.at), report.Dash(x.before.LockedBy), x.before.ClaimToken))
			return
		case left < o.margin():
			r.Check(name, false, fmt.Sprintf("%s renewed %s at %s, %s before its lease ended (margin %s)",
				x.worker, x.key, clock.Stamp(x.at), durationText(left), durationText(o.margin())))
			return
		case !x.after.LockedUntil.After(x.before.LockedUntil) || x.after.LockedUntil.Sub(claimed[x.key]) > o.RenewCap:
			r.Check(name, false, fmt.Sprintf("%s's renewal of %s at %s moved the lease from %s to %s (cap %s from %s)",
				x.worker, x.key, clock.Stamp(x.at), clock.Stamp(x.before.LockedUntil), clock.Stamp(x.after.LockedUntil),
				durationText(o.RenewCap), clock.Stamp(claimed[x.key])))
			return
		}
	}
	r.Check(name, true, fmt.Sprintf("%d renewals, each by its holder and token, at least %s before the lease ended; "+
		"none past %s from the claim", len(f.renewals), durationText(o.margin()), durationText(o.RenewCap)))
}

// lostAtCap judges the handlers that run past the cap: their renewals
// stopped, and only after the capped lease ended did another worker claim
// the message again (attempt 2), ask the provider and complete it.
func (o *session18Options) lostAtCap(r *report.Report, run *session18Run, f session18Metrics) {
	const name = "a handler hung past the cap lost its claim, and the message was retried"
	var keys []string
	for _, k := range PaymentKeys(payments18) {
		if o.handlerOf(k) > o.RenewCap {
			keys = append(keys, k)
		}
	}
	switch {
	case len(keys) == 0:
		r.NotExercised(name, fmt.Sprintf("no handler ran past the cap (--renew-cap %s): --hang longer than it makes one",
			durationText(o.RenewCap)))
		return
	case !o.Rival:
		r.NotExercised(name, noRival)
		return
	}
	var held []string
	for _, k := range keys {
		row, ns, cs := messageOf(run.ledger, k), f.notified[k], f.calls[k]
		if len(cs) < 2 || !cs[1].At.After(cs[0].At.Add(o.RenewCap)) || row.AttemptCount < 2 || len(ns) == 0 {
			at := "never"
			if len(cs) > 1 {
				at = clock.Stamp(cs[1].At)
			}
			r.Check(name, false, fmt.Sprintf("%s: claimed at %s, asked again %s (the cap ends %s), attempt %d, notified by %s",
				k, clock.Stamp(cs[0].At), at, clock.Stamp(cs[0].At.Add(o.RenewCap)), row.AttemptCount, report.Dash(notifiedText(ns))))
			return
		}
		held = append(held, fmt.Sprintf("%s: the cap ended %s, asked again %s (attempt %d), notified by %s",
			k, clock.Stamp(cs[0].At.Add(o.RenewCap)), clock.Stamp(cs[1].At), row.AttemptCount, notifiedText(ns[:1])))
	}
	r.Check(name, true, strings.Join(held, "; "))
}

// oneCompletion is the invariant of both designs: each payment notified
// exactly once, its row's ProcessedAtUtc that notification's moment, so a
// worker that came back late changed nothing.
func (o *session18Options) oneCompletion(r *report.Report, run *session18Run, f session18Metrics) {
	const name = "one completion per payment: a late completion refused"
	for _, k := range PaymentKeys(payments18) {
		ns := f.notified[k]
		if !processedAtOne(run.ledger, k, ns) {
			m := messageOf(run.ledger, k)
			r.Invariant(name, false, fmt.Sprintf("%s notified %d times (%s), the row %s at %s", k, len(ns),
				report.Dash(notifiedText(ns)), m.Status, report.Dash(clock.Stamp(m.ProcessedAt))))
			return
		}
	}
	if len(f.refused) == 0 {
		r.InvariantOnNone(name, true, "each payment notified once; no completion came late",
			"no worker came back after losing its claim, so there was nothing to refuse")
		return
	}
	x := f.refused[0]
	r.Invariant(name, true, fmt.Sprintf("%d refused (%s on %s with token %d, the row's token %d); each payment notified once",
		len(f.refused), x.worker, x.key, x.token, x.ownerToken))
}

// overwritten is the BEFORE's demonstration without fencing (River #1302):
// a worker that lost its claim completed by id after another worker had
// completed the message, so the customer was notified twice and the row's
// ProcessedAtUtc is the late completion's.
func (o *session18Options) overwritten(r *report.Report, run *session18Run, f session18Metrics) {
	const name = "a late completion overwrote the one before it (--fencing=false)"
	for _, k := range PaymentKeys(payments18) {
		ns, m := f.notified[k], messageOf(run.ledger, k)
		if len(ns) > 1 && m.Status == outbox.Processed && clock.ISO(m.ProcessedAt) == ns[len(ns)-1].at && ns[0].by != ns[len(ns)-1].by {
			r.Check(name, true, fmt.Sprintf("%s notified %d times (%s); ProcessedAtUtc is the late one's", k, len(ns), notifiedText(ns)))
			return
		}
	}
	if !o.Rival {
		r.NotExercised(name, noRival)
		return
	}
	r.Check(name, false, fmt.Sprintf("no payment was completed twice: %d notifications for %d payments", f.notifications, payments18))
}
