package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outboxlab/internal/dirsnap"
)

// labWithRows makes a lab database at path holding n rows of T and returns
// it open, in WAL mode, never checkpointing: committed rows stay in the -wal.
func labWithRows(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	db, err := Open(context.Background(), path, `CREATE TABLE IF NOT EXISTS T (X INTEGER) STRICT;`)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := db.Exec(`INSERT INTO T VALUES (?)`, i); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func copyFiles(t *testing.T, from, to string, suffixes ...string) {
	t.Helper()
	for _, s := range suffixes {
		b, err := os.ReadFile(from + s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+s, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every way a kept database can be found on disk: reading it sees every
// committed row, and afterwards the directory holds the same files with the
// same bytes.
func TestOpenReadOnlyLeavesEveryFileAsItWas(t *testing.T) {
	cases := []struct {
		name      string
		setup     func(t *testing.T, path string) // leaves 3 committed rows of T at path
		mayChange []string
	}{
		{name: "WAL database closed cleanly (no -wal, no -shm)", setup: func(t *testing.T, path string) {
			labWithRows(t, path, 3).Close()
		}},
		{name: "WAL database with a live writer (rows only in the -wal)", setup: func(t *testing.T, path string) {
			db := labWithRows(t, path, 3)
			t.Cleanup(func() { db.Close() })
		},
			// The writer lives in this process, so the reader shares its
			// writable mapping of the index and records its read mark there,
			// as the WAL protocol asks of every reader of a live log (another
			// process maps it read-only and writes nothing).
			mayChange: []string{"lab.db-shm"}},
		{name: "-wal and -shm left by a writer that died", setup: func(t *testing.T, path string) {
			live := filepath.Join(t.TempDir(), "live.db")
			db := labWithRows(t, live, 3)
			defer db.Close()
			copyFiles(t, live, path, "", "-wal", "-shm")
		}},
		{name: "WAL database with an empty -wal and no -shm", setup: func(t *testing.T, path string) {
			labWithRows(t, path, 3).Close()
			if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "rollback-journal database", setup: func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE T (X INTEGER); INSERT INTO T VALUES (1), (2), (3)`); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "lab.db")
			c.setup(t, path)
			before := dirsnap.Take(t, dir)
			db, err := OpenReadOnly(context.Background(), path)
			if err != nil {
				t.Fatalf("OpenReadOnly: %v", err)
			}
			var n int
			err = db.QueryRow(`SELECT count(*) FROM T`).Scan(&n)
			if err != nil || n != 3 {
				t.Errorf("count(*) = %d, %v; want 3 committed rows", n, err)
			}
			if _, err := db.Exec(`INSERT INTO T VALUES (4)`); err == nil {
				t.Error("an INSERT succeeded on a read-only handle")
			}
			db.Close()
			dirsnap.AssertUnchanged(t, dir, before, c.mayChange...)
		})
	}
}

func TestOpenReadOnlyRefusesWhatItCannotReadSafely(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "pipe")
	makeFifo(t, fifo)
	// A database and its -wal, copied without the -shm.
	unindexed, livePath := filepath.Join(dir, "unindexed.db"), filepath.Join(t.TempDir(), "live.db")
	live := labWithRows(t, livePath, 3)
	defer live.Close()
	copyFiles(t, livePath, unindexed, "", "-wal")

	cases := []struct {
		path string
		want error
	}{
		{filepath.Join(dir, "missing.db"), fs.ErrNotExist},
		{t.TempDir(), ErrNotRegular},
		{fifo, ErrNotRegular},
		{os.DevNull, ErrNotRegular},
		{write("notes.txt", "just some notes\n"), ErrNotSQLite},
		{write("empty.db", ""), ErrNotSQLite},
		{unindexed, ErrWALWithoutIndex},
	}
	for _, c := range cases {
		before := dirsnap.Take(t, dir)
		done := make(chan error, 1)
		go func() {
			db, err := OpenReadOnly(context.Background(), c.path)
			if err == nil {
				db.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, c.want) {
				t.Errorf("OpenReadOnly(%s) = %v, want %v", filepath.Base(c.path), err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenReadOnly(%s) blocked", filepath.Base(c.path))
		}
		dirsnap.AssertUnchanged(t, dir, before)
	}
}

// A rollback-journal database under another connection's exclusive lock:
// OpenReadOnly waits out the busy timeout and says it is busy, by SQLite's
// result code, not by the words of the message.
func TestOpenReadOnlyOfALockedDatabaseIsBusy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	holder := lockedRollbackDB(t, path, "BEGIN EXCLUSIVE")
	defer holder.Close()
	db, err := OpenReadOnly(context.Background(), path)
	if err == nil {
		db.Close()
	}
	if !IsBusy(err) {
		t.Errorf("OpenReadOnly of a locked database = %v; IsBusy = false", err)
	}
	if IsBusy(errors.New("database is locked (5) (SQLITE_BUSY)")) {
		t.Error("IsBusy judged a plain error by its text")
	}
}

// lockedRollbackDB makes a rollback-journal database at path holding one row
// of T and returns its only connection inside a transaction begun with begin.
func lockedRollbackDB(t *testing.T, path, begin string) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`CREATE TABLE T (X INTEGER)`, `INSERT INTO T VALUES (1)`, begin, `INSERT INTO T VALUES (2)`} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() { conn.ExecContext(ctx, `ROLLBACK`) })
	return conn
}

// A POSIX lock belongs to the process and the file: closing any descriptor of
// the file drops every lock the process holds on it. OpenReadOnly reads the
// file only through SQLite, which keeps such descriptors open while a lock is
// held, so a writer in the same process keeps its lock against other processes.
func TestOpenReadOnlyKeepsTheLocksOfThisProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.db")
	holder := lockedRollbackDB(t, path, "BEGIN IMMEDIATE")
	defer holder.Close()
	db, err := OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM T`).Scan(&n); err != nil || n != 1 {
		t.Errorf("count(*) = %d, %v; want the 1 committed row", n, err)
	}
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBeginImmediate$")
	cmd.Env = append(os.Environ(), "SQLITEDB_HELPER_BEGIN="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "begin: busy") {
		t.Errorf("another process could take the write lock this process holds:\n%s", out)
	}
}

// TestHelperBeginImmediate runs in the process that TestOpenReadOnlyKeepsTheLocksOfThisProcess
// starts: it tries once to take the write lock and says whether it was busy.
func TestHelperBeginImmediate(t *testing.T) {
	path := os.Getenv("SQLITEDB_HELPER_BEGIN")
	if path == "" {
		t.Skip("run by TestOpenReadOnlyKeepsTheLocksOfThisProcess")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	switch {
	case IsBusy(err):
		fmt.Println("begin: busy")
	case err != nil:
		t.Fatal(err)
	default:
		tx.Rollback()
		fmt.Println("begin: took the lock")
	}
}

func TestLabVersion(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, step := range []struct{ stmt, want string }{
		{`SELECT 1`, ""},
		{`CREATE TABLE LabInfo (Key TEXT PRIMARY KEY, Value TEXT NOT NULL)`, ""},
		{`INSERT INTO LabInfo VALUES ('schema', 'outboxlab/7')`, "outboxlab/7"},
	} {
		if _, err := db.Exec(step.stmt); err != nil {
			t.Fatal(err)
		}
		if got, err := LabVersion(ctx, db); got != step.want || err != nil {
			t.Errorf("after %s: LabVersion = %q, %v; want %q", step.stmt, got, err, step.want)
		}
	}
}
