package emission

import (
	"testing"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/clock"
)

func TestDecide(t *testing.T) {
	now := clock.Start
	def := DefaultOptions()
	off := def
	off.DeadLetterOnMaxRetryAttempts = false
	eight := def
	eight.MaxRetryAttempts = 8
	backoff := backoff.Backoff{Base: time.Second, Cap: time.Minute}
	fail := Result{Kind: ResultFailed, Code: "provider.unavailable", Message: "503"}
	throttled := Result{Kind: ResultRetryableFailure, Code: "provider.throttled", Message: "429"}
	tests := []struct {
		name          string
		opts          Options
		retryCount    int
		res           Result
		wantTo        Status
		wantRetry     int
		wantNext      time.Duration // after now; -1: no next retry
		wantReason    string
		wantThreshold bool
		wantPast      bool
	}{
		{"delivered", def, 3, Result{Kind: ResultDelivered}, Delivered, 3, -1, "", false, false},
		{"first failure", def, 0, fail, Failed, 1, time.Second, "", false, false},
		{"fourth failure stays below five", def, 3, fail, Failed, 4, 8 * time.Second, "", false, false},
		{"fifth failure is the threshold", def, 4, fail, DeadLettered, 5, -1, DefaultDeadLetterReasonCode, true, false},
		{"history already past the threshold", def, 9, fail, DeadLettered, 10, -1, DefaultDeadLetterReasonCode, true, false},
		{"one attempt allowed: first failure dead-letters", func() Options { o := def; o.MaxRetryAttempts = 1; return o }(), 0, fail, DeadLettered, 1, -1, DefaultDeadLetterReasonCode, true, false},
		{"eight allowed: fifth failure retries", eight, 4, fail, Failed, 5, 16 * time.Second, "", false, false},
		{"eight allowed: eighth failure dead-letters", eight, 7, fail, DeadLettered, 8, -1, DefaultDeadLetterReasonCode, true, false},
		{"dead-letter off: threshold failure retries", off, 4, fail, Failed, 5, 16 * time.Second, "", false, true},
		{"dead-letter off: beyond the threshold", off, 9, fail, Failed, 10, time.Minute, "", false, true},
		{"retryable-failure counts like a failure", def, 0, throttled, RetryableFailure, 1, time.Second, "", false, false},
		{"retryable-failure below the threshold", def, 3, throttled, RetryableFailure, 4, 8 * time.Second, "", false, false},
		{"retryable-failure reaches the threshold", def, 4, throttled, DeadLettered, 5, -1, DefaultDeadLetterReasonCode, true, false},
		{"dead-letter off: retryable-failure past the threshold", off, 4, throttled, RetryableFailure, 5, 16 * time.Second, "", false, true},
		{"deferred keeps RetryCount", def, 4, Result{Kind: ResultDeferred, RetryAfter: 2 * time.Second}, Deferred, 4, 2 * time.Second, "", false, false},
		{"pending keeps RetryCount", def, 0, Result{Kind: ResultPending, RetryAfter: 500 * time.Millisecond}, Deferred, 0, 500 * time.Millisecond, "", false, false},
		{"provider dead-letter is terminal at once", def, 0, Result{Kind: ResultDeadLetter, Code: "provider.payload_rejected"}, DeadLettered, 0, -1, "provider.payload_rejected", false, false},
		{"provider dead-letter without a code", def, 2, Result{Kind: ResultDeadLetter}, DeadLettered, 2, -1, CodeProviderRejected, false, false},
		{"unknown result counts as a failure", def, 4, Result{Kind: "weird"}, DeadLettered, 5, -1, DefaultDeadLetterReasonCode, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Policy{Options: tt.opts, Backoff: backoff}.Decide(tt.retryCount, tt.res, now)
			if got.To != tt.wantTo || got.RetryCount != tt.wantRetry {
				t.Errorf("Decide(%d, %s) = %s with RetryCount %d, want %s with %d", tt.retryCount, tt.res.Kind, got.To, got.RetryCount, tt.wantTo, tt.wantRetry)
			}
			switch {
			case tt.wantNext < 0 && !got.NextRetryAt.IsZero():
				t.Errorf("NextRetryAt = %s, want none", clock.Stamp(got.NextRetryAt))
			case tt.wantNext >= 0 && !got.NextRetryAt.Equal(now.Add(tt.wantNext)):
				t.Errorf("NextRetryAt = %s, want %s", clock.Stamp(got.NextRetryAt), clock.Stamp(now.Add(tt.wantNext)))
			}
			if got.ReasonCode != tt.wantReason || got.Threshold != tt.wantThreshold || got.PastThreshold != tt.wantPast {
				t.Errorf("reason %q threshold %v past %v, want %q %v %v", got.ReasonCode, got.Threshold, got.PastThreshold, tt.wantReason, tt.wantThreshold, tt.wantPast)
			}
			if tt.wantThreshold && got.ReasonMessage != DefaultDeadLetterReasonMessage {
				t.Errorf("ReasonMessage = %q, want the configured message", got.ReasonMessage)
			}
			if tt.wantThreshold && got.ErrorCode == "" {
				t.Error("a threshold dead-letter must keep the failure that caused it")
			}
		})
	}
}

func TestDecideUsesTheConfiguredReason(t *testing.T) {
	o := DefaultOptions()
	o.DeadLetterReasonCode, o.DeadLetterReasonMessage = "acme.poison", "Quarantined by ACME policy."
	got := Policy{Options: o}.Decide(4, Result{Kind: ResultFailed}, clock.Start)
	if got.ReasonCode != "acme.poison" || got.ReasonMessage != "Quarantined by ACME policy." {
		t.Errorf("reason = %q %q, want the configured code and message", got.ReasonCode, got.ReasonMessage)
	}
}
