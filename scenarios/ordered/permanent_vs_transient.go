package ordered

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const permanentName = "ordered-permanent-vs-transient"

// maxTransientFailures bounds --transient-failures: at most every attempt.
const maxTransientFailures = maxAttempts

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    permanentName,
		Family:  "ordered",
		Kind:    report.Experiment,
		Summary: "Ordered EXPERIMENT: a permanent failure dead-lettered at once, a transient one retried; two real runs",
		Long: `The course's PaymentReceivedGuard dead-letters only when the failure is not
transient: catch (Exception ex) when (!IsTransient(ex)). One log, two faults:
order 42's PaymentReceived is rejected by a handler bug every time (permanent),
and order 43's times out at the payment provider its first 2 times
(transient). Two real runs: the first retries every failure MaxAttempts times,
as the rest of this family does; the second classifies. There the permanent
failure is dead-lettered on its first attempt, its correlation id remembered
and its later records parked, so its partition waits out no backoff; the
transient one is retried in place and applied. After the fix order-42 is
replayed in sequence order, and every order ends where an in-order run ends.

--classify=false makes the second run retry every failure too: the permanent
one uses all its attempts and the checks fail (exit 1). So does
--transient-failures at or above --max-attempts: no retry is left to cure it.`,
		Example: `  outboxlab ordered-permanent-vs-transient
  outboxlab ordered-permanent-vs-transient --max-attempts 5 --base-backoff 1s
  outboxlab ordered-permanent-vs-transient --transient-failures 3   # more than the retries cure`,
		FailsWith:        []string{"--classify=false"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind: func(fs *pflag.FlagSet) scenarios.Options {
			o := &permanentOptions{options: bindOptions(fs, PaymentReceived, false), Classify: true}
			fs.BoolVar(&o.Classify, "classify", true,
				"the second run dead-letters a permanent failure at once (false: it retries every failure)")
			o.Declarations().Int(&o.TransientFailures, "transient-failures", 2, 1, maxTransientFailures,
				"times the other order's record times out before it passes")
			return o
		},
	})
}

type permanentOptions struct {
	*options
	Classify          bool
	TransientFailures int
}

func (o *permanentOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	base := design{contain: keyedlog.PoisonCorrelation, idempotent: true, strict: true, recovery: replay, transient: o.TransientFailures}
	own, all := base, base
	own.classify = o.Classify
	if !o.Classify {
		own.off = "--classify=false: this run retries every failure too, as run 1 does"
	}
	classified, err := o.execute(ctx, env, "outbox", own, nil)
	if err != nil {
		return nil, err
	}
	retried, err := o.execute(ctx, env, "retry-all", all, classified.inOrder)
	if err != nil {
		return nil, fmt.Errorf("run the retry-every-failure design: %w", err)
	}
	r := o.start(env, identity{name: permanentName, kind: report.Experiment,
		title: "Ordered messages — EXPERIMENT: a permanent failure is contained at once, a transient one retried"}, classified)
	r.Line(fit(fmt.Sprintf("Transient order %d's %s times out at the provider its first %s, then passes",
		o.transientOrder(), o.FailingMessage, report.Plural(o.TransientFailures, "time")), indent))
	r.Line(fit("Classify  the bug's failure is permanent (it fails every time); any other is transient", indent))
	r.Line(fit("Runs      1: retry every failure (its timeline with --verbose); 2: classify, this scenario's own", indent))
	if own.off != "" {
		r.Line(fit("Remedy    SWITCHED OFF by "+own.off, indent))
	}
	scenarios.SchemaSection(r.Report, classified.tables)
	o.writeLog(r, classified.log)
	if r.verbose {
		r.Section("Run 1 of 2: retry every failure")
		o.writeTimeline(r, retried, nil)
		r.Section("Run 2 of 2: classify the failure (this scenario's own run, on its database)")
	}
	o.writeTimeline(r, classified, nil)
	writeQueues(r, classified)
	o.writeStates(r, classified)
	r.Section("Retry every failure vs classify (same log, same faults, two real runs)")
	scenarios.MetricTable(r.Report, []string{"Metric (real run)", "Retry every failure", "Classify"}, o.comparison(), retried, classified)
	o.permanentChecks(r, classified)
	o.checkReplayInSequence(r, classified, 0)
	o.checkOthersFlowed(r, classified)
	o.checkEndSame(r, classified)
	r.Checks("Safety checks")
	r.Verdict("PERMANENT FAILURE CONTAINED AT ONCE, TRANSIENT ONE RETRIED AND APPLIED",
		"THE FAILURES WERE NOT SPLIT AS THE GUARD SPLITS THEM")
	scenarios.RecordMetrics(r.Report, o.metrics(), classified)
	scenarios.RecordMetricsAs(r.Report, o.comparison(), retried, prefixed("retry_all_"))
	scenarios.RecordMetricsAs(r.Report, o.comparison(), classified, prefixed("classify_"))
	r.Figure(o.picture("retry-all-timeline", "Run 1, retry every failure: consumer events until idle", retried))
	r.Figure(o.picture("classify-timeline", "Run 2, classify: consumer events until idle", classified))
	return r.Report, nil
}

