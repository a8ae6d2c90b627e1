package retry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// notificationType is the outbox message type of this family: the course
// measures retries on overdue notifications taken from the outbox.
const notificationType = "OverdueNotification"

func (o *schedulesOptions) render(runs []measured, msgs []outbox.Message, tables []outbox.Table, verbose bool) *report.Report {
	r := report.New(backoffSchedules, report.Experiment)
	r.Title("Backoff schedules — EXPERIMENT: how long to wait between attempts")
	r.Linef("Scenario   %s (EXPERIMENT; the course's backoff.mjs, run on the outbox)", backoffSchedules)
	r.Linef("Source     %s", scenarios.Source("retry"))
	r.Linef("Schedules  immediate: 0; fixed: %s; exponential: %s × 2^(n-1);", clockText(o.Fixed), clockText(o.Base))
	r.Linef("           exponential + cap: the same, never above %s", clockText(o.Cap))
	r.Linef("Run        one always-failing %s per schedule, MaxAttempts %d,", notificationType, o.Attempts+1)
	r.Line("           driven by worker-1 with that schedule's backoff; the worker wakes 1 ms after each due")
	r.Line("           time; the waits below are NextAttemptUtc − claim time")
	r.Linef("Budget     a %s time budget, filled the course's way (stop at %d, printed as unlimited)", clockText(o.Budget), fitLimit)
	r.Linef("Clock      scenario time starts %s for each schedule; nothing sleeps", clock.ISO(clock.Start))

	scenarios.SchemaSection(r, tables)

	r.Section("Waits per failed attempt (ms), as the worker wrote them (the course's first table)")
	o.writeWaits(r, runs)
	o.drawWaits(r, runs)

	r.Section(fmt.Sprintf("What fits in a %s retry budget (the course's second table)", clockText(o.Budget)))
	names := make([]string, len(runs))
	for i, m := range runs {
		names[i] = m.name
	}
	metricRows(r, "schedule", o.budgetMetrics(), names, runs)

	r.Section("The runs on the outbox")
	o.writeRuns(r, runs, msgs)
	if verbose {
		r.Section("Outbox ledger (OutboxMessages table)")
		scenarios.WriteOutboxLedger(r, msgs)
	}

	o.checks(r, runs, msgs)
	judgement{title: seedChecks,
		pass: "BACKOFF MEASURED — THE CAP BOUNDS THE WAIT, ONLY A THRESHOLD STOPS IMMEDIATE RETRY",
		fail: "THE SCHEDULES DID NOT BEHAVE AS THE COURSE STATES"}.write(r, o.whyFailed)
	for _, m := range runs {
		recordMetricsOf(r, append(o.waitMetrics(), o.budgetMetrics()...), m.metric, m)
	}
	return r
}

// waitMetrics declare the first table once: a row per failed attempt, with
// the wait the worker wrote (— once the attempts ran out), then the total,
// and the waits and their total as JSON metrics (waits_ms_fixed, total_ms_fixed).
func (o *schedulesOptions) waitMetrics() []scenarios.Metric[measured] {
	metrics := []scenarios.Metric[measured]{{Key: "waits_ms", Value: func(m measured) any {
		waits := make([]int64, len(m.waits))
		for i, w := range m.waits {
			waits[i] = w.Milliseconds()
		}
		return waits
	}}}
	for n := 1; n <= o.Attempts; n++ {
		metrics = append(metrics, scenarios.Metric[measured]{Label: strconv.Itoa(n), Show: func(m measured) string {
			if n > len(m.waits) {
				return "—"
			}
			return strconv.FormatInt(m.waits[n-1].Milliseconds(), 10)
		}})
	}
	return append(metrics, scenarios.Metric[measured]{Label: "total", Key: "total_ms",
		Value: func(m measured) any { return sum(m.waits).Milliseconds() }})
}

// budgetMetrics declare the second table's columns once, and their JSON
// metrics (fit_fixed, budget_elapsed_ms_fixed).
func (o *schedulesOptions) budgetMetrics() []scenarios.Metric[measured] {
	return []scenarios.Metric[measured]{
		{Label: "attempts fit in " + clockText(o.Budget), Key: "fit", Show: func(m measured) string { return fitText(m.fit) }},
		{Label: "time elapsed when budget runs out", Key: "budget_elapsed_ms",
			Show:  func(m measured) string { return fmt.Sprintf("%d ms", m.spent.Milliseconds()) },
			Value: func(m measured) any { return m.spent.Milliseconds() }},
	}
}

