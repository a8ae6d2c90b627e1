package wassal

import (
	"fmt"
	"slices"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session14Metrics are the numbers a Day 14 run is judged by.
type session14Metrics struct {
	requests              int
	failedRequests        []string // the client was told these failed: the service died in them
	paymentRows, messages int
	lost, ghosts          []string
	leftBehind            []string // failed requests that still left a row
	halfWritten           []string // failed requests that left one of their two rows
	oneEach               int      // payments with exactly one outbox row
	pendingAfter          []string
	lostChecks            int // status checks for lost payments
	ghostChecks           []string
	paid, failed          int
	dupPayments, dupMsgs  int
	txIDs
}

func (o *session14Options) metrics(run *session14Run) session14Metrics {
	l := run.ledger
	f := session14Metrics{requests: o.Payments, failedRequests: o.CrashAt, paymentRows: len(l.Payments),
		messages: len(l.Messages), lost: run.lost, ghosts: run.ghosts, pendingAfter: pendingKeys(l.Payments)}
	for _, k := range o.CrashAt {
		_, pay := l.Payment(k)
		_, msg := l.Message(k)
		if pay || msg {
			f.leftBehind = append(f.leftBehind, k)
		}
		if pay != msg {
			f.halfWritten = append(f.halfWritten, k)
		}
	}
	perKey := map[string]int{}
	for _, m := range l.Messages {
		perKey[m.Key]++
	}
	for _, p := range l.Payments {
		if perKey[p.Key] == 1 {
			f.oneEach++
		}
	}
	for _, k := range run.lost {
		f.lostChecks += callsAfter(l.Calls, provider.OpStatusCheck, k, clock.Start)
	}
	for _, k := range run.ghosts {
		if callsAfter(l.Calls, provider.OpStatusCheck, k, clock.Start) > 0 {
			f.ghostChecks = append(f.ghostChecks, k)
		}
	}
	f.paid, f.failed = paidFailed(l.Payments)
	f.dupPayments, f.dupMsgs = l.DuplicateRows()
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

var session14Day = day{
	number: 14,
	Pair: scenarios.Pair{
		Before: session14Before, BeforeTitle: "Day 14 — BEFORE: a dual write loses the message or leaves a ghost",
		After: session14After, AfterTitle: "Day 14 — AFTER: the transactional outbox, both rows or neither",
	},
	reproduced: "A DUAL WRITE — EITHER ORDER LOSES WORK OR LEAVES A GHOST",
	held:       "TRANSACTIONAL OUTBOX — BOTH OR NEITHER, EVERY PAYMENT HAS ITS MESSAGE",
	broken:     "THE PAYMENT AND ITS MESSAGE DID NOT COMMIT TOGETHER",
	columns:    []string{"Metric (real run)", "BEFORE (dual write)", "AFTER (one transaction)"},
}

func (o *session14Options) story(own *session14Run, _ session14Metrics) story {
	return story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: Day(14), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerRequest(r, own) }}
}

func (o *session14Options) checks(r *report.Report, own *session14Run, f session14Metrics) {
	if o.after {
		o.afterChecks(r, own, f)
	} else {
		o.beforeChecks(r, f)
	}
}

func (o *session14Options) writeSetup(r *report.Report, own *session14Run) {
	r.Linef("Requests  %s, one every %s from %s;", paymentRange(o.Payments), clock.Millis(requestGap), clock.Stamp(clock.Start))
	r.Linef("          each writes a payment row and its %s outbox row", ConfirmType)
	design := "dual write: two separate transactions"
	if own.atomic {
		design = "one transaction for both rows"
	} else if o.after {
		design += " (--one-transaction=false)"
	}
	r.Linef("Design    %s", design)
	if own.atomic {
		r.Line(databaseLine(own.serialDB,
			"Database  SQLite: BEGIN IMMEDIATE holds the write lock from the first insert;",
			"Database  PostgreSQL: a READ COMMITTED transaction; a life killed inside it"))
		r.Line(databaseLine(own.serialDB,
			"          a life killed inside it never commits, so its insert is discarded",
			"          never commits: the server rolls it back when its session ends"))
	}
	r.Linef("Versions  life 1 writes the payment first; every later life (the redeploy) writes the message first")
	if len(o.CrashAt) == 0 {
		r.Line("Crashes   none (--crash-at none)")
	} else {
		r.Linef("Crashes   each life is a real child process, killed with SIGKILL between its two writes of:")
		r.Linef("          %s; a new life starts %s later", keysText(o.CrashAt), restartDelay)
	}
	r.Linef("Relay     after the last life, relay-1 drains the outbox and asks the provider for each status;")
	r.Linef("          %s, every other key pays", declinedText(o.DeclinedKey))
	writeClockLine(r, clock.Start)
}

