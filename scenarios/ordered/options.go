package ordered

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/claim"
	"outboxlab/scenarios"
)

// options are the parameters every scenario of the family takes.
type options struct {
	Orders         int
	Partitions     int
	FailingOrder   int
	FailingMessage string
	MaxAttempts    int
	BaseBackoff    time.Duration
	FixAfter       time.Duration

	cancelled bool // the failing order's stream ends in OrderCancelled (set by the scenario)
}

// bindOptions registers the family's flags; failing is the scenario's
// default failing message type.
func bindOptions(fs *pflag.FlagSet, failing string, cancelled bool) *options {
	o := &options{cancelled: cancelled}
	fs.IntVar(&o.Orders, "orders", defaultOrders, "orders to produce, numbered from 41 (each with three messages on its own key)")
	fs.IntVar(&o.Partitions, "partitions", 3, "partitions of the log; an order's messages go to partition (order id mod partitions)")
	fs.IntVar(&o.FailingOrder, "failing-order", 42, "the order whose message the handler bug hits")
	fs.StringVar(&o.FailingMessage, "failing-message", failing,
		"the message type that fails for the failing order until the fix: "+strings.Join(stream(cancelled), ", "))
	fs.IntVar(&o.MaxAttempts, "max-attempts", 3, "attempts a record gets, retried in place with backoff, before it is contained")
	fs.DurationVar(&o.BaseBackoff, "base-backoff", 200*time.Millisecond, "wait after the first failed attempt; doubles each attempt")
	fs.DurationVar(&o.FixAfter, "fix-after", 5*time.Minute, "how long after the consumer goes idle the fix is deployed")
	return o
}

// bindWithoutFix registers the family's flags for a scenario whose run ends
// before any fix: it has no --fix-after.
func bindWithoutFix(fs *pflag.FlagSet, failing string) *options {
	scratch := pflag.NewFlagSet("", pflag.ContinueOnError)
	o := bindOptions(scratch, failing, false)
	scratch.VisitAll(func(f *pflag.Flag) {
		if f.Name != "fix-after" {
			fs.AddFlag(f)
		}
	})
	return o
}

// The bounds Validate enforces, and Limits declares, for the family's flags.
const (
	defaultOrders  = 8
	minOrders      = 2 // the failing order and at least one other, whose flow is the point
	maxOrders      = 99
	maxPartitions  = 16
	maxAttempts    = 10
	maxBaseBackoff = time.Minute
	minFixAfter    = time.Millisecond
	maxFixAfter    = 24 * time.Hour
)

// The work budget of one run, computed from the flags. Within the flags'
// bounds no run comes near it (99 orders and 10 attempts allow 3,664 steps a
// drain, and scenario time stays within about two days); it is the guard
// that keeps a future widening of a bound from making a run unbounded.
const (
	maxDrainSteps = 4000
	maxSpan       = 7 * 24 * time.Hour
)

// familyLimits are the accepted extremes of the family's numeric and
// duration flags; withFix adds --fix-after. --failing-order's upper bound
// follows --orders (the last produced order); declared here is its value
// at the default --orders.
func familyLimits(withFix bool) []scenarios.Limit {
	l := []scenarios.Limit{
		{Flag: "orders", Min: strconv.Itoa(minOrders), Max: strconv.Itoa(maxOrders)},
		{Flag: "partitions", Min: "1", Max: strconv.Itoa(maxPartitions)},
		{Flag: "failing-order", Min: strconv.Itoa(firstOrder), Max: strconv.Itoa(firstOrder + defaultOrders - 1)},
		{Flag: "max-attempts", Min: "1", Max: strconv.Itoa(maxAttempts)},
		{Flag: "base-backoff", Min: "0s", Max: maxBaseBackoff.String()},
	}
	if withFix {
		l = append(l, scenarios.Limit{Flag: "fix-after", Min: minFixAfter.String(), Max: maxFixAfter.String()})
	}
	return l
}

func (o *options) Validate() error {
	last := firstOrder + o.Orders - 1
	if err := scenarios.CheckSpelling("failing-message", o.FailingMessage, stream(o.cancelled)); err != nil {
		return err
	}
	switch {
	case o.Orders < minOrders || o.Orders > maxOrders:
		return fmt.Errorf("--orders must be between %d and %d (the failing order and at least one other), got %d", minOrders, maxOrders, o.Orders)
	case o.Partitions < 1 || o.Partitions > maxPartitions:
		return fmt.Errorf("--partitions must be between 1 and %d, got %d", maxPartitions, o.Partitions)
	case o.FailingOrder < firstOrder || o.FailingOrder > last:
		return fmt.Errorf("--failing-order %d is not a produced order (%d..%d)", o.FailingOrder, firstOrder, last)
	case !slices.Contains(stream(o.cancelled), o.FailingMessage):
		return fmt.Errorf("--failing-message %q is not in order %d's stream (%s)",
			o.FailingMessage, o.FailingOrder, strings.Join(stream(o.cancelled), ", "))
	case o.MaxAttempts < 1 || o.MaxAttempts > maxAttempts:
		return fmt.Errorf("--max-attempts must be between 1 and %d, got %d", maxAttempts, o.MaxAttempts)
	case o.BaseBackoff < 0 || o.BaseBackoff > maxBaseBackoff:
		return fmt.Errorf("--base-backoff must be between 0s and %s, got %s", maxBaseBackoff, o.BaseBackoff)
	case o.BaseBackoff%time.Millisecond != 0:
		return fmt.Errorf("--base-backoff must be a whole number of milliseconds, got %s", o.BaseBackoff)
	case o.FixAfter < minFixAfter || o.FixAfter > maxFixAfter:
		return fmt.Errorf("--fix-after must be between %s and %s, got %s", minFixAfter, maxFixAfter, o.FixAfter)
	case o.FixAfter%time.Millisecond != 0:
		return fmt.Errorf("--fix-after must be a whole number of milliseconds, got %s", o.FixAfter)
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
