package governance

import (
	"fmt"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// checkNamed returns the check called name. A missing name fails the test:
// a renamed check must not let the assertions about it pass unnoticed.
func checkNamed(t *testing.T, res report.Result, name string) report.Check {
	t.Helper()
	var names []string
	for _, c := range res.Checks {
		if c.Name == name {
			return c
		}
		names = append(names, c.Name)
	}
	t.Fatalf("%s has no check %q; its checks: %q", res.Scenario, name, names)
	return report.Check{}
}

// metric reads a metric as text, for comparisons that do not care about JSON types.
func metric(m map[string]any, key string) string { return fmt.Sprint(m[key]) }

func TestThresholdFollowsTheFlags(t *testing.T) {
	tests := []struct {
		args       []string
		wantPassed bool
		wantRetry  string // retry_count metric of the claim drain
		wantDead   string
	}{
		{nil, true, "map[GOV-001:0 GOV-002:5 GOV-003:5 GOV-004:2 GOV-005:4 GOV-006:0]", "3"},
		{[]string{"--max-retry-attempts", "8"}, true, "map[GOV-001:0 GOV-002:8 GOV-003:8 GOV-004:2 GOV-005:4 GOV-006:0]", "3"},
		{[]string{"--max-retry-attempts", "4"}, true, "map[GOV-001:0 GOV-002:4 GOV-003:4 GOV-004:2 GOV-005:4 GOV-006:0]", "4"},
		{[]string{"--dead-letter-on-max-retry-attempts=false"}, false, "map[GOV-001:0 GOV-002:12 GOV-003:12 GOV-004:2 GOV-005:4 GOV-006:0]", "1"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			res := scenariotest.Run(t, thresholdName, tt.args...).Result()
			if res.Passed != tt.wantPassed {
				t.Errorf("passed = %v, want %v: %+v", res.Passed, tt.wantPassed, res.Checks)
			}
			if got := metric(res.Metrics, "retry_count"); got != tt.wantRetry {
				t.Errorf("retry_count = %s, want %s", got, tt.wantRetry)
			}
			if got := metric(res.Metrics, "dead_lettered"); got != tt.wantDead || metric(res.Metrics, "dead_letter_counter") != tt.wantDead {
				t.Errorf("dead_lettered %s, counter %s, want %s", got, metric(res.Metrics, "dead_letter_counter"), tt.wantDead)
			}
		})
	}
}

func TestDeferralsNeverCount(t *testing.T) {
	res := scenariotest.Run(t, deferredName, "--deferrals", "20").Result()
	if !res.Passed || metric(res.Metrics, "retry_count") != "map[GOV-001:0 GOV-002:0 GOV-003:5]" || metric(res.Metrics, "emitter_calls") != "33" {
		t.Errorf("passed %v, retry_count %s, calls %s; want GOV-001 at 0 after 20 deferrals, 21+4+8 calls",
			res.Passed, metric(res.Metrics, "retry_count"), metric(res.Metrics, "emitter_calls"))
	}
}

func TestDeadLetterOffNeedsAHostPolicy(t *testing.T) {
	tests := []struct {
		args        []string
		wantPassed  bool
		wantRetry   string
		quarantined string
		capped      string
	}{
		{nil, true, "map[GOV-001:8 GOV-002:2]", "1", "false"},
		{[]string{"--host-review-after", "10"}, true, "map[GOV-001:10 GOV-002:2]", "1", "false"},
		{[]string{"--host-review-after", "0"}, false, "map[GOV-001:12 GOV-002:2]", "0", "true"},
		{[]string{"--dead-letter-on-max-retry-attempts=true"}, false, "map[GOV-001:5 GOV-002:2]", "0", "false"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			res := scenariotest.Run(t, disabledName, tt.args...).Result()
			if res.Passed != tt.wantPassed || metric(res.Metrics, "retry_count") != tt.wantRetry ||
				metric(res.Metrics, "quarantined") != tt.quarantined || metric(res.Metrics, "demo_capped") != tt.capped {
				t.Errorf("passed %v retry %s quarantined %s capped %s; want %v %s %s %s", res.Passed, metric(res.Metrics, "retry_count"),
					metric(res.Metrics, "quarantined"), metric(res.Metrics, "demo_capped"), tt.wantPassed, tt.wantRetry, tt.quarantined, tt.capped)
			}
		})
	}
}