func (o *session14Options) writePerRequest(r *report.Report, run *session14Run) {
	l := run.ledger
	var rows [][]string
	for i, key := range PaymentKeys(o.Payments) {
		life := 1
		for _, c := range o.CrashAt {
			if keyIndex(c) < i+1 {
				life++
			}
		}
		request := "OK"
		if slices.Contains(o.CrashAt, key) {
			request = "crashed"
		}
		pay, hasPay := l.Payment(key)
		msg, hasMsg := l.Message(key)
		payment, status := "—", "—"
		if hasPay {
			payment, status = strconv.FormatInt(pay.ID, 10), string(pay.Status)
		}
		outboxRow, outboxStatus := "—", "—"
		if hasMsg {
			outboxRow, outboxStatus = strconv.FormatInt(msg.ID, 10), string(msg.Status)
		}
		note := "—"
		switch {
		case slices.Contains(run.lost, key):
			note = "LOST WORK"
		case slices.Contains(run.ghosts, key):
			note = "GHOST"
		case request != "OK":
			note = "neither row"
		}
		rows = append(rows, []string{key, strconv.Itoa(life), request, payment + " / " + outboxRow, outboxStatus,
			strconv.Itoa(callsAfter(l.Calls, provider.OpStatusCheck, key, clock.Start)), status, note})
	}
	r.Table([]string{"Key", "Life", "Request", "Row ids", "Outbox", "Checks", "Payment", "Crash left"}, rows)
	r.Line("Row ids: the payment's and the outbox message's Id (— none); Checks: status checks the provider got.")
	r.Line("LOST WORK: a payment with no message; GHOST: a message with no payment.")
}

// metricList is every Day 14 metric: its row in the BEFORE vs AFTER table
// and its JSON metric.
func (o *session14Options) metricList() []scenarios.Metric[session14Metrics] {
	type f14 = session14Metrics
	pending := func(f f14) string {
		if len(f.pendingAfter) == 0 {
			return "0"
		}
		return countWith(f.pendingAfter) + ", never"
	}
	return slices.Concat(
		[]scenarios.Metric[f14]{
			metric("requests", func(f f14) any { return f.requests }),
			{Label: "Requests OK / failed by a crash", Key: "failed_requests",
				Show: func(f f14) string {
					return fmt.Sprintf("%d / %s", f.requests-len(f.failedRequests), countWith(f.failedRequests))
				},
				Value: func(f f14) any { return len(f.failedRequests) }},
		},
		twoMetrics("Payment rows / outbox rows committed", "payment_rows", "outbox_rows",
			func(f f14) int { return f.paymentRows }, func(f f14) int { return f.messages }),
		[]scenarios.Metric[f14]{
			keysMetric("Payments with no message (lost)", "lost_work", func(f f14) []string { return f.lost }),
			metric("lost_work_keys", func(f f14) any { return keysText(f.lost) }),
			keysMetric("Messages with no payment (ghosts)", "ghosts", func(f f14) []string { return f.ghosts }),
			metric("ghost_keys", func(f f14) any { return keysText(f.ghosts) }),
			{Label: "Failed requests that left a row behind",
				Show: func(f f14) string { return fmt.Sprintf("%d of %d", len(f.leftBehind), len(f.failedRequests)) }},
			metric("half_written_requests", func(f f14) any { return len(f.halfWritten) }),
			{Label: "Payments with exactly one outbox row", Key: "payments_with_one_outbox_row",
				Show:  func(f f14) string { return fmt.Sprintf("%d of %d", f.oneEach, f.paymentRows) },
				Value: func(f f14) any { return f.oneEach }},
			{Label: "PendingConfirmation after the relay", Key: "pending_after_relay", Show: pending,
				Value: func(f f14) any { return len(f.pendingAfter) }},
			keysMetric("Asked about an unrecorded payment", "ghost_status_checks", func(f f14) []string { return f.ghostChecks }),
		},
		resolvedMetrics("Resolved Paid / Failed", func(f f14) int { return f.paid }, func(f f14) int { return f.failed }),
		[]scenarios.Metric[f14]{
			{Label: "Duplicate payment / outbox rows", Show: func(f f14) string { return slash(f.dupPayments, f.dupMsgs) }},
			fakeMetric(func(f f14) txIDs { return f.txIDs }),
		},
	)
}

