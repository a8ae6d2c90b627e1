package retry

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/core/worker"
	"outboxlab/scenarios"
)

const (
	verdictStormReproduced = "A RETRY STORM — THE DOWN GATEWAY TAKES ALL THE LOAD, HEALTHY MESSAGES DEAD-LETTERED"
	verdictStormMissed     = "THE FAILURE MODE WAS NOT REPRODUCED"
	verdictBreakerHeld     = "CIRCUIT BREAKER — THE CONSUMER STOPS AS A WHOLE, NOTHING LOST TO THE OUTAGE"
	verdictBreakerBroken   = "THE BREAKER DID NOT PROTECT THE MESSAGES"
)

// phase is a window of the run, by gateway health.
type phase struct {
	name     string
	from, to time.Time // to is zero for the open-ended last phase
}

func (o *stormOptions) phases() []phase {
	down := clock.Start.Add(o.OutageStart)
	up := down.Add(o.Outage)
	return []phase{{"before the outage", clock.Start, down}, {"during the outage", down, up}, {"after recovery", up, time.Time{}}}
}

func (p phase) holds(t time.Time) bool {
	return !t.Before(p.from) && (p.to.IsZero() || t.Before(p.to))
}

// stormMetrics are the numbers a design of the storm pair is judged by: the
// gateway's ledger, the outbox rows, and the breaker rule replayed over the
// ledger.
type stormMetrics struct {
	calls, failed         []int // per phase
	processed, dead, left int
	affected              int // messages with at least one failed send
	lastProcessed         time.Time
	breaker               breakerReplay
}

func (o *stormOptions) metrics(run *stormRun) stormMetrics {
	ph := o.phases()
	f := stormMetrics{calls: make([]int, len(ph)), failed: make([]int, len(ph))}
	hit := map[string]bool{}
	for _, s := range run.gw.ledger {
		for i, p := range ph {
			if p.holds(s.at) {
				f.calls[i]++
				if !s.ok {
					f.failed[i]++
				}
			}
		}
		if !s.ok {
			hit[s.key] = true
		}
		if s.ok && s.done.After(f.lastProcessed) {
			f.lastProcessed = s.done
		}
	}
	f.affected = len(hit)
	for _, m := range run.msgs {
		switch m.Status {
		case outbox.Processed:
			f.processed++
		case outbox.DeadLettered:
			f.dead++
		default:
			f.left++
		}
	}
	f.breaker = replayBreaker(run.gw.ledger, o.FailuresToOpen, o.Cooldown, ph[1])
	return f
}

var stormPair = scenarios.Pair{
	Before: stormNoBreaker, BeforeTitle: "Retry storm without a breaker — BEFORE: every message keeps retrying into a down gateway",
	After: stormBreaker, AfterTitle: "Circuit breaker — AFTER: the consumer stops as a whole while the gateway is down",
}

// pairReport is the report both scenarios of the pair write.
func (o *stormOptions) pairReport() pairReport[*stormRun] {
	return pairReport[*stormRun]{pair: stormPair, after: o.after, setup: o.writeSetup, story: o.story,
		columns: []string{"BEFORE (no breaker)", "AFTER (circuit breaker)"},
		metrics: o.stormMetricList(), beforeSide: o.stormSide(), afterSide: o.breakerSide()}
}

func (run *stormRun) schema() []outbox.Table { return run.tables }
func (run *stormRun) endedAt() time.Time     { return run.ended }

// story is the gateway's load under both designs, and the scenario's own
// run message by message.
func (o *stormOptions) story(r *report.Report, own, before, after *stormRun) {
	r.Section("Gateway calls per phase (both designs, same seed)")
	o.writePhases(r, before.read, after.read)
	r.Section("Gateway calls per second, drawn")
	o.drawCalls(r, before, after)
	r.Section("Per-message table")
	if o.verbose {
		o.writePerMessage(r, own)
		return
	}
	o.writeMessageGroups(r, own)
}

