package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Flags declares a scenario's flags, each once: its default, its accepted
// range and its help. The declaration binds the flag (pflag's own value,
// pointing into the options struct), ends its --help line with the range,
// gives the registry its Limit (Scenario.Limits) and refuses a value outside
// the range (CheckFlags, which the harness runs before Options.Validate). A
// scenario's Validate then holds only the rules that relate several flags.
//
// The options struct holds its Flags (embedding Declared), so the harness
// and a test find the declarations through the options Bind returns.
type Flags struct {
	fs    *pflag.FlagSet
	decls []declaration

	// HelpDuration and RefusalDuration write a duration limit in --help and
	// in a refusal; nil writes it as Go does (1h0m0s). A family sets them to
	// CompactDuration to write limits as a person types them (1h).
	HelpDuration, RefusalDuration func(time.Duration) string
}

// NewFlags declares flags on fs.
func NewFlags(fs *pflag.FlagSet) *Flags { return &Flags{fs: fs} }

// FlagSet is the flag set the declarations go to.
func (f *Flags) FlagSet() *pflag.FlagSet { return f.fs }

// Int declares an int flag accepting min..max.
func (f *Flags) Int(p *int, name string, def, min, max int, help string) *Ranged[int] {
	r := &Ranged[int]{name: name, p: p, min: min, max: max, text: strconv.Itoa}
	f.fs.IntVar(p, name, def, help+r.rangeHelp(strconv.Itoa))
	return declare(f, r)
}

// Int64 declares an int64 flag accepting min..max.
func (f *Flags) Int64(p *int64, name string, def, min, max int64, help string) *Ranged[int64] {
	text := func(v int64) string { return strconv.FormatInt(v, 10) }
	r := &Ranged[int64]{name: name, p: p, min: min, max: max, text: text}
	f.fs.Int64Var(p, name, def, help+r.rangeHelp(text))
	return declare(f, r)
}

// Duration declares a duration flag accepting min..max in whole
// milliseconds: the scenario clock and the stores keep milliseconds, so a
// finer duration would not be the one run (AnyPrecision lifts that).
func (f *Flags) Duration(p *time.Duration, name string, def, min, max time.Duration, help string) *Ranged[time.Duration] {
	r := &Ranged[time.Duration]{name: name, p: p, min: min, max: max, text: orString(f.RefusalDuration), millis: true}
	f.fs.DurationVar(p, name, def, help+r.rangeHelp(orString(f.HelpDuration)))
	return declare(f, r)
}

// Ints declares a list of ints (--workers 1,2,4), each accepting min..max.
func (f *Flags) Ints(p *[]int, name string, def []int, min, max int, help string) *Ranged[int] {
	r := &Ranged[int]{name: name, list: p, min: min, max: max, text: strconv.Itoa}
	f.fs.IntSliceVar(p, name, def, help+r.rangeHelp(strconv.Itoa))
	return declare(f, r)
}

// Bool declares a switch. It has no range; it is here so that a Bind is one
// list of declarations.
func (f *Flags) Bool(p *bool, name string, def bool, help string) {
	f.fs.BoolVar(p, name, def, help)
}

// The longest value a free-text flag takes, in characters: a key, a name
// or a code is a word; a reason or a message is a sentence.
const (
	WordLength = 64
	TextLength = 200
)

// MaxLengthAnnotation is the flag annotation a String or Strings
// declaration records its maximum length in, for the harness that refuses
// a longer value (it holds only the flag set).
const MaxLengthAnnotation = "outboxlab-max-length"

// String declares a free-text flag of at most maxLen characters (WordLength,
// TextLength); --help says so.
func (f *Flags) String(p *string, name, def string, maxLen int, help string) {
	f.fs.StringVar(p, name, def, help+fmt.Sprintf(" [at most %d characters]", maxLen))
	f.fs.SetAnnotation(name, MaxLengthAnnotation, []string{strconv.Itoa(maxLen)})
}

// Strings declares a comma list of free-text items, each of at most maxLen
// characters; --help says so.
func (f *Flags) Strings(p *[]string, name string, def []string, maxLen int, help string) {
	f.fs.StringSliceVar(p, name, def, help+fmt.Sprintf(" [each at most %d characters]", maxLen))
	f.fs.SetAnnotation(name, MaxLengthAnnotation, []string{strconv.Itoa(maxLen)})
}

// MaxLength is the maximum length a String or Strings declaration gave fl
// (each item, for a list), and whether it has one.
func MaxLength(fl *pflag.Flag) (int, bool) {
	if v := fl.Annotations[MaxLengthAnnotation]; len(v) == 1 {
		n, err := strconv.Atoi(v[0])
		return n, err == nil
	}
	return 0, false
}

// orString is format, or Go's own way of writing a duration.
func orString(format func(time.Duration) string) func(time.Duration) string {
	if format == nil {
		return time.Duration.String
	}
	return format
}

