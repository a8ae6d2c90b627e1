package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/internal/dirsnap"
)

// --table, --columns and --where show the chosen rows and columns compactly,
// read the same committed rows, and leave the file's directory as it was.
func TestInspectShowsChosenTablesColumnsAndRows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "outbox.db")
	labDB(t, path, 5).Close()
	before := dirsnap.Take(t, dir)

	code, out, stderr := inspectArgs("--db", path, "--table", "auditlog", "--columns", "Action,actor",
		"--where", "Action IN ('row 2', 'row 4') OR (Action = 'row 5' AND Actor = 'nobody')")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "\nAuditLog (2 rows where Action IN ('row 2', 'row 4') OR (Action = 'row 5' AND Actor = 'nobody'))\n" +
		"  Action  Actor\n  row 2   test\n  row 4   test\n"
	if !strings.Contains(out, want) {
		t.Errorf("inspect --table --columns --where printed\n%s\nwant it to contain\n%s", out, want)
	}
	rows := strings.ReplaceAll(out, "where Action IN ('row 2', 'row 4') OR (Action = 'row 5'", "")
	for _, not := range []string{"row 1", "row 3", "row 5", "AtUtc", "## ", "OutboxMessages", "│"} {
		if strings.Contains(rows, not) {
			t.Errorf("output shows %q, which was not chosen:\n%s", not, out)
		}
	}
	if !strings.Contains(out, "\n  sqlite3 "+path+"\n") {
		t.Errorf("output does not say sqlite3 opens the file:\n%s", out)
	}
	// Repeated --table: both, in the order given; a subquery is an expression.
	code, out, stderr = inspectArgs("--db", path, "--table", "OutboxMessages", "--table", "AuditLog",
		"--where", "(SELECT count(*) FROM AuditLog) = 5", "--limit", "2")
	if code != cmdutil.ExitOK || !strings.Contains(out, "\nOutboxMessages (0 rows where") ||
		!strings.Contains(out, "\nAuditLog (5 rows where") || strings.Index(out, "OutboxMessages (") > strings.Index(out, "AuditLog (") ||
		!strings.Contains(out, "  … 3 more rows; --limit 0 shows all\n") {
		t.Errorf("exit %d, stderr %q; want both tables in order, AuditLog cut at 2 of 5 rows:\n%s", code, stderr, out)
	}
	dirsnap.AssertUnchanged(t, dir, before)
}

// A name that is not there, or an expression that is not one, is exit 2 in
// one line naming what there is; nothing is written.
func TestInspectRefusesABadSelection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "outbox.db")
	labDB(t, path, 3).Close()
	before := dirsnap.Take(t, dir)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--table", "Nope"}, `--table "Nope" is not a table here (there are: `},
		{[]string{"--table", "AuditLog", "--columns", "Action,Nope"}, `--columns "Nope" is not a column of AuditLog (it has: Id, `},
		{[]string{"--where", "1 = 1"}, "--columns and --where apply to the tables --table names"},
		{[]string{"--table", "AuditLog", "--where", "1; DELETE FROM AuditLog"}, `no ";"`},
		{[]string{"--table", "AuditLog", "--where", "1 = 1 -- x"}, "no comments"},
		{[]string{"--table", "AuditLog", "--where", "1 /* x */"}, "no comments"},
		{[]string{"--table", "AuditLog", "--where", "1) UNION SELECT 1, 2, 3, 4, 5 WHERE (1"}, `a ")" with no "(" before it`},
		{[]string{"--table", "AuditLog", "--where", "Action = 'row"}, "a quote (') is not closed"},
		{[]string{"--table", "AuditLog", "--where", "Nope = 1"}, `--where "Nope = 1" on AuditLog: `},
		{[]string{"--table", "AuditLog", "--where", "Action ="}, `--where "Action =" on AuditLog: `},
	}
	for _, tt := range tests {
		code, out, stderr := inspectArgs(append([]string{"--db", path}, tt.args...)...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2, one line containing %q and nothing printed",
				tt.args, code, stderr, out, tt.want)
		}
	}
	// A ";" inside a quoted value is part of the value, not a second statement.
	if code, _, stderr := inspectArgs("--db", path, "--table", "AuditLog", "--where", "Action <> 'a;b'"); code != cmdutil.ExitOK {
		t.Errorf("a quoted \";\": exit %d, %s", code, stderr)
	}
	dirsnap.AssertUnchanged(t, dir, before)
}
