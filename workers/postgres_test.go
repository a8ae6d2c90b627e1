package workers_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// TestReferenceGoPassesDay16OnPostgres grades the Go reference on a
// PostgreSQL schema: the same worker, the URL the lab gives it unchanged.
func TestReferenceGoPassesDay16OnPostgres(t *testing.T) {
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
	env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), server.URL, "grade-session-16")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := env.Close(ctx, false); err != nil {
			t.Error(err)
		}
	})
	g := gradeWorker(t, "session-16", env, referenceGo)
	if !g.rep.Passed() {
		t.Errorf("the Go reference failed on PostgreSQL %q:\n%s\nstderr:\n%s", g.failed(), g.rep.Body(), g.stderr)
	}
}
