package scenarios_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	_ "outboxlab/scenarios/governance"
	_ "outboxlab/scenarios/ordered"
	_ "outboxlab/scenarios/retry"
	_ "outboxlab/scenarios/wassal"
	_ "outboxlab/scenarios/workers"
)

var testPair = scenarios.Pair{Before: "demo-broken", After: "demo-fixed", BeforeTitle: "Demo — BEFORE", AfterTitle: "Demo — AFTER"}

func TestPairNewReportNamesBothSides(t *testing.T) {
	tests := []struct {
		after    bool
		wantKind report.Kind
		wantBody string
	}{
		{false, report.Before, "Demo — BEFORE\n=============\nScenario  demo-broken (BEFORE; pairs with demo-fixed)\n"},
		{true, report.After, "Demo — AFTER\n============\nScenario  demo-fixed (AFTER; pairs with demo-broken)\n"},
	}
	for _, tt := range tests {
		r := testPair.NewReport(tt.after)
		if r.Kind != tt.wantKind {
			t.Errorf("NewReport(%v).Kind = %s, want %s", tt.after, r.Kind, tt.wantKind)
		}
		if got := r.Body(); got != tt.wantBody {
			t.Errorf("NewReport(%v) body = %q, want %q", tt.after, got, tt.wantBody)
		}
	}
}

func TestCompareSectionNamesTheOwnColumn(t *testing.T) {
	r := testPair.NewReport(false)
	scenarios.CompareSection(r)
	want := "\n## Real BEFORE vs AFTER metrics\n\nBoth designs ran in this run on the same seeded data; this scenario's own run is the BEFORE column.\n"
	if got := r.Body()[len(testPair.NewReport(false).Body()):]; got != want {
		t.Errorf("CompareSection wrote %q, want %q", got, want)
	}
}

func TestRunPairOrdersTheRuns(t *testing.T) {
	env := scenarios.Env{Dir: "/run", Database: dialect.File("/run/outbox.db")}
	partnerDB := filepath.Join("/run", "partner.db")
	tests := []struct {
		ownIsAfter bool
		want       string // own, before, after: each run named by its design and database
	}{
		{false, "before@/run/outbox.db before@/run/outbox.db after@" + partnerDB},
		{true, "after@/run/outbox.db before@" + partnerDB + " after@/run/outbox.db"},
	}
	for _, tt := range tests {
		drive := func(_ context.Context, db dialect.Database, after bool) (string, error) {
			if after {
				return "after@" + db.String(), nil
			}
			return "before@" + db.String(), nil
		}
		var got string
		render := func(own, before, after string) *report.Report {
			got = fmt.Sprint(own, " ", before, " ", after)
			return report.New("demo", report.After)
		}
		if _, err := scenarios.RunPair(context.Background(), env, tt.ownIsAfter, drive, render); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("RunPair(ownIsAfter %v) rendered %q, want %q", tt.ownIsAfter, got, tt.want)
		}
	}
}

func TestRunPairSaysWhichDesignFailed(t *testing.T) {
	boom := errors.New("boom")
	render := func(own, before, after int) *report.Report { t.Fatal("rendered after a failed run"); return nil }
	tests := []struct {
		failOn  string // the database whose run fails
		wantErr string
	}{
		{"outbox.db", "boom"},
		{"partner.db", "run the partner design: boom"},
	}
	for _, tt := range tests {
		drive := func(_ context.Context, db dialect.Database, _ bool) (int, error) {
			if filepath.Base(db.Location().Path()) == tt.failOn {
				return 0, boom
			}
			return 1, nil
		}
		_, err := scenarios.RunPair(context.Background(), scenarios.Env{Dir: "/run", Database: dialect.File("/run/outbox.db")}, true, drive, render)
		if !errors.Is(err, boom) || err.Error() != tt.wantErr {
			t.Errorf("failing %s: err = %v, want %q wrapping boom", tt.failOn, err, tt.wantErr)
		}
	}
}

func TestGroupIsTheDayOrTheFamily(t *testing.T) {
	tests := []struct {
		s    scenarios.Scenario
		want string
	}{
		{scenarios.Scenario{Name: "session-16-retry-with-dead-letter", Family: "wassal", Day: 16}, "session-16"},
		{scenarios.Scenario{Name: "jitter-wave", Family: "retry"}, "retry"},
		{scenarios.Scenario{Name: "session-99-named-like-a-day", Family: "retry"}, "retry"}, // the field decides, not the name
	}
	for _, tt := range tests {
		if got := tt.s.Group(); got != tt.want {
			t.Errorf("Scenario{Name: %q, Family: %q, Day: %d}.Group() = %q, want %q", tt.s.Name, tt.s.Family, tt.s.Day, got, tt.want)
		}
	}
}

// TestEveryScenarioSaysWhatItIsTo: every BEFORE has an AFTER that pairs
// back with it; every AFTER has such a BEFORE, or answers one (Answers)
// that is registered; an EXPERIMENT names neither.
func TestEveryScenarioSaysWhatItIsTo(t *testing.T) {
	all := scenarios.All()
	if len(all) == 0 {
		t.Fatal("no scenario registered")
	}
	for _, s := range all {
		pair := scenarios.Lookup(s.Pair)
		switch s.Kind {
		case report.Before:
			if pair == nil || pair.Kind != report.After || pair.Pair != s.Name {
				t.Errorf("BEFORE %s: pair %q is not a registered AFTER that pairs back with it", s.Name, s.Pair)
			}
			if s.Answers != "" {
				t.Errorf("BEFORE %s answers %q: only an AFTER answers a BEFORE", s.Name, s.Answers)
			}
		case report.After:
			answered := scenarios.Lookup(s.Answers)
			switch {
			case s.Pair != "" && (pair == nil || pair.Kind != report.Before || pair.Pair != s.Name):
				t.Errorf("AFTER %s: pair %q is not a registered BEFORE that pairs back with it", s.Name, s.Pair)
			case s.Pair == "" && (answered == nil || answered.Kind != report.Before):
				t.Errorf("AFTER %s has no pair and answers %q, not a registered BEFORE", s.Name, s.Answers)
			}
		case report.Experiment:
			if s.Pair != "" || s.Answers != "" {
				t.Errorf("EXPERIMENT %s names pair %q, answers %q", s.Name, s.Pair, s.Answers)
			}
		default:
			t.Errorf("%s: kind %q", s.Name, s.Kind)
		}
	}
}

// TestEveryScenarioHasItsPlaceInTheCourse requires each registered scenario
// to be named in the course order, and each name there to be registered: a
// scenario left out would sort after its family's others by name, wherever
// its lesson belongs, and a stale name would order nothing.
func TestEveryScenarioHasItsPlaceInTheCourse(t *testing.T) {
	registered := map[string]bool{}
	for _, s := range scenarios.All() {
		registered[s.Name] = true
		if !slices.Contains(scenarios.CourseOrder, s.Name) {
			t.Errorf("scenario %s is not in courseOrder (scenarios/order.go): give it its place in the course", s.Name)
		}
	}
	for _, name := range scenarios.CourseOrder {
		if !registered[name] {
			t.Errorf("courseOrder names %s, which no family registers", name)
		}
	}
}
