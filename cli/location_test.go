package cli

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

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
		if code != ExitOK {
			t.Fatalf("%s: exit %d, stderr %q", scheme, code, stderr)
		}
		kept := regexp.MustCompile(`schema (outboxlab_session_16_\w+)`).FindStringSubmatch(out)
		if kept == nil {
			t.Fatalf("%s: the run names no kept schema:\n%s", scheme, out)
		}
		if got := runSchemas(t, admin, kept[1]); len(got) != 1 {
			t.Fatalf("%s: schema %s is not on the named server (found %v)", scheme, kept[1], got)
		}
		schemaURL, err := pgdb.WithSchema(admin, kept[1], "")
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr = runLab(t, "inspect", "--db", scheme+strings.TrimPrefix(schemaURL, "postgres"), "--limit", "1")
		if code != ExitOK || !strings.Contains(out, "OutboxMessages") {
			t.Errorf("%s: inspect of the kept schema: exit %d, stderr %q", scheme, code, stderr)
		}
		dropSchemas(t, admin, kept[1])
	}
	// Worker processes get the URL from the parent (core/child).
	code, _, stderr := runLab(t, "worker-throughput", "--processes", "--messages", "8", "--no-report",
		"--database", "PoStGrEs"+rest)
	if code != ExitOK && code != ExitChecksFailed {
		t.Errorf("worker-throughput --processes: exit %d, stderr %q", code, stderr)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the decoy at the driver's default socket got %d connections, want none", n)
	}
	requireNoSchemas(t, admin, pgdb.SchemaPrefix+"worker_throughput", "worker-throughput")
}