func (o *stormOptions) writeSetup(r *report.Report) {
	ph := o.phases()
	r.Linef("Outbox    %s %s..%s (%s), MaxAttempts %d;",
		report.Plural(o.Messages, "notification"), noteKey(1), noteKey(o.Messages), notificationType, o.MaxAttempts)
	r.Line("          the gateway is healthy for every one of them")
	r.Linef("Outage    the gateway answers 503 to every send from %s until %s (%s)", clock.Stamp(ph[1].from), clock.Stamp(ph[1].to), clockText(o.Outage))
	r.Linef("Worker    worker-1 claims one due message per Step; a send takes %s;", clockText(stormSendTime))
	r.Linef("          backoff %s × 2^(n-1), capped at %s, from the start of the failed send",
		clockText(o.BaseBackoff), clockText(o.MaxBackoff))
	r.Linef("Breaker   AFTER only: opens after %d consecutive failures; half-open probe after %s;",
		o.FailuresToOpen, clockText(o.Cooldown))
	r.Line("          a good probe closes it")
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(clock.Start))
}

// timeline merges worker events, breaker transitions and the consumer's
// stops in time order; at one instant a transition comes first, then the stop.
func (run *stormRun) timeline() []string {
	type line struct {
		at   time.Time
		rank int
		text string
	}
	var lines []line
	for _, t := range run.transitions {
		lines = append(lines, line{t.At, 0, fmt.Sprintf("%s  %-9s %s → %s: %s", clock.Stamp(t.At), "breaker", t.From, t.To, t.Reason)})
	}
	for _, s := range run.stops {
		lines = append(lines, line{s.at, 1, fmt.Sprintf("%s  %-9s %s", clock.Stamp(s.at), s.consumer, s.text)})
	}
	for _, e := range run.events {
		lines = append(lines, line{e.At, 2, fmt.Sprintf("%s  %-9s %s", clock.Stamp(e.At), e.Worker, stormEventText(e))})
	}
	sort.SliceStable(lines, func(i, j int) bool {
		if !lines[i].at.Equal(lines[j].at) {
			return lines[i].at.Before(lines[j].at)
		}
		return lines[i].rank < lines[j].rank
	})
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return out
}

func stormEventText(e worker.Event) string {
	head := fmt.Sprintf("%s attempt %d/%d ", e.Key, e.Attempt, e.MaxAttempts)
	switch e.Kind {
	case worker.Advanced:
		return fmt.Sprintf("nothing due → clock advances to %s (next due + 1 ms)", clock.Stamp(e.NextAttempt))
	case worker.Processed:
		return head + "sent ✓ → Processed"
	case worker.DeadLettered:
		return head + "FAILED (" + e.Detail + ") → DEAD-LETTERED"
	case worker.Refused:
		return head + "transition REFUSED: " + e.Detail
	}
	return head + fmt.Sprintf("FAILED (%s) → backoff %s", e.Detail, clockText(e.Delay))
}

func (o *stormOptions) writePhases(r *report.Report, b, a stormMetrics) {
	ph := o.phases()
	var rows [][]string
	bt, at, bf, af := 0, 0, 0, 0
	for i, p := range ph {
		window := clock.Stamp(p.from) + " – " + clock.Stamp(p.to)
		if p.to.IsZero() {
			window = "from " + clock.Stamp(p.from)
		}
		rows = append(rows, []string{p.name, window, callsText(b.calls[i], b.failed[i]), callsText(a.calls[i], a.failed[i])})
		bt, at, bf, af = bt+b.calls[i], at+a.calls[i], bf+b.failed[i], af+a.failed[i]
	}
	rows = append(rows, []string{"total", "", callsText(bt, bf), callsText(at, af)})
	r.Table([]string{"phase", "window", "BEFORE: no breaker", "AFTER: circuit breaker"}, rows)
}

func callsText(calls, failed int) string {
	return fmt.Sprintf("%s (%d failed)", report.Plural(calls, "call"), failed)
}

