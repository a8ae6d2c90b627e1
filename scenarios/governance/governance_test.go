package governance

import (
	"strings"
	"testing"

	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

var names = []string{thresholdName, deferredName, disabledName, legacyName, staleBefore, staleAfter, alertsName, replayName}

func TestValidateNamesTheFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // empty: valid
	}{
		{thresholdName, nil, ""},
		{thresholdName, []string{"--max-retry-attempts", "0"}, "--max-retry-attempts: MaxRetryAttempts must be greater than zero, got 0"},
		{thresholdName, []string{"--max-retry-attempts", "-1"}, "--max-retry-attempts: MaxRetryAttempts must be greater than zero, got -1"},
		{thresholdName, []string{"--max-retry-attempts", "1001"}, "--max-retry-attempts must be at most 1000 in the lab, got 1001"},
		{thresholdName, []string{"--dead-letter-reason-code", ""}, `--dead-letter-reason-code: DeadLetterReasonCode must be non-empty, got ""`},
		{thresholdName, []string{"--dead-letter-reason-message", " "}, `--dead-letter-reason-message: DeadLetterReasonMessage must be non-empty, got " "`},
		{thresholdName, []string{"--retry-backoff", "-1s"}, "--retry-backoff must not be negative"},
		{thresholdName, []string{"--panics", "-1"}, "--panics must be between 0 and 1000, got -1"},
		{deferredName, []string{"--defer-after", "0s"}, "--defer-after must be positive"},
		{deferredName, []string{"--deferrals", "-2"}, "--deferrals must be between 0 and 1000, got -2"},
		{disabledName, []string{"--host-review-after", "13"}, "--host-review-after must be between 0 and --retry-cap 12, got 13"},
		{disabledName, []string{"--max-retry-attempts", "12"}, "--max-retry-attempts 12 must be below --retry-cap 12"},
		{disabledName, []string{"--retry-cap", "0"}, "--retry-cap must be between 1 and 10000, got 0"},
		{legacyName, []string{"--dead-letter-reason-code", ""}, "--dead-letter-reason-code: DeadLetterReasonCode"},
		{staleBefore, []string{"--prior-failures", "5"}, "--prior-failures must be between 0 and --max-retry-attempts - 1 (4), got 5"},
		{staleAfter, []string{"--lease", "0s"}, "--lease must be positive, got 0s"},
		{alertsName, []string{"--max-retry-attempts", "1"}, "--max-retry-attempts must be at least 2 here, got 1"},
		{replayName, []string{"--rejected-key", "GOV-009"}, `--rejected-key "GOV-009" is not a seeded entry (GOV-001..GOV-005)`},
		{replayName, []string{"--replay-batch", "0"}, "--replay-batch must be at least 1, got 0"},
		{replayName, []string{"--rejected-key", "none"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			err := scenariotest.Bind(t, tt.name, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestEveryScenarioIsRegisteredInTheFamily(t *testing.T) {
	for _, n := range names {
		s := scenarios.Lookup(n)
		if s == nil || s.Family != "governance" || s.Summary == "" || s.Long == "" || s.Example == "" {
			t.Errorf("%s: %+v", n, s)
		}
	}
	if scenarios.Lookup(staleBefore).Pair != staleAfter || scenarios.Lookup(staleAfter).Pair != staleBefore {
		t.Error("the stale-claim pair does not point at each other")
	}
}
