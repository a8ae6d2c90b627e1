package governance

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	gov "outboxlab/core/governance"
	"outboxlab/core/retry"
)

// maxAttemptsLimit bounds --max-retry-attempts in the lab: every attempt is a
// real row update, and a student's typo should not run for minutes.
const maxAttemptsLimit = 1000

// optionFlag maps each GovernanceOutboxOptions field to its flag.
var optionFlag = map[string]string{
	"MaxRetryAttempts":             "--max-retry-attempts",
	"DeadLetterOnMaxRetryAttempts": "--dead-letter-on-max-retry-attempts",
	"DeadLetterReasonCode":         "--dead-letter-reason-code",
	"DeadLetterReasonMessage":      "--dead-letter-reason-message",
}

// drainFlags are the drain options every governance scenario takes: the four
// GovernanceOutboxOptions and the retry schedule.
type drainFlags struct {
	gov.Options
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	RetryCap        int
}

// bindDrainFlags registers the options with def as their defaults; scenarios
// whose story needs another default (8 attempts, dead-letter off) say so in def.
func bindDrainFlags(fs *pflag.FlagSet, def gov.Options) *drainFlags {
	f := &drainFlags{}
	fs.IntVar(&f.MaxRetryAttempts, "max-retry-attempts", def.MaxRetryAttempts,
		"MaxRetryAttempts: failed emission attempts permitted; the failure being processed counts")
	fs.BoolVar(&f.DeadLetterOnMaxRetryAttempts, "dead-letter-on-max-retry-attempts", def.DeadLetterOnMaxRetryAttempts,
		"DeadLetterOnMaxRetryAttempts: dead-letter an entry whose failed attempt reaches the threshold")
	fs.StringVar(&f.DeadLetterReasonCode, "dead-letter-reason-code", def.DeadLetterReasonCode,
		"DeadLetterReasonCode: stable provider-neutral code recorded on threshold dead-lettering")
	fs.StringVar(&f.DeadLetterReasonMessage, "dead-letter-reason-message", def.DeadLetterReasonMessage,
		"DeadLetterReasonMessage: stable provider-neutral reason recorded with it")
	fs.DurationVar(&f.RetryBackoff, "retry-backoff", time.Second, "delay before the retry after the first failure; doubles each failure")
	fs.DurationVar(&f.MaxRetryBackoff, "max-retry-backoff", time.Minute, "cap on any one retry delay (0: no cap)")
	fs.IntVar(&f.RetryCap, "retry-cap", 12, "demo cap, with dead-lettering off only: stop the run once a live entry has failed this many times (nothing else stops it)")
	return f
}

// validate resolves the options exactly as the drain will, and names the flag
// behind the first bad one.
func (f *drainFlags) validate() error {
	if _, err := f.Options.Resolve(); err != nil {
		var oe *gov.OptionError
		if errors.As(err, &oe) {
			return fmt.Errorf("%s: %w", optionFlag[oe.Option], err)
		}
		return err
	}
	switch {
	case f.MaxRetryAttempts > maxAttemptsLimit:
		return fmt.Errorf("--max-retry-attempts must be at most %d in the lab, got %d", maxAttemptsLimit, f.MaxRetryAttempts)
	case f.RetryBackoff < 0:
		return fmt.Errorf("--retry-backoff must not be negative, got %s", f.RetryBackoff)
	case f.MaxRetryBackoff < 0:
		return fmt.Errorf("--max-retry-backoff must not be negative, got %s", f.MaxRetryBackoff)
	case f.RetryCap < 1 || f.RetryCap > 10*maxAttemptsLimit:
		return fmt.Errorf("--retry-cap must be between 1 and %d, got %d", 10*maxAttemptsLimit, f.RetryCap)
	}
	return nil
}

func (f *drainFlags) backoff() retry.Backoff {
	return retry.Backoff{Base: f.RetryBackoff, Cap: f.MaxRetryBackoff}
}

// describe writes the resolved options and schedule as setup lines.
func (f *drainFlags) describe() []string {
	capText := "no cap"
	if f.MaxRetryBackoff > 0 {
		capText = "capped at " + f.MaxRetryBackoff.String()
	}
	return []string{
		fmt.Sprintf("Options   MaxRetryAttempts %d; DeadLetterOnMaxRetryAttempts %v", f.MaxRetryAttempts, f.DeadLetterOnMaxRetryAttempts),
		fmt.Sprintf("          DeadLetterReasonCode %s", f.DeadLetterReasonCode),
		fmt.Sprintf("          DeadLetterReasonMessage %q", f.DeadLetterReasonMessage),
		fmt.Sprintf("Retries   failed attempt n waits %s × 2^(n-1), %s; deferrals wait what the emitter asks", f.RetryBackoff, capText),
	}
}
