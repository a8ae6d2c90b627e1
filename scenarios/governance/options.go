package governance

import (
	"errors"
	"fmt"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/emission"
	"outboxlab/scenarios"
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

	flags *scenarios.Flags // the scenario's declared flags, these first
}

// bindDrainFlags declares the options with def as their defaults on f,
// before the scenario's own flags; scenarios whose story needs another
// default (8 attempts, dead-letter off) say so in def. emission's own rule
// for the options (Resolve) is checked first, in its own words, naming the
// flag behind the first bad one; then the declared ranges.
func bindDrainFlags(f *scenarios.Flags, def emission.Options) *drainFlags {
	d := &drainFlags{flags: f}
	f.Int(&d.MaxRetryAttempts, "max-retry-attempts", def.MaxRetryAttempts, 1, 100,
		"MaxRetryAttempts: failed emission attempts permitted; the failure being processed counts").
		Rule(func(int) error { return d.resolve() })
	f.Bool(&d.DeadLetterOnMaxRetryAttempts, "dead-letter-on-max-retry-attempts", def.DeadLetterOnMaxRetryAttempts,
		"DeadLetterOnMaxRetryAttempts: dead-letter an entry whose failed attempt reaches the threshold")
	f.String(&d.DeadLetterReasonCode, "dead-letter-reason-code", def.DeadLetterReasonCode, scenarios.WordLength,
		"DeadLetterReasonCode: stable provider-neutral code recorded on threshold dead-lettering")
	f.String(&d.DeadLetterReasonMessage, "dead-letter-reason-message", def.DeadLetterReasonMessage, scenarios.TextLength,
		"DeadLetterReasonMessage: stable provider-neutral reason recorded with it")
	f.Duration(&d.RetryBackoff, "retry-backoff", time.Second, 0, 24*time.Hour, "delay before the retry after the first failure; doubles each failure")
	f.Duration(&d.MaxRetryBackoff, "max-retry-backoff", time.Minute, 0, 24*time.Hour, "cap on any one retry delay (0: no cap)")
	f.Int(&d.RetryCap, "retry-cap", 12, 1, 500, "demo cap, with dead-lettering off only: stop the run once a live entry has failed this many times (nothing else stops it)")
	return d
}

// resolve resolves the options exactly as the drain will, naming the flag
// behind the first bad one.
func (d *drainFlags) resolve() error {
	if _, err := d.Options.Resolve(); err != nil {
		var oe *emission.OptionError
		if errors.As(err, &oe) {
			return fmt.Errorf("%s: %w", optionFlag[oe.Option], err)
		}
		return err
	}
	return nil
}

// validate checks the options (resolve) and every declared flag of the
// scenario against its range.
func (d *drainFlags) validate() error { return d.flags.Check() }

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
