package cli

import (
	"bytes"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

// decoyServer listens on a unix socket where the driver looks when a URL
// names no host (PGHOST, set to its folder for the test) and counts every
// connection it gets, closing each at once.
func decoyServer(t *testing.T) (dir string, connections *atomic.Int64) {
	t.Helper()
	dir, err := os.MkdirTemp("", "decoy-") // short: a socket path has ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	if err != nil {
		t.Fatal(err)
	}
	connections = new(atomic.Int64)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); os.RemoveAll(dir) })
	return dir, connections
}

// A run reaches only the server it was given (issue 24): with the driver's
// defaults pointed at a decoy, a URL whose scheme is upper- or mixed-case
// runs on the named throwaway server, in-process and in worker processes,
// inspect reads the schema it kept there, and the decoy is never called.
// Before, pgx read "POSTGRES://..." as keywords, dropped the host and
// connected to the default server: the decoy.
func TestPostgresSchemeInAnyCaseReachesOnlyTheNamedServer(t *testing.T) {
	admin := pgtest.URL(t)
	decoy, calls := decoyServer(t)
	t.Setenv("PGHOST", decoy)
	t.Setenv("PGPORT", "5432")
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	rest := strings.TrimPrefix(u.String(), "postgres")
	for _, scheme := range []string{"POSTGRES", "PoStGrEs", "POSTGRESQL"} {
		target := scheme + rest
		code, out, stderr := runLab(t, "session-16-retry-with-dead-letter", "--no-report", "--keep-db", "--database", target)
		if code != cmdutil.ExitOK {
			t.Fatalf("%s: exit %d, stderr %q", scheme, code, stderr)
		}
		var kept []string
		for _, m := range regexp.MustCompile(`schema (outboxlab_session_16_\w+)`).FindAllStringSubmatch(out, -1) {
			kept = append(kept, m[1])
		}
		if kept == nil {
			t.Fatalf("%s: the run names no kept schema:\n%s", scheme, out)
		}
		t.Cleanup(func() { dropSchemas(t, admin, kept...) })
		if got := runSchemas(t, admin, kept[0]); len(got) != 1 {
			t.Fatalf("%s: schema %s is not on the named server (found %v)", scheme, kept[0], got)
		}
		schemaURL, err := pgdb.WithSchema(admin, kept[0], "")
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr = runLab(t, "inspect", "--db", scheme+strings.TrimPrefix(schemaURL, "postgres"), "--limit", "1")
		if code != cmdutil.ExitOK || !strings.Contains(out, "OutboxMessages") {
			t.Errorf("%s: inspect of the kept schema: exit %d, stderr %q", scheme, code, stderr)
		}
		dropSchemas(t, admin, kept...)
	}
	// Worker processes get the URL from the parent (core/child).
	code, _, stderr := runLab(t, "worker-throughput", "--processes", "--messages", "8", "--no-report",
		"--database", "PoStGrEs"+rest)
	if code != cmdutil.ExitOK && code != cmdutil.ExitChecksFailed {
		t.Errorf("worker-throughput --processes: exit %d, stderr %q", code, stderr)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the decoy at the driver's default socket got %d connections, want none", n)
	}
	requireNoSchemas(t, admin, pgdb.SchemaPrefix+"worker_throughput", "worker-throughput")
}

// requireCauseFirst checks a failed run's stderr: exit 3, one line, the
// cause first; cleanup trouble, if any, only as a clause after it.
func requireCauseFirst(t *testing.T, what string, code int, stderr, cause string) {
	t.Helper()
	line := strings.TrimSuffix(stderr, "\n")
	switch {
	case code != cmdutil.ExitCannotRun:
		t.Errorf("%s: exit %d, want %d; stderr %q", what, code, cmdutil.ExitCannotRun, stderr)
	case strings.Count(stderr, "\n") != 1:
		t.Errorf("%s: stderr is not one line: %q", what, stderr)
	case strings.HasPrefix(line, "outboxlab: cleanup") || strings.HasPrefix(line, "outboxlab: terminate sessions") ||
		strings.HasPrefix(line, "outboxlab: drop run schema"):
		t.Errorf("%s: the line starts with the cleanup, not the cause: %q", what, line)
	case !strings.Contains(line, cause):
		t.Errorf("%s: the line %q does not say %q", what, line, cause)
	case strings.Contains(line, "cleanup:") && strings.Index(line, "cleanup:") < strings.Index(line, cause):
		t.Errorf("%s: the cleanup comes before the cause: %q", what, line)
	}
}

// A run that fails on PostgreSQL says so in one line, its cause first
// (issue 24). With a 1 ms statement_timeout in the URL's options every run
// statement fails; the cleanup turns the timeout off for itself, so it drops
// what the run made. Before, stderr began with the cleanup's own failure
// ("terminate sessions: ... statement timeout", sometimes twice) and the
// real cause came second, and the run's schemas were left behind.
func TestPostgresFailureSaysItsCauseFirst(t *testing.T) {
	admin := pgtest.URL(t)
	timeout := admin + "&options=-c%20statement_timeout%3D1"
	for _, args := range [][]string{
		{"session-15-outbox-leasing"}, {"retry-with-dead-letter"},
		{"worker-throughput", "--messages", "20", "--processes"},
	} {
		code, _, stderr := runLab(t, append(args, "--no-report", "--database", timeout)...)
		// "canceling statement due to statement timeout", or on a loaded
		// machine sometimes "... due to user request": the server's timeout
		// interrupts its own backend with SIGINT, and when the statement
		// ends first the signal lands on the next one without the timeout's
		// mark. Either is SQLSTATE 57014, the run's cause.
		requireCauseFirst(t, args[0]+" with statement_timeout=1", code, stderr, "canceling statement due to")
		if strings.Contains(stderr, "cleanup:") {
			t.Errorf("%s: the cleanup failed too: %q", args[0], stderr)
		}
	}
	requireNoSchemas(t, admin, pgdb.SchemaPrefix, "runs under statement_timeout=1")
}

// The server stopped mid-run (pg_ctl stop -m immediate): one line, the
// run's failure first, the cleanup that could not reach the server after it.
func TestPostgresServerStoppedMidRunSaysItsCauseFirst(t *testing.T) {
	pgtest.URL(t) // skips, or fails under CI, where no server can be started
	srv, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	// A backlog big enough that the run is still draining when the server
	// stops, however loaded the machine (the defaults can finish first).
	cmd := labCommand(t, nil, "worker-throughput", "--no-report", "--messages", "3000", "--workers", "1,2", "--database", srv.URL)
	code, stderr := interruptWith(t, cmd, func() bool {
		return len(runSchemas(t, srv.URL, pgdb.SchemaPrefix+"worker_throughput")) > 0
	}, func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	requireCauseFirst(t, "server stopped mid-run", code, stderr, "run worker-throughput: ")
}

// interruptWith starts cmd, waits until ready, then does stop while it runs,
// and returns its exit code and stderr.
func interruptWith(t *testing.T, cmd *exec.Cmd, ready func() bool, stop func()) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); !ready(); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the run ended before it was ready: exit %d, stderr %q", exitOf(err), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatal("the run was never ready")
		}
	}
	time.Sleep(200 * time.Millisecond)
	stop()
	select {
	case err := <-done:
		return exitOf(err), stderr.String()
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the run did not end within 30 s of the server stopping; stderr %q", stderr.String())
	}
	return 0, ""
}
