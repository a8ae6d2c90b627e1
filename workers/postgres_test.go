package workers_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// wrongOnPostgres are wrong workers whose catch differs on PostgreSQL (the
// lab sees a held transaction as idle in transaction; a claim's SELECT takes
// row locks): each must fail with the same check as on SQLite.
var wrongOnPostgres = []struct{ day, bug, want string }{
	{"session-16", "holds-transaction", "protocol: no database transaction open across a lab call"},
	{"session-15", "select-then-update", "every claim takes the lease and the token"},
	{"session-15", "no-owner-check", "late completion refused by the owner and token check"},
	{"session-16", "no-max-attempts", "the poison tried exactly MaxAttempts times"},
}

// TestReferenceGoPassesOnPostgres grades the Go reference on PostgreSQL
// schemas, every Day: the same worker, the URL the lab gives it unchanged;
// and a few wrong workers, which must fail there as they do on SQLite.
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
	pgEnv := func(t *testing.T, day string) scenarios.Env {
		env, err := scenarios.NewPostgresEnv(ctx, t.TempDir(), server.Database(), "grade-"+day)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if _, err := env.Close(ctx, false); err != nil {
				t.Error(err)
			}
		})
		return env
	}
	for _, w := range wrongOnPostgres {
		t.Run(w.day+"/wrong/"+w.bug, func(t *testing.T) {
			g := gradeWorker(t, w.day, pgEnv(t, w.day), wrongGo, "-bug", w.bug)
			if g.rep.Passed() || !slices.ContainsFunc(g.failed(), func(c string) bool { return strings.Contains(c, w.want) }) {
				t.Errorf("-bug %s on PostgreSQL: want a failing %q; failing: %q", w.bug, w.want, g.failed())
			}
		})
	}
	for _, day := range referenceDays() {
		t.Run(day, func(t *testing.T) {
			g := gradeWorker(t, day, pgEnv(t, day), referenceGo)
			if !g.rep.Passed() {
				t.Errorf("the Go reference failed on PostgreSQL %q:\n%s\nstderr:\n%s", g.failed(), g.rep.Body(), g.stderr)
			}
		})
	}
}
