package workers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadManifest: what exercise writes reads back; a manifest class must
// not run is refused, saying why.
func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ManifestFile)
	write := func(text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(string(ManifestFor("session-16")))
	m, err := ReadManifest(path)
	if err != nil || m.Day != "session-16" || strings.Join(m.Command, " ") != "go run ." {
		t.Fatalf("exercise's manifest reads %+v, %v", m, err)
	}
	write("\uFEFF{\"day\": \"day16\", \"command\": [\"./bin/worker\", \"--fast\"]}\r\n")
	if m, err := ReadManifest(path); err != nil || m.Command[0] != "./bin/worker" {
		t.Errorf("a program in the folder, with a BOM and CRLF: %+v, %v", m, err)
	}
	for text, says := range map[string]string{
		`{"day": "session-16", "command": ["/bin/sh", "-c", "x"]}`:      "is an absolute path",
		`{"day": "session-16", "command": ["../bob/worker"]}`:           "lies outside the worker's folder",
		`{"day": "session-16", "command": ["sub/../../x"]}`:             "lies outside the worker's folder",
		`{"day": "session-99", "command": ["python3", "w.py"]}`:         "which grade does not judge",
		`{"day": "session-16", "command": []}`:                          "gives no command",
		`{"day": "session-16", "command": ["python3"], "env": {"A":1}}`: "unknown field",
		`{"day": "session-16", "command": ["python3", "a\u001bb"]}`:     "control character",
		`not json`: "is not {",
	} {
		write(text)
		if _, err := ReadManifest(path); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want an error saying %q", text, err, says)
		}
	}
}
