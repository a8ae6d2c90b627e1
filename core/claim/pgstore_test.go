package claim

import (
	"context"
	"strings"
	"testing"

	"outboxlab/core/dialect"
	"outboxlab/internal/pgtest"
)

// OpenExisting on a PostgreSQL location opens only a schema holding the
// lab's LabInfo, creates nothing in one that does not, and never names the
// password of the URL it was given.
func TestOpenExistingPostgres(t *testing.T) {
	ctx := context.Background()
	run := pgtestRun(t)
	withPassword := run.URL + "&password=hunter2-secret"
	_, err := OpenExisting(ctx, pgtest.Parse(t, withPassword))
	if err == nil || !strings.Contains(err.Error(), "is not an outboxlab database") {
		t.Fatalf("OpenExisting on an empty schema = %v, want a refusal", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("the refusal shows the password: %v", err)
	}
	var tables int
	if err := run.DB.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("OpenExisting left %d tables (%v), want none", tables, err)
	}
	s, err := Open(ctx, pgtest.Parse(t, run.URL), testVersion, `CREATE TABLE IF NOT EXISTS Jobs (Id INTEGER PRIMARY KEY, Name TEXT NOT NULL) STRICT;`)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenExisting(ctx, pgtest.Parse(t, withPassword))
	if err != nil {
		t.Fatalf("OpenExisting on a lab schema: %v", err)
	}
	defer s.Close()
	if s.Dialect() != dialect.Postgres || s.Database().String() != withPassword {
		t.Fatalf("store = %s at %q, want postgres at the given location", s.Dialect().Name(), s.Database())
	}
	var id int64
	q, args := s.Dialect().Bind(`INSERT INTO Jobs (Name) VALUES (?) RETURNING Id`, "a")
	if err := s.DB().QueryRowContext(ctx, q, args...).Scan(&id); err != nil || id != 1 {
		t.Fatalf("insert into the translated table = id %d, %v; want 1", id, err)
	}
}

// The SQLite driver binds $N to argument N, wherever and however often $N
// appears: the stores' ...Tx functions, which get a transaction and no
// dialect, rely on it to run one statement text on both databases.
func TestDollarPlaceholdersOnSQLite(t *testing.T) {
	onEachDialect(t, func(t *testing.T, b backend) {
		s := b.database(t, ddl{})()
		var got string
		err := s.DB().QueryRowContext(context.Background(), `SELECT $2 || $1 || $2 || $3`, "a", "b", "c").Scan(&got)
		if err != nil || got != "babc" {
			t.Fatalf("SELECT $2 || $1 || $2 || $3 with a, b, c = %q, %v; want babc", got, err)
		}
	})
}
