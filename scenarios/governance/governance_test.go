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
		{thresholdName, []string{"--max-retry-attempts", "101"}, "--max-retry-attempts must be between 1 and 100, got 101"},
		{thresholdName, []string{"--dead-letter-reason-code", ""}, `--dead-letter-reason-code: DeadLetterReasonCode must be non-empty, got ""`},
		{thresholdName, []string{"--dead-letter-reason-message", " "}, `--dead-letter-reason-message: DeadLetterReasonMessage must be non-empty, got " "`},
		{thresholdName, []string{"--dead-letter-reason-code", "poison message"}, ""},
		{thresholdName, []string{"--retry-backoff", "-1ms"}, "--retry-backoff must be between 0s and 24h, got -1ms"},
		{thresholdName, []string{"--retry-backoff", "1.5ms"}, "--retry-backoff must be a whole number of milliseconds, got 1.5ms"},
		{thresholdName, []string{"--max-retry-backoff", "24h0m0.001s"}, "--max-retry-backoff must be between 0s and 24h, got 24h0m0.001s"},
		{thresholdName, []string{"--panics", "-1"}, "--panics must be between 0 and 1000, got -1"},
		// The work a run would do, computed from its flags: refused past the lab's budget.
		{thresholdName, []string{"--max-retry-attempts", "32", "--max-retry-backoff", "0s"}, ""},
		{thresholdName, []string{"--max-retry-attempts", "33", "--max-retry-backoff", "0s"},
			"--max-retry-attempts 33, --max-retry-backoff 0s schedule scenario time more than 100 years ahead, the lab's limit"},
		{thresholdName, []string{"--max-retry-attempts", "64", "--max-retry-backoff", "0s"}, "more than 100 years ahead"},
		{thresholdName, []string{"--dead-letter-on-max-retry-attempts=false", "--retry-cap", "500"},
			"--retry-cap 500, --dead-letter-on-max-retry-attempts=false make more than 1200 emitter calls in one run, the lab's limit"},
		{thresholdName, []string{"--dead-letter-on-max-retry-attempts=false", "--retry-cap", "100"}, ""},
		{deferredName, []string{"--defer-after", "0s"}, "--defer-after must be between 1ms and 24h, got 0s"},
		{deferredName, []string{"--deferrals", "-2"}, "--deferrals must be between 0 and 200, got -2"},
		{deferredName, []string{"--deferrals", "200"}, ""},
		{disabledName, []string{"--host-review-after", "13"}, ""}, // the demo cap comes first: legal, and a check says so
		{disabledName, []string{"--host-review-after", "501"}, "--host-review-after must be between 0 and 500, got 501"},
		{disabledName, []string{"--max-retry-attempts", "12"}, ""}, // the demo cap comes first: legal, and a check says so
		{disabledName, []string{"--retry-cap", "0"}, "--retry-cap must be between 1 and 500, got 0"},
		{legacyName, []string{"--dead-letter-reason-code", ""}, "--dead-letter-reason-code: DeadLetterReasonCode"},
		{legacyName, []string{"--dead-letter-on-max-retry-attempts=false", "--retry-cap", "200"}, "more than 1200 emitter calls"},
		{staleBefore, []string{"--prior-failures", "5"}, ""}, // a history already at the threshold: A's failure dead-letters
		{staleBefore, []string{"--prior-failures", "101"}, "--prior-failures must be between 0 and 100, got 101"},
		{staleBefore, []string{"--prior-failures", "40", "--max-retry-attempts", "50", "--max-retry-backoff", "0s"}, "more than 100 years ahead"},
		{staleAfter, []string{"--lease", "0s"}, "--lease must be between 1ms and 24h, got 0s"},
		{staleAfter, []string{"--claim-check=false"}, ""},
		{alertsName, []string{"--max-retry-attempts", "1"}, ""}, // no warning can come first: legal, and a check says so
		{replayName, []string{"--rejected-key", "GOV-009"}, `--rejected-key "GOV-009" is not a seeded entry (GOV-001..GOV-005)`},
		{replayName, []string{"--entries", "2", "--rejected-key", "GOV-003"}, `--rejected-key "GOV-003" is not a seeded entry (GOV-001..GOV-002)`},
		{replayName, []string{"--entries", "1"}, ""}, // the default rejected key is not seeded: every replay is accepted
		{replayName, []string{"--replay-batch", "0"}, "--replay-batch must be between 1 and 10, got 0"},
		{replayName, []string{"--entries", "10", "--replay-batch", "10"}, ""},
		{replayName, []string{"--entries", "11"}, "--entries must be between 1 and 10, got 11"},
		{replayName, []string{"--provider-capacity", "0"}, "--provider-capacity must be between 1 and 1000, got 0"},
		{replayName, []string{"--provider-window", "0s"}, "--provider-window must be between 1ms and 24h, got 0s"},
		{replayName, []string{"--rejected-key", "none"}, ""},
		{replayName, []string{"--dead-letter-on-max-retry-attempts=false", "--retry-cap", "300"}, "more than 1200 emitter calls"},
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

// Every governance scenario declares its limits; cli's TestFlagExtremesRun
// drives them (extremes accepted, one step beyond refused in one line).
func TestEveryScenarioDeclaresLimits(t *testing.T) {
	for _, n := range names {
		if s := scenarios.Lookup(n); len(s.Limits()) == 0 {
			t.Errorf("%s declares no Limits", n)
		}
	}
}