// CompactDuration is a duration as a person writes it: 24h, 1m, 1h30m, 1ms, 0s.
func CompactDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Ranged is one declared numeric or duration flag (or list of them) and
// its accepted range.
type Ranged[N ~int | ~int64] struct {
	name     string
	p        *N   // the value, or
	list     *[]N // each value of a list
	min, max N
	text     func(N) string // a value in a refusal
	helpText func(N) string // a limit in --help and the registry
	millis   bool           // a duration that must be a whole number of milliseconds

	rule   func(v N) error   // a rule of the flag's own, checked before its range
	why    string            // after the range in a refusal
	bounds func() (lo, hi N) // the range as other flags make it, when they do
	refuse func(v, lo, hi N) error
}

// Because adds why to the refusal, after the range: "--orders must be
// between 2 and 99 (the failing order and at least one other), got 100".
func (r *Ranged[N]) Because(why string) *Ranged[N] {
	r.why = " (" + why + ")"
	return r
}

// Within makes the accepted range follow other flags: bounds returns it
// once they are parsed (and checked: they are declared first). The declared
// min..max is the range at the others' defaults, which --help and the
// registry show. refuse, if set, words the refusal; where it returns nil,
// the usual one ("must be between") is given.
func (r *Ranged[N]) Within(bounds func() (lo, hi N), refuse func(v, lo, hi N) error) *Ranged[N] {
	r.bounds, r.refuse = bounds, refuse
	return r
}

// Rule adds a rule of the flag's own, checked before its range: where a
// lower layer refuses a value in words of its own (emission's
// "MaxRetryAttempts must be greater than zero"), those words stay.
func (r *Ranged[N]) Rule(rule func(v N) error) *Ranged[N] {
	r.rule = rule
	return r
}

// AnyPrecision lets a duration flag take a value finer than a millisecond
// (a wall-clock wait rather than scenario time).
func (r *Ranged[N]) AnyPrecision() *Ranged[N] {
	r.millis = false
	return r
}

func (r *Ranged[N]) rangeHelp(text func(N) string) string {
	r.helpText = text
	return fmt.Sprintf(" [%s..%s]", text(r.min), text(r.max))
}

// declaration is r's record; the limits are written as --help writes
// them, which the flag parses back.
func (r *Ranged[N]) declaration() declaration {
	return declaration{check: r.check, limit: Limit{Flag: r.name, Min: r.helpText(r.min), Max: r.helpText(r.max)}}
}

func (r *Ranged[N]) check() error {
	values := []N{}
	if r.p != nil {
		values = append(values, *r.p)
	}
	if r.list != nil {
		values = append(values, *r.list...)
	}
	lo, hi := r.min, r.max
	if r.bounds != nil {
		lo, hi = r.bounds()
	}
	for _, v := range values {
		if r.rule != nil {
			if err := r.rule(v); err != nil {
				return err
			}
		}
		if (v < lo || v > hi) && r.refuse != nil {
			if err := r.refuse(v, lo, hi); err != nil {
				return err
			}
		}
		switch {
		case v < lo || v > hi:
			return fmt.Errorf("--%s must be between %s and %s%s, got %s", r.name, r.text(lo), r.text(hi), r.why, r.text(v))
		case r.millis && int64(v)%int64(time.Millisecond) != 0:
			return fmt.Errorf("--%s must be a whole number of milliseconds, got %s", r.name, time.Duration(v))
		}
	}
	return nil
}

// declaration is one declared flag's range and check.
type declaration struct {
	check func() error // the first refusal of the parsed value
	limit Limit
}

type declarer interface{ declaration() declaration }

// declare records r's declaration on f.
func declare[D declarer](f *Flags, r D) D {
	f.decls = append(f.decls, r.declaration())
	return r
}

// Check refuses the first declared flag, in declaration order, whose parsed
// value is outside its range: a one-line error naming it.
func (f *Flags) Check() error {
	for _, d := range f.decls {
		if err := d.check(); err != nil {
			return err
		}
	}
	return nil
}

// Limits are the declared ranges, in declaration order.
func (f *Flags) Limits() []Limit {
	out := make([]Limit, len(f.decls))
	for i, d := range f.decls {
		out[i] = d.limit
	}
	return out
}

// Declared is embedded in a scenario's options struct: Declare starts its
// Bind, and the harness (CheckDeclared) and the scenario's own Validate
// refuse a value outside its declared range before any rule that relates
// several flags runs.
type Declared struct{ flags *Flags }

// Declare starts declaring the options' flags on fs.
func (d *Declared) Declare(fs *pflag.FlagSet) *Flags {
	d.flags = NewFlags(fs)
	return d.flags
}

// Declarations are the options' declared flags (nil before Declare).
func (d *Declared) Declarations() *Flags { return d.flags }

// CheckDeclared refuses the first declared flag outside its range; a
// Validate calls it first.
func (d *Declared) CheckDeclared() error {
	if d.flags == nil {
		return nil
	}
	return d.flags.Check()
}

// declarations is implemented by options that embed Declared.
type declarations interface{ Declarations() *Flags }

// CheckDeclared refuses the first flag of opts outside its declared range,
// for the harness to run before opts.Validate.
func CheckDeclared(opts Options) error {
	if d, ok := opts.(declarations); ok && d.Declarations() != nil {
		return d.Declarations().Check()
	}
	return nil
}

// declaredLimits are the ranges opts declared.
func declaredLimits(opts Options) []Limit {
	if d, ok := opts.(declarations); ok && d.Declarations() != nil {
		return d.Declarations().Limits()
	}
	return nil
}
