package ordered

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

var names = []string{orphanName, dependsOnName, cascadeName, poisonedName, corruptionName, replayName, blockKeyName, failureEventName, permanentName}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // empty: valid
	}{
		{orphanName, nil, ""},
		{replayName, []string{"--failing-message", "OrderCancelled"}, ""},
		{orphanName, []string{"--orders", "1", "--failing-order", "41"}, "--orders must be between 2 and 99 (the failing order and at least one other), got 1"},
		{orphanName, []string{"--orders", "100"}, "--orders must be between 2 and 99 (the failing order and at least one other), got 100"},
		{orphanName, []string{"--partitions", "0"}, "--partitions must be between 1 and 16, got 0"},
		{orphanName, []string{"--partitions", "17"}, "--partitions must be between 1 and 16, got 17"},
		{blockKeyName, []string{"--failing-order", "40"}, "--failing-order 40 is not a produced order (41..48)"},
		{blockKeyName, []string{"--orders", "20", "--failing-order", "61"}, "--failing-order 61 is not a produced order (41..60)"},
		{blockKeyName, []string{"--orders", "99", "--failing-order", "139"}, ""}, // --failing-order's bound follows --orders
		{orphanName, []string{"--failing-message", "OrderCancelled"}, `--failing-message "OrderCancelled" is not in order 42's stream (OrderPlaced, PaymentReceived, OrderShipped)`},
		{orphanName, []string{"--failing-message", "Order Shipped"}, `--failing-message "Order Shipped" is not in order 42's stream (OrderPlaced, PaymentReceived, OrderShipped)`},
		{corruptionName, []string{"--failing-message", "OrderShipped"}, `--failing-message "OrderShipped" is not in order 42's stream (OrderPlaced, PaymentReceived, OrderCancelled)`},
		{cascadeName, []string{"--max-attempts", "0"}, "--max-attempts must be between 1 and 10, got 0"},
		{cascadeName, []string{"--max-attempts", "11"}, "--max-attempts must be between 1 and 10, got 11"},
		{cascadeName, []string{"--base-backoff", "-1ms"}, "--base-backoff must be between 0s and 1m0s, got -1ms"},
		{cascadeName, []string{"--base-backoff", "1m0.001s"}, "--base-backoff must be between 0s and 1m0s, got 1m0.001s"},
		{cascadeName, []string{"--base-backoff", "1.5ms"}, "--base-backoff must be a whole number of milliseconds, got 1.5ms"},
		{poisonedName, []string{"--fix-after", "0s"}, "--fix-after must be between 1ms and 24h0m0s, got 0s"},
		{poisonedName, []string{"--fix-after", "24h0m0.001s"}, "--fix-after must be between 1ms and 24h0m0s, got 24h0m0.001s"},
		{poisonedName, []string{"--fix-after", "1500us"}, "--fix-after must be a whole number of milliseconds, got 1.5ms"},
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

// TestLimitsAreWhatValidateEnforces holds every declared limit to Validate:
// the limit itself is accepted, one step beyond it is refused with an error
// naming the flag.
func TestLimitsAreWhatValidateEnforces(t *testing.T) {
	for _, name := range names {
		s := scenarios.Lookup(name)
		if len(s.Limits()) == 0 {
			t.Errorf("%s declares no limits", name)
		}
		for _, l := range s.Limits() {
			beyondMin, beyondMax := stepBeyond(t, l.Min, -1), stepBeyond(t, l.Max, +1)
			for _, v := range []string{l.Min, l.Max} {
				if err := scenariotest.Bind(t, name, "--"+l.Flag, v).Validate(); err != nil {
					t.Errorf("%s --%s %s: %v, want it accepted (a declared limit)", name, l.Flag, v, err)
				}
			}
			for _, v := range []string{beyondMin, beyondMax} {
				err := scenariotest.Bind(t, name, "--"+l.Flag, v).Validate()
				if err == nil || !strings.HasPrefix(err.Error(), "--"+l.Flag+" ") {
					t.Errorf("%s --%s %s: %v, want an error naming --%s", name, l.Flag, v, err, l.Flag)
				}
			}
		}
	}
}

// stepBeyond moves a limit one step: 1 for a count, 1ms for a duration.
func stepBeyond(t *testing.T, v string, dir int) string {
	t.Helper()
	if n, err := strconv.Atoi(v); err == nil {
		return strconv.Itoa(n + dir)
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("limit %q is neither a count nor a duration", v)
	}
	return (d + time.Duration(dir)*time.Millisecond).String()
}

// TestBudgetIsComputedFromTheFlags drives the budget arithmetic past the
// flags' bounds, where Validate's range checks would stop a real run first.
func TestBudgetIsComputedFromTheFlags(t *testing.T) {
	tests := []struct {
		o       options
		wantErr string
	}{
		{options{Orders: maxOrders, MaxAttempts: maxAttempts, BaseBackoff: maxBaseBackoff, FixAfter: maxFixAfter}, ""},
		{options{Orders: 200, MaxAttempts: 10, FixAfter: time.Minute},
			"--orders 200 with --max-attempts 10 allow 7300 consumer steps a drain, over the limit of 4000"},
		{options{Orders: 8, MaxAttempts: 13, BaseBackoff: time.Minute, FixAfter: maxFixAfter},
			"--fix-after 24h0m0s with --base-backoff 1m0s and --max-attempts 13 let scenario time run 228h45m0.036s, over the limit of 168h0m0s"},
	}
	for _, tt := range tests {
		err := tt.o.withinBudget()
		if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("withinBudget(%+v) = %v, want %q", tt.o, err, tt.wantErr)
		}
	}
	// At every flag's upper bound at once: 99 orders, 10 attempts, the
	// longest backoff and fix.
	o := options{Orders: maxOrders, MaxAttempts: maxAttempts, BaseBackoff: maxBaseBackoff, FixAfter: maxFixAfter}
	if got, want := o.stepLimit(), 3664; got != want {
		t.Errorf("stepLimit at the bounds = %d, want %d", got, want)
	}
	if got, want := o.span(), 24*time.Hour+3*(511*time.Minute+9*time.Millisecond); got != want {
		t.Errorf("span at the bounds = %s, want %s", got, want)
	}
}

