//go:build unix

package sqlitedb

import (
	"syscall"
	"testing"
)

// makeFifo makes a named pipe at path: opening it to read would block.
func makeFifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
