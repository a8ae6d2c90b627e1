package wassal

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// session17Options are the Day 17 pair's parameters, the same defaults for
// both designs (the provider fixed), so both reports print the same columns.
type session17Options struct {
	scenarios.Declared
	after   bool // which design is this scenario's own: BEFORE (blind) or AFTER (audited)
	verbose bool // the run's --verbose: the audit log's details in full

	Payments        int
	PoisonKeys      []string
	MoreDeadLetters []string
	DeclinedKey     string
	MaxAttempts     int
	BaseBackoff     time.Duration
	RedriveAfter    time.Duration
	ProviderFixed   bool
	Approver        string
	Reason          string
	Batch           int
	BatchInterval   time.Duration
	RedriveAttempts int
	KeepCounters    bool
	// Capacity and Window are the provider's: from the redrive on it takes
	// at most Capacity status checks in any Window and throttles the rest.
	Capacity int
	Window   time.Duration

	day16 *session16Options // Day 16 AFTER's options, from these (Validate)
}

func bindSession17(fs *pflag.FlagSet, after bool) *session17Options {
	o := &session17Options{after: after}
	f := declareOn(&o.Declared, fs)
	f.Int(&o.Payments, "payments", 6, minPayments, maxPayments, "Day 16: payments seeded, PAY-001 onwards, each with one outbox message")
	f.Strings(&o.PoisonKeys, "poison-key", []string{"PAY-003"}, scenarios.WordLength,
		"Day 16's poison message: its status check fails until the provider is fixed, then says Declined (a would-be Failed payment)")
	f.Strings(&o.MoreDeadLetters, "more-dead-letters", []string{none}, scenarios.WordLength,
		`keys whose status check also fails in Day 16's drain, until the provider is fixed, then pays: more dead letters, for batches ("none"; comma list)`)
	f.String(&o.DeclinedKey, "declined-key", "PAY-005", scenarios.WordLength, `Day 16: healthy key the provider declines ("none" for no declines)`)
	f.Int(&o.MaxAttempts, "max-attempts", 3, 1, 20, "Day 16: attempts before a message is dead-lettered")
	f.Duration(&o.BaseBackoff, "base-backoff", 200*time.Millisecond, 0, 5*time.Second, "Day 16: backoff after the first failure; doubles each attempt")
	f.Duration(&o.RedriveAfter, "redrive-after", 30*time.Minute, time.Millisecond, maxFlagDuration, "when the redrive happens, after the start of the run")
	f.Bool(&o.ProviderFixed, "provider-fixed", true, "the provider's status API is fixed before the redrive")
	f.String(&o.Approver, "approver", "ops-oncall", scenarios.WordLength, "AFTER: who authorises the redrive (required)")
	f.String(&o.Reason, "reason", "INC-4711: provider status API restored", scenarios.TextLength, "AFTER: why the redrive is safe now (required)")
	f.Int(&o.Batch, "batch", 2, 1, 100, "AFTER: dead letters released per batch")
	f.Duration(&o.BatchInterval, "batch-interval", time.Second, 0, maxFlagDuration, "AFTER: pause between two batches")
	f.Int(&o.RedriveAttempts, "redrive-attempts", 1, 1, 10, "AFTER: attempts a redriven message gets on top of the ones it had")
	f.Bool(&o.KeepCounters, "keep-counters", true,
		"AFTER: release with AttemptCount kept (false: reset to 0, as the blind UPDATE does; Redrives still keeps it)")
	f.Int(&o.Capacity, "provider-capacity", 4, 1, 1000, "from the redrive on, the provider takes at most this many status checks in any --provider-window; more are throttled")
	f.Duration(&o.Window, "provider-window", time.Second, time.Millisecond, 24*time.Hour, "the window of --provider-capacity")
	return o
}

// maxRedriveAttempts bounds the work of a Day 17 run: the attempts on the
// dead letters in both designs, the Day 16 drain and the redrive together.
const maxRedriveAttempts = 1000

