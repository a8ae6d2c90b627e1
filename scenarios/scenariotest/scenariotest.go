// Package scenariotest runs registered scenarios from tests the way the
// harness does: flags parsed, options validated, a fresh directory per run.
package scenariotest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// Bind parses args into the options of the scenario registered as name.
// It does not validate them.
func Bind(t testing.TB, name string, args ...string) scenarios.Options {
	t.Helper()
	s := scenarios.Lookup(name)
	if s == nil {
		t.Fatalf("%s is not registered", name)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	o := s.Bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// Run binds and validates args for the scenario registered as name, runs it
// in a fresh temporary directory with its database at outbox.db there, and
// returns its report.
func Run(t testing.TB, name string, args ...string) *report.Report {
	t.Helper()
	o := Bind(t, name, args...)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r, err := o.Run(context.Background(), scenarios.Env{Dir: dir, DBPath: filepath.Join(dir, "outbox.db")})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
