package ordered

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const blockKeyName = "ordered-block-key-not-partition"

// whoBlocks is why the block is the application's own work, where the
// remedy is taught: no broker blocks one key for it.
var whoBlocks = []string{
	"Why the application keeps the blocked keys itself: a Kafka partition holds many keys, so Pause",
	"stops them all; a Service Bus session carries on with its next message once one is dead-lettered,",
	"so there too only the application can stop the rest of that order.",
}

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:   blockKeyName,
		Family: "ordered",
		Kind:   report.After,
		// Its strict handler is crash-cascade's: without the block, the later
		// records of the order would throw and follow the failure into the DLQ.
		Answers: cascadeName,
		Summary: "Ordered AFTER: block the key, not the partition; both ran side by side, unrelated orders stopped counted",
		Long: `One log, one bug (PaymentReceived fails for order 42), two real runs. The first
pauses the partition when the record has used its attempts, as Pause does in a
Kafka consumer: the record stays at the head and every order whose key hashes
to that partition stops until the fix. The second keeps a set of blocked keys:
the record is dead-lettered, order-42 is blocked, its later records are parked,
and the other orders of the partition carry on. The table counts the unrelated
orders and records each design stopped, and how long they waited. After the
fix the paused partition is resumed, and the blocked key is replayed in
sequence order then unblocked; both end where an in-order run ends.

Neither broker blocks one key for you: a Kafka partition holds many keys, and
a Service Bus session carries on with its next message after one is
dead-lettered. The blocked-key set is the application's own bookkeeping.

--block-key=false makes the second run pause the partition too: the unrelated
orders stop in both and the checks fail (exit 1). So does a failing order with
no other order behind it on its partition: the pause has nobody to stop.`,
		Example: `  outboxlab ordered-block-key-not-partition
  outboxlab ordered-block-key-not-partition --partitions 1          # one partition: a pause stops every order
  outboxlab ordered-block-key-not-partition --orders 30 --partitions 4`,
		FailsWith:        []string{"--block-key=false"},
		NotExercisedWith: []string{"--partitions", "16"},
		Bind: func(fs *pflag.FlagSet) scenarios.Options {
			o := &blockKeyOptions{options: bindOptions(fs, PaymentReceived, false), BlockKey: true}
			fs.BoolVar(&o.BlockKey, "block-key", true,
				"the second run blocks the failing key (false: it pauses the partition too)")
			return o
		},
	})
}

type blockKeyOptions struct {
	*options
	BlockKey bool // the remedy of the scenario's own run
}

func (o *blockKeyOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	keyDesign := design{contain: keyedlog.BlockKey, idempotent: true, strict: true, recovery: replay}
	pauseDesign := design{contain: keyedlog.PausePartition, idempotent: true, strict: true, recovery: resume}
	if !o.BlockKey {
		keyDesign = pauseDesign
		keyDesign.off = "--block-key=false: this run pauses the partition too, as run 1 does"
	}
	key, err := o.execute(ctx, env, "outbox", keyDesign, nil)
	if err != nil {
		return nil, err
	}
	pause, err := o.execute(ctx, env, "partition-pause", pauseDesign, key.inOrder)
	if err != nil {
		return nil, fmt.Errorf("run the partition pause: %w", err)
	}
	r := o.start(env, identity{name: blockKeyName, kind: report.After,
		title: "Ordered messages — AFTER: block the key, not the partition"}, key)
	scenarios.SchemaSection(r.Report, key.tables)
	o.writeLog(r, key.log)
	r.Section("Run 1 of 2: pause the partition")
	r.Line(fit(containText(pauseDesign)+"; "+recoveryText(resume, ""), ""))
	o.writeTimeline(r, pause, nil)
	r.Section("Run 2 of 2: block the key (this scenario's own run, on its database)")
	if keyDesign.off != "" {
		r.Line(fit("SWITCHED OFF by "+keyDesign.off, ""))
	}
	for _, l := range whoBlocks {
		r.Line(l)
	}
	o.writeTimeline(r, key, pause)
	writeQueues(r, key)
	o.writeStates(r, key)
	o.writeComparison(r, pause, key)
	o.blockKeyChecks(r, pause, key)
	r.Checks("Safety checks")
	r.Verdict("ONLY ORDER "+strconv.Itoa(o.FailingOrder)+" WAITED — THE REST OF ITS PARTITION KEPT FLOWING",
		"BLOCKING THE KEY DID NOT BEAT PAUSING THE PARTITION")
	scenarios.RecordMetrics(r.Report, o.metrics(), key)
	scenarios.RecordMetricsAs(r.Report, o.comparison(), pause, prefixed("pause_"))
	scenarios.RecordMetricsAs(r.Report, o.comparison(), key, prefixed("key_"))
	r.Figure(o.picture("pause-timeline", "Run 1, pause the partition: consumer events until idle", pause))
	r.Figure(o.picture("key-timeline", "Run 2, block the key: consumer events until idle", key))
	return r.Report, nil
}

