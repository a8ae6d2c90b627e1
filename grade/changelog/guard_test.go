package changelog

import (
	"context"
	"database/sql"
	"outboxlab/core/dialect"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/sqlitedb"
)

// guarded is a database with one logged table T, its log installed, and a
// guard that took its first look; worker is a second handle, as a worker's.
func guarded(t *testing.T) (ctx context.Context, g *Guard, worker *sql.DB) {
	t.Helper()
	ctx = t.Context()
	path := filepath.Join(t.TempDir(), "t.db")
	lab, err := sqlitedb.OpenNoInit(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lab.Close() })
	if _, err := lab.ExecContext(ctx, `CREATE TABLE T (Id INTEGER PRIMARY KEY, Status TEXT NOT NULL, AttemptCount INTEGER NOT NULL);
		INSERT INTO T (Status, AttemptCount) VALUES ('Pending', 0), ('Pending', 0)`); err != nil {
		t.Fatal(err)
	}
	if err := Install(ctx, lab, dialect.SQLite, []string{"T"}); err != nil {
		t.Fatal(err)
	}
	if g, err = NewGuard(ctx, lab, dialect.SQLite, []string{"T"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if worker, err = sqlitedb.OpenNoInit(path); err != nil {
		t.Fatal(err)
	}
	worker.SetMaxOpenConns(1)
	t.Cleanup(func() { worker.Close() })
	return ctx, g, worker
}

func run(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// look is the guard's next look; it fails the test on an error.
func look(t *testing.T, ctx context.Context, g *Guard) Look {
	t.Helper()
	l, err := g.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func wantProblem(t *testing.T, l Look, want string) {
	t.Helper()
	for _, p := range l.Problems {
		if strings.Contains(p, want) {
			return
		}
	}
	t.Errorf("no problem says %q; problems: %q", want, l.Problems)
}

func TestGuardHoldsAnHonestLog(t *testing.T) {
	ctx, g, w := guarded(t)
	run(t, w, `UPDATE T SET Status = 'Processing', AttemptCount = 1 WHERE Id = 1`,
		`INSERT INTO T (Status, AttemptCount) VALUES ('Pending', 0)`, `DELETE FROM T WHERE Id = 2`,
		`UPDATE T SET Id = 9 WHERE Id = 1`)
	if g.Quiet(ctx) {
		t.Error("Quiet after a worker wrote")
	}
	l := look(t, ctx, g)
	if len(l.News) != 4 || len(l.Problems) != 0 || l.Schema != "" {
		t.Errorf("%d log rows, problems %q, schema %q; want 4, none, none", len(l.News), l.Problems, l.Schema)
	}
	if !g.Quiet(ctx) {
		t.Error("not Quiet with nothing written since the last look")
	}
	if p, err := g.Rewritten(ctx); err != nil || len(p) != 0 {
		t.Errorf("Rewritten on an untouched log: %q, %v", p, err)
	}
}

// Each forgery is found at the next look, saying what the log does not hold.
func TestGuardFindsForgeries(t *testing.T) {
	for name, tc := range map[string]struct {
		stmts []string
		want  string
	}{
		"unlogged write": {[]string{`DROP TRIGGER LabLog_T_Update`, `UPDATE T SET AttemptCount = 5 WHERE Id = 1`},
			"T row 1 is not what the log says (attemptcount: the log says 0, the row is 5)"},
		"new row patched": {[]string{`UPDATE T SET AttemptCount = 1 WHERE Id = 1`,
			`UPDATE LabChangeLog SET NewRow = json_set(NewRow, '$.attemptcount', 2)`},
			"T row 1 is not what the log says (attemptcount: the log says 2, the row is 1)"},
		"old row patched": {[]string{`UPDATE T SET AttemptCount = 1 WHERE Id = 1`,
			`UPDATE LabChangeLog SET OldRow = json_set(OldRow, '$.attemptcount', 1)`},
			"log row 1 (T 1 UPDATE): its old row is not the row as it stood (attemptcount 0, the log says 1)"},
		"log row deleted": {[]string{`UPDATE T SET AttemptCount = 1 WHERE Id = 1`, `UPDATE T SET AttemptCount = 2 WHERE Id = 2`,
			`DELETE FROM LabChangeLog WHERE Seq = 1`, `UPDATE T SET AttemptCount = 3 WHERE Id = 2`},
			"log row 1 is missing"},
		"row inserted unlogged": {[]string{`DROP TRIGGER LabLog_T_Insert`, `INSERT INTO T (Status, AttemptCount) VALUES ('x', 0)`},
			"T row 3 stands, and no log row inserts it"},
		"row deleted unlogged": {[]string{`DROP TRIGGER LabLog_T_Delete`, `DELETE FROM T WHERE Id = 2`},
			"T row 2 is gone, and no log row deletes it"},
		"log row invented": {[]string{`INSERT INTO LabChangeLog (TableName, RowId, Op, NewRow) VALUES ('T', 1, 'INSERT', '{"id":1}')`},
			"log row 1 (T 1 INSERT): that row already stood"},
		"unknown table": {[]string{`INSERT INTO LabChangeLog (TableName, RowId, Op) VALUES ('Nope', 1, 'INSERT')`},
			"log row 1 names a table the lab does not log"},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, g, w := guarded(t)
			run(t, w, tc.stmts...)
			wantProblem(t, look(t, ctx, g), tc.want)
		})
	}
}

// A schema changed at a look is said once; one made again the same is not
// seen (the rows are what catch it).
func TestGuardSeesTheSchema(t *testing.T) {
	ctx, g, w := guarded(t)
	run(t, w, `DROP TRIGGER LabLog_T_Delete`)
	if l := look(t, ctx, g); !strings.Contains(l.Schema, "gone or altered trigger LabLog_T_Delete") {
		t.Errorf("schema %q, want the trigger gone", l.Schema)
	}
	if l := look(t, ctx, g); l.Schema != "" {
		t.Errorf("the same change said twice: %q", l.Schema)
	}
}

// A log row the lab read and that changes, vanishes or appears among the
// rows read is found after the run.
func TestGuardFindsRowsRewrittenAfterTheyWereRead(t *testing.T) {
	ctx, g, w := guarded(t)
	run(t, w, `UPDATE T SET AttemptCount = 1 WHERE Id = 1`, `UPDATE T SET AttemptCount = 1 WHERE Id = 2`)
	look(t, ctx, g)
	run(t, w, `UPDATE LabChangeLog SET NewRow = json_set(NewRow, '$.status', 'x') WHERE Seq = 1`,
		`DELETE FROM LabChangeLog WHERE Seq = 2`)
	p, err := g.Rewritten(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p, "; ")
	for _, want := range []string{"log row 1 (T 1 UPDATE) was rewritten after the lab read it", "log row 2 was deleted after the lab read it"} {
		if !strings.Contains(got, want) {
			t.Errorf("Rewritten says %q, want %q", got, want)
		}
	}
}
