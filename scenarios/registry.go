package scenarios

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
)

// Scenario describes one runnable scenario.
type Scenario struct {
	Name    string
	Aliases []string
	Family  string
	Day     int // the course day a Wassal scenario belongs to; 0 for the other families
	Kind    report.Kind
	Pair    string // the scenario it pairs with (BEFORE ↔ AFTER), if any
	// Answers names, for an AFTER without a pair of its own, the BEFORE
	// (another scenario) whose failure it fixes; list shows it.
	Answers string
	Summary string // one line for the catalogue
	Long    string // what the run shows, for --help
	Example string // 2-3 example invocations, for --help

	// GoldenArgs are the flags the golden-report test runs the scenario with,
	// for a scenario whose default run is too long for a unit test (a
	// throughput drain); empty means the defaults. Its golden body is then
	// the body of that smaller run, and the defaults are run by `all`.
	GoldenArgs []string

	// FailsWith are flags under which the scenario's checks fail (exit 1):
	// for an AFTER, the switch that removes its safety mechanism; for a
	// BEFORE, flags under which the failure it demonstrates does not happen;
	// for an EXPERIMENT, a parameter that breaks the property it states.
	// Every scenario has them: a test runs each scenario with them and
	// requires exit 1, so no check can be one that never fails.
	FailsWith []string

	// NotExercisedWith are flags under which the scenario's mechanism is not
	// exercised: what it demonstrates does not occur (no message fails, the
	// fix is off and nothing needed it), so its verdict is NOT EXERCISED and
	// it exits 1. Every scenario declares them; a test runs each scenario
	// with them and requires that verdict.
	NotExercisedWith []string

	// Alone marks a scenario whose metrics are wall-clock measurements: all
	// runs it with nothing beside it, after the others.
	Alone bool

	// Bind registers the scenario's parameters on fs and returns the options
	// they fill in. It is called once per command.
	Bind func(fs *pflag.FlagSet) Options
}

// Group is the folder the scenario's reports are written to: session-NN for
// a course day, the family otherwise.
func (s *Scenario) Group() string {
	if s.Day > 0 {
		return fmt.Sprintf("session-%02d", s.Day)
	}
	return s.Family
}

// Limits are the accepted extremes of the scenario's numeric and duration
// flags, as its Bind declares them (Flags), which its validation enforces
// and --help shows. A test runs each flag at its Min
// and its Max (the others at their defaults), all at Min and all at Max, and
// requires the run to finish (exit 0 or 1); one step beyond a limit must be
// refused (exit 2).
func (s *Scenario) Limits() []Limit {
	return declaredLimits(s.Bind(pflag.NewFlagSet(s.Name, pflag.ContinueOnError)))
}

// Limit is the accepted range of one flag, as flag values.
type Limit struct {
	Flag     string // without the leading dashes
	Min, Max string
}

// Options is a scenario's parameters once bound to flags.
type Options interface {
	// Validate reports the first bad parameter as a one-line error naming the flag.
	Validate() error
	// Run runs the scenario in env and returns its report.
	Run(ctx context.Context, env Env) (*report.Report, error)
}

var registry []*Scenario

// Register adds s to the catalogue. It panics on a duplicate name or alias:
// that is a programming error, found by any test.
func Register(s *Scenario) {
	for _, name := range append([]string{s.Name}, s.Aliases...) {
		if Lookup(name) != nil {
			panic(fmt.Sprintf("scenario %q registered twice", name))
		}
	}
	registry = append(registry, s)
}

// All returns every scenario in the order a student should meet them (see
// courseOrder): the payments course's Days first, each BEFORE followed by
// its AFTER.
func All() []*Scenario {
	out := slices.Clone(registry)
	slices.SortFunc(out, compareCourse)
	return out
}

// Lookup finds a scenario by name or alias.
func Lookup(name string) *Scenario {
	for _, s := range registry {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

// Families returns the family names in catalogue order.
func Families() []string {
	var out []string
	for _, s := range All() {
		if !slices.Contains(out, s.Family) {
			out = append(out, s.Family)
		}
	}
	return out
}

// BackendValidator is implemented by Options whose accepted values depend on
// the database a run uses: a server commits more slowly than a local file,
// so a size SQLite finishes in seconds may not finish in a minute there. The
// harness calls ValidateOn after Validate, with Env.Backend's name, and
// refuses the run (exit 2) on its one-line error.
type BackendValidator interface {
	ValidateOn(backend string) error
}
