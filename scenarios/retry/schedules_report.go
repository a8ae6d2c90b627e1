package retry

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/scenarios/wassal"
)

// notificationType is the outbox message type of this family: the course
// measures retries on overdue notifications taken from the outbox.
const notificationType = "OverdueNotification"

func (o *schedulesOptions) render(runs []measured, msgs []outbox.Message, tables []outbox.Table) *report.Report {
	r := report.New(backoffSchedules, report.Experiment)
	r.Title("Backoff schedules — EXPERIMENT: how long to wait between attempts")
	r.Linef("Scenario   %s (EXPERIMENT; the course's backoff.mjs, run on the outbox)", backoffSchedules)
	r.Linef("Schedules  immediate: 0; fixed: %s; exponential: %s × 2^(n-1); exponential + cap: the same, never above %s",
		clockText(o.Fixed), clockText(o.Base), clockText(o.Cap))
	r.Linef("Run        one always-failing %s per schedule, MaxAttempts %d, driven by worker-1 with that schedule's backoff;",
		notificationType, o.Attempts+1)
	r.Line("           the worker wakes 1 ms after each due time; the waits below are NextAttemptUtc − claim time")
	r.Linef("Budget     a %s time budget, filled the seed's way (stop at %d, printed as unlimited)", clockText(o.Budget), fitLimit)
	r.Linef("Clock      scenario time starts %s for each schedule; nothing sleeps", clock.ISO(clock.Start))

	r.Section("Schema")
	wassal.WriteSchema(r, tables)

	r.Section("Waits per failed attempt (ms), as the worker wrote them (the seed's first table)")
	o.writeWaits(r, runs)
	o.drawWaits(r, runs)

	r.Section(fmt.Sprintf("What fits in a %s retry budget (the seed's second table)", clockText(o.Budget)))
	rows := make([][]string, len(runs))
	for i, m := range runs {
		rows[i] = []string{m.name, fitText(m.fit), fmt.Sprintf("%d ms", m.spent.Milliseconds())}
	}
	r.Table([]string{"schedule", "attempts fit in " + clockText(o.Budget), "time elapsed when budget runs out"}, rows)

	r.Section("The runs on the outbox")
	o.writeRuns(r, runs, msgs)
	r.Section("Outbox ledger (OutboxMessages table)")
	wassal.WriteOutboxLedger(r, msgs)

	o.checks(r, runs, msgs)
	r.Checks("Checks (the properties the seed states)")
	r.Verdict("BACKOFF MEASURED — THE CAP BOUNDS THE WAIT, ONLY A THRESHOLD STOPS IMMEDIATE RETRY ✅",
		"THE SCHEDULES DID NOT BEHAVE AS THE SEED STATES — SEE THE FAILED CHECKS ❌")
	for _, m := range runs {
		waits := make([]int64, len(m.waits))
		for i, w := range m.waits {
			waits[i] = w.Milliseconds()
		}
		key := metricKey(m.key)
		r.Metric("waits_ms_"+key, waits)
		r.Metric("total_ms_"+key, sum(m.waits).Milliseconds())
		r.Metric("fit_"+key, fitText(m.fit))
		r.Metric("budget_elapsed_ms_"+key, m.spent.Milliseconds())
	}
	return r
}

