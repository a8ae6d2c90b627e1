package cli

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/sqlitedb"
	"outboxlab/internal/dirsnap"
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
	if code != cmdutil.ExitUsage || stderr != "outboxlab: "+path+" is not an outboxlab database (keep one with --keep-db)\n" {
		t.Errorf("exit %d, stderr %q; want 2 and one line saying it is not a lab database", code, stderr)
	}
}

// A lab database is in WAL mode: inspect reads a consistent snapshot even while
// another connection holds the write lock in the middle of a transaction.
func TestInspectReadsALabDatabaseWhileItIsBeingWritten(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "outbox.db")
	s, err := outbox.Open(ctx, dialect.File(path))
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
	if code != cmdutil.ExitOK {
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
	if code != cmdutil.ExitCannotRun || stderr != "outboxlab: "+path+" is locked by another process; try again when it is done\n" {
		t.Errorf("exit %d, stderr %q; want 3 and one line saying it is locked", code, stderr)
	}
}

func inspectArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"inspect"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// labDB makes a lab database at path with audit rows "row 1".."row n" and
// returns it open, never checkpointing: committed rows stay in the -wal.
func labDB(t *testing.T, path string, n int) *sql.DB {
	t.Helper()
	s, err := outbox.Open(context.Background(), dialect.File(path))
	if err != nil {
		t.Fatal(err)
	}
	db := s.DB()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO AuditLog (AtUtc, Actor, Action, Detail) SELECT 'x', 'test', 'row ' || i, '' FROM n`, n)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func copyDBFiles(t *testing.T, from, to string, suffixes ...string) {
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

// However the kept database is found, inspect shows its committed rows and
// leaves the directory as it was: the same files, the same bytes.
func TestInspectCreatesAndChangesNothing(t *testing.T) {
	cases := []struct {
		name      string
		setup     func(t *testing.T, path string) // leaves 3 audit rows at path
		mayChange []string
	}{
		{name: "kept database (no -wal, no -shm)", setup: func(t *testing.T, path string) {
			labDB(t, path, 3).Close()
		}},
		{name: "live writer, rows only in the -wal", setup: func(t *testing.T, path string) {
			db := labDB(t, path, 3)
			t.Cleanup(func() { db.Close() })
		},
			// The writer is in this process: the reader shares its mapping of
			// the -shm index and records its read mark there, as a reader of
			// a live log must (TestInspectWhereTheUserMayNotWriteOrRead reads
			// from another process, which changes no byte of it).
			mayChange: []string{"outbox.db-shm"}},
		{name: "-wal and -shm left by a writer that died", setup: func(t *testing.T, path string) {
			live := filepath.Join(t.TempDir(), "live.db")
			db := labDB(t, live, 3)
			defer db.Close()
			copyDBFiles(t, live, path, "", "-wal", "-shm")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "outbox.db")
			c.setup(t, path)
			before := dirsnap.Take(t, dir)
			code, out, stderr := inspectArgs("--db", path)
			if code != cmdutil.ExitOK || !strings.Contains(out, "## AuditLog (3 rows)") || !strings.Contains(out, "row 3") {
				t.Errorf("exit %d, stderr %q; want 0 and the 3 committed audit rows:\n%s", code, stderr, out)
			}
			dirsnap.AssertUnchanged(t, dir, before, c.mayChange...)
		})
	}
}

// Run as a user who may read the database but not write beside it, inspect
// works and changes nothing; on a file the user may not read it says so
// (exit 3), not that the file is no lab database.
func TestInspectWhereTheUserMayNotWriteOrRead(t *testing.T) {
	t.Run("kept database in a read-only directory", func(t *testing.T) {
		dir := openDir(t)
		path := filepath.Join(dir, "outbox.db")
		labDB(t, path, 3).Close()
		denyWrites(t, dir)
		before := dirsnap.Take(t, dir)
		run := runLabProcess(t, 30*time.Second, true, "inspect", "--db", path)
		if run.code != cmdutil.ExitOK || !strings.Contains(run.stdout, "## AuditLog (3 rows)") {
			t.Errorf("exit %d, stderr %q; want 0 and the 3 audit rows:\n%s", run.code, run.stderr, run.stdout)
		}
		dirsnap.AssertUnchanged(t, dir, before)
	})
	t.Run("live writer in another process, read-only directory", func(t *testing.T) {
		dir := openDir(t)
		path := filepath.Join(dir, "outbox.db")
		db := labDB(t, path, 3)
		defer db.Close()
		denyWrites(t, dir)
		before := dirsnap.Take(t, dir)
		run := runLabProcess(t, 30*time.Second, true, "inspect", "--db", path)
		if run.code != cmdutil.ExitOK || !strings.Contains(run.stdout, "## AuditLog (3 rows)") {
			t.Errorf("exit %d, stderr %q; want 0 and the 3 audit rows from the -wal:\n%s", run.code, run.stderr, run.stdout)
		}
		dirsnap.AssertUnchanged(t, dir, before)
	})
	t.Run("unreadable file", func(t *testing.T) {
		dir := openDir(t)
		path := filepath.Join(dir, "outbox.db")
		labDB(t, path, 3).Close()
		if err := os.Chmod(path, 0); err != nil {
			t.Fatal(err)
		}
		run := runLabProcess(t, 30*time.Second, true, "inspect", "--db", path)
		if run.code != cmdutil.ExitCannotRun || run.stderr != "outboxlab: cannot read database "+path+": permission denied\n" {
			t.Errorf("exit %d, stderr %q; want 3, permission denied", run.code, run.stderr)
		}
	})
}

// A lock is SQLite's result code, not a word in a message: a LabInfo that is
// a view over a table named locked_rows, which does not exist, is no lab
// database, and nothing is locked.
func TestInspectJudgesALockByItsCodeNotItsWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "view.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE VIEW LabInfo AS SELECT Key, Value FROM locked_rows`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, _, stderr := inspectArgs("--db", path)
	if code != cmdutil.ExitUsage || stderr != "outboxlab: "+path+" is not an outboxlab database (keep one with --keep-db)\n" {
		t.Errorf("exit %d, stderr %q; want 2, not an outboxlab database", code, stderr)
	}
}