func TestLegacyColumnNeverDecides(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "map[GOV-001:8 GOV-002:8 GOV-003:8 GOV-004:8]"},
		{[]string{"--max-retry-attempts", "5"}, "map[GOV-001:5 GOV-002:5 GOV-003:5 GOV-004:6]"},
	} {
		res := scenariotest.Run(t, legacyName, tt.args...).Result()
		if !res.Passed || metric(res.Metrics, "retry_count") != tt.want || metric(res.Metrics, "dead_lettered") != "4" {
			t.Errorf("%v: passed %v, retry_count %s, dead %s; want %s, all 4 dead-lettered", tt.args, res.Passed,
				metric(res.Metrics, "retry_count"), metric(res.Metrics, "dead_lettered"), tt.want)
		}
	}
}

func TestStaleClaimPair(t *testing.T) {
	tests := []struct {
		name                                 string
		args                                 []string
		wantPassed                           bool
		applied, after, deliveries, falseDLs string
		refused                              string
	}{
		{staleBefore, nil, true, "true", "Failed", "2", "0", "0"},
		{staleAfter, nil, true, "false", "Delivered", "1", "0", "1"},
		{staleBefore, []string{"--prior-failures", "4"}, true, "true", "DeadLettered", "1", "1", "0"},
		{staleAfter, []string{"--prior-failures", "4"}, true, "false", "Delivered", "1", "0", "1"},
		{staleBefore, []string{"--slow-emit", "20s"}, false, "true", "Failed", "1", "0", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name+fmt.Sprint(tt.args), func(t *testing.T) {
			m := scenariotest.Run(t, tt.name, tt.args...).Result()
			got := []string{metric(m.Metrics, "stale_write_applied"), metric(m.Metrics, "row_after_stale_write"),
				metric(m.Metrics, "deliveries"), metric(m.Metrics, "false_dead_letters"), metric(m.Metrics, "refused_logged")}
			want := []string{tt.applied, tt.after, tt.deliveries, tt.falseDLs, tt.refused}
			if m.Passed != tt.wantPassed || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("passed %v, [applied after deliveries falseDLs refused] = %v; want %v, %v", m.Passed, got, tt.wantPassed, want)
			}
		})
	}
}

func TestAlertsNeverCarryTheSecret(t *testing.T) {
	if res := scenariotest.Run(t, alertsName).Result(); !res.Passed || metric(res.Metrics, "dead_letter_counter") != "3" || metric(res.Metrics, "alert_lines") != "7" {
		t.Errorf("defaults: passed %v, counter %s, lines %s; want 3 dead-letters, 7 lines", res.Passed,
			metric(res.Metrics, "dead_letter_counter"), metric(res.Metrics, "alert_lines"))
	}
	res := scenariotest.Run(t, alertsName, "--verbose-alerts").Result()
	if c := checkNamed(t, res, "no payload, prompt or secret in alerts, output or report"); c.Passed {
		t.Errorf("a careless host leaked payloads and the check passed: %s", c.Detail)
	}
}

func TestReplay(t *testing.T) {
	for _, tt := range []struct {
		args                  []string
		open, closed, batches string
	}{
		{nil, "2", "4", "3"},
		{[]string{"--rejected-key", "none", "--replay-batch", "1"}, "0", "5", "5"},
	} {
		m := scenariotest.Run(t, replayName, tt.args...).Result()
		got := fmt.Sprint(metric(m.Metrics, "incidents_open"), metric(m.Metrics, "incidents_closed"), metric(m.Metrics, "replay_batches"))
		if !m.Passed || got != fmt.Sprint(tt.open, tt.closed, tt.batches) {
			t.Errorf("%v: passed %v, open/closed/batches %s; want %s %s %s", tt.args, m.Passed, got, tt.open, tt.closed, tt.batches)
		}
	}
}
