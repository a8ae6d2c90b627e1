package pgdb_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"outboxlab/core/pgdb"
	"outboxlab/core/proc"
	"outboxlab/internal/pgtest"
)

var schemaNameRE = regexp.MustCompile(`^outboxlab_[a-z0-9_]+_[0-9a-f]{8}$`)

func TestParallelRunsAreIsolatedAndDropped(t *testing.T) {
	ctx := context.Background()
	base := pgtest.URL(t)
	db := admin(t)
	runs := make([]*pgdb.Run, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := pgdb.CreateRunSchema(ctx, base, "session-16-retry-with-dead-letter")
			if err == nil {
				_, err = r.DB.ExecContext(ctx, `CREATE TABLE messages (id int PRIMARY KEY, body text)`)
			}
			for k := 0; err == nil && k <= i; k++ { // run 0 writes 1 row, run 1 writes 2
				_, err = r.DB.ExecContext(ctx, `INSERT INTO messages VALUES ($1, $2)`, k, fmt.Sprint("run", i))
			}
			runs[i], errs[i] = r, err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if runs[0].Schema == runs[1].Schema {
		t.Fatalf("both runs got schema %s", runs[0].Schema)
	}
	for i, r := range runs {
		if !schemaNameRE.MatchString(r.Schema) || !strings.Contains(r.Schema, "session_16_retry") {
			t.Errorf("schema %q is not outboxlab_<scenario>_<8 hex>", r.Schema)
		}
		var n int
		var bodies string
		err := r.DB.QueryRowContext(ctx, `SELECT count(*), string_agg(DISTINCT body, ',') FROM messages`).Scan(&n, &bodies)
		if err != nil || n != i+1 || bodies != fmt.Sprint("run", i) {
			t.Errorf("run %d sees %d rows (%q), %v; want %d rows of its own", i, n, bodies, err, i+1)
		}
		// Every pooled connection, not just the first, uses the run's schema.
		conns := make([]string, 3)
		var held []func() error
		for c := range conns {
			conn, err := r.DB.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, conn.Close)
			conn.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&conns[c])
		}
		for _, close := range held {
			close()
		}
		for c, got := range conns {
			if got != r.Schema {
				t.Errorf("run %d connection %d: current_schema() = %q, want %q", i, c, got, r.Schema)
			}
		}
	}
	var inPublic int
	db.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_name = 'messages' AND table_schema = 'public'`).Scan(&inPublic)
	if inPublic != 0 {
		t.Errorf("a run wrote to public")
	}
	for _, r := range runs {
		if err := r.Drop(ctx); err != nil {
			t.Fatalf("drop %s: %v", r.Schema, err)
		}
		if schemaExists(t, db, r.Schema) {
			t.Errorf("schema %s still there after Drop", r.Schema)
		}
	}
}

func TestOwnerRecordAndLongNames(t *testing.T) {
	ctx := context.Background()
	r, err := pgdb.CreateRunSchema(ctx, pgtest.URL(t), strings.Repeat("Very-Long Scenario/Name ", 5))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Drop(ctx)
	if len(r.Schema) > 63 || !schemaNameRE.MatchString(r.Schema) {
		t.Errorf("schema %q: want a valid name of at most 63 bytes", r.Schema)
	}
	var comment string
	admin(t).QueryRow(`SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1`,
		r.Schema).Scan(&comment)
	host, _ := os.Hostname()
	if want := proc.Self().String() + " host=" + host; comment != want {
		t.Errorf("owner record %q, want %q", comment, want)
	}
}

func TestKeepHandsTheSchemaToInspect(t *testing.T) {
	ctx := context.Background()
	r, err := pgdb.CreateRunSchema(ctx, pgtest.URL(t), "keep")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.DB.ExecContext(ctx, `CREATE TABLE kept (id int); INSERT INTO kept VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	inspectURL, err := r.Keep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db := admin(t)
	defer db.Exec(`DROP SCHEMA ` + r.Schema + ` CASCADE`)
	hint := pgdb.InspectHint(inspectURL)
	if !strings.HasPrefix(hint, "inspect --db '") || !strings.Contains(hint, "search_path%3D"+r.Schema) {
		t.Errorf("InspectHint = %q, want the inspect command with the schema", hint)
	}
	var comment *string
	db.QueryRow(`SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1`,
		r.Schema).Scan(&comment)
	if comment != nil {
		t.Errorf("kept schema still has owner record %q: a sweep could drop it", *comment)
	}
	// What inspect --db does: open the URL and read the tables of current_schema().
	in, err := pgdb.Open(ctx, inspectURL)
	if err != nil {
		t.Fatalf("open %s: %v", pgdb.Redact(inspectURL), err)
	}
	defer in.Close()
	var schema string
	var id int
	if err := in.QueryRow(`SELECT current_schema(), (SELECT id FROM kept)`).Scan(&schema, &id); err != nil || schema != r.Schema || id != 7 {
		t.Errorf("inspect URL reads schema %q, id %d, %v; want %s, 7", schema, id, err, r.Schema)
	}
	// A killed owner would not matter any more: the sweep leaves it.
	dropped, err := pgdb.SweepOrphans(ctx, pgtest.URL(t))
	if err != nil || contains(dropped, r.Schema) {
		t.Errorf("sweep dropped %v, %v: a kept schema must stay", dropped, err)
	}
}

func TestSweepDropsOnlyDeadOwnersOfThisHost(t *testing.T) {
	ctx := context.Background()
	base := pgtest.URL(t)
	db := admin(t)
	// A real run, killed with SIGKILL after it made its schema.
	child, orphan := startChild(t, "create-schema-and-hang", pgdb.EnvEntry(base))
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadOwner := proc.Owner{PID: dead.Process.Pid}.String()
	host, _ := os.Hostname()
	keep := map[string]string{
		"outboxlab_sweep_other_host_00000001": deadOwner + " host=not-" + host,
		"outboxlab_sweep_no_owner_00000002":   "",
		"outboxlab_sweep_alive_00000003":      proc.Self().String() + " host=" + host,
		"outboxlab_sweep_garbled_00000004":    "hello host=" + host,
	}
	for name, comment := range keep {
		db.Exec(`DROP SCHEMA IF EXISTS ` + name)
		if _, err := db.Exec(`CREATE SCHEMA ` + name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS ` + name) })
		if comment != "" {
			db.Exec(`COMMENT ON SCHEMA ` + name + ` IS '` + comment + `'`)
		}
	}
	db.Exec(`CREATE SCHEMA outboxlab_sweep_dead_00000005`)
	db.Exec(`COMMENT ON SCHEMA outboxlab_sweep_dead_00000005 IS '` + deadOwner + ` host=` + host + `'`)

	dropped, err := pgdb.SweepOrphans(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{orphan, "outboxlab_sweep_dead_00000005"}
	for _, name := range want {
		if !contains(dropped, name) || schemaExists(t, db, name) {
			t.Errorf("orphan %s not dropped (dropped %v)", name, dropped)
		}
	}
	if len(dropped) != len(want) {
		t.Errorf("dropped %v, want exactly %v", dropped, want)
	}
	for name := range keep {
		if !schemaExists(t, db, name) {
			t.Errorf("sweep dropped %s, which is not a dead run of this host", name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
