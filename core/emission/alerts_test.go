package emission

import (
	"strings"
	"testing"

	"outboxlab/core/clock"
)

func TestFieldQuotesWhatWouldSplitTheLine(t *testing.T) {
	tests := []struct{ value, want string }{
		{"outbox.max_retry_attempts_exceeded", "reason=outbox.max_retry_attempts_exceeded"},
		{"poison message", `reason="poison message"`},
		{"a=b", `reason="a=b"`},
		{`say "no"`, `reason="say \"no\""`},
		{"", `reason=""`},
		{"tab\there", `reason="tab\there"`},
		{`back\slash`, `reason="back\\slash"`},
		{"naïve", "reason=naïve"},
	}
	for _, tt := range tests {
		if got := Field("reason", tt.value); got != tt.want {
			t.Errorf("Field(reason, %q) = %s, want %s", tt.value, got, tt.want)
		}
	}
}

func TestAlertLinesKeepAReasonWithSpacesInOneField(t *testing.T) {
	opts := DefaultOptions()
	opts.DeadLetterReasonCode = "poison message"
	a := NewAlerts(opts)
	e := Entry{ID: 7, Key: "GOV-007", Provider: "acme audit"}
	for range 2 {
		a.Observe(Event{Kind: Handled, Entry: e, Transition: Transition{To: DeadLettered, RetryCount: 5, ReasonCode: opts.DeadLetterReasonCode, At: clock.Start}})
	}
	lines := a.Lines()
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 2 dead-letter events and 1 repeat alert", len(lines))
	}
	for _, want := range []string{`reason="poison message" attempt=5/5`, `provider="acme audit"`} {
		if !strings.Contains(lines[0].Text, want) {
			t.Errorf("event %q does not hold %s", lines[0].Text, want)
		}
	}
	if want := `governance_outbox.dead_letter_repeated reason="poison message" provider="acme audit" count=2`; lines[2].Text != want {
		t.Errorf("repeat alert = %q, want %q", lines[2].Text, want)
	}
}
