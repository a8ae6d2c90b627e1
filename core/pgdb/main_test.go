package pgdb_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

// childVar names the child entry point the test binary runs when it is
// re-executed as a lab child would be.
const childVar = "PGDB_TEST_CHILD"

func TestMain(m *testing.M) {
	if name := os.Getenv(childVar); name != "" {
		os.Exit(runChild(name))
	}
	pgtest.Main(m)
}

// runChild plays a lab child process: it reads its URL from the environment.
func runChild(name string) int {
	ctx := context.Background()
	rawURL := os.Getenv(pgdb.EnvVar)
	switch name {
	case "create-schema-and-hang":
		r, err := pgdb.CreateRunSchema(ctx, rawURL, "orphan-test")
		if err != nil {
			fmt.Println("error:", err)
			return 3
		}
		fmt.Println(r.Schema)
	case "lock-row-and-hang":
		db, err := pgdb.Open(ctx, rawURL)
		if err != nil {
			fmt.Println("error:", err)
			return 3
		}
		tx, err := db.BeginTx(ctx, nil)
		if err == nil {
			_, err = tx.ExecContext(ctx, `SELECT id FROM jobs WHERE id = 1 FOR UPDATE`)
		}
		if err != nil {
			fmt.Println("error:", err)
			return 3
		}
		fmt.Println("locked")
	default:
		fmt.Println("no child", name)
		return 3
	}
	time.Sleep(time.Minute) // until the test kills it
	return 0
}

// startChild starts the test binary as child name with env added, and
// returns it once it printed its first line (which it returns).
func startChild(t *testing.T, name string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childVar+"="+name), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 4096)
	n, _ := out.Read(buf)
	line := strings.TrimSpace(string(buf[:n]))
	if line == "" || strings.HasPrefix(line, "error:") {
		t.Fatalf("child %s: %q", name, line)
	}
	return cmd, line
}

// admin opens a superuser pool on the test server.
func admin(t *testing.T) *sql.DB {
	t.Helper()
	db, err := pgdb.Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// roleURL creates a login role with password and returns a URL that logs in
// as it with the password given (right or wrong).
func roleURL(t *testing.T, role, password, tryPassword string) string {
	t.Helper()
	db := admin(t)
	_, err := db.Exec(fmt.Sprintf(`DO $$ BEGIN
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%[1]s') THEN
			CREATE ROLE %[1]s LOGIN PASSWORD '%[2]s';
		END IF; END $$`, role, password))
	if err != nil {
		t.Fatal(err)
	}
	dir := pgtest.Shared(t).Dir
	return "postgres://" + role + ":" + url.QueryEscape(tryPassword) +
		"@/postgres?host=" + url.QueryEscape(dir)
}

// schemaExists reports whether the test server has a schema named name.
func schemaExists(t *testing.T, db *sql.DB, name string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// labSchemas lists the run schemas on the test server.
func labSchemas(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'outboxlab\_%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		names = append(names, s)
	}
	return names
}
