package retry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/core/child"
	"outboxlab/scenarios"
)

// TestMain lets poison-counter re-execute this test binary as a consumer lifetime.
func TestMain(m *testing.M) {
	if code, ok := child.RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// bind parses args into the options of the named scenario.
func bind(t *testing.T, name string, args ...string) scenarios.Options {
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

// validateCase is one row of a Validate table: no error wanted when wantErr is empty.
type validateCase struct {
	args    []string
	wantErr string
}

func testValidate(t *testing.T, name string, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			err := bind(t, name, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// envFor is a fresh run directory, as the harness gives one.
func envFor(t *testing.T) scenarios.Env {
	dir := t.TempDir()
	return scenarios.Env{Dir: dir, DBPath: filepath.Join(dir, "outbox.db")}
}

// caseName names a subtest after its flags ("defaults" for none); a "#" in a
// name would end up in t.TempDir and make an unusable database path.
func caseName(args []string) string {
	if len(args) == 0 {
		return "defaults"
	}
	return strings.Join(args, " ")
}
