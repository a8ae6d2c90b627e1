package backoff

import (
	"testing"
	"time"
)

const ms = time.Millisecond

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		name    string
		backoff Backoff
		attempt int
		want    time.Duration
	}{
		{"first attempt waits base", Backoff{Base: 200 * ms}, 1, 200 * ms},
		{"second attempt doubles", Backoff{Base: 200 * ms}, 2, 400 * ms},
		{"third attempt", Backoff{Base: 200 * ms}, 3, 800 * ms},
		{"fourth attempt", Backoff{Base: 200 * ms}, 4, 1600 * ms},
		{"cap holds", Backoff{Base: 200 * ms, Cap: time.Second}, 4, time.Second},
		{"below cap untouched", Backoff{Base: 200 * ms, Cap: time.Second}, 3, 800 * ms},
		{"zero attempt treated as first", Backoff{Base: 500 * ms}, 0, 500 * ms},
		{"no base means no wait", Backoff{}, 5, 0},
		{"huge attempt saturates", Backoff{Base: time.Second}, 200, time.Duration(1<<63 - 1)},
		{"huge attempt with cap", Backoff{Base: time.Second, Cap: 30 * time.Second}, 200, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.backoff.Delay(tt.attempt); got != tt.want {
				t.Errorf("Delay(%d) = %v, want %v", tt.attempt, got, tt.want)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	got := Backoff{Base: 200 * ms}.Schedule(4)
	want := []time.Duration{200 * ms, 400 * ms, 800 * ms, 1600 * ms}
	if len(got) != len(want) {
		t.Fatalf("Schedule(4) has %d delays, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Schedule(4)[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestPolicyOnFailure(t *testing.T) {
	bounded := Policy{Backoff: Backoff{Base: 200 * ms}, DeadLetter: true}
	tests := []struct {
		name        string
		policy      Policy
		attempt     int
		maxAttempts int
		want        Decision
	}{
		{"bounded first failure backs off", bounded, 1, 3, Decision{Delay: 200 * ms}},
		{"bounded second failure backs off more", bounded, 2, 3, Decision{Delay: 400 * ms}},
		{"bounded last failure dead-letters", bounded, 3, 3, Decision{DeadLetter: true}},
		{"bounded past ceiling dead-letters", bounded, 4, 3, Decision{DeadLetter: true}},
		{"no ceiling never dead-letters", bounded, 50, 0, Decision{Delay: bounded.Backoff.Delay(50)}},
		{"naive retries at once", Policy{}, 10, 3, Decision{}},
		{"exit switched off keeps retrying", Policy{Backoff: Backoff{Base: 200 * ms}}, 3, 3, Decision{Delay: 800 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.OnFailure(tt.attempt, tt.maxAttempts); got != tt.want {
				t.Errorf("OnFailure(%d, %d) = %+v, want %+v", tt.attempt, tt.maxAttempts, got, tt.want)
			}
		})
	}
}
