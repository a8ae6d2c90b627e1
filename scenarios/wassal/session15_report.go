package wassal

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session15Metrics are the numbers a Day 15 run is judged by. The checks
// read them from what the run left behind: the provider's ledger, the
// notifications the completing transactions committed, and the outbox rows.
type session15Metrics struct {
	takenAtOnce     []string // asked about twice less than a lease apart: two owners at once
	processedByTwo  []string // completed (customer notified) by two different workers
	calls           int
	repeated        []string // payments asked about more than once
	notifications   int
	maxNotified     int
	notifiedTwice   []string
	maxCompletions  int       // completions committed for one message: one notification each
	refused         []refusal // late completions that left no notification
	lateCommitted   []refusal // late completions whose notification committed
	takeovers       []takeover
	crashTakeover   *takeover // who finished the dead worker's message, after its lease ended
	crashStuck      bool      // the dead worker's message is still Processing under worker-c
	stuck           []string  // outbox rows still Processing
	pendingMessages int
	pending         []string // payments still PendingConfirmation
	unnotified      []string // payments resolved without a notification, or never
	paid, failed    int
	txIDs

	naive bool      // the run's design: select-then-update, no lease
	ended time.Time // scenario time at the end of the run
}

func (o *session15Options) metrics(run *session15Run) session15Metrics {
	l := run.ledger
	f := session15Metrics{takeovers: run.takeovers, notifications: len(run.notifications), pending: pendingKeys(l.Payments),
		naive: run.naive, ended: run.ended}
	askedAt := map[string][]time.Time{}
	for _, c := range l.Calls {
		f.calls++
		if askedAt[c.Key] = append(askedAt[c.Key], c.At); len(askedAt[c.Key]) == 2 {
			f.repeated = append(f.repeated, c.Key)
		}
	}
	for _, k := range f.repeated {
		if atOnce(askedAt[k], o.Lease) {
			f.takenAtOnce = append(f.takenAtOnce, k)
		}
	}
	notified, by := map[string]int{}, map[string][]string{}
	for _, n := range run.notifications {
		if notified[n.key]++; notified[n.key] == 2 {
			f.notifiedTwice = append(f.notifiedTwice, n.key)
		}
		f.maxNotified = max(f.maxNotified, notified[n.key])
		if !slices.Contains(by[n.key], n.by) {
			if by[n.key] = append(by[n.key], n.by); len(by[n.key]) == 2 {
				f.processedByTwo = append(f.processedByTwo, n.key)
			}
		}
	}
	f.maxCompletions = f.maxNotified
	for _, p := range l.Payments {
		if notified[p.Key] == 0 {
			f.unnotified = append(f.unnotified, p.Key)
		}
	}
	for _, x := range run.lateAttempts {
		if slices.ContainsFunc(run.notifications, func(n notification) bool {
			return n.key == x.key && n.by == x.worker && n.at == clock.ISO(x.at)
		}) {
			f.lateCommitted = append(f.lateCommitted, x)
		} else {
			f.refused = append(f.refused, x)
		}
	}
	for _, m := range l.Messages {
		switch m.Status {
		case outbox.Processing:
			f.stuck = append(f.stuck, m.Key)
		case outbox.Pending:
			f.pendingMessages++
		}
	}
	f.crashTakeover, f.crashStuck = crashOutcome(run)
	f.paid, f.failed = paidFailed(l.Payments)
	f.txIDs = readTxIDs(l, run.prov)
	return f
}

// atOnce reports whether two of a key's provider calls came less than a
// lease apart: each worker asks the provider as soon as it claims, so the
// second asked while the first's claim was still valid.
func atOnce(times []time.Time, lease time.Duration) bool {
	times = slices.Clone(times)
	slices.SortFunc(times, time.Time.Compare)
	for i := 1; i < len(times); i++ {
		if times[i].Sub(times[i-1]) < lease {
			return true
		}
	}
	return false
}

// crashOutcome reads what became of the message worker-c died holding: the
// row as the crash left it, the row at the end, the notifications and the
// provider's ledger. It was taken over when its row was claimed again, it
// ended Processed, and another worker asked the provider and notified the
// customer after worker-c's lease ended; it is stuck when the row still names
// worker-c as its owner.
func crashOutcome(run *session15Run) (*takeover, bool) {
	if run.crashed == "" {
		return nil, false
	}
	at, final := run.crashedRow, messageOf(run.ledger, run.crashed)
	stuck := final.Status == outbox.Processing && final.LockedBy == "worker-c"
	if final.Status != outbox.Processed || final.ClaimToken <= at.ClaimToken || at.LockedUntil.IsZero() {
		return nil, stuck
	}
	asked := slices.ContainsFunc(run.ledger.Calls, func(c provider.Call) bool {
		return c.Key == run.crashed && c.At.After(at.LockedUntil)
	})
	for _, n := range run.notifications {
		sent, err := time.Parse(clock.ISOLayout, n.at)
		if n.key == run.crashed && n.by != "worker-c" && err == nil && sent.After(at.LockedUntil) && asked {
			return &takeover{key: run.crashed, from: "worker-c", to: n.by, expired: at.LockedUntil, at: sent, token: final.ClaimToken}, stuck
		}
	}
	return nil, stuck
}

var session15Day = day{
	number: 15,
	Pair: scenarios.Pair{
		Before: session15Before, BeforeTitle: "Day 15 — BEFORE: double processing without a lease",
		After: session15After, AfterTitle: "Day 15 — AFTER: outbox leasing, one owner at a time",
	},
	reproduced: "NO ATOMIC CLAIM, NO LEASE — WORK DONE TWICE, A DEAD WORKER'S MESSAGE STUCK FOREVER",
	held:       "OUTBOX LEASING — ONE OWNER AT A TIME, OWNERSHIP EXPIRES, LATE OWNERS REFUSED",
	broken:     "OWNERSHIP DID NOT HOLD",
	columns:    []string{"Metric (real run)", "BEFORE (naive claim)", "AFTER (lease + token)"},
}

