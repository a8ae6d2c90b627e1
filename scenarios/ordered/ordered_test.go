package ordered

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

var names = []string{orphanName, dependsOnName, cascadeName, poisonedName, corruptionName, replayName, blockKeyName, failureEventName}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // empty: valid
	}{
		{orphanName, nil, ""},
		{replayName, []string{"--failing-message", "OrderCancelled"}, ""},
		{orphanName, []string{"--orders", "0"}, "--orders must be between 1 and 99, got 0"},
		{orphanName, []string{"--orders", "100"}, "--orders must be between 1 and 99, got 100"},
		{orphanName, []string{"--partitions", "0"}, "--partitions must be between 1 and 16, got 0"},
		{blockKeyName, []string{"--failing-order", "40"}, "--failing-order 40 is not a produced order (41..48)"},
		{blockKeyName, []string{"--orders", "1"}, "--failing-order 42 is not a produced order (41..41)"},
		{orphanName, []string{"--failing-message", "OrderCancelled"}, `--failing-message "OrderCancelled" is not in order 42's stream (OrderPlaced, PaymentReceived, OrderShipped)`},
		{corruptionName, []string{"--failing-message", "OrderShipped"}, `--failing-message "OrderShipped" is not in order 42's stream (OrderPlaced, PaymentReceived, OrderCancelled)`},
		{cascadeName, []string{"--max-attempts", "0"}, "--max-attempts must be between 1 and 10, got 0"},
		{cascadeName, []string{"--base-backoff", "-1ms"}, "--base-backoff must be between 0s and 1m0s, got -1ms"},
		{poisonedName, []string{"--fix-after", "0s"}, "--fix-after must be more than 0s and at most 24h0m0s, got 0s"},
		{cascadeName, []string{"--max-attempts", "5"}, ""}, // the cascade has no fix, and no --fix-after: its default must still validate
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, tt.name, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestFiguresFollowTheFlags runs each scenario for real and checks the
// figures a wrong consumer, handler or replay would get wrong.
func TestFiguresFollowTheFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		passed     bool
		dead       int
		parked     int
		outOfOrder int
		equal      int    // orders equal to the in-order run at the end
		failingEnd string // the failing order's end state
	}{
		{orphanName, nil, true, 1, 0, 1, 7, "Placed, paid 0.00; 1 payment, 1 shipment"},
		{orphanName, []string{"--failing-message", "OrderShipped"}, false, 1, 0, 0, 8, "Shipped, paid 67.00; 1 payment, 1 shipment"},
		{dependsOnName, nil, true, 1, 2, 0, 8, "Shipped, paid 67.00; 1 payment, 1 shipment"},
		{dependsOnName, []string{"--depends-on=false"}, false, 1, 0, 1, 7, "Placed, paid 0.00; 1 payment, 1 shipment"},
		{cascadeName, nil, true, 3, 0, 0, 7, "no order row; 0 payments, 0 shipments"},
		{poisonedName, nil, true, 1, 2, 0, 8, "Shipped, paid 67.00; 1 payment, 1 shipment"},
		{corruptionName, nil, true, 1, 0, 1, 7, "Paid, paid 67.00; 1 payment, 0 shipments"},
		{replayName, nil, true, 1, 1, 0, 8, "Cancelled, paid 67.00; 1 payment, 0 shipments"},
		{replayName, []string{"--idempotent=false"}, false, 1, 1, 0, 7, "Cancelled, paid 134.00; 2 payments, 0 shipments"},
		{failureEventName, nil, true, 1, 1, 0, 8, "Shipped, paid 67.00; 1 payment, 1 shipment"},
		{blockKeyName, []string{"--failing-order", "47"}, true, 1, 1, 0, 8, "Shipped, paid 72.00; 1 payment, 1 shipment"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			res := scenariotest.Run(t, tt.name, tt.args...).Result()
			m := res.Metrics
			got := fmt.Sprintf("passed %v, dead %v, parked %v, out of order %v, equal %v, failing order %v",
				res.Passed, m["dead_letters"], m["parked"], m["applied_out_of_order"], m["orders_equal_in_order"], m["failing_order_end_state"])
			want := fmt.Sprintf("passed %v, dead %v, parked %v, out of order %v, equal %v, failing order %v",
				tt.passed, tt.dead, tt.parked, tt.outOfOrder, tt.equal, tt.failingEnd)
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestBlockKeyCountsTheStoppedOrders(t *testing.T) {
	tests := []struct {
		args                      []string
		pauseOrders, pauseRecords int
		pauseWaitMs, keyWaitMs    int64
	}{
		{nil, 2, 4, 300602, 602},                                               // partition 0 holds 42, 45, 48
		{[]string{"--partitions", "1"}, 7, 13, 300602, 602},                    // one partition: a pause stops every order; 41#2 was applied before
		{[]string{"--partitions", "2", "--fix-after", "1m"}, 3, 6, 60602, 602}, // 42, 44, 46, 48
	}
	for _, tt := range tests {
		t.Run("args "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			m := scenariotest.Run(t, blockKeyName, tt.args...).Result().Metrics
			got := fmt.Sprint(m["pause_unrelated_orders_stopped"], m["pause_unrelated_records_held"], m["key_unrelated_orders_stopped"],
				m["key_unrelated_records_held"], m["pause_longest_other_wait_ms"], m["key_longest_other_wait_ms"])
			want := fmt.Sprint(tt.pauseOrders, tt.pauseRecords, 0, 0, tt.pauseWaitMs, tt.keyWaitMs)
			if got != want {
				t.Errorf("pause orders, pause records, key orders, key records, pause wait, key wait = %s, want %s", got, want)
			}
		})
	}
}

func TestFamilyIsRegistered(t *testing.T) {
	for _, name := range names {
		s := scenarios.Lookup(name)
		if s == nil || s.Family != "ordered" {
			t.Fatalf("%s is not registered in family ordered", name)
		}
		if s.Pair != "" {
			if p := scenarios.Lookup(s.Pair); p == nil || p.Pair != name || p.Kind == s.Kind {
				t.Errorf("%s pairs with %s, which does not pair back with a different kind", name, s.Pair)
			}
		}
	}
}

func TestCrashCascadeHasNoFixFlag(t *testing.T) {
	fs := pflag.NewFlagSet(cascadeName, pflag.ContinueOnError)
	scenarios.Lookup(cascadeName).Bind(fs)
	if fs.Lookup("fix-after") != nil {
		t.Error("ordered-crash-cascade takes --fix-after, but its run ends before any fix")
	}
	if fs.Lookup("failing-message") == nil || fs.Lookup("orders") == nil {
		t.Error("ordered-crash-cascade lost the family's other flags")
	}
}
