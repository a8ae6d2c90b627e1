package governance

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/scenarios"
)

// bound is one numeric flag's accepted range, declared once: the registry's
// Limits and Validate both read it.
type bound struct {
	flag     string // without the dashes
	lo, hi   int64  // a duration's in nanoseconds
	duration bool
}

func intBound(flag string, lo, hi int) bound {
	return bound{flag: flag, lo: int64(lo), hi: int64(hi)}
}

func durationBound(flag string, lo, hi time.Duration) bound {
	return bound{flag: flag, lo: int64(lo), hi: int64(hi), duration: true}
}

func (b bound) text(v int64) string {
	if b.duration {
		return time.Duration(v).String()
	}
	return strconv.FormatInt(v, 10)
}

// bounds are a scenario's numeric flags and their ranges.
type bounds []bound

// drainBounds are the ranges of the retry flags every governance scenario
// takes, followed by the scenario's own.
func drainBounds(own ...bound) bounds {
	return append(bounds{
		intBound("max-retry-attempts", 1, 100),
		durationBound("retry-backoff", 0, 24*time.Hour),
		durationBound("max-retry-backoff", 0, 24*time.Hour),
		intBound("retry-cap", 1, 500),
	}, own...)
}

// limits declares the ranges to the registry.
func (bs bounds) limits() []scenarios.Limit {
	out := make([]scenarios.Limit, len(bs))
	for i, b := range bs {
		out[i] = scenarios.Limit{Flag: b.flag, Min: b.text(b.lo), Max: b.text(b.hi)}
	}
	return out
}

// check reports the first flag parsed into fs that is outside its range, or a
// duration that is not a whole number of milliseconds: the store keeps
// milliseconds, so a finer duration would not be the one persisted.
func (bs bounds) check(fs *pflag.FlagSet) error {
	for _, b := range bs {
		v, err := b.value(fs)
		if err != nil {
			return err
		}
		switch {
		case v < b.lo || v > b.hi:
			return fmt.Errorf("--%s must be between %s and %s, got %s", b.flag, b.text(b.lo), b.text(b.hi), b.text(v))
		case b.duration && v%int64(time.Millisecond) != 0:
			return fmt.Errorf("--%s must be a whole number of milliseconds, got %s", b.flag, b.text(v))
		}
	}
	return nil
}

func (b bound) value(fs *pflag.FlagSet) (int64, error) {
	if b.duration {
		d, err := fs.GetDuration(b.flag)
		return int64(d), err
	}
	n, err := fs.GetInt(b.flag)
	return int64(n), err
}

// given lists the numeric flags set on the command line, with their values,
// for a refusal to name.
func (bs bounds) given(fs *pflag.FlagSet) string {
	var out []string
	for _, b := range bs {
		if v, err := b.value(fs); err == nil && fs.Changed(b.flag) {
			out = append(out, "--"+b.flag+" "+b.text(v))
		}
	}
	if fs.Changed("dead-letter-on-max-retry-attempts") {
		if on, err := fs.GetBool("dead-letter-on-max-retry-attempts"); err == nil {
			out = append(out, fmt.Sprintf("--dead-letter-on-max-retry-attempts=%v", on))
		}
	}
	if len(out) == 0 {
		return "the defaults"
	}
	return strings.Join(out, ", ")
}