func (o *session14Options) beforeChecks(r *report.Report, f session14Metrics) {
	// Life 1 writes the payment first, so its crash can lose work; every
	// later life writes the message first, so only a second crash can leave
	// a ghost.
	noLoss, noGhost := "", ""
	switch len(f.failedRequests) {
	case 0:
		noLoss = "no crash (--crash-at none): every request wrote both rows, so there was no half-write; " +
			"name keys with --crash-at"
		noGhost = noLoss
	case 1:
		noGhost = fmt.Sprintf("one crash (--crash-at %s), in life 1, which writes the payment first: life 2 "+
			"writes the message first and never crashed; name a second key with --crash-at", f.failedRequests[0])
	}
	check := func(name, idle string, held bool, detail string) {
		if idle != "" {
			r.NotExercised(name, idle)
			return
		}
		r.Check(name, held, detail)
	}
	check("payment committed without its message (lost work)", noLoss, len(f.lost) > 0, countWith(f.lost))
	check("message committed without its payment (ghost)", noGhost, len(f.ghosts) > 0, countWith(f.ghosts))
	lostStuck := len(f.lost) > 0 && f.lostChecks == 0
	for _, k := range f.lost {
		lostStuck = lostStuck && slices.Contains(f.pendingAfter, k)
	}
	check("the lost payment is never confirmed", noLoss, lostStuck,
		fmt.Sprintf("%s PendingConfirmation after the relay, %d status checks", keysText(f.lost), f.lostChecks))
	check("the ghost reached the provider", noGhost, len(f.ghostChecks) > 0,
		fmt.Sprintf("status checks for %s, a payment our books never had", keysText(f.ghostChecks)))
	f.txIDs.invariant(r)
}

func (o *session14Options) afterChecks(r *report.Report, run *session14Run, f session14Metrics) {
	detail := fmt.Sprintf("%s between the writes, %s half-written", report.Plural(len(f.failedRequests), "crash"), report.Plural(len(f.halfWritten), "request"))
	if len(f.halfWritten) > 0 {
		detail += ": " + keysText(f.halfWritten)
	}
	if len(f.failedRequests) == 0 {
		r.NotExercised("each crash left both rows or neither",
			"no crash (--crash-at none): no request was cut between its two writes, so nothing had to roll back; "+
				"name keys with --crash-at")
	} else {
		r.Check("each crash left both rows or neither", len(f.halfWritten) == 0, detail)
	}
	r.Check("every payment has exactly one outbox row", f.oneEach == f.paymentRows && len(f.lost) == 0,
		fmt.Sprintf("%d of %d", f.oneEach, f.paymentRows))
	r.Check("no ghosts", len(f.ghosts) == 0, fmt.Sprintf("%d outbox rows without a payment", len(f.ghosts)))
	r.Check("every payment confirmed", len(f.pendingAfter) == 0,
		fmt.Sprintf("%d PendingConfirmation; %d Paid, %d Failed", len(f.pendingAfter), f.paid, f.failed))
	f.txIDs.invariant(r)
}