func (o *schedulesOptions) writeWaits(r *report.Report, runs []measured) {
	header := []string{"attempt"}
	for _, m := range runs {
		header = append(header, m.name)
	}
	scenarios.MetricTable(r, header, o.waitMetrics(), runs...)
}

func (o *schedulesOptions) writeRuns(r *report.Report, runs []measured, msgs []outbox.Message) {
	rows := make([][]string, len(runs))
	for i, m := range runs {
		msg := messageByKey(msgs, m.key)
		first, last := "—", "—"
		if len(m.claims) > 0 {
			first, last = clock.Stamp(m.claims[0]), clock.Stamp(m.claims[len(m.claims)-1])
		}
		rows[i] = []string{m.name, strconv.Itoa(len(m.claims)), first, last,
			string(msg.Status), strconv.Itoa(msg.AttemptCount)}
	}
	// Each schedule's message is SCHEDULE-<schedule>; the ledger (--verbose) names it.
	r.Table([]string{"schedule", "claims", "first claim", "last claim", "final status", "AttemptCount"}, rows)
}

// checks judge what the worker persisted and what its handler was called
// with against the course's own formula, and the budget table against a
// reference run of the course's loop. Those are invariants: they must hold
// for every schedule whatever the flags. The course's claims about the
// schedules demonstrate, each exercised only when its precondition occurred.
func (o *schedulesOptions) checks(r *report.Report, runs []measured, msgs []outbox.Message) {
	immediate, fixed, exp, capped := runs[0], runs[1], runs[2], runs[3]
	exact, detail := true, ""
	for _, m := range runs {
		want := make([]time.Duration, o.Attempts)
		for n := range want {
			want[n] = time.Duration(m.seed(n+1)) * time.Millisecond
		}
		if !slices.Equal(m.waits, want) {
			exact = false
			detail += fmt.Sprintf("%s waited [%s], the formula says [%s]; ", m.name, joinMillis(m.waits), joinMillis(want))
		}
	}
	if exact {
		detail = report.Plural(o.Attempts, "wait") + " × 4 schedules in NextAttemptUtc equal the course's formula"
	}
	r.Invariant("the worker waited exactly the schedule", exact, strings.TrimSuffix(detail, "; "))

	dead := 0
	for _, m := range runs {
		msg := messageByKey(msgs, m.key)
		if msg.Status == outbox.DeadLettered && msg.AttemptCount == o.Attempts+1 && len(m.claims) == o.Attempts+1 {
			dead++
		}
	}
	r.Invariant("every message dead-lettered when its attempts ran out", dead == len(runs),
		fmt.Sprintf("%d of %d DeadLettered at AttemptCount %d after %s", dead, len(runs), o.Attempts+1, report.Plural(o.Attempts+1, "call")))

	budget := o.Budget.Milliseconds()
	ref := make([]struct {
		fit   int
		spent int64
	}, len(runs))
	same, detail := true, "the 4 schedules' attempts and times equal a reference run"
	for i, m := range runs {
		ref[i].fit, ref[i].spent = seedFit(m.seed, budget, fitLimit)
		if m.fit != ref[i].fit || m.spent.Milliseconds() != ref[i].spent {
			same = false
			detail = fmt.Sprintf("%s: %s attempts in %d ms, the course's loop %s in %d ms",
				m.name, fitText(m.fit), m.spent.Milliseconds(), fitText(ref[i].fit), ref[i].spent)
			break
		}
	}
	r.Invariant("the budget table is the course's loop", same, detail)

	waited := "0 ms every time"
	if longestWait(immediate.waits) > 0 {
		waited = firstOf(joinMillis(immediate.waits)) + " ms"
	}
	r.Check("immediate retry never uses up a time budget",
		longestWait(immediate.waits) == 0 && ref[0].fit == fitLimit && ref[0].spent == 0,
		fmt.Sprintf("%s attempts, %d ms elapsed; the worker waited %s", fitText(ref[0].fit), ref[0].spent, waited))
	o.fixedFillsCheck(r, fixed, ref[1].fit, ref[1].spent)
	o.capChecks(r, exp, capped)
}

