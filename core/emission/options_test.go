package emission

import (
	"errors"
	"testing"
)

func TestResolve(t *testing.T) {
	def := DefaultOptions()
	with := func(f func(*Options)) Options { o := def; f(&o); return o }
	tests := []struct {
		name       string
		opts       Options
		wantOption string // empty: valid
		wantErr    string
	}{
		{"defaults", def, "", ""},
		{"eight attempts, the documented example", with(func(o *Options) { o.MaxRetryAttempts = 8 }), "", ""},
		{"one attempt", with(func(o *Options) { o.MaxRetryAttempts = 1 }), "", ""},
		{"dead-letter off is valid", with(func(o *Options) { o.DeadLetterOnMaxRetryAttempts = false }), "", ""},
		{"zero attempts", with(func(o *Options) { o.MaxRetryAttempts = 0 }), "MaxRetryAttempts", "MaxRetryAttempts must be greater than zero, got 0"},
		{"negative attempts", with(func(o *Options) { o.MaxRetryAttempts = -3 }), "MaxRetryAttempts", "MaxRetryAttempts must be greater than zero, got -3"},
		{"empty code", with(func(o *Options) { o.DeadLetterReasonCode = "" }), "DeadLetterReasonCode", `DeadLetterReasonCode must be non-empty, got ""`},
		{"blank code", with(func(o *Options) { o.DeadLetterReasonCode = "  " }), "DeadLetterReasonCode", `DeadLetterReasonCode must be non-empty, got "  "`},
		{"empty message", with(func(o *Options) { o.DeadLetterReasonMessage = "" }), "DeadLetterReasonMessage", `DeadLetterReasonMessage must be non-empty, got ""`},
		{"zero value", Options{}, "MaxRetryAttempts", "MaxRetryAttempts must be greater than zero, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.opts.Resolve()
			if tt.wantOption == "" {
				if err != nil || got != tt.opts {
					t.Fatalf("Resolve() = %+v, %v; want %+v, nil", got, err, tt.opts)
				}
				return
			}
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tt.wantOption || err.Error() != tt.wantErr {
				t.Fatalf("Resolve() error = %v, want %q naming %s", err, tt.wantErr, tt.wantOption)
			}
		})
	}
}

func TestDefaultOptionsAreTheDocumentedOnes(t *testing.T) {
	o := DefaultOptions()
	if o.MaxRetryAttempts != 5 || !o.DeadLetterOnMaxRetryAttempts ||
		o.DeadLetterReasonCode != "outbox.max_retry_attempts_exceeded" ||
		o.DeadLetterReasonMessage != "Outbox entry exceeded the configured maximum retry attempts." {
		t.Errorf("DefaultOptions() = %+v", o)
	}
}
