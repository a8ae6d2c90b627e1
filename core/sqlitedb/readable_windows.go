package sqlitedb

import (
	"errors"
	"os"
)

// readable opens path for reading and closes it again: Windows has no
// access(2), and its file locks, unlike POSIX ones, belong to the handle
// that took them, so closing ours drops no lock of another connection.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	return f.Close()
}
