package ordered

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/claim"
	"outboxlab/scenarios"
)

// options are the parameters every scenario of the family takes.
type options struct {
	scenarios.Declared
	Orders         int
	Partitions     int
	FailingOrder   int
	FailingMessage string
	MaxAttempts    int
	BaseBackoff    time.Duration
	FixAfter       time.Duration

	cancelled bool // the failing order's stream ends in OrderCancelled (set by the scenario)
}

// The family's bounds and defaults, as bindFamily declares them.
const (
	defaultOrders   = 8
	minOrders       = 2 // the failing order and at least one other, whose flow is the point
	maxOrders       = 99
	maxPartitions   = 16
	maxAttempts     = 10
	maxBaseBackoff  = time.Minute
	defaultFixAfter = 5 * time.Minute
	minFixAfter     = time.Millisecond
	maxFixAfter     = 24 * time.Hour
)

// bindOptions declares the family's flags; failing is the scenario's
// default failing message type. --failing-order's range follows --orders
// (the produced orders); its declared range is the one at the default
// --orders.
func bindOptions(fs *pflag.FlagSet, failing string, cancelled bool) *options {
	return bindFamily(fs, failing, cancelled, true)
}

// bindWithoutFix declares the family's flags for a scenario whose run ends
// before any fix: it has no --fix-after.
func bindWithoutFix(fs *pflag.FlagSet, failing string) *options {
	return bindFamily(fs, failing, false, false)
}

func bindFamily(fs *pflag.FlagSet, failing string, cancelled, withFix bool) *options {
	o := &options{cancelled: cancelled, FixAfter: defaultFixAfter}
	f := o.Declare(fs)
	f.Int(&o.Orders, "orders", defaultOrders, minOrders, maxOrders,
		"orders to produce, numbered from 41 (each with three messages on its own key)").
		Because("the failing order and at least one other")
	f.Int(&o.Partitions, "partitions", 3, 1, maxPartitions, "partitions of the log; an order's messages go to partition (order id mod partitions)")
	f.Int(&o.FailingOrder, "failing-order", 42, firstOrder, firstOrder+defaultOrders-1, "the order whose message the handler bug hits").
		Within(func() (int, int) { return firstOrder, firstOrder + o.Orders - 1 }, func(v, lo, hi int) error {
			return fmt.Errorf("--failing-order %d is not a produced order (%d..%d)", v, lo, hi)
		})
	f.String(&o.FailingMessage, "failing-message", failing, scenarios.WordLength,
		"the message type that fails for the failing order until the fix: "+strings.Join(stream(cancelled), ", "))
	f.Int(&o.MaxAttempts, "max-attempts", 3, 1, maxAttempts, "attempts a record gets, retried in place with backoff, before it is contained")
	f.Duration(&o.BaseBackoff, "base-backoff", 200*time.Millisecond, 0, maxBaseBackoff, "wait after the first failed attempt; doubles each attempt")
	if withFix {
		f.Duration(&o.FixAfter, "fix-after", defaultFixAfter, minFixAfter, maxFixAfter, "how long after the consumer goes idle the fix is deployed")
	}
	return o
}

// The work budget of one run, computed from the flags. Within the flags'
// bounds no run comes near it (99 orders and 10 attempts allow 3,664 steps a
// drain, and scenario time stays within about two days); it is the guard
// that keeps a future widening of a bound from making a run unbounded.
const (
	maxDrainSteps = 4000
	maxSpan       = 7 * 24 * time.Hour
)

// Validate checks the declared ranges, then the rules between flags.
func (o *options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	if err := scenarios.CheckSpelling("failing-message", o.FailingMessage, stream(o.cancelled)); err != nil {
		return err
	}
	if !slices.Contains(stream(o.cancelled), o.FailingMessage) {
		return fmt.Errorf("--failing-message %q is not in order %d's stream (%s)",
			o.FailingMessage, o.FailingOrder, strings.Join(stream(o.cancelled), ", "))
	}
	return o.withinBudget()
}

// withinBudget refuses flags whose run would take more consumer steps a
// drain, or more scenario time, than the budget. It assumes the flags are
// within their bounds, so none of its arithmetic overflows.
func (o *options) withinBudget() error {
	if steps := o.stepLimit(); steps > maxDrainSteps {
		return fmt.Errorf("--orders %d with --max-attempts %d allow %d consumer steps a drain, over the limit of %d",
			o.Orders, o.MaxAttempts, steps, maxDrainSteps)
	}
	if span := o.span(); span > maxSpan {
		return fmt.Errorf("--fix-after %s with --base-backoff %s and --max-attempts %d let scenario time run %s, over the limit of %s",
			o.FixAfter, o.BaseBackoff, o.MaxAttempts, span, maxSpan)
	}
	return nil
}

// stepLimit bounds one drain of the consumer, generously: a drain reads each
// record once, and at most the failing order's three records MaxAttempts
// times with a clock advance between attempts; this allows every record
// MaxAttempts+2 reads, plus slack.
func (o *options) stepLimit() int { return o.Orders*3*(o.MaxAttempts+2) + 100 }

// span bounds how far scenario time runs: the fix, plus the backoffs of the
// failing order's three records, each retried MaxAttempts-1 times and each
// retry reached WakeupSlack past its due time (the most a run waits: every
// other record is applied at once).
func (o *options) span() time.Duration {
	retries := time.Duration(o.MaxAttempts - 1)
	waits := o.BaseBackoff*(1<<retries-1) + retries*claim.WakeupSlack
	return o.FixAfter + 3*waits
}

// transientOrder is the order whose record fails transiently, where a
// scenario has one: the one after the failing order (before it, for the last).
func (o *options) transientOrder() int {
	if o.FailingOrder == firstOrder+o.Orders-1 {
		return o.FailingOrder - 1
	}
	return o.FailingOrder + 1
}

// orderIDs are the produced orders, in order.
func (o *options) orderIDs() []int {
	ids := make([]int, o.Orders)
	for i := range ids {
		ids[i] = firstOrder + i
	}
	return ids
}

// failingSeq is the sequence number of the failing message.
func (o *options) failingSeq() int {
	return slices.Index(stream(o.cancelled), o.FailingMessage) + 1
}