func (o *session15Options) story(own *session15Run, f session15Metrics) story {
	s := story{tables: own.tables, timeline: own.lines, ledger: own.ledger, design: o.design(own.naive), ledgersOnRequest: true,
		perMessage: func(r *report.Report) { o.writePerMessage(r, own, f) }}
	if o.verbose {
		s.own = []ledgerTable{{"Notification ledger (PaymentNotifications table)",
			func(r *report.Report) { writeNotifications(r, own.notifications) }}}
	}
	return s
}

func (o *session15Options) checks(r *report.Report, own *session15Run, f session15Metrics) {
	if !o.after {
		o.beforeChecks(r, own, f)
	} else {
		o.afterChecks(r, own, f)
	}
}

func (o *session15Options) writeSetup(r *report.Report, own *session15Run) {
	r.Linef("Seed      %s PendingConfirmation, one %s message each", paymentRange(o.Payments), ConfirmType)
	if own.naive {
		r.Line("Store     Day 14's outbox: no lease, no claim token (--schema shows it)")
		r.Line("Claim     naive: SELECT the oldest Pending rows, then UPDATE each to Processing in a separate")
		r.Line("          statement; no lease, no token; complete by id")
	} else {
		fencing := "completion checks LockedBy and ClaimToken"
		if !own.fenced {
			fencing = "completion by id, owner NOT checked (--fencing=false)"
		}
		r.Line("Store     Day 15's outbox: the lease (LockedUntilUtc) and the claim token (--schema shows it)")
		r.Linef("Claim     atomic: one transaction reads and conditionally updates; lease %s;", o.Lease)
		r.Linef("          ClaimToken +1 per claim; %s", fencing)
		r.Line(databaseLine(own.serial,
			"Database  SQLite: the claim's transaction is BEGIN IMMEDIATE: two claims run in turn",
			"Database  PostgreSQL: READ COMMITTED, FOR UPDATE SKIP LOCKED: a second claim passes over"))
		if !own.serial { // a line of the server's only: compare skips it (report.DatabaseMarker)
			r.Line(databaseLine(false, "", "          the rows the first has locked"))
		}
	}
	crash := "after the provider answered"
	if o.CrashPoint == beforeCall {
		crash = "right after claiming, before calling the provider"
	}
	overlap := "at the same moment"
	if !o.Overlap {
		overlap = "one after the other (--overlap=false)"
	}
	if o.CrashPoint == noCrash15 {
		r.Linef("Workers   %s worker-c (a real child process) claims one message and finishes it;", stampAt(crashActAt))
		r.Line("          it is not killed (--crash-point none)")
	} else {
		r.Linef("Workers   %s worker-c (a real child process) claims one message and is killed", stampAt(crashActAt))
		r.Linef("          %s", crash)
	}
	r.Linef("          %s worker-a and worker-b poll %s, up to %d messages each", stampAt(raceActAt), overlap, o.Batch)
	r.Linef("          %s worker-a claims one more, asks the provider and stalls %s before recording", stampAt(stallActAt), o.Stall)
	r.Line("          the answer; worker-b drains the rest")
	r.Linef("Provider  %s; every other key pays; each answer is recorded with a customer", declinedText(o.DeclinedKey))
	r.Line("          notification, in the completing transaction")
	writeClockLine(r, clock.Start)
}

func stampAt(d time.Duration) string { return clock.Stamp(clock.Start.Add(d)) }

func (o *session15Options) writePerMessage(r *report.Report, run *session15Run, f session15Metrics) {
	l := run.ledger
	notified := map[string][]string{}
	for _, n := range run.notifications {
		notified[n.key] = append(notified[n.key], n.by)
	}
	refused := map[string]int{}
	for _, x := range f.refused {
		refused[x.key]++
	}
	var rows [][]string
	for _, m := range l.Messages {
		pay, _ := l.Payment(m.Key)
		by := notified[m.Key]
		rows = append(rows, []string{m.Key, report.Dash(strings.Join(shortWorkers(run.claimedBy[m.Key]), ", ")),
			strconv.Itoa(callsAfter(l.Calls, provider.OpStatusCheck, m.Key, clock.Start)),
			strconv.Itoa(len(by)), strconv.Itoa(run.completions[m.Key]), strconv.Itoa(refused[m.Key]),
			string(m.Status), string(pay.Status)})
	}
	r.Table([]string{"Key", "Workers", "Checks", "Notified", "Commits", "Refused", "Outbox", "Payment"}, rows)
	// One text wrapped greedily, so that a narrower terminal lays it out again whole.
	r.Line(report.Wrap("Workers: who claimed it (worker-a, -b, -c); Checks: the provider's status checks; Notified: "+
		"customer notifications; Commits: completions committed; Refused: late completions refused.", report.MaxWidth))
}

// shortWorkers names workers by their letter: worker-a is a.
func shortWorkers(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.TrimPrefix(w, "worker-")
	}
	return out
}

func writeNotifications(r *report.Report, ns []notification) {
	rows := make([][]string, 0, len(ns))
	for _, n := range ns {
		rows = append(rows, []string{strconv.FormatInt(n.id, 10), n.key, n.outcome, n.by, n.at[len("2006-01-02T"):]})
	}
	r.Table([]string{"Id", "PaymentKey", "Outcome", "SentBy", "SentAtUtc"}, rows)
}