// writeComparison is the side-by-side table of the two runs.
func (o *blockKeyOptions) writeComparison(r *page, pause, key *run) {
	p := o.FailingOrder % o.Partitions
	r.Section(fmt.Sprintf("Pause the partition vs block the key (two real runs; order %d is on partition %d)", o.FailingOrder, p))
	own := fmt.Sprintf("Block key %s", orderKey(o.FailingOrder))
	if key.design.off != "" {
		own += " (switched off: paused)"
	}
	scenarios.MetricTable(r.Report, []string{"Metric (real run)", fmt.Sprintf("Pause partition %d", p), own}, o.comparison(), pause, key)
}

// comparison are the metrics the two runs are compared by, declared once:
// the table shows each run's, --json records the keyed ones of both runs
// (pause_..., key_...).
func (o *blockKeyOptions) comparison() []scenarios.Metric[*run] {
	return []scenarios.Metric[*run]{
		{Label: "Unrelated orders stopped until the fix", Key: "unrelated_orders_stopped",
			Show: func(x *run) string {
				s := o.stoppedAtIdle(x)
				if len(s.others) == 0 {
					return "0"
				}
				return fmt.Sprintf("%d (order %s)", len(s.others), report.JoinInts(s.others))
			},
			Value: func(x *run) any { return len(o.stoppedAtIdle(x).others) }},
		{Label: "Unrelated records held until the fix", Key: "unrelated_records_held",
			Value: func(x *run) any { return o.stoppedAtIdle(x).otherRecords }},
		{Label: fmt.Sprintf("Order %d records held until the fix", o.FailingOrder),
			Value: func(x *run) any { return o.stoppedAtIdle(x).failingRecord }},
		{Label: "Partitions flowing until the fix",
			Show: func(x *run) string { return fmt.Sprintf("%d / %d", o.Partitions-len(x.idle.paused), o.Partitions) }},
		{Label: "Longest wait of an unrelated record", Key: "longest_other_wait_ms",
			Show:  func(x *run) string { return o.longestWait(x).String() },
			Value: func(x *run) any { return o.longestWait(x).Milliseconds() }},
		{Label: "Bookkeeping rows", Show: func(x *run) string {
			return fmt.Sprintf("%s, %s", report.Plural(len(x.holds), "hold"), report.Plural(len(x.end.parked), "parked record"))
		}},
		{Label: "Orders equal to the in-order run at the end", Show: func(x *run) string {
			n, _ := endSame(x)
			return fmt.Sprintf("%d / %d", n, len(x.end.states))
		}},
	}
}

func (o *blockKeyOptions) blockKeyChecks(r *page, pause, key *run) {
	ps, ks := o.stoppedAtIdle(pause), o.stoppedAtIdle(key)
	r.Check("blocking the key stopped no unrelated order", len(ks.others) == 0 && ks.otherRecords == 0,
		report.Plural(len(ks.others), "order")+", "+report.Plural(ks.otherRecords, "record"))
	want := o.expectedStopped(key)
	const pausedName = "pausing the partition stopped every other order behind the failure on it"
	if len(want) == 0 {
		r.NotExercised(pausedName, fmt.Sprintf("the log has no other order behind %s on partition %d: the pause had "+
			"nobody to stop, so the two runs cannot differ; give fewer --partitions or more --orders, so that "+
			"another order shares its partition", o.failingRecord(key).Place(), o.FailingOrder%o.Partitions))
	} else {
		r.Check(pausedName, slices.Equal(ps.others, want), fmt.Sprintf("order %s stopped; the log has order %s behind %s on partition %d",
			report.Dash(report.JoinInts(ps.others)), report.JoinInts(want), o.failingRecord(key).Place(), o.FailingOrder%o.Partitions))
	}
	wantOwn := o.later() + 1
	r.Check("the key block held only the failing order's records", ks.failingRecord == wantOwn && ps.failingRecord == wantOwn,
		fmt.Sprintf("%d with the key block, %d with the pause, of %d", ks.failingRecord, ps.failingRecord, wantOwn))
	o.checkReplayInSequence(r, key, 0)
	for _, x := range []struct {
		name string
		run  *run
	}{{"partition pause", pause}, {"key block", key}} {
		_, differ := endSame(x.run)
		detail := fmt.Sprintf("all %d orders equal the in-order run", len(x.run.end.states))
		if len(differ) > 0 {
			detail = fmt.Sprintf("differs from the in-order run: order %s (of %d)", report.JoinInts(differ), len(x.run.end.states))
		}
		r.Check("end state = in-order end state ("+x.name+")", len(differ) == 0, detail)
	}
}

// expectedStopped reads from the log which other orders have a record behind
// the failing one on its partition: the ones a pause must stop.
func (o *blockKeyOptions) expectedStopped(run *run) []int {
	rec := o.failingRecord(run)
	var out []int
	for _, other := range run.log {
		id := orderOf(other)
		if other.Partition == rec.Partition && other.Offset > rec.Offset && id != o.FailingOrder && !containsInt(out, id) {
			out = append(out, id)
		}
	}
	return sortedInts(out)
}
