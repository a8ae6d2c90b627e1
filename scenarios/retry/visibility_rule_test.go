package retry

import (
	"testing"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// The rule read from the runs: held waits within the lease are never
// overlapped, those past it are; on the queue a backoff over the visibility
// timeout overlaps nothing.
func TestVisibilityRuleFromTheRuns(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		want       map[string]int
		wantPassed bool
	}{
		// A held wait counts with the send after it, as the lease does: of 16
		// waits, 10 end their send past the lease, 8 of those overlapped.
		{heldBackoff, nil, map[string]int{"held_waits_within_lease": 6, "held_waits_within_lease_overlapped": 0,
			"held_waits_past_lease": 10, "held_waits_past_lease_overlapped": 8}, true},
		// At 2 min no backoff outlives the lease, but a hanging send after a
		// wait does, and worker-1 takes NTF-003 over during it.
		{heldBackoff, []string{"--visibility-timeout", "2m"}, map[string]int{"held_waits_within_lease": 9,
			"held_waits_within_lease_overlapped": 0, "held_waits_past_lease": 1, "held_waits_past_lease_overlapped": 1}, true},
		// A lease longer than every hold: no wait runs past it, the rule's failure is not reproduced.
		{heldBackoff, []string{"--visibility-timeout", "10m"}, map[string]int{"held_waits_past_lease": 0,
			"held_waits_within_lease_overlapped": 0}, false},
		{queueBackoff, nil, map[string]int{"held_waits_within_lease": 0, "held_waits_past_lease": 0,
			"queue_waits_over_visibility_timeout": 1, "overlapping_holds": 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+caseName(tt.args), func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, tt.name, tt.args...)
			m := r.Result().Metrics
			for key, want := range tt.want {
				if got, ok := m[key].(int); !ok || got != want {
					t.Errorf("%s = %v, want %d", key, m[key], want)
				}
			}
			if tt.name == heldBackoff {
				if c := scenariotest.CheckNamed(t, r, checkHeldRule); c.Passed != tt.wantPassed {
					t.Errorf("%q passed = %v, want %v: %s", checkHeldRule, c.Passed, tt.wantPassed, c.Detail)
				}
			}
		})
	}
}

// A second consumer's claim during a held wait that ended within the lease
// breaks the rule's check: it can only come from a lease that did not hold.
func TestVisibilityRuleCatchesAnOverlapWithinTheLease(t *testing.T) {
	o := scenariotest.Bind(t, heldBackoff).(*visibilityOptions)
	at := func(s int) time.Time { return clock.Start.Add(time.Duration(s) * time.Second) }
	held := heldMessage{consumer: "worker-1", key: "NTF-001", from: at(0), to: at(6), leaseEnd: at(30),
		sends: []send{{at: at(0), done: at(1)}, {at: at(5), done: at(6)}}}
	late := heldMessage{consumer: "worker-1", key: "NTF-002", from: at(0), to: at(41), leaseEnd: at(30),
		sends: []send{{at: at(0), done: at(1)}, {at: at(40), done: at(41)}}}
	second := heldMessage{consumer: "worker-2", key: "NTF-002", from: at(31), to: at(32), leaseEnd: at(61),
		sends: []send{{at: at(31), done: at(32)}}}
	hung := heldMessage{consumer: "worker-1", key: "NTF-003", from: at(0), to: at(45), leaseEnd: at(30),
		sends: []send{{at: at(0), done: at(1)}, {at: at(20), done: at(45)}}}
	taker := heldMessage{consumer: "worker-2", key: "NTF-003", from: at(31), to: at(56), leaseEnd: at(61),
		sends: []send{{at: at(31), done: at(56)}}}
	intruder := heldMessage{consumer: "worker-3", key: "NTF-001", from: at(3), to: at(4), leaseEnd: at(33),
		sends: []send{{at: at(3), done: at(4), ok: true}}}

	for _, tt := range []struct {
		name  string
		holds []heldMessage
		want  bool
	}{
		{"overlaps only past the lease", []heldMessage{held, late, second}, true},
		{"an overlap within the lease", []heldMessage{held, intruder, late, second}, false},
		// A wait that ends within the lease and a send that hangs past it:
		// past the lease, overlapped by the claim made during the send.
		{"a send past the lease", []heldMessage{held, hung, taker}, true},
	} {
		f := o.ruleMetrics(tt.holds)
		r := report.New(heldBackoff, report.Before)
		o.heldRuleCheck(r, f)
		if c := r.Result().Checks[0]; c.Passed != tt.want {
			t.Errorf("%s: passed = %v, want %v: %s", tt.name, c.Passed, tt.want, c.Detail)
		}
	}
}