func (o *schedulesOptions) writeWaits(r *report.Report, runs []measured) {
	header := []string{"attempt"}
	for _, m := range runs {
		header = append(header, m.name)
	}
	var rows [][]string
	for n := 1; n <= o.Attempts; n++ {
		row := []string{strconv.Itoa(n)}
		for _, m := range runs {
			cell := "—"
			if n <= len(m.waits) {
				cell = strconv.FormatInt(m.waits[n-1].Milliseconds(), 10)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	total := []string{"total"}
	for _, m := range runs {
		total = append(total, strconv.FormatInt(sum(m.waits).Milliseconds(), 10))
	}
	r.Table(header, append(rows, total))
}

func (o *schedulesOptions) writeRuns(r *report.Report, runs []measured, msgs []outbox.Message) {
	rows := make([][]string, len(runs))
	for i, m := range runs {
		msg := messageByKey(msgs, m.key)
		first, last := "—", "—"
		if len(m.claims) > 0 {
			first, last = clock.Stamp(m.claims[0]), clock.Stamp(m.claims[len(m.claims)-1])
		}
		rows[i] = []string{m.name, m.key, strconv.Itoa(len(m.claims)), first, last,
			string(msg.Status), strconv.Itoa(msg.AttemptCount)}
	}
	r.Table([]string{"schedule", "message", "attempts claimed", "first claim", "last claim", "final status", "AttemptCount"}, rows)
}

func (o *schedulesOptions) checks(r *report.Report, runs []measured, msgs []outbox.Message) {
	immediate, fixed, exp, capped := runs[0], runs[1], runs[2], runs[3]
	exact, detail := true, ""
	for _, m := range runs {
		want := m.backoff.Schedule(o.Attempts)
		if !slices.Equal(m.waits, want) {
			exact = false
			detail += fmt.Sprintf("%s waited [%s], schedule says [%s]; ", m.name, joinMillis(m.waits), joinMillis(want))
		}
	}
	if exact {
		detail = fmt.Sprintf("%d waits × 4 schedules equal Backoff.Delay(n)", o.Attempts)
	}
	r.Check("the worker waited exactly the schedule", exact, detail)

	dead := 0
	for _, m := range runs {
		if msg := messageByKey(msgs, m.key); msg.Status == outbox.DeadLettered && msg.AttemptCount == o.Attempts+1 {
			dead++
		}
	}
	r.Check("every message dead-lettered when its attempts ran out", dead == len(runs),
		fmt.Sprintf("%d of %d DeadLettered at AttemptCount %d", dead, len(runs), o.Attempts+1))

	r.Check("immediate retry never uses up a time budget", immediate.fit == fitLimit && immediate.spent == 0,
		fmt.Sprintf("%s attempts, %d ms elapsed", fitText(immediate.fit), immediate.spent.Milliseconds()))
	r.Check("a fixed interval fills the budget with evenly spaced attempts",
		fixed.fit > 0 && fixed.spent == time.Duration(fixed.fit)*o.Fixed && fixed.spent <= o.Budget,
		fmt.Sprintf("%s × %s = %d ms of %d ms", fitText(fixed.fit), clockText(o.Fixed), fixed.spent.Milliseconds(), o.Budget.Milliseconds()))

	longest := slices.Max(capped.waits)
	r.Check("the cap bounds every wait", longest <= o.Cap,
		fmt.Sprintf("longest capped wait %d ms ≤ %d ms", longest.Milliseconds(), o.Cap.Milliseconds()))
	capBites := slices.Max(exp.waits) > o.Cap
	lower := sum(capped.waits) < sum(exp.waits) || !capBites && sum(capped.waits) == sum(exp.waits)
	r.Check("the cap lowers the total wait once it bites", lower,
		fmt.Sprintf("%d ms vs %d ms uncapped", sum(capped.waits).Milliseconds(), sum(exp.waits).Milliseconds()))
	r.Check("the cap fits at least as many attempts in the budget", capped.fit >= exp.fit,
		fmt.Sprintf("%s vs %s uncapped", fitText(capped.fit), fitText(exp.fit)))
}

func fitText(n int) string {
	if n == fitLimit {
		return "unlimited"
	}
	return strconv.Itoa(n)
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

// metricKey turns SCHEDULE-exponential-cap into exponential_cap.
func metricKey(key string) string {
	out := []rune{}
	for _, c := range key[len("SCHEDULE-"):] {
		if c == '-' {
			c = '_'
		}
		out = append(out, c)
	}
	return string(out)
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
			bars = append(bars, plot.Bar{Label: fmt.Sprintf("attempt %d", i+1), Value: float64(w), Note: clock.Millis(w)})
		}
		r.Line("")
		r.Figure(plot.Bars("waits-"+metricKey(m.key), "Waits per attempt — "+m.name+" (one scale for every schedule)",
			bars, 48, float64(longest)))
	}
}
