package backoff

import (
	"testing"
	"time"
)

// The seed's budget table (backoff.mjs): base 500 ms, cap 30 s, fixed 2 s, a
// five-minute budget, at most 1000 retries.
func TestFitReproducesTheSeedsBudgetTable(t *testing.T) {
	tests := []struct {
		name        string
		backoff     Backoff
		wantRetries int
		wantElapsed time.Duration
	}{
		{"immediate", Backoff{}, 1000, 0},
		{"fixed 2 s", Backoff{Base: 2 * time.Second, Cap: 2 * time.Second}, 150, 300000 * ms},
		{"exponential", Backoff{Base: 500 * ms}, 9, 255500 * ms},
		{"exponential + cap", Backoff{Base: 500 * ms, Cap: 30 * time.Second}, 14, 271500 * ms},
		{"budget exactly filled", Backoff{Base: time.Second}, 3, 7 * time.Second}, // 1+2+4 = 7 of 7 s
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			budget := 5 * time.Minute
			if tt.name == "budget exactly filled" {
				budget = 7 * time.Second
			}
			retries, elapsed := tt.backoff.Fit(budget, 1000)
			if retries != tt.wantRetries || elapsed != tt.wantElapsed {
				t.Errorf("Fit(%v, 1000) = %d retries, %v; want %d, %v", budget, retries, elapsed, tt.wantRetries, tt.wantElapsed)
			}
		})
	}
}

func TestFitNeverOverflows(t *testing.T) {
	retries, elapsed := Backoff{Base: time.Hour}.Fit(1<<63-1, 1000)
	if retries < 20 || elapsed <= 0 {
		t.Errorf("Fit(max) = %d retries, %v; want a positive total", retries, elapsed)
	}
}

func TestBudgetAfter(t *testing.T) {
	b := Budget{MaxAttempts: 5, MaxElapsed: 2 * time.Minute}
	tests := []struct {
		attempt int
		elapsed time.Duration
		delay   time.Duration
		want    Exit
	}{
		{1, 0, 5 * time.Second, NoExit},
		{4, 80 * time.Second, 40 * time.Second, NoExit},           // the next attempt starts exactly at the budget
		{4, 80*time.Second + ms, 40 * time.Second, TimeBudgetOut}, // one millisecond too late
		{5, 0, 0, RetryBudgetOut},
		{5, 10 * time.Minute, time.Minute, RetryBudgetOut}, // both out: the count is checked first
		{2, 3 * time.Minute, 0, TimeBudgetOut},             // slow attempts used the time up
	}
	for _, tt := range tests {
		if got := b.After(tt.attempt, tt.elapsed, tt.delay); got != tt.want {
			t.Errorf("After(%d, %v, %v) = %q, want %q", tt.attempt, tt.elapsed, tt.delay, got, tt.want)
		}
	}
	if got := (Budget{}).After(1000, time.Hour, time.Hour); got != NoExit {
		t.Errorf("zero Budget After = %q, want no exit", got)
	}
}
