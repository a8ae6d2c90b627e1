// Package scenarios is the catalogue: every scenario registers itself here
// from its family package.
package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
)

// Scenario describes one runnable scenario.
type Scenario struct {
	Name    string
	Aliases []string
	Family  string
	Kind    report.Kind
	Pair    string // the scenario it pairs with (BEFORE ↔ AFTER), if any
	Summary string // one line for the catalogue
	Long    string // what the run shows, for --help
	Example string // 2-3 example invocations, for --help

	// GoldenArgs are the flags the golden-report test runs the scenario with,
	// for a scenario whose default run is too long for a unit test (a
	// throughput drain); empty means the defaults. Its golden body is then
	// the body of that smaller run, and the defaults are run by `all`.
	GoldenArgs []string

	// Bind registers the scenario's parameters on fs and returns the options
	// they fill in. It is called once per command.
	Bind func(fs *pflag.FlagSet) Options
}

// Options is a scenario's parameters once bound to flags.
type Options interface {
	// Validate reports the first bad parameter as a one-line error naming the flag.
	Validate() error
	// Run runs the scenario in env and returns its report.
	Run(ctx context.Context, env Env) (*report.Report, error)
}

// Env is what the harness gives a run.
type Env struct {
	Dir    string // a fresh temporary directory, removed after the run unless kept
	DBPath string // the main database file inside Dir
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

// All returns every scenario, by family then name.
func All() []*Scenario {
	out := slices.Clone(registry)
	slices.SortFunc(out, func(a, b *Scenario) int {
		if c := strings.Compare(a.Family, b.Family); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
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
