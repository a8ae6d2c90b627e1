// Package scenariotest runs registered scenarios from tests the way the
// harness does: flags parsed, options validated, a fresh directory per run.
package scenariotest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/dialect"
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
	r, err := o.Run(context.Background(), scenarios.NewEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// RunIn is Run in env, for a run on another backend: NewPostgresEnv's env,
// whose schemas the caller drops (env.Close).
func RunIn(t testing.TB, env scenarios.Env, name string, args ...string) *report.Report {
	t.Helper()
	o := Bind(t, name, args...)
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := o.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// RunPostgres is Run on the PostgreSQL server at url (internal/pgtest's
// URL): the run's databases are fresh schemas there, dropped afterwards.
func RunPostgres(t testing.TB, url, name string, args ...string) *report.Report {
	t.Helper()
	ctx := context.Background()
	server, err := dialect.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), server, name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := env.Close(ctx, false); err != nil {
			t.Error(err)
		}
	}()
	return RunIn(t, env, name, args...)
}

// Golden returns the golden report body of the scenario registered as name
// (testdata/golden/<name>.txt at the module root): the body of its run at
// its defaults, which cli's golden tests make once per database and require
// to equal this file. A test that needs only that body reads it here instead
// of running the scenario again.
func Golden(t testing.TB, name string) string {
	t.Helper()
	if scenarios.Lookup(name) == nil {
		t.Fatalf("%s is not registered", name)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	b, err := os.ReadFile(filepath.Join(dir, "testdata", "golden", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shared holds the runs Shared made, one per scenario and flags.
var shared struct {
	sync.Mutex
	runs map[string]*sharedRun
}

type sharedRun struct {
	once sync.Once
	rep  *report.Report
	err  error
}

// Shared is Run made once per test binary for each scenario and flags: the
// tests that read the same run (a family's FailsWith checks and its
// PostgreSQL comparison) share its report, which none of them may change.
// A run that fails fails every test that asks for it.
func Shared(t testing.TB, name string, args ...string) *report.Report {
	t.Helper()
	key := strings.Join(append([]string{name}, args...), "\x00")
	shared.Lock()
	if shared.runs == nil {
		shared.runs = map[string]*sharedRun{}
	}
	run := shared.runs[key]
	if run == nil {
		run = &sharedRun{}
		shared.runs[key] = run
	}
	shared.Unlock()
	run.once.Do(func() {
		o := Bind(t, name, args...)
		if run.err = o.Validate(); run.err != nil {
			return
		}
		dir, err := os.MkdirTemp("", "scenariotest-shared-")
		if err != nil {
			run.err = err
			return
		}
		defer os.RemoveAll(dir)
		run.rep, run.err = o.Run(context.Background(), scenarios.NewEnv(dir))
	})
	switch {
	case run.err != nil:
		t.Fatalf("%s %v: %v", name, args, run.err)
	case run.rep == nil: // the first asker's flags did not parse (it failed)
		t.Fatalf("%s %v: the shared run did not finish", name, args)
	}
	return run.rep
}