func (o *session17Options) Validate() error {
	if err := o.CheckDeclared(); err != nil {
		return err
	}
	var err error
	if o.PoisonKeys, o.DeclinedKey, err = poisonFlags(o.PoisonKeys, o.DeclinedKey, o.Payments); err != nil {
		return err
	}
	if o.MoreDeadLetters, err = keysFlag("more-dead-letters", o.MoreDeadLetters, o.Payments); err != nil {
		return err
	}
	for _, k := range o.MoreDeadLetters {
		switch {
		case slices.Contains(o.PoisonKeys, k):
			return fmt.Errorf("--more-dead-letters %q is already the poison key", k)
		case k == o.DeclinedKey:
			return fmt.Errorf("--more-dead-letters %q is the declined key; a declined payment is a healthy one", k)
		}
	}
	o.Approver, o.Reason = strings.TrimSpace(o.Approver), strings.TrimSpace(o.Reason)
	switch {
	case o.Approver == "":
		return fmt.Errorf("--approver is required: a redrive needs a named approver")
	case o.Reason == "":
		return fmt.Errorf("--reason is required: a redrive needs a recorded reason")
	}
	// Each dead letter is tried MaxAttempts times in the Day 16 drain of
	// both designs, then again: MaxAttempts times after a blind reset, at most
	// --redrive-attempts times plus one verification after an audited release.
	dead := len(o.deadLetterKeys())
	if work := dead * (3*o.MaxAttempts + o.RedriveAttempts + 1); work > maxRedriveAttempts {
		keys := report.Plural(dead, "poison key")
		if len(o.MoreDeadLetters) > 0 {
			keys = report.Plural(dead, "dead letter")
		}
		return fmt.Errorf("%s × (3 × %d --max-attempts + %d --redrive-attempts + 1) = %d attempts, at most %d: "+
			"fewer dead letters or fewer attempts", keys, o.MaxAttempts, o.RedriveAttempts, work, maxRedriveAttempts)
	}
	if s := o.span(); s.tooLong() {
		return fmt.Errorf("the run would move the scenario clock %s: lower --base-backoff, --batch-interval or the attempts", s.text())
	}
	return o.bindDay16()
}

// bindDay16 sets up Day 16 AFTER with Day 16's own defaults, less what Day 17
// passes on: the payments, the keys whose status check fails (the poison key
// and the more dead letters), the declined key, MaxAttempts and the backoff.
// Its demo cap is raised to MaxAttempts, so it never stops Day 16 before the
// dead-letter exit.
func (o *session17Options) bindDay16() error {
	d := bindSession16(pflag.NewFlagSet(session16After, pflag.ContinueOnError), true)
	d.Payments, d.PoisonKeys, d.DeclinedKey = o.Payments, o.deadLetterKeys(), o.DeclinedKey
	if d.DeclinedKey == "" {
		d.DeclinedKey = none // as a flag says it: Validate reads flag values
	}
	d.MaxAttempts, d.BaseBackoff, d.RetryCap = o.MaxAttempts, o.BaseBackoff, max(d.RetryCap, o.MaxAttempts)
	if err := d.Validate(); err != nil {
		return fmt.Errorf("Day 16's start: %w", err)
	}
	o.day16 = d
	return nil
}

// deadLetterKeys are the keys whose status check fails in Day 16's drain,
// in key order: the poison key and the more dead letters.
func (o *session17Options) deadLetterKeys() []string {
	keys := slices.Concat(o.PoisonKeys, o.MoreDeadLetters)
	slices.Sort(keys)
	return keys
}

// span is the furthest a Day 17 run moves the scenario clock: the Day 16
// drain's backoffs, the wait for the redrive, then either every batch of the
// redrive with its pause or the backoffs of a redrive that fails again.
func (o *session17Options) span() span {
	drain := span(0).backoffs(o.BaseBackoff, 0, 1, o.MaxAttempts-1)
	s := drain.add(1, o.RedriveAfter)
	batches := (len(o.deadLetterKeys()) + o.Batch - 1) / o.Batch
	blind := s.backoffs(o.BaseBackoff, 0, 1, o.MaxAttempts-1)
	audited := s.add(int64(max(batches-1, 0)), o.BatchInterval).
		backoffs(o.BaseBackoff, 0, o.MaxAttempts+1, o.MaxAttempts+o.RedriveAttempts-1)
	return max(blind, audited)
}
