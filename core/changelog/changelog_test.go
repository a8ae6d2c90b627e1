package changelog_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"outboxlab/core/changelog"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"

	_ "modernc.org/sqlite"
)

// A recorder reads what the database holds after each event: a changed
// cell old → new, a row added, a row removed, keyed by primary key, in key
// order (10 after 9, as ORDER BY orders integers); and it stops the run
// after its K-th event.
func TestRecorderReadsTheDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE LabInfo (Key TEXT PRIMARY KEY, Value TEXT)`)
	exec(`CREATE TABLE Jobs (Id INTEGER PRIMARY KEY, JobKey TEXT NOT NULL, Status TEXT, Note TEXT)`)
	exec(`INSERT INTO Jobs VALUES (9, 'J-9', 'Pending', NULL), (2, 'J-2', 'Pending', NULL)`)

	rec := changelog.New(3)
	defer rec.Close()
	rctx := rec.Watch(ctx, "AFTER", dialect.File(path))
	at := clock.Start
	step := func(text string) error { at = at.Add(time.Millisecond); return changelog.Event(rctx, at, text) }
	if err := changelog.Seeded(rctx, at); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE Jobs SET Status = 'Done', Note = 'ok' WHERE Id = 9`)
	if err := step("J-9 done"); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO Jobs VALUES (10, 'J-10', 'Pending', NULL)`)
	exec(`DELETE FROM Jobs WHERE Id = 2`)
	if err := step("J-10 in, J-2 out"); err != nil {
		t.Fatal(err)
	}
	if err := step("nothing"); !errors.Is(err, changelog.ErrStopped) {
		t.Fatalf("third event (--stop-after 3) = %v, want ErrStopped", err)
	}
	l := rec.Log()
	if len(l.Designs) != 1 || len(l.Designs[0].Tables) != 1 || l.Designs[0].Tables[0].Name != "jobs" {
		t.Fatalf("seeded = %+v, want one table, jobs (LabInfo left out)", l.Designs)
	}
	got := []string{}
	for _, s := range l.Steps {
		for _, c := range s.Changes {
			line := s.At[11:] + " " + c.Table + " " + c.Key + " " + c.Op
			for _, cell := range c.Cells {
				old := "NULL"
				if cell.Old != nil {
					old = *cell.Old
				}
				line += " " + cell.Column + " " + old + "→" + *cell.New
			}
			got = append(got, line)
		}
	}
	want := []string{
		"09:00:00.001Z jobs 9 changed status Pending→Done note NULL→ok",
		"09:00:00.002Z jobs 10 added",
		"09:00:00.002Z jobs 2 removed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(l.Steps) != 3 || len(l.Steps[2].Changes) != 0 {
		t.Errorf("steps = %d, the last with %d changes; want 3, the last with none", len(l.Steps), len(l.Steps[2].Changes))
	}
	rows := l.State(2)["AFTER"][0].Rows
	var keys []string
	for _, r := range rows {
		keys = append(keys, *r[1])
	}
	if strings.Join(keys, " ") != "J-9 J-10" {
		t.Errorf("state after event 2: %v, want J-9 J-10 (key order, J-2 removed)", keys)
	}
	if n := l.DecidingStep("AFTER", "J-10 processed"); n != 2 {
		t.Errorf("DecidingStep for a check naming J-10 = %d, want 2 (the event that added it)", n)
	}
	if n := l.DecidingStep("AFTER", "no key named"); n != 3 {
		t.Errorf("DecidingStep for a check naming no row = %d, want the last event, 3", n)
	}
}
