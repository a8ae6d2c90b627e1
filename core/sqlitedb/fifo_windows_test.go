package sqlitedb

import (
	"os"
	"testing"
)

// makeFifo stands a directory in for a named pipe, which Windows keeps
// outside the file system (\\.\pipe\): either is not a regular file.
func makeFifo(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
