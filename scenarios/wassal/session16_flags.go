package wassal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/scenarios"
)

// Day 16's flags whose range another flag or a part of the value decides:
// --max-attempts follows the backoff, --flaky-key is KEY:N.

// flakyKey is a payment whose status check fails a few times, then pays: a
// transient failure, which backoff should outlast and MaxAttempts must not
// give up on too early.
type flakyKey struct {
	key   string // "" for none
	fails int    // failed status checks before the one that pays
}

// The failures --flaky-key's N may ask for: each is one claim, one call and
// one write in each design, bounded with the poison's attempts (maxPoisonAttempts).
const (
	minFlakyFails = 1
	maxFlakyFails = 1000
)

// defaultBaseBackoff is --base-backoff's default, the course's 200 ms.
const defaultBaseBackoff = 200 * time.Millisecond

// maxAttemptsLimit is the most --max-attempts accepts with a backoff that
// keeps the clock within bounds (--max-backoff): each attempt is a claim, a
// call, a write and a clock move, bounded with the poison's attempts.
const maxAttemptsLimit = 1000

// defaultAttemptsLimit is the most attempts the default backoff (200 ms,
// doubling, no cap) admits: one more would move the scenario clock past
// maxSpan. --help shows it as the range; --max-backoff raises it.
var defaultAttemptsLimit = (&session16Options{BaseBackoff: defaultBaseBackoff}).attemptsLimit()

// attemptsLimit is the most attempts whose backoffs keep the scenario clock
// within maxSpan, at most maxAttemptsLimit.
func (o *session16Options) attemptsLimit() int {
	s := span(0)
	for n := 1; n < maxAttemptsLimit; n++ {
		if s = s.backoffs(o.BaseBackoff, o.MaxBackoff, n, n); s.tooLong() {
			return n
		}
	}
	return maxAttemptsLimit
}

// refuseAttempts words a --max-attempts beyond what the backoff admits.
func (o *session16Options) refuseAttempts(v, _, hi int) error {
	if v < 1 || hi == maxAttemptsLimit {
		return nil // the usual refusal
	}
	return fmt.Errorf("--max-attempts %d backing off from --base-backoff %s, doubling%s, would move the scenario clock "+
		"more than 100 years: at most %d, or set --max-backoff", v, durationText(o.BaseBackoff), o.ceilingText(), hi)
}

// readFlaky reads --flaky-key: KEY:N, the key one of the seeded payments
// (scenarios.CheckKey, as every key flag), N within its declared range, and
// the key neither a poison key nor the declined one (it fails, then pays).
func (o *session16Options) readFlaky() (flakyKey, error) {
	if o.FlakyFlag == scenarios.NoKey {
		return flakyKey{}, nil
	}
	key, count, ok := strings.Cut(o.FlakyFlag, ":")
	if !ok {
		return flakyKey{}, fmt.Errorf("--flaky-key %q needs how many times it fails: KEY:N, e.g. PAY-003:2", o.FlakyFlag)
	}
	key, err := keyFlag("flaky-key", key, o.Payments)
	if err != nil {
		return flakyKey{}, err
	}
	if key == "" {
		return flakyKey{}, fmt.Errorf("--flaky-key %q names no key: give KEY:N, or none", o.FlakyFlag)
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < minFlakyFails || n > maxFlakyFails {
		return flakyKey{}, fmt.Errorf("--flaky-key's N must be between %d and %d, got %q", minFlakyFails, maxFlakyFails, count)
	}
	switch {
	case slices.Contains(o.PoisonKeys, key):
		return flakyKey{}, fmt.Errorf("--flaky-key %s is also a poison key; a flaky payment pays in the end", key)
	case key == o.DeclinedKey:
		return flakyKey{}, fmt.Errorf("--flaky-key %s is also the declined key; a flaky payment pays in the end", key)
	}
	return flakyKey{key: key, fails: n}, nil
}

func (o *session16Options) ceilingText() string {
	if o.MaxBackoff == 0 {
		return " with no --max-backoff"
	}
	return " up to --max-backoff " + durationText(o.MaxBackoff)
}