// labDBWith makes a lab database at path holding ddl.
func labDBWith(t *testing.T, path, ddl string) {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), path, ddl)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// A table's name is quoted as an identifier: a name that closes the quote
// cannot append a query of its own.
func TestInspectQuotesTableNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crafted.db")
	labDBWith(t, path, `CREATE TABLE Notes (X TEXT); CREATE TABLE "Notes"" WHERE 0 UNION SELECT 'injected' --" (X TEXT);`)
	code, out, stderr := inspectArgs("--db", path)
	if code != cmdutil.ExitOK || strings.Contains(out, "injected │") || !strings.Contains(out, `## Notes" WHERE 0 UNION SELECT 'injected' -- (0 rows)`) {
		t.Errorf("exit %d, stderr %q; want the crafted table shown with its 0 rows:\n%s", code, stderr, out)
	}
}

// Nothing inspect prints reaches the terminal raw: escape sequences, other C0
// and C1 controls, bytes that are not UTF-8 and bidi overrides, in cells and
// in table and column names, are shown escaped.
func TestInspectShowsControlBytesEscaped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hostile.db")
	labDBWith(t, path, "CREATE TABLE \"Evil\x1b[2J\" (\"Col\u009b\" TEXT, B BLOB);"+
		"INSERT INTO \"Evil\x1b[2J\" VALUES ('\x1b]0;pwned\x07\x1b[31mred\ttab\nline\rcr\u0085nel\u202erev', x'9b41');")
	code, out, stderr := inspectArgs("--db", path, "--wide")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for i, r := range out {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == utf8.RuneError || unicode.Is(unicode.Bidi_Control, r) {
			t.Fatalf("output holds %q at byte %d:\n%s", r, i, out)
		}
	}
	for _, want := range []string{`## Evil\x1b[2J (1 row)`, `Col\u009b`, `\x1b]0;pwned\a\x1b[31mred\ttab\nline\rcr\u0085nel\u202erev`, `\x9bA`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

// Long tables show their first rows and say how many more there are.
func TestInspectLimitsLongTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.db")
	labDB(t, path, 1200).Close()
	for _, c := range []struct {
		args      []string
		shown     int
		moreLine  string
		wantShown string
	}{
		{nil, 50, "… 1,150 more rows; --limit 0 shows all", "row 50 "},
		{[]string{"--limit", "5"}, 5, "… 1,195 more rows; --limit 0 shows all", "row 5 "},
		{[]string{"--limit", "0"}, 1200, "", "row 1200 "},
		{[]string{"--limit", "1200"}, 1200, "", "row 1200 "},
	} {
		code, out, stderr := inspectArgs(append([]string{"--db", path}, c.args...)...)
		if code != cmdutil.ExitOK {
			t.Fatalf("inspect %v: exit %d, stderr %q", c.args, code, stderr)
		}
		if !strings.Contains(out, "## AuditLog (1,200 rows)\n") || !strings.Contains(out, c.wantShown) {
			t.Errorf("inspect %v: no title with 1,200 rows or no %q", c.args, c.wantShown)
		}
		if got := strings.Count(out, "│ test  │"); got != c.shown {
			t.Errorf("inspect %v shows %d rows, want %d", c.args, got, c.shown)
		}
		if c.moreLine != "" && !strings.Contains(out, "\n"+c.moreLine+"\n") || c.moreLine == "" && strings.Contains(out, "more row") {
			t.Errorf("inspect %v: want the line %q:\n%s", c.args, c.moreLine, out[len(out)-300:])
		}
	}
	if code, _, stderr := inspectArgs("--db", path, "--limit", "-1"); code != cmdutil.ExitUsage || stderr != "outboxlab: --limit must be 0 (all rows) or more, got -1\n" {
		t.Errorf("inspect --limit -1: exit %d, stderr %q; want 2", code, stderr)
	}
}

