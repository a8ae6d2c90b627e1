package ordered

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/core/keyedlog"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

const (
	orphanName    = "ordered-orphan"
	dependsOnName = "ordered-depends-on"
)

func init() {
	scenarios.Register(&scenarios.Scenario{
		Name:    orphanName,
		Family:  "ordered",
		Kind:    report.Before,
		Pair:    dependsOnName,
		Summary: "Ordered BEFORE: OrderPlaced is dead-lettered, the payment and the shipment after it are stored with no order",
		Long: `Eight orders, three messages each, keyed by order over three partitions of a log,
read by one consumer that keeps an order table in the same database. The
OrderPlaced handler fails for order 42; after its attempts the record is
dead-lettered and the partition moves on. PaymentReceived and OrderShipped for
order 42 arrive next and a lenient handler stores them anyway: a payment and a
shipment with no order to attach them to, while every other order flows. After
the fix the dead letter is redriven the usual way, to the end of the line; the
order is created, but as Placed, and the check that compares it with an
in-order run of the same log says so.

With --failing-message PaymentReceived it is the course's opening example:
the payment is dead-lettered, OrderShipped runs without it (no orphan row:
the order exists), and the redriven payment lands after the shipment; the
verdict says so.

When the failing message is the order's last one (--failing-message
OrderShipped) no later message needs it: nothing can be applied without it,
so the failure is not exercised (verdict NOT EXERCISED, exit 1).`,
		Example: `  outboxlab ordered-orphan
  outboxlab ordered-orphan --failing-message PaymentReceived   # the shipment runs without its payment
  outboxlab ordered-orphan --partitions 1 --orders 4          # one lane for everything`,
		FailsWith:        []string{"--failing-message=OrderShipped"},
		NotExercisedWith: []string{"--failing-message=OrderShipped"},
		Bind:             func(fs *pflag.FlagSet) scenarios.Options { return bindOrphan(fs, false) },
	})
}

type orphanOptions struct {
	*options
	after     bool
	DependsOn bool
}

func bindOrphan(fs *pflag.FlagSet, after bool) *orphanOptions {
	o := &orphanOptions{options: bindOptions(fs, OrderPlaced, false), after: after}
	if after {
		fs.BoolVar(&o.DependsOn, "depends-on", true, "check each record's dependsOn before applying it (--depends-on=false switches it off)")
	}
	return o
}

func (o *orphanOptions) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	before := side{
		name:    orphanName,
		title:   "Ordered messages — BEFORE: orphans after a dead letter",
		design:  design{contain: keyedlog.DeadLetterOnly, idempotent: true, recovery: redrive},
		checks:  o.orphanChecks,
		passFor: o.orphanVerdict,
		fail:    "THE FAILURE MODE WAS NOT REPRODUCED",
	}
	after := side{
		name:   dependsOnName,
		title:  "Ordered messages — AFTER: sequence numbers with dependsOn",
		design: design{contain: keyedlog.DeadLetterOnly, dependsOn: o.DependsOn || !o.after, idempotent: true, recovery: replay},
		checks: o.dependsOnChecks,
		pass:   "DEPENDENCIES CHECKED — NOTHING APPLIED BEFORE WHAT IT NEEDS",
		fail:   "THE DEPENDSON CHECK DID NOT HOLD",
	}
	if o.FailingMessage != OrderPlaced {
		// The order row exists: what the later message lacks is the dead-lettered one's change.
		before.title = "Ordered messages — BEFORE: a later message applied without the dead-lettered one"
	}
	if !after.design.dependsOn {
		after.design.off = "--depends-on=false: no record's dependsOn is checked before it is applied"
	}
	return o.reportPair(ctx, env, before, after, o.after)
}

