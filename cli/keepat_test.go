package cli

import (
	"bytes"
	"os"
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var keptAt = regexp.MustCompile(`(?m)^database: (\S+)\n +\(kept; inspect it with:\)\n +outboxlab inspect --db (\S+)$`)

// --keep-db-at DIR keeps the run's SQLite database as a new file in DIR,
// printed as --keep-db prints it, and never overwrites a file already there.
func TestKeepDBAtKeepsTheFileInTheDirectory(t *testing.T) {
	dir := t.TempDir()
	// Whatever second the run starts in, the first name it would pick is taken.
	occupied := map[string][]byte{}
	now := time.Now().UTC()
	for s := -1; s <= 5; s++ {
		name := "outboxlab-session-16-retry-with-dead-letter-" + now.Add(time.Duration(s)*time.Second).Format("20060102-150405") + ".db"
		body := []byte("not yours to overwrite " + name)
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		occupied[name] = body
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"session-16-retry-with-dead-letter", "--keep-db-at", dir, "--no-report"}, &stdout, &stderr)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	m := keptAt.FindStringSubmatch(stdout.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("no kept-database lines in the output:\n%s", stdout.String())
	}
	path := m[1]
	if filepath.Dir(path) != dir || !strings.HasSuffix(path, "-2.db") || occupied[filepath.Base(path)] != nil {
		t.Errorf("kept at %s; want a new file in %s with a -2 suffix", path, dir)
	}
	for name, body := range occupied {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s was changed: %q, %v", name, got, err)
		}
	}
	// The kept file is the run's database: the poison message dead-lettered.
	code, out, errOut := inspectArgs("--db", path, "--table", "OutboxMessages", "--columns", "MessageKey,Status",
		"--where", "Status = 'DeadLettered'")
	if code != cmdutil.ExitOK || !strings.Contains(out, "  PAY-003     DeadLettered\n") || !strings.Contains(out, "(1 row where") {
		t.Errorf("inspect of the kept file: exit %d, %s\n%s", code, errOut, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(occupied)+1 {
		t.Errorf("%d files in %s, want the %d that were there and the kept one", len(entries), dir, len(occupied))
	}

	// --json: the database lines go to stderr, the file is kept all the same.
	stdout.Reset()
	stderr.Reset()
	code = Main([]string{"session-16-retry-with-dead-letter", "--keep-db-at", dir, "--no-report", "--json"}, &stdout, &stderr)
	m = keptAt.FindStringSubmatch(stderr.String())
	if code != cmdutil.ExitOK || m == nil || filepath.Dir(m[1]) != dir || !strings.HasPrefix(stdout.String(), "{") {
		t.Errorf("--json: exit %d, stderr %q", code, stderr.String())
	} else if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("--json run's kept file: %v", err)
	}
}

// A scenario that uses no database leaves nothing in DIR.
func TestKeepDBAtKeepsNothingForARunWithoutADatabase(t *testing.T) {
	dir := t.TempDir()
	out, code := runCLI(t, "poison-counter", "--keep-db-at", dir, "--no-report")
	entries, _ := os.ReadDir(dir)
	if code != cmdutil.ExitOK || len(entries) != 0 || !strings.Contains(out, "database: "+noDatabase) {
		t.Errorf("exit %d, %d files left in DIR; output:\n%s", code, len(entries), out)
	}
}

// A directory that is not there or not a directory: exit 3; no directory
// named, or --keep-db beside it: exit 2. One line each, and no run.
func TestKeepDBAtRefusesWhatItCannotUse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--keep-db-at", filepath.Join(dir, "missing")}, cmdutil.ExitCannotRun, "missing: no such directory (create it first)"},
		{[]string{"--keep-db-at", file}, cmdutil.ExitCannotRun, "a-file is not a directory"},
		{[]string{"--keep-db-at", ""}, cmdutil.ExitUsage, "--keep-db-at needs a directory"},
		{[]string{"--keep-db-at", dir, "--keep-db"}, cmdutil.ExitUsage, "give one"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"session-16-retry-with-dead-letter", "--no-report"}, tt.args...), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, %d bytes of stdout; want exit %d and one line containing %q",
				tt.args, code, stderr.String(), stdout.Len(), tt.code, tt.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in %s after refused runs, want the one that was there", len(entries), dir)
	}
}
