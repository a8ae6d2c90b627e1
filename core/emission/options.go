package emission

import (
	"fmt"
	"strings"
)

// The defaults of Options, as the governance outbox documentation states them.
const (
	DefaultMaxRetryAttempts        = 5
	DefaultDeadLetterReasonCode    = "outbox.max_retry_attempts_exceeded"
	DefaultDeadLetterReasonMessage = "Outbox entry exceeded the configured maximum retry attempts."
)

// Options is the authoritative retry and poison-message policy of the drain
// (GovernanceOutboxOptions). The zero value is not usable: start from
// DefaultOptions.
type Options struct {
	// MaxRetryAttempts is the number of failed emission attempts permitted
	// before the poison-message policy applies; the failure being processed
	// counts toward it. Default 5; must be greater than zero.
	MaxRetryAttempts int
	// DeadLetterOnMaxRetryAttempts dead-letters an entry whose failed attempt
	// reaches MaxRetryAttempts. When false, failures stay eligible for retry
	// until the host applies another terminal policy. Default true.
	DeadLetterOnMaxRetryAttempts bool
	// DeadLetterReasonCode is the stable provider-neutral code recorded on a
	// threshold dead-letter. Default outbox.max_retry_attempts_exceeded; must not be blank.
	DeadLetterReasonCode string
	// DeadLetterReasonMessage is the stable provider-neutral reason recorded
	// with it. Default "Outbox entry exceeded the configured maximum retry attempts."; must not be blank.
	DeadLetterReasonMessage string
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{
		MaxRetryAttempts:             DefaultMaxRetryAttempts,
		DeadLetterOnMaxRetryAttempts: true,
		DeadLetterReasonCode:         DefaultDeadLetterReasonCode,
		DeadLetterReasonMessage:      DefaultDeadLetterReasonMessage,
	}
}

// OptionError is a rejected option: which one, and why.
type OptionError struct {
	Option  string // the Options field, e.g. MaxRetryAttempts
	Problem string // e.g. "must be greater than zero, got 0"
}

func (e *OptionError) Error() string { return e.Option + " " + e.Problem }

// Resolve validates o the way the drain does before its first pass, and
// returns the options the drain will use. The error is an *OptionError
// naming the first bad option.
func (o Options) Resolve() (Options, error) {
	switch {
	case o.MaxRetryAttempts <= 0:
		return Options{}, &OptionError{"MaxRetryAttempts", fmt.Sprintf("must be greater than zero, got %d", o.MaxRetryAttempts)}
	case strings.TrimSpace(o.DeadLetterReasonCode) == "":
		return Options{}, &OptionError{"DeadLetterReasonCode", fmt.Sprintf("must be non-empty, got %q", o.DeadLetterReasonCode)}
	case strings.TrimSpace(o.DeadLetterReasonMessage) == "":
		return Options{}, &OptionError{"DeadLetterReasonMessage", fmt.Sprintf("must be non-empty, got %q", o.DeadLetterReasonMessage)}
	}
	return o, nil
}
