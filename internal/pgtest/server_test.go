package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/core/pgdb"
	"outboxlab/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestSharedServerAnswers(t *testing.T) {
	s := pgtest.Shared(t)
	t.Logf("server started in %v at %s", s.Started, s.URL)
	db, err := pgdb.Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var fsync, syncCommit, listen string
	db.QueryRow(`SELECT current_setting('fsync'), current_setting('synchronous_commit'),
		current_setting('listen_addresses')`).Scan(&fsync, &syncCommit, &listen)
	if fsync != "on" || syncCommit != "on" || listen != "" {
		t.Errorf("fsync=%s synchronous_commit=%s listen_addresses=%q; want on, on, \"\" (a real server on a socket)",
			fsync, syncCommit, listen)
	}
	if pgtest.Shared(t) != s {
		t.Error("a second call started a second server")
	}
}

// A server whose test process died (a test timeout exits without cleanup)
// is stopped and removed by the next Start.
func TestStartSweepsAServerOfADeadProcess(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "start-and-exit" {
		s, err := pgtest.Start()
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(os.Getenv("PGTEST_OUT"), []byte(s.Dir), 0o644)
		os.Exit(0) // no Stop: the server stays behind
	}
	pgtest.Shared(t) // skips where no PostgreSQL is installed
	out := filepath.Join(t.TempDir(), "dir")
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartSweepsAServerOfADeadProcess$")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=start-and-exit", "PGTEST_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v: %s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	left := string(raw)
	if _, err := os.Stat(filepath.Join(left, "data", "postmaster.pid")); err != nil {
		t.Fatalf("the dead process's server is not running: %v", err)
	}
	s, err := pgtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("%s still there after the next Start (%v)", left, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("Stop left %s", s.Dir)
	}
}

// Without PostgreSQL a test skips with one line, except under CI=true, where
// it fails: CI must not go green by running none of these tests.
func TestMissingServerSkipsOrFailsUnderCI(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "missing" {
		pgtest.URL(t)
		t.Fatal("URL returned without a server")
	}
	for _, ci := range []string{"", "true"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingServerSkipsOrFailsUnderCI$", "-test.v")
		cmd.Env = append(os.Environ(), "PGTEST_CHILD=missing", pgtest.BinEnv+"=/nonexistent", "CI="+ci)
		out, err := cmd.CombinedOutput()
		text := string(out)
		skipLines := strings.Count(text, "pgtest: skipped: no PostgreSQL server found")
		switch {
		case ci == "" && (err != nil || skipLines != 1 || !strings.Contains(text, "--- SKIP")):
			t.Errorf("CI unset: %v, want one skip line:\n%s", err, text)
		case ci == "true" && (err == nil || !strings.Contains(text, "--- FAIL") ||
			!strings.Contains(text, "no PostgreSQL server found")):
			t.Errorf("CI=true: %v, want a failure saying why:\n%s", err, text)
		}
	}
}
