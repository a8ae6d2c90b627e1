package retry

import (
	"testing"

	"outboxlab/scenarios/scenariotest"
)

func TestBodyValidationValidate(t *testing.T) {
	testValidate(t, bodyValidation, []validateCase{
		{nil, ""},
		{[]string{"--malformed", "1,5", "--threshold", "2"}, ""},
		{[]string{"--malformed", "6"}, "--malformed 6 is not a message number (1..5)"},
		{[]string{"--malformed", "2,2"}, "--malformed 2 is listed twice"},
		{[]string{"--threshold", "1"}, "--threshold must be between 2 and 100, got 1"},
		{[]string{"--max-restarts", "100"}, ""},
		{[]string{"--max-restarts", "101"}, "--max-restarts must be between 1 and 100, got 101"},
	})
}

func TestParseNotification(t *testing.T) {
	tests := []struct {
		body string
		want string // "" for a valid body
	}{
		{notificationBody(3, false), ""},
		{notificationBody(3, true), "not JSON"},
		{`{}`, "no notification number"},
		{`{"notification":0}`, "no notification number"},
		{`{"notification":"3"}`, "not JSON"},
	}
	for _, tt := range tests {
		err := parseNotification(tt.body)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("parseNotification(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// Real child processes on both sides: validation spares the handler, the
// process and the retries; without it (or with the counter alone) the
// malformed body kills threshold − 1 lifetimes.
func TestBodyValidationRuns(t *testing.T) {
	tests := []struct {
		args                                      []string
		wantPassed                                bool
		counterDeaths, validatedDeaths            int
		validatedBadDeliveries, validatedBadCalls int
		validatedProcessed, validatedDeadLetters  int
	}{
		{nil, true, 2, 0, 1, 0, 4, 1},
		{[]string{"--malformed", "1,4", "--threshold", "4"}, true, 6, 0, 2, 0, 3, 2},
		// No validation: the second run is the first one again.
		{[]string{"--validate=false"}, false, 2, 2, 3, 2, 4, 1},
	}
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, bodyValidation, tt.args...)
			m := r.Result().Metrics
			for key, want := range map[string]int{
				"process_deaths_counter_only":              tt.counterDeaths,
				"process_deaths_validation_first":          tt.validatedDeaths,
				"malformed_deliveries_validation_first":    tt.validatedBadDeliveries,
				"malformed_handler_calls_validation_first": tt.validatedBadCalls,
				"processed_validation_first":               tt.validatedProcessed,
				"dead_letters_validation_first":            tt.validatedDeadLetters,
			} {
				if got, ok := m[key].(int); !ok || got != want {
					t.Errorf("%s = %v, want %d", key, m[key], want)
				}
			}
			if r.Passed() != tt.wantPassed {
				t.Errorf("checks passed = %v, want %v:\n%s", r.Passed(), tt.wantPassed, r.Body())
			}
		})
	}
}

func TestBodyValidationSaysWhyItsChecksFailed(t *testing.T) {
	testWhy(t, []whyCase{
		{bodyValidation, []string{"--validate=false"},
			[]string{"  WHY   --validate=false hands every body to the handler: the malformed one kills the process\n"}},
	})
}
