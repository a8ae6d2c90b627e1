package ordered

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
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
	fs.IntVar(&o.Orders, "orders", 8, "orders to produce, numbered from 41 (each with three messages on its own key)")
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

const maxOrders = 99

func (o *options) Validate() error {
	last := firstOrder + o.Orders - 1
	switch {
	case o.Orders < 1 || o.Orders > maxOrders:
		return fmt.Errorf("--orders must be between 1 and %d, got %d", maxOrders, o.Orders)
	case o.Partitions < 1 || o.Partitions > 16:
		return fmt.Errorf("--partitions must be between 1 and 16, got %d", o.Partitions)
	case o.FailingOrder < firstOrder || o.FailingOrder > last:
		return fmt.Errorf("--failing-order %d is not a produced order (%d..%d)", o.FailingOrder, firstOrder, last)
	case !slices.Contains(stream(o.cancelled), o.FailingMessage):
		return fmt.Errorf("--failing-message %q is not in order %d's stream (%s)",
			o.FailingMessage, o.FailingOrder, strings.Join(stream(o.cancelled), ", "))
	case o.MaxAttempts < 1 || o.MaxAttempts > 10:
		return fmt.Errorf("--max-attempts must be between 1 and 10, got %d", o.MaxAttempts)
	case o.BaseBackoff < 0 || o.BaseBackoff > time.Minute:
		return fmt.Errorf("--base-backoff must be between 0s and 1m0s, got %s", o.BaseBackoff)
	case o.FixAfter <= 0 || o.FixAfter > 24*time.Hour:
		return fmt.Errorf("--fix-after must be more than 0s and at most 24h0m0s, got %s", o.FixAfter)
	}
	return nil
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

// neighbours are the other orders on the failing order's partition.
func (o *options) neighbours() []int {
	var out []int
	for _, id := range o.orderIDs() {
		if id != o.FailingOrder && id%o.Partitions == o.FailingOrder%o.Partitions {
			out = append(out, id)
		}
	}
	return out
}