func (o *stormOptions) drawCalls(r *report.Report, before, after *stormRun) {
	perSecond := func(run *stormRun) []bucketCount {
		var out []bucketCount
		for _, s := range run.gw.ledger { // in call order, so in time order
			second := int64(s.at.Sub(clock.Start) / time.Second)
			if len(out) == 0 || out[len(out)-1].index != second {
				out = append(out, bucketCount{index: second})
			}
			out[len(out)-1].n++
		}
		return out
	}
	c := newChart([]series{
		{title: "BEFORE: no breaker — " + report.Plural(len(before.gw.ledger), "call"), buckets: perSecond(before)},
		{title: "AFTER: circuit breaker — " + report.Plural(len(after.gw.ledger), "call"), buckets: perSecond(after)},
	})
	r.Linef("Each column is %s; its height is the busiest second in it;", report.Plural(c.per, "second"))
	r.Linef("a full column is %d calls in one second.", c.top)
	ph := o.phases()
	r.Linef("The gateway is down from %s to %s after the start.", spanText(ph[1].from.Sub(clock.Start).Milliseconds()),
		spanText(ph[1].to.Sub(clock.Start).Milliseconds()))
	for _, l := range c.draw(time.Second) {
		r.Line(l)
	}
	var last int64
	for _, run := range []*stormRun{before, after} {
		for _, b := range perSecond(run) {
			last = max(last, b.index)
		}
	}
	panels := make([]plot.Panel, 2)
	for i, run := range []*stormRun{before, after} {
		counts := make([]int, last+1)
		for _, b := range perSecond(run) {
			counts[b.index] = b.n
		}
		// The outage, shaded on the same axis: buckets are seconds since the start.
		down := plot.Shade{From: ph[1].from.Sub(clock.Start).Seconds(), To: ph[1].to.Sub(clock.Start).Seconds(),
			Label: "gateway down (503)"}
		panels[i] = plot.Panel{Title: c.all[i].title, Counts: counts, Shades: []plot.Shade{down}}
	}
	r.Figure(plot.SVGOnly("calls", "Gateway calls per second",
		plot.PanelsSVG(fmt.Sprintf("Gateway calls per second (scenario clock); the gateway is down from %s to %s",
			spanText(ph[1].from.Sub(clock.Start).Milliseconds()), spanText(ph[1].to.Sub(clock.Start).Milliseconds())),
			panels, func(i int) string { return fmt.Sprintf("%d s", i) },
			plot.Axes{X: plot.TimeAxisName("s", clock.Start), Y: "gateway calls in the second"})))
}

// writeMessageGroups is the per-message table with each run of messages
// that fared alike (status, attempts, sends) on one row; --verbose lists
// every message with its times.
func (o *stormOptions) writeMessageGroups(r *report.Report, run *stormRun) {
	var rows [][]string
	var firstKey, lastKey, shape string
	flush := func() {
		if firstKey == "" {
			return
		}
		keys := firstKey
		if lastKey != firstKey {
			keys += " – " + lastKey
		}
		rows = append(rows, append([]string{keys}, strings.Split(shape, "|")...))
	}
	for _, m := range run.msgs {
		sends, failed := 0, 0
		for _, s := range run.gw.ledger {
			if s.key == m.Key {
				sends++
				if !s.ok {
					failed++
				}
			}
		}
		sh := strings.Join([]string{string(m.Status), strconv.Itoa(m.AttemptCount), strconv.Itoa(sends), strconv.Itoa(failed)}, "|")
		if sh != shape {
			flush()
			firstKey, shape = m.Key, sh
		}
		lastKey = m.Key
	}
	flush()
	r.Table([]string{"Keys", "Outbox status", "AttemptCount", "Sends", "Failed sends"}, rows)
	r.Line("Each row: messages that fared alike; --verbose lists each with its times.")
}

func (o *stormOptions) writePerMessage(r *report.Report, run *stormRun) {
	rows := make([][]string, 0, len(run.msgs))
	for _, m := range run.msgs {
		sends, failed := 0, 0
		for _, s := range run.gw.ledger {
			if s.key == m.Key {
				sends++
				if !s.ok {
					failed++
				}
			}
		}
		rows = append(rows, []string{m.Key, string(m.Status), strconv.Itoa(m.AttemptCount), strconv.Itoa(sends), strconv.Itoa(failed),
			report.StampOrDash(m.ProcessedAt), report.StampOrDash(m.DeadLetteredAt)})
	}
	r.Table([]string{"Key", "Outbox status", "AttemptCount", "Sends", "Failed sends", "ProcessedAtUtc", "DeadLetteredAtUtc"}, rows)
}
