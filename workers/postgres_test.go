package workers_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"outboxlab/grade"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// TestReferenceGoPassesOnPostgres grades the Go reference on PostgreSQL
// schemas, every Day: the same worker, the URL the lab gives it unchanged.
func TestReferenceGoPassesOnPostgres(t *testing.T) {
	server, err := pgtest.Start()
	switch {
	case errors.Is(err, pgtest.ErrNotInstalled) && os.Getenv("CI") != "true":
		t.Skip("pgtest: " + err.Error())
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := server.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	for _, day := range referenceDays {
		t.Run(day, func(t *testing.T) {
			if grade.Lookup(day) == nil {
				t.Skipf("grade has no Day %s yet", day)
			}
			env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), server.URL, "grade-"+day)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if _, err := env.Close(ctx, false); err != nil {
					t.Error(err)
				}
			})
			g := gradeWorker(t, day, env, referenceGo)
			if !g.rep.Passed() {
				t.Errorf("the Go reference failed on PostgreSQL %q:\n%s\nstderr:\n%s", g.failed(), g.rep.Body(), g.stderr)
			}
		})
	}
}
