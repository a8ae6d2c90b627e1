package wassal

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session15Figures are the numbers a Day 15 run is judged by.
type session15Figures struct {
	takenAtOnce     []string
	calls           int
	repeated        []string // payments asked about more than once
	notifications   int
	maxNotified     int
	notifiedTwice   []string
	maxCompletions  int
	refused         []refusal
	lateCommitted   []refusal
	takeovers       []takeover
	stuck           []string // outbox rows still Processing
	pendingMessages int
	pending         []string // payments still PendingConfirmation
	unnotified      []string // payments resolved without a notification, or never
	paid, failed    int
	txIDs
}

func (o *session15Options) figures(run *session15Run) session15Figures {
	l := run.ledger
	f := session15Figures{takenAtOnce: run.takenAtOnce, refused: run.refused, lateCommitted: run.lateCommitted, takeovers: run.takeovers,
		notifications: len(run.notifications), pending: pendingKeys(l.Payments)}
	perKey := map[string]int{}
	for _, c := range l.Calls {
		f.calls++
		if perKey[c.Key]++; perKey[c.Key] == 2 {
			f.repeated = append(f.repeated, c.Key)
		}
	}
	notified := map[string]int{}
	for _, n := range run.notifications {
		if notified[n.key]++; notified[n.key] == 2 {
			f.notifiedTwice = append(f.notifiedTwice, n.key)
		}
		f.maxNotified = max(f.maxNotified, notified[n.key])
	}
	for _, p := range l.Payments {
		if notified[p.Key] == 0 {
			f.unnotified = append(f.unnotified, p.Key)
		}
	}
	for _, n := range run.completions {
		f.maxCompletions = max(f.maxCompletions, n)
	}
	for _, m := range l.Messages {
		switch m.Status {
		case outbox.Processing:
			f.stuck = append(f.stuck, m.Key)
		case outbox.Pending:
			f.pendingMessages++
		}
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

var session15Day = day{
	Pair: scenarios.Pair{
		Before: session15Before, BeforeTitle: "Session 15 — BEFORE: double processing without a lease",
		After: session15After, AfterTitle: "Session 15 — AFTER: outbox leasing, one owner at a time",
	},
	reproduced: "NO ATOMIC CLAIM, NO LEASE — WORK DONE TWICE, A DEAD WORKER'S MESSAGE STUCK FOREVER ❌",
	held:       "OUTBOX LEASING — ONE OWNER AT A TIME, OWNERSHIP EXPIRES, LATE OWNERS REFUSED ✅",
	broken:     "OWNERSHIP DID NOT HOLD — SEE THE FAILED CHECKS ❌",
}

func (o *session15Options) render(own, before, after *session15Run) *report.Report {
	r := session15Day.NewReport(!o.naive)
	o.writeSetup(r, own)
	writeSchemaAndTimeline(r, own.tables, own.lines)
	r.Section("Per-message table")
	o.writePerMessage(r, own)
	writeLedgers(r, own.ledger, "", ledgerTable{"Notification ledger (PaymentNotifications table)",
		func(r *report.Report) { writeNotifications(r, own.notifications) }})
	scenarios.CompareSection(r)
	o.writeMetrics(r, o.figures(before), o.figures(after))

	f := o.figures(own)
	if o.naive {
		o.beforeChecks(r, own, f)
	} else {
		o.afterChecks(r, own, f)
	}
	session15Day.closeReport(r, !o.naive)
	o.recordMetrics(r, own, f)
	return r
}

func (o *session15Options) writeSetup(r *report.Report, own *session15Run) {
	r.Linef("Seed      %s, PendingConfirmation, each with its %s outbox message (the Day 14 outbox)",
		paymentRange(o.Payments), ConfirmType)
	if own.naive {
		r.Line("Claim     naive: SELECT the oldest Pending rows, then UPDATE each to Processing in a separate statement; no lease, no token; complete by id")
	} else {
		fencing := "completion checks LockedBy and ClaimToken"
		if !own.fenced {
			fencing = "completion by id, owner NOT checked (--fencing=false)"
		}
		r.Linef("Claim     atomic: one BEGIN IMMEDIATE transaction reads and conditionally updates; lease %s; ClaimToken +1 per claim; %s", o.Lease, fencing)
	}
	crash := "after the provider answered"
	if o.CrashPoint == beforeCall {
		crash = "right after claiming, before calling the provider"
	}
	overlap := "at the same moment"
	if !o.Overlap {
		overlap = "one after the other (--overlap=false)"
	}
	r.Linef("Workers   %s worker-c (a real child process) claims one message and is killed %s", stampAt(crashActAt), crash)
	r.Linef("          %s worker-a and worker-b poll %s, up to %d messages each", stampAt(raceActAt), overlap, o.Batch)
	r.Linef("          %s worker-a claims one more, asks the provider and stalls %s before recording the answer; worker-b drains the rest", stampAt(stallActAt), o.Stall)
	r.Linef("Provider  %s; every other key pays; each answer is recorded with a customer notification, in the completing transaction", declinedText(o.DeclinedKey))
	writeClockLine(r, clock.Start)
}

func stampAt(d time.Duration) string { return clock.Stamp(clock.Start.Add(d)) }

func (o *session15Options) writePerMessage(r *report.Report, run *session15Run) {
	l := run.ledger
	notified := map[string][]string{}
	for _, n := range run.notifications {
		notified[n.key] = append(notified[n.key], n.by)
	}
	refused := map[string]int{}
	for _, x := range run.refused {
		refused[x.key]++
	}
	var rows [][]string
	for _, m := range l.Messages {
		pay, _ := l.Payment(m.Key)
		by := notified[m.Key]
		rows = append(rows, []string{m.Key, report.Dash(strings.Join(run.claimedBy[m.Key], ", ")),
			strconv.Itoa(callsAfter(l.Calls, provider.OpStatusCheck, m.Key, clock.Start)),
			fmt.Sprintf("%d %s", len(by), parenList(by)), strconv.Itoa(run.completions[m.Key]), strconv.Itoa(refused[m.Key]),
			string(m.Status), report.Dash(m.LockedBy), string(pay.Status)})
	}
	r.Table([]string{"Key", "Claimed by", "Status checks", "Notifications", "Completions committed", "Refused",
		"Outbox status", "LockedBy", "Payment status"}, rows)
}

func parenList(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return "(" + strings.Join(xs, ", ") + ")"
}

func writeNotifications(r *report.Report, ns []notification) {
	rows := make([][]string, 0, len(ns))
	for _, n := range ns {
		rows = append(rows, []string{strconv.FormatInt(n.id, 10), n.key, n.outcome, n.by, n.at[len("2006-01-02T"):]})
	}
	r.Table([]string{"Id", "PaymentKey", "Outcome", "SentBy", "SentAtUtc"}, rows)
}
