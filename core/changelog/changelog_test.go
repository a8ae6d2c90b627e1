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
	"outboxlab/core/dblocation"
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

// A design whose drive records nothing gets, from the kit (Unrecorded),
// its tables empty as before the drive and one event adding every row it
// left: the log's last state is the database's. A design that recorded its
// own events keeps them, nothing added.
func TestUnrecordedDesignGetsTheWholeRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, q string) dialect.Database {
		t.Helper()
		path := filepath.Join(dir, name+".db")
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		return dialect.File(path)
	}
	const jobs = `CREATE TABLE Jobs (Id INTEGER PRIMARY KEY, Status TEXT); INSERT INTO Jobs VALUES (1, 'Done'), (2, 'Pending');`
	silent, recorded := write("silent", jobs), write("recorded", jobs)
	rec := changelog.New(0)
	defer rec.Close()
	rctx := rec.Watch(ctx, "AFTER", recorded)
	if err := changelog.Seeded(rctx, clock.Start); err != nil {
		t.Fatal(err)
	}
	if err := changelog.Unrecorded(rctx, clock.Start); err != nil {
		t.Fatal(err)
	}
	sctx := rec.Watch(ctx, "BEFORE", silent)
	if err := changelog.Unrecorded(sctx, clock.Start); err != nil {
		t.Fatal(err)
	}
	l := rec.Log()
	if len(l.Designs) != 2 || len(l.Steps) != 1 || l.Steps[0].Design != "BEFORE" {
		t.Fatalf("designs %d, steps %+v: want the recorded design untouched and one event for the silent one", len(l.Designs), l.Steps)
	}
	if n := len(l.State(0)["BEFORE"][0].Rows); n != 0 {
		t.Errorf("the silent design's first step shows %d rows, want its tables empty", n)
	}
	truth, err := changelog.ReadTables(ctx, silent)
	if err != nil {
		t.Fatal(err)
	}
	got, want := l.State(1)["BEFORE"], truth
	if len(got) != 1 || len(got[0].Rows) != 2 || *got[0].Rows[1][1] != *want[0].Rows[1][1] || *got[0].Rows[1][1] != "Pending" {
		t.Errorf("after the whole run: %+v, the database holds %+v", got, want)
	}
}

// The log names tables and columns as the lab's schemas spell them,
// whichever database folded them: a name the schemas never spell takes the
// report's spelling, else stays as it is.
func TestSpellingFollowsTheSchemas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := dialect.SQLite.Open(context.Background(), dblocation.File(path), "test",
		`CREATE TABLE SpelledJobs (Id INTEGER PRIMARY KEY, AttemptCount INTEGER NOT NULL) STRICT`)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := changelog.SpellingOf("the report speaks of Widgets and widgets and WIDGETS")
	for name, want := range map[string]string{"spelledjobs": "SpelledJobs", "attemptcount": "AttemptCount", "id": "Id",
		"widgets": "Widgets", "neverspelled": "neverspelled"} {
		if got := s.Of(name); got != want {
			t.Errorf("Of(%q) = %q, want %q", name, got, want)
		}
	}
	v := "1"
	l := changelog.Log{Designs: []changelog.Design{{Name: "AFTER", Tables: []changelog.Table{{Name: "spelledjobs", Columns: []string{"id", "attemptcount"}}}}},
		Steps: []changelog.Step{{N: 1, Design: "AFTER", Changes: []changelog.Change{{Table: "spelledjobs", Key: "1", Op: "changed",
			Cells: []changelog.Cell{{Column: "attemptcount", New: &v}}}}}}}
	sp := l.Spelled(s)
	if got := sp.Designs[0].Tables[0].Name + " " + sp.Designs[0].Tables[0].Columns[1] + " " + sp.Steps[0].Changes[0].Table + " " + sp.Steps[0].Changes[0].Cells[0].Column; got != "SpelledJobs AttemptCount SpelledJobs AttemptCount" {
		t.Errorf("spelled: %q", got)
	}
	if l.Designs[0].Tables[0].Name != "spelledjobs" || l.Steps[0].Changes[0].Cells[0].Column != "attemptcount" {
		t.Errorf("Spelled changed the log it copied")
	}
}
