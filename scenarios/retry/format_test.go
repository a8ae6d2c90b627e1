package retry

import (
	"testing"
	"time"

	"outboxlab/scenarios/scenariotest"
)

func TestDurationTexts(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{clockText(2 * time.Second), "2 s"},
		{clockText(1500 * time.Millisecond), "1500 ms"},
		{clockText(5 * time.Minute), "5 min"},
		{clockText(90 * time.Second), "90 s"},
		{secondsText(175003 * time.Millisecond), "175.003 s"},
		{secondsText(142 * time.Second), "142 s"},
		{firstOf("1, 2, 3, 4, 5, 6, 7, 8"), "1, 2, 3, 4, 5, 6, … (+2)"},
		{firstOf("1, 2"), "1, 2"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// The fixed schedule's column is named after its flag, as the seed names it "fixed 2 s".
func TestScheduleNamesFollowTheFlags(t *testing.T) {
	o := scenariotest.Bind(t, backoffSchedules, "--fixed", "1500ms").(*schedulesOptions)
	if got := o.schedules()[1].name; got != "fixed 1500 ms" {
		t.Errorf("fixed schedule named %q, want %q", got, "fixed 1500 ms")
	}
}
