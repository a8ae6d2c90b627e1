package workers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"outboxlab/grade"
)

// ManifestFile is the file in a worker's folder that says how to run it:
// exercise writes one beside the starter, and class regrades a student's
// folder by it.
const ManifestFile = "outboxlab-worker.json"

// maxManifest is the largest manifest read: a Day and a short command.
const maxManifest = 4096

// A Manifest says which Day a worker is for and the command that runs it,
// from its own folder: {"day": "session-16", "command": ["go", "run", "."]}.
type Manifest struct {
	Day     string   `json:"day"`
	Command []string `json:"command"`
}

// ManifestFor is the manifest exercise writes beside a Day's Go starter:
// built and run in its own folder with `go run .` (Files.Manifest gives
// any starter's).
func ManifestFor(day string) []byte {
	return manifest(day, languages[LangGo].command)
}

// ReadManifest reads and checks the manifest at path. The command's
// program is a name looked up on PATH (go, python3, node) or a path inside
// the worker's folder (./worker): never an absolute path or one that leaves
// the folder, so what runs is what the folder holds or a language's tool.
func ReadManifest(path string) (Manifest, error) {
	var m Manifest
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if len(data) > maxManifest {
		return m, fmt.Errorf("%s is larger than %d bytes, the most a manifest can be", ManifestFile, maxManifest)
	}
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s is not {\"day\": \"session-16\", \"command\": [\"go\", \"run\", \".\"]}: %v", ManifestFile, err)
	}
	return m, m.check()
}

// check refuses a manifest class must not run.
func (m Manifest) check() error {
	if d := grade.Lookup(m.Day); d == nil {
		return fmt.Errorf("%s names day %q, which grade does not judge", ManifestFile, m.Day)
	}
	if len(m.Command) == 0 || m.Command[0] == "" {
		return fmt.Errorf("%s gives no command", ManifestFile)
	}
	for _, a := range m.Command {
		if len(a) > 1024 || strings.ContainsFunc(a, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			return fmt.Errorf("%s: a command word with a control character or over 1024 bytes", ManifestFile)
		}
	}
	prog := m.Command[0]
	switch {
	case filepath.IsAbs(prog) || strings.HasPrefix(prog, "/") || strings.HasPrefix(prog, `\`) || filepath.VolumeName(prog) != "":
		return fmt.Errorf("%s: the program %q is an absolute path: name a program on PATH or one in the worker's folder", ManifestFile, prog)
	case strings.ContainsAny(prog, `/\`) && escapes(prog):
		return fmt.Errorf("%s: the program %q lies outside the worker's folder", ManifestFile, prog)
	}
	return nil
}

// escapes reports whether a relative path leaves its folder.
func escapes(p string) bool {
	p = filepath.Clean(filepath.FromSlash(strings.ReplaceAll(p, `\`, "/")))
	return p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator))
}
