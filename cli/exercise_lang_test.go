package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"outboxlab/workers"
)

// TestExerciseLangPython: --lang python writes the Day's worker.py, the
// shared lab.py, the README and a manifest that runs python3 worker.py, and
// no Go module; its last line grades the worker from where exercise ran.
// An unknown language is one line and exit 2, and writes nothing; without
// --lang the starter is Go's.
func TestExerciseLangPython(t *testing.T) {
	for _, day := range workers.Days() {
		t.Run(day, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my "+day)
			var out, errb bytes.Buffer
			if code := Main([]string{"exercise", day, dir, "--lang", "python"}, &out, &errb); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{"README.md", "lab.py", workers.ManifestFile, "worker.py"}; !slices.Equal(names, want) {
				t.Errorf("wrote %q, want %q", names, want)
			}
			m, err := workers.ReadManifest(filepath.Join(dir, workers.ManifestFile))
			if err != nil || m.Day != day || strings.Join(m.Command, " ") != "python3 worker.py" {
				t.Errorf("manifest %+v, %v; want %s, python3 worker.py", m, err, day)
			}
			wantLast := "\n         outboxlab grade " + day + " -- python3 '" + filepath.Join(dir, "worker.py") + "'\n"
			if !strings.HasSuffix(out.String(), wantLast) {
				t.Errorf("exercise does not end on %q:\n%s", wantLast, out.String())
			}
			readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(readme), "outboxlab grade "+day+" -- python3 worker.py\n") ||
				strings.Contains(string(readme), "go.mod") || strings.Contains(string(readme), "{{") {
				t.Errorf("the README does not grade with python3 worker.py, or speaks of go.mod:\n%s", readme)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "day16")
	var out, errb bytes.Buffer
	code := Main([]string{"exercise", "session-16", dir, "--lang", "rust"}, &out, &errb)
	msg := strings.TrimSpace(errb.String())
	if code != ExitUsage || strings.Count(msg, "\n") > 0 || !strings.Contains(msg, `--lang "rust"`) ||
		!strings.Contains(msg, "go or python") {
		t.Errorf("--lang rust: exit %d, stderr %q; want exit %d and one line naming go or python", code, msg, ExitUsage)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("--lang rust wrote %s", dir)
	}
	out.Reset()
	errb.Reset()
	if code := Main([]string{"exercise", "session-16", dir}, &out, &errb); code != ExitOK {
		t.Fatalf("exercise without --lang: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "worker.go")); err != nil {
		t.Errorf("without --lang the starter is not Go's: %v", err)
	}
	out.Reset()
	if code := Main([]string{"exercise", "--help"}, &out, &errb); code != ExitOK ||
		!strings.Contains(out.String(), "outboxlab exercise session-16 ./day16py --lang python") ||
		!strings.Contains(out.String(), "--lang string") {
		t.Errorf("exercise --help does not show --lang with an example:\n%s", out.String())
	}
}