// fixedFillsCheck judges "a fixed interval fills the budget" on the
// reference run of the course's loop: it fills it when the loop stopped
// because the next wait would not fit (what is left of the budget is
// shorter than one interval), not at the loop's limit of fitLimit. It is not
// exercised when not one fixed wait fits in the budget.
func (o *schedulesOptions) fixedFillsCheck(r *report.Report, fixed measured, fit int, spent int64) {
	budget := o.Budget.Milliseconds()
	if fit == 0 {
		r.NotExercised(checkFixedFills, fmt.Sprintf("--fixed %s is longer than the --budget of %s: not one fixed wait "+
			"fits in it; raise --budget above %s", clockText(o.Fixed), clockText(o.Budget), clockText(o.Fixed)))
		return
	}
	even := !slices.ContainsFunc(fixed.waits, func(w time.Duration) bool { return w != o.Fixed })
	detail := fmt.Sprintf("%s × %s = %d ms of %s; one more %s wait would not fit",
		fitText(fit), clockText(o.Fixed), spent, clockText(o.Budget), clockText(o.Fixed))
	if fit == fitLimit {
		detail = fmt.Sprintf("the course's loop stops at %d × %s = %d ms of %s: the budget is not filled",
			fitLimit, clockText(o.Fixed), spent, clockText(o.Budget))
	}
	r.Check(checkFixedFills, even && fit < fitLimit && budget-spent < o.Fixed.Milliseconds(), detail)
}

// capChecks judge the cap on the capped run, once it bit: when no
// uncapped wait is longer than the cap, the capped schedule is the
// exponential one and neither check is exercised.
func (o *schedulesOptions) capChecks(r *report.Report, exp, capped measured) {
	longestUncapped := longestWait(exp.waits)
	if longestUncapped <= o.Cap {
		why := fmt.Sprintf("the cap never bit: the longest uncapped wait, %d ms, is not above the --cap of %s; "+
			"lower --cap or raise --attempts", longestUncapped.Milliseconds(), clockText(o.Cap))
		r.NotExercised(checkCapBounds, why)
		r.NotExercised(checkCapLowers, why)
		return
	}
	longest := longestWait(capped.waits)
	r.Check(checkCapBounds, longest <= o.Cap,
		fmt.Sprintf("longest capped wait %d ms ≤ %d ms", longest.Milliseconds(), o.Cap.Milliseconds()))
	r.Check(checkCapLowers, sum(capped.waits) < sum(exp.waits),
		fmt.Sprintf("%d ms vs %d ms uncapped", sum(capped.waits).Milliseconds(), sum(exp.waits).Milliseconds()))
}

// The cap's checks, by name.
const (
	checkCapBounds = "the cap bounds every wait"
	checkCapLowers = "the cap lowers the total wait once it bites"
)

// checkFixedFills is the check a fixed interval longer than the budget fails.
const checkFixedFills = "a fixed interval fills the budget with evenly spaced attempts"

// whyFailed says what these flags did to the checks that failed.
func (o *schedulesOptions) whyFailed(failed map[string]bool) []string {
	var why []string
	if failed[checkFixedFills] && o.Fixed <= o.Budget && o.Budget/o.Fixed > fitLimit {
		why = append(why, fmt.Sprintf("the --budget of %s holds more fixed waits of %s than the course's loop takes (%d, "+
			"printed as unlimited): the loop stops before the budget is full; shorten --budget or lengthen --fixed",
			clockText(o.Budget), clockText(o.Fixed), fitLimit))
		delete(failed, checkFixedFills)
	}
	if len(failed) > 0 {
		why = append(why, "no flag explains the other failures: the worker or the engine's Fit did not follow the course's formula")
	}
	return why
}

func fitText(n int) string {
	if n == fitLimit {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

// longestWait is the longest of ds, 0 for none.
func longestWait(ds []time.Duration) time.Duration {
	var longest time.Duration
	for _, d := range ds {
		longest = max(longest, d)
	}
	return longest
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

func messageByKey(msgs []outbox.Message, key string) outbox.Message {
	for _, m := range msgs {
		if m.Key == key {
			return m
		}
	}
	return outbox.Message{}
}

// drawWaits draws each schedule that waits at all as bars, one per attempt,
// all on the scale of the longest wait of any schedule.
func (o *schedulesOptions) drawWaits(r *report.Report, runs []measured) {
	var longest time.Duration
	for _, m := range runs {
		for _, w := range m.waits {
			longest = max(longest, w)
		}
	}
	for _, m := range runs {
		if sum(m.waits) == 0 {
			continue // immediate: nothing to draw
		}
		bars := make([]plot.Bar, 0, len(m.waits)+1)
		for i, w := range m.waits {
			bars = append(bars, plot.Bar{Label: fmt.Sprintf("attempt %d", i+1), Value: float64(w.Milliseconds()), Note: clock.Millis(w)})
		}
		r.Line("")
		r.Figure(plot.Bars("waits-"+m.metric, "Waits per attempt — "+m.name+" (one scale for every schedule)",
			bars, 48, float64(longest.Milliseconds()), plot.Axes{X: "wait after the failed attempt, ms (NextAttemptUtc − claim)", Y: "attempt"}))
	}
}
