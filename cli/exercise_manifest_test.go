package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/workers"
)

// TestExerciseWritesTheManifest: the folder exercise writes is one class
// regrades: its manifest names the Day and `go run .` from the folder.
func TestExerciseWritesTheManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "day17")
	var out, errb bytes.Buffer
	if code := Main([]string{"exercise", "day17", dir}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("exercise: exit %d\n%s", code, errb.String())
	}
	m, err := workers.ReadManifest(filepath.Join(dir, workers.ManifestFile))
	if err != nil || m.Day != "session-17" || strings.Join(m.Command, " ") != "go run ." {
		t.Errorf("manifest %+v, %v; want session-17, go run .", m, err)
	}
	if !strings.Contains(out.String(), "wrote    "+filepath.Join(dir, workers.ManifestFile)) {
		t.Errorf("exercise does not list the manifest:\n%s", out.String())
	}
}
