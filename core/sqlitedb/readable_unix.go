//go:build unix

package sqlitedb

import "golang.org/x/sys/unix"

// readable asks the system whether this process may read path. It opens
// nothing: closing a descriptor of our own would drop every POSIX lock this
// process's other connections hold on the file.
func readable(path string) error {
	return unix.Access(path, unix.R_OK)
}
