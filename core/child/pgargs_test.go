package child

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

func init() {
	// test-pg-hold locks row 1 of Jobs in an open transaction, keeps that
	// session busy (so it cannot notice its client die), prints the
	// session's server pid and dies.
	Register("test-pg-hold", func(ctx context.Context, args []string, stdout io.Writer) int {
		db, err := pgdb.Open(ctx, args[0])
		if err != nil {
			return 3
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return 3
		}
		var pid, id int
		if tx.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid) != nil ||
			tx.QueryRowContext(ctx, `SELECT Id FROM Jobs WHERE Id = 1 FOR UPDATE`).Scan(&id) != nil {
			return 3
		}
		go tx.ExecContext(ctx, `SELECT pg_sleep(60)`)
		for busy := false; !busy; time.Sleep(5 * time.Millisecond) {
			db.QueryRowContext(ctx, `SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, pid).Scan(&busy)
		}
		fmt.Fprintln(stdout, pid)
		Die()
		return 0
	})
	// test-cmdline prints its own command line and the arguments it was given.
	Register("test-cmdline", func(_ context.Context, args []string, stdout io.Writer) int {
		raw, err := os.ReadFile("/proc/self/cmdline")
		if err != nil {
			return 3
		}
		fmt.Fprintf(stdout, "%s\n%s", strings.ReplaceAll(string(raw), "\x00", " "), strings.Join(args, "\n"))
		return 0
	})
}

// A child SIGKILLed while its session holds a row lock (and is busy, so the
// server would not notice for a minute): when Run returns, the session is
// gone and a FOR UPDATE SKIP LOCKED claim sees the row.
func TestRunEndsTheSessionsOfAKilledChild(t *testing.T) {
	run := pgtest.RunSchema(t, "child")
	ctx := context.Background()
	if _, err := run.DB.ExecContext(ctx, `CREATE TABLE Jobs (Id BIGINT PRIMARY KEY); INSERT INTO Jobs VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	exit, err := Run(ctx, "test-pg-hold", run.URL)
	if err != nil || !exit.Died() {
		t.Fatalf("child = %+v, %v; want killed", exit, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(exit.Output))
	if err != nil {
		t.Fatalf("child printed %q, want its session's pid", exit.Output)
	}
	var left int
	if err := run.DB.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the killed child's session %d: %d left (%v), want gone", pid, left, err)
	}
	var got int64
	err = claimFirst(ctx, run.DB, &got)
	if err != nil || got != 1 {
		t.Fatalf("SKIP LOCKED claim after Run = row %d, %v; want row 1 (the dead child's lock released)", got, err)
	}
}

func claimFirst(ctx context.Context, db *sql.DB, id *int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return tx.QueryRowContext(ctx, `SELECT Id FROM Jobs ORDER BY Id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(id)
}

// A URL with a password reaches the child's entry point, with an
// application_name of the child's own, but never its command line.
// An upper-case scheme is a URL too (dblocation.Index): it must not slip
// through as a plain argument.
func TestURLArgumentsStayOutOfTheChildsCommandLine(t *testing.T) {
	const secret = "hunter2-secret"
	url := "postgres://lab:" + secret + "@db.example:5432/lab?application_name=outboxlab-abc&options=-csearch_path%3Dx"
	upper := "POSTGRES" + strings.TrimPrefix(url, "postgres")
	exit, err := Run(context.Background(), "test-cmdline", "-db", upper, "--partner="+url, "plain")
	if err != nil || exit.Code != 0 {
		t.Fatalf("child = %+v, %v", exit, err)
	}
	cmdline, args, _ := strings.Cut(exit.Output, "\n")
	if strings.Contains(cmdline, secret) || strings.Contains(strings.ToLower(cmdline), "postgres") {
		t.Fatalf("the child's /proc/<pid>/cmdline shows the URL: %s", cmdline)
	}
	got := strings.Split(args, "\n")
	if len(got) != 4 || got[0] != "-db" || got[3] != "plain" || !strings.HasPrefix(got[2], "--partner=postgres://") {
		t.Fatalf("the child's arguments = %q, want -db URL --partner=URL plain", got)
	}
	for _, u := range []string{got[1], strings.TrimPrefix(got[2], "--partner=")} {
		if !strings.HasPrefix(u, "postgres://") {
			t.Errorf("the child got %q: want its scheme lower-case, as the driver reads it", u)
		}
		if !strings.Contains(u, secret) || !strings.Contains(u, "search_path") {
			t.Errorf("the child got %q: want the URL with its password and schema", u)
		}
		if app := pgdb.AppName(u); !strings.HasPrefix(app, "outboxlab-abc-") || !strings.HasSuffix(app, "-test-cmdline") {
			t.Errorf("the child's application_name = %q, want outboxlab-abc-N-test-cmdline", app)
		}
	}
}