// A long cell is shortened to 40 columns with "…"; --wide shows it whole.
func TestInspectShortensLongCells(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.db")
	long := strings.Repeat("0123456789", 8)
	labDBWith(t, path, `CREATE TABLE Notes (Text TEXT); INSERT INTO Notes VALUES ('`+long+`'), ('日本語のテキスト`+long+`');`)
	code, out, _ := inspectArgs("--db", path)
	if code != cmdutil.ExitOK || !strings.Contains(out, "│ "+long[:39]+"… │") || strings.Contains(out, long) ||
		!strings.Contains(out, "│ 日本語のテキスト"+long[:23]+"… │") {
		t.Errorf("exit %d; want each long cell cut to 40 columns:\n%s", code, out)
	}
	code, out, _ = inspectArgs("--db", path, "--wide")
	if code != cmdutil.ExitOK || !strings.Contains(out, "│ "+long+" ") || strings.Contains(out, "…") {
		t.Errorf("--wide: exit %d; want the whole cell:\n%s", code, out)
	}
}

// inspect streams rows: printing a table of 100,000 rows holds a few of them
// at a time, not the table.
func TestInspectMemoryStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100,000-row database")
	}
	path := filepath.Join(t.TempDir(), "big.db")
	db := labDB(t, path, 0)
	_, err := db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
		INSERT INTO AuditLog (AtUtc, Actor, Action, MessageId, Detail)
		SELECT '2026-01-16T09:00:00.000Z', 'worker-' || (i % 4), 'processed', i,
		       'message ' || i || ' processed after ' || (i % 3 + 1) || ' attempts in lease window ' || (i % 17) FROM n`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var errb bytes.Buffer
	code := Main([]string{"inspect", "--db", path, "--limit", "0"}, io.Discard, &errb)
	close(stop)
	<-sampled
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("heap in use grew by %.1f MiB printing 100,000 rows", float64(grew)/(1<<20))
	if grew > 48<<20 {
		t.Errorf("heap in use grew by %.1f MiB printing 100,000 rows; want under 48 MiB", float64(grew)/(1<<20))
	}
}
