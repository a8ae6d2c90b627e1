package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
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

func TestOpenRefusesUnusablePaths(t *testing.T) {
	for _, p := range []string{"", "a?b.db", "a#b.db"} {
		if _, err := Open(context.Background(), p, ""); err == nil {
			t.Errorf("Open(%q) succeeded", p)
		}
	}
}
