package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenMarksTheFileAndTransactionsTakeTheWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lab.db")
	db, err := Open(ctx, path, `CREATE TABLE IF NOT EXISTS T (X INTEGER) STRICT;`)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !IsLab(ctx, db) {
		t.Fatal("Open did not mark the database as a lab database")
	}
	// A second handle must not be able to begin while the first holds a transaction:
	// that is what BEGIN IMMEDIATE means.
	other, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=busy_timeout(50)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.BeginTx(ctx, nil); err == nil {
		t.Error("a second writer began while the first held BEGIN IMMEDIATE")
	}
	tx.Rollback()

	boom := errors.New("boom")
	if err := InTx(ctx, db, func(tx *sql.Tx) error {
		tx.ExecContext(ctx, `INSERT INTO T VALUES (1)`)
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("InTx = %v, want boom", err)
	}
	var n int
	db.QueryRowContext(ctx, `SELECT COUNT(*) FROM T`).Scan(&n)
	if n != 0 {
		t.Errorf("%d rows after a failed InTx, want 0", n)
	}
}

func TestOpenTakesAnyPath(t *testing.T) {
	if _, err := Open(context.Background(), "", ""); err == nil {
		t.Error("Open of an empty path succeeded")
	}
	dir := filepath.Join(t.TempDir(), "we#ird?dir 100%")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "lab.db")
	db, err := Open(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not where it was asked to be: %v", err)
	}
}

func TestOpenVersionedRecordsTheFamilysVersionOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lab.db")
	// The second schema indexes a table of the first: schemas apply in order.
	db, err := OpenVersioned(ctx, path, "outboxlab/family-1",
		`CREATE TABLE IF NOT EXISTS A (X INTEGER) STRICT;`,
		`CREATE TABLE IF NOT EXISTS B (Y INTEGER) STRICT; CREATE INDEX IF NOT EXISTS IX_A ON A (X);`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Reopening, even as another family, keeps the version the file was made with.
	db, err = Open(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != "outboxlab/family-1" {
		t.Errorf("LabInfo schema = %q, want outboxlab/family-1", version)
	}
	if !IsLab(ctx, db) {
		t.Error("IsLab = false for a family's version starting with outboxlab")
	}
	tables, err := Tables(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Name)
	}
	if got, want := strings.Join(names, " "), "LabInfo A B"; got != want {
		t.Errorf("Tables() = %s, want %s", got, want)
	}
}

func TestIsLabRefusesAnotherVersion(t *testing.T) {
	ctx := context.Background()
	db, err := OpenVersioned(ctx, filepath.Join(t.TempDir(), "other.db"), "someone-else/1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if IsLab(ctx, db) {
		t.Error("IsLab = true for a version that does not start with outboxlab")
	}
}