// transientRecord is the record that fails transiently, as produced.
func (o *permanentOptions) transientRecord(run *run) keyedlog.Record {
	for _, rec := range run.log {
		if rec.Key == orderKey(o.transientOrder()) && rec.Type == o.FailingMessage {
			return rec
		}
	}
	return keyedlog.Record{}
}

// attempts reads the handler's ledger for one record before the fix: how
// many calls failed, and on which attempt it was applied (0: never).
func attempts(run *run, id int64) (failed, appliedOn int) {
	for _, c := range run.calls {
		if c.stage != beforeFix || c.rec.ID != id {
			continue
		}
		if c.err != nil {
			failed++
			continue
		}
		appliedOn = failed + 1
	}
	return failed, appliedOn
}

// held is how long the permanent failure held its partition: from its first
// failed call (the handler's ledger) to its DeadLetters row.
func (o *permanentOptions) held(run *run) (string, bool) {
	rec := o.failingRecord(run)
	row, dead := deadLetterOf(run.idle, rec.ID)
	for _, c := range run.calls {
		if c.rec.ID == rec.ID && c.err != nil && dead {
			return row.At.Sub(c.at).String(), true
		}
	}
	return report.Empty, false
}

// waitBehind is the longest time a record of another order on the
// permanent failure's partition waited between being produced and being
// applied (its AppliedMessages row): the cost of the retries to its neighbours.
func (o *permanentOptions) waitBehind(run *run) time.Duration {
	p := o.failingRecord(run).Partition
	var longest time.Duration
	for _, a := range run.applied {
		rec := recordByID(run, a.LogRecordID)
		if rec.Partition == p && orderOf(rec) != o.FailingOrder && a.At.Before(run.fixAt) {
			longest = max(longest, a.At.Sub(rec.ProducedAt))
		}
	}
	return longest
}

// comparison are the metrics the two runs are compared by, declared once.
func (o *permanentOptions) comparison() []scenarios.Metric[*run] {
	perm := fmt.Sprintf("%d#%d", o.FailingOrder, o.failingSeq())
	trans := fmt.Sprintf("%d#%d", o.transientOrder(), o.failingSeq())
	return []scenarios.Metric[*run]{
		{Label: "Attempts on " + perm + " (permanent)", Key: "permanent_attempts",
			Value: func(x *run) any { n, _ := attempts(x, o.failingRecord(x).ID); return n }},
		{Label: "Time " + perm + " held its partition", Key: "permanent_held",
			Show: func(x *run) string { s, _ := o.held(x); return s }},
		{Label: "Attempts on " + trans + " (transient)", Key: "transient_attempts",
			Show: func(x *run) string {
				failed, on := attempts(x, o.transientRecord(x).ID)
				if on == 0 {
					return fmt.Sprintf("%d, never applied", failed)
				}
				return fmt.Sprintf("%d, applied on attempt %d", on, on)
			},
			Value: func(x *run) any { failed, on := attempts(x, o.transientRecord(x).ID); return failed + min(on, 1) }},
		{Label: "Records dead-lettered", Value: func(x *run) any { return len(x.idle.dead) }},
		{Label: "Longest wait of a record behind " + perm, Key: "longest_wait_behind_ms",
			Show:  func(x *run) string { return o.waitBehind(x).String() },
			Value: func(x *run) any { return o.waitBehind(x).Milliseconds() }},
		{Label: "Orders equal to the in-order run at the end", Show: func(x *run) string {
			n, _ := endSame(x)
			return fmt.Sprintf("%d / %d", n, len(x.end.states))
		}},
	}
}

// permanentChecks judge the split from the handler's ledger and the
// DeadLetters rows.
func (o *permanentOptions) permanentChecks(r *page, run *run) {
	rec := o.failingRecord(run)
	failed, _ := attempts(run, rec.ID)
	row, dead := deadLetterOf(run.idle, rec.ID)
	detail := fmt.Sprintf("%s failed %s of %d", rec.MessageID, report.Plural(failed, "attempt"), o.MaxAttempts)
	switch {
	case !dead:
		detail += "; not in DeadLetters"
	default:
		detail += fmt.Sprintf("; its DeadLetters row says %d", row.Attempts)
	}
	r.Check("the permanent failure was dead-lettered at its first attempt", dead && failed == 1 && row.Attempts == 1, detail)
	held, ok := o.held(run)
	r.Check("its partition waited out no backoff for it", ok && held == "0s",
		fmt.Sprintf("%s held partition %d for %s, first failure to dead letter", rec.MessageID, rec.Partition, held))
	tr := o.transientRecord(run)
	tFailed, on := attempts(run, tr.ID)
	_, tDead := deadLetterOf(run.idle, tr.ID)
	tDetail := fmt.Sprintf("%s failed %s, then was applied on attempt %d", tr.MessageID, report.Plural(tFailed, "time"), on)
	if on == 0 {
		tDetail = fmt.Sprintf("%s failed %s and was never applied", tr.MessageID, report.Plural(tFailed, "time"))
	}
	if tDead {
		tDetail += "; it is in DeadLetters"
	}
	r.Check("the transient failure was retried in place, then applied",
		tFailed == o.TransientFailures && on == tFailed+1 && !tDead, tDetail)
	o.checkLaterParked(r, run, "later messages of the poisoned id parked")
}