func (o *orphanOptions) orphanChecks(r *page, run *run) {
	o.checkFailingDeadLettered(r, run)
	const (
		applied = "later messages applied without the state they need"
		atEnd   = "the redriven copy landed at the end of the line"
		differs = "after the redrive, the order differs from the in-order run"
	)
	if o.later() == 0 {
		// Nothing comes after the failing message: no message can run
		// without it, and a redrive to the end of the line overtakes nothing.
		r.NotExercised(applied, o.noLater("no later message could be applied without it"))
		r.NotExercised(atEnd, o.noLater("the redriven copy has no later message to land behind"))
		o.checkOthersFlowed(r, run)
		r.NotExercised(differs, o.noLater("the redrive delivered it where it belongs"))
		return
	}
	n := outOfOrder(run)
	detail := fmt.Sprintf("rows with no order when the consumer went idle: %s; %s",
		run.idle.orphans.brief(), appliedEarly(n))
	if early := earlyTypes(run); len(early) > 0 {
		detail += " (" + strings.Join(early, ", ") + ")"
	}
	r.Check(applied, n > 0 || run.idle.orphans.total() > 0, detail)
	o.checkRedriveAtEnd(r, run)
	o.checkOthersFlowed(r, run)
	o.checkEndDiffers(r, run, differs)
}

// orphanVerdict says what the run showed: orphan rows when the order itself
// was missing; otherwise (the course's opening example, --failing-message
// PaymentReceived) a later message applied without the dead-lettered one,
// which the redrive then delivered after it.
func (o *orphanOptions) orphanVerdict(run *run) string {
	if run.idle.orphans.total() > 0 {
		return "ORPHANS — LATER MESSAGES STORED WITH NO ORDER TO ATTACH THEM TO"
	}
	early := earlyTypes(run)
	if len(early) == 0 {
		return "LATER MESSAGES APPLIED WITHOUT THE STATE THEY NEED"
	}
	return fmt.Sprintf("OUT OF ORDER — %s RAN WITHOUT %s, WHICH THE REDRIVE DELIVERED AFTER IT",
		strings.Join(early, ", "), o.FailingMessage)
}

// appliedEarly says how many records the handler applied before their
// dependency (the figure the BEFORE vs AFTER table shows).
func appliedEarly(n int) string {
	if n == 1 {
		return "1 record applied before its dependency"
	}
	return fmt.Sprintf("%d records applied before their dependency", n)
}

// earlyTypes are the types of the records the handler's ledger applied
// before their dependency, in the order it applied them.
func earlyTypes(run *run) []string {
	applied := map[string]bool{}
	var out []string
	for _, c := range applications(run) {
		if c.rec.DependsOn > 0 && !applied[fmt.Sprintf("%s/%d", c.rec.CorrelationID, c.rec.DependsOn)] && !slices.Contains(out, c.rec.Type) {
			out = append(out, c.rec.Type)
		}
		applied[fmt.Sprintf("%s/%d", c.rec.CorrelationID, c.rec.Sequence)] = true
	}
	return out
}

// checkRedriveAtEnd: the redriven copy lands behind the messages that
// needed it. It reads the log as stored at the end of the run.
func (o *options) checkRedriveAtEnd(r *page, run *run) {
	rec := o.failingRecord(run)
	var copyPlace string
	behind := 0
	for _, cp := range run.finalLog {
		if cp.RedriveOf != rec.ID {
			continue
		}
		copyPlace = cp.Place()
		for _, other := range run.log {
			if other.Key == rec.Key && other.Sequence > rec.Sequence && other.Offset < cp.Offset {
				behind++
			}
		}
	}
	detail := fmt.Sprintf("%s copied from %s to %s, behind all its later messages", rec.MessageID, rec.Place(), report.Dash(copyPlace))
	if behind < o.later() {
		detail = fmt.Sprintf("%s copied from %s to %s, ahead of a later message", rec.MessageID, rec.Place(), report.Dash(copyPlace))
	}
	r.Check("the redriven copy landed at the end of the line", copyPlace != "" && behind == o.later(), detail)
}
