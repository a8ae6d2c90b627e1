package cli

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/outbox"
)

func inspectExit(t *testing.T, path string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main([]string{"inspect", "--db", path}, &out, &errb)
	return code, out.String(), errb.String()
}

func TestInspectRefusesASQLiteFileOfAnotherSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE Orders (Id INTEGER PRIMARY KEY); INSERT INTO Orders VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, _, stderr := inspectExit(t, path)
	if code != ExitUsage || stderr != "outboxlab: "+path+" is not an outboxlab database (keep one with --keep-db)\n" {
		t.Errorf("exit %d, stderr %q; want 2 and one line saying it is not a lab database", code, stderr)
	}
}

// A lab database is in WAL mode: inspect reads a consistent snapshot even while
// another connection holds the write lock in the middle of a transaction.
func TestInspectReadsALabDatabaseWhileItIsBeingWritten(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "outbox.db")
	s, err := outbox.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.DB().BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO AuditLog (AtUtc, Actor, Action) VALUES ('x', 'writer', 'uncommitted')`); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := inspectExit(t, path)
	if code != ExitOK {
		t.Fatalf("exit %d while another connection writes: %s", code, stderr)
	}
	if !strings.Contains(out, "## AuditLog (0 rows)") {
		t.Errorf("inspect saw uncommitted rows or no audit table:\n%s", out)
	}
}

// A file held under an exclusive lock in rollback-journal mode cannot be read:
// one line, exit 3, after the busy timeout.
func TestInspectOfALockedDatabaseSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE TABLE LabInfo (Key TEXT PRIMARY KEY, Value TEXT NOT NULL) STRICT`,
		`INSERT INTO LabInfo VALUES ('schema', 'outboxlab/1')`,
		`BEGIN EXCLUSIVE`,
		`INSERT INTO LabInfo VALUES ('held', 'by another process')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	defer db.Exec(`ROLLBACK`)
	code, _, stderr := inspectExit(t, path)
	if code != ExitCannotRun || stderr != "outboxlab: "+path+" is locked by another process; try again when it is done\n" {
		t.Errorf("exit %d, stderr %q; want 3 and one line saying it is locked", code, stderr)
	}
}
