package governance

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/emission"
)

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
	emission.Options
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	RetryCap        int

	fs     *pflag.FlagSet // where the scenario's flags were parsed
	bounds bounds         // the ranges of the scenario's numeric flags
}

// bindDrainFlags registers the options with def as their defaults; scenarios
// whose story needs another default (8 attempts, dead-letter off) say so in
// def. bs are the ranges of all the scenario's numeric flags, checked by validate.
func bindDrainFlags(fs *pflag.FlagSet, def emission.Options, bs bounds) *drainFlags {
	f := &drainFlags{fs: fs, bounds: bs}
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

// validate resolves the options exactly as the drain will, naming the flag
// behind the first bad one, then checks every numeric flag of the scenario
// against its declared range.
func (f *drainFlags) validate() error {
	if _, err := f.Options.Resolve(); err != nil {
		var oe *emission.OptionError
		if errors.As(err, &oe) {
			return fmt.Errorf("%s: %w", optionFlag[oe.Option], err)
		}
		return err
	}
	return f.bounds.check(f.fs)
}

func (f *drainFlags) backoff() backoff.Backoff {
	return backoff.Backoff{Base: f.RetryBackoff, Cap: f.MaxRetryBackoff}
}

// scheduleText states the retry schedule: "1s × 2^(n-1) capped at 1m0s".
func (f *drainFlags) scheduleText() string {
	if f.MaxRetryBackoff > 0 {
		return fmt.Sprintf("%s × 2^(n-1) capped at %s", f.RetryBackoff, f.MaxRetryBackoff)
	}
	return fmt.Sprintf("%s × 2^(n-1), no cap", f.RetryBackoff)
}

// describe writes the resolved options and schedule as setup lines.
func (f *drainFlags) describe() []string {
	capText := "no cap"
	if f.MaxRetryBackoff > 0 {
		capText = "capped at " + f.MaxRetryBackoff.String()
	}
	out := []string{fmt.Sprintf("Options   MaxRetryAttempts %d; DeadLetterOnMaxRetryAttempts %v", f.MaxRetryAttempts, f.DeadLetterOnMaxRetryAttempts)}
	if f.DeadLetterReasonCode == emission.DefaultDeadLetterReasonCode && f.DeadLetterReasonMessage == emission.DefaultDeadLetterReasonMessage {
		out = append(out, "          DeadLetterReasonCode "+f.DeadLetterReasonCode+", the documented message")
	} else {
		out = append(out, fmt.Sprintf("          DeadLetterReasonCode %s", f.DeadLetterReasonCode),
			fmt.Sprintf("          DeadLetterReasonMessage %q", f.DeadLetterReasonMessage))
	}
	return append(out,
		fmt.Sprintf("Retries   failed attempt n waits %s × 2^(n-1), %s; deferrals wait what the emitter asks", f.RetryBackoff, capText))
}

// wakeupSlack is how far past a due time an idle drain moves the clock: a
// call that lands within it of NextRetryAt is the due retry, not a new one.
const wakeupSlack = claim.WakeupSlack
