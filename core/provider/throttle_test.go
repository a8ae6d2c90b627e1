package provider

import (
	"testing"
	"time"
)

func TestThrottleAdmitsCapacityPerSlidingWindow(t *testing.T) {
	start := time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	th := NewThrottle(2, time.Minute)
	tests := []struct {
		key  string
		at   time.Duration
		want bool
	}{
		{"A", 0, true},
		{"B", 0, true},
		{"C", 0, false},                // third in the window
		{"C", 30 * time.Second, false}, // A and B still in (t-1m, t]
		{"D", time.Minute, true},       // A and B left at exactly one window
		{"E", time.Minute, true},       // the throttled C calls never counted
		{"F", time.Minute + time.Millisecond, false},
		{"G", 2*time.Minute + time.Millisecond, true},
	}
	for _, tc := range tests {
		if got := th.Admit(tc.key, at(tc.at)); got != tc.want {
			t.Errorf("Admit(%s, +%s) = %v, want %v", tc.key, tc.at, got, tc.want)
		}
	}
	if calls := th.Calls(); len(calls) != len(tests) {
		t.Fatalf("ledger has %d calls, want %d: every call is recorded", len(calls), len(tests))
	}
	throttled := th.Throttled()
	if len(throttled) != 3 || throttled[0].Seq != 3 || throttled[1].Key != "C" || throttled[2].Key != "F" {
		t.Errorf("throttled = %+v, want calls 3 (C), 4 (C) and 7 (F)", throttled)
	}
	if throttled[0].InWindow != 2 {
		t.Errorf("call 3 saw %d admitted calls in its window, want 2", throttled[0].InWindow)
	}
	if !th.AdmitOp("verify", "H", at(2*time.Minute+time.Millisecond)) || th.Calls()[len(tests)].Op != "verify" {
		t.Errorf("AdmitOp(verify, H) = throttled or not recorded as verify: %+v", th.Calls()[len(tests)])
	}
	if n, when := th.Busiest(); n != 2 || !when.Equal(at(0)) {
		t.Errorf("Busiest() = %d at %s, want 2 at +0s", n, when)
	}
	if got := th.Text(); got != "2 calls per 1m0s" {
		t.Errorf("Text() = %q, want %q", got, "2 calls per 1m0s")
	}
}

func TestThrottleRefusesAnEmptyCapacity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewThrottle(0, 1m) did not panic")
		}
	}()
	NewThrottle(0, time.Minute)
}