// TestMetricsFollowTheFlags runs each scenario for real and checks the
// metrics a wrong consumer, handler or replay would get wrong.
func TestMetricsFollowTheFlags(t *testing.T) {
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

// TestPermanentVersusTransient reads the split from the two runs' metrics:
// the permanent failure gets one attempt and holds its partition for no
// time when classified, every attempt and the backoffs when not; the
// transient one is retried until it passes in both.
func TestPermanentVersusTransient(t *testing.T) {
	tests := []struct {
		args   []string
		passed bool
		want   string // classify: permanent attempts, held, transient attempts, wait behind; then retry-all's
	}{
		{nil, true, "1 0s 3 0 | 3 602ms 3 602"},
		{[]string{"--classify=false"}, false, "3 602ms 3 602 | 3 602ms 3 602"},
		{[]string{"--max-attempts", "5", "--transient-failures", "1"}, true, "1 0s 2 0 | 5 3.004s 2 3004"},
		{[]string{"--transient-failures", "3"}, false, "1 0s 3 0 | 3 602ms 3 602"}, // 43#2 dead-lettered after 3 failures
	}
	for _, tt := range tests {
		t.Run("args "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			res := scenariotest.Run(t, permanentName, tt.args...).Result()
			m := res.Metrics
			got := fmt.Sprintf("%v %v %v %v | %v %v %v %v",
				m["classify_permanent_attempts"], m["classify_permanent_held"], m["classify_transient_attempts"],
				m["classify_longest_wait_behind_ms"], m["retry_all_permanent_attempts"], m["retry_all_permanent_held"],
				m["retry_all_transient_attempts"], m["retry_all_longest_wait_behind_ms"])
			if got != tt.want || res.Passed != tt.passed {
				t.Errorf("passed %v, figures %s; want %v, %s", res.Passed, got, tt.passed, tt.want)
			}
		})
	}
}

// TestOrphanVerdictSaysWhatTheRunShowed: the course's opening example
// (PaymentReceived dead-lettered, OrderShipped applied without it) has no
// orphan rows, and its verdict must not claim any.
func TestOrphanVerdictSaysWhatTheRunShowed(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "ORPHANS — LATER MESSAGES STORED WITH NO ORDER TO ATTACH THEM TO"},
		{[]string{"--failing-message", "PaymentReceived"},
			"OUT OF ORDER — OrderShipped RAN WITHOUT PaymentReceived, WHICH THE REDRIVE DELIVERED AFTER IT"},
	}
	for _, tt := range tests {
		t.Run("args "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			res := scenariotest.Run(t, orphanName, tt.args...).Result()
			if want := report.VerdictReproduced + " " + tt.want; res.Verdict != want {
				t.Errorf("verdict %q, want %q", res.Verdict, want)
			}
		})
	}
}

// TestUnpairedAftersSayWhatTheyAnswer: an AFTER without a pair names the
// BEFORE it answers, and that BEFORE exists.
func TestUnpairedAftersSayWhatTheyAnswer(t *testing.T) {
	for _, name := range []string{blockKeyName, failureEventName} {
		s := scenarios.Lookup(name)
		if b := scenarios.Lookup(s.Answers); b == nil || b.Kind != report.Before {
			t.Errorf("%s answers %q, want a BEFORE scenario", name, s.Answers)
		}
	}
}
