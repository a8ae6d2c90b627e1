package retry

import (
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/scenarios/scenariotest"
)

// TestMain lets poison-counter re-execute this test binary as a consumer
// lifetime, and gives the PostgreSQL tests their server (pgtest).
func TestMain(m *testing.M) { scenariotest.Main(m) }

// validateCase is one row of a Validate table: no error wanted when wantErr is empty.
type validateCase struct {
	args    []string
	wantErr string
}

func testValidate(t *testing.T, name string, tests []validateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(caseName(tt.args), func(t *testing.T) {
			err := scenariotest.Bind(t, name, tt.args...).Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// caseName names a subtest after its flags ("defaults" for none); a "#" in a
// name would end up in t.TempDir and make an unusable database path.
func caseName(args []string) string {
	if len(args) == 0 {
		return "defaults"
	}
	return strings.Join(args, " ")
}

// idleCase is a run whose demonstrating checks were not exercised: the
// named checks are N/A with a detail holding why, the verdict says NOT
// EXERCISED, and nothing broke.
type idleCase struct {
	scenario string
	args     []string
	checks   []string
	why      string
}

func testNotExercised(t *testing.T, tests []idleCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.scenario+" "+caseName(tt.args), func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, tt.scenario, tt.args...)
			for _, c := range r.Result().Checks {
				if c.Outcome == report.OutcomeBroken {
					t.Errorf("%q broke: %s", c.Name, c.Detail)
				}
			}
			for _, name := range tt.checks {
				c := scenariotest.CheckNamed(t, r, name)
				if c.Outcome != report.OutcomeNotExercised || !strings.Contains(c.Detail, tt.why) {
					t.Errorf("%q: %s %q, want not exercised because %q", name, c.Outcome, c.Detail, tt.why)
				}
			}
			if !strings.Contains(r.Body(), report.VerdictNotExercised) {
				t.Errorf("verdict is not %s:\n%s", report.VerdictNotExercised, r.Body())
			}
		})
	}
}

// whyCase is a run whose checks fail, and the lines its report must hold to
// say why.
type whyCase struct {
	scenario string
	args     []string
	want     []string
}

// testWhy runs each case: its checks must fail, its report must hold every
// wanted line, and no failure the flags explain may be called unexplained.
func testWhy(t *testing.T, tests []whyCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.scenario+" "+caseName(tt.args), func(t *testing.T) {
			t.Parallel()
			r := scenariotest.Run(t, tt.scenario, tt.args...)
			if r.Passed() {
				t.Fatalf("checks passed, want a failure:\n%s", r.Body())
			}
			// A WHY paragraph wraps where the terminal needs it: compare its words.
			flat := strings.Join(strings.Fields(r.Body()), " ")
			for _, want := range tt.want {
				if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
					t.Errorf("report lacks %q:\n%s", want, r.Body())
				}
			}
			if strings.Contains(r.Body(), "no flag explains") || strings.Contains(r.Body(), "no flag makes") {
				t.Errorf("a failure the flags explain is reported as unexplained:\n%s", r.Body())
			}
		})
	}
}
