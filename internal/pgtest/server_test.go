package pgtest_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/pgdb"
	"outboxlab/core/proc"
	"outboxlab/core/proctree"
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
	// A test's throwaway server skips the disk flush (unless make bench
	// asks for a durable one); commits are still real and synchronous.
	wantFsync := map[bool]string{true: "on", false: "off"}[s.Durable]
	if fsync != wantFsync || syncCommit != "on" || listen != "" {
		t.Errorf("fsync=%s synchronous_commit=%s listen_addresses=%q; want %s, on, \"\" (a real server on a socket)",
			fsync, syncCommit, listen, wantFsync)
	}
	if s.Durable != (os.Getenv(pgtest.DurableEnv) == "1") {
		t.Errorf("Durable %v with %s=%q", s.Durable, pgtest.DurableEnv, os.Getenv(pgtest.DurableEnv))
	}
	if pgtest.Shared(t) != s {
		t.Error("a second call started a second server")
	}
}

func TestRunSchemaIsDroppedAfterTheTest(t *testing.T) {
	var schema string
	t.Run("run", func(t *testing.T) {
		r := pgtest.RunSchema(t, "pgtest")
		schema = r.Schema
		if _, err := r.DB.Exec(`CREATE TABLE t (id int)`); err != nil {
			t.Fatal(err)
		}
	})
	db, err := pgdb.Open(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	db.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n)
	if schema == "" || n != 0 {
		t.Errorf("schema %q: %d left after its test ended, want 0", schema, n)
	}
}

// A test binary killed outright (a test timeout exits without cleanup too)
// leaves no server behind: its watcher stops it and removes its folder.
func TestKilledProcessLeavesNoServer(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "start-and-die" {
		s, err := pgtest.Start()
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := os.ReadFile(filepath.Join(s.Dir, "data", "postmaster.pid"))
		os.WriteFile(os.Getenv("PGTEST_OUT"), []byte(s.Dir+"\n"+string(pid)), 0o644)
		proctree.KillSelf()
	}
	pgtest.Shared(t) // skips where no PostgreSQL is installed
	out := filepath.Join(t.TempDir(), "dir")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcessLeavesNoServer$")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=start-and-die", "PGTEST_OUT="+out)
	cmd.Run() // killed
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("child wrote nothing: %v", err)
	}
	lines := strings.Split(string(raw), "\n")
	dir := lines[0]
	postmaster, _ := strconv.Atoi(strings.TrimSpace(lines[1]))
	if postmaster <= 0 {
		t.Fatalf("no postmaster pid in %q", raw)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, statErr := os.Stat(dir)
		alive := proc.Running(postmaster)
		if os.IsNotExist(statErr) && !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("10s after the kill: folder %s (%v), postmaster %d alive %v", dir, statErr, postmaster, alive)
		}
		time.Sleep(50 * time.Millisecond)
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
