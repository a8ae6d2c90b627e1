package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The ways OpenReadOnly refuses a path; match them with errors.Is.
var (
	// ErrNotRegular: the path is a directory, a named pipe, a device, ...
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotSQLite: the file is empty or is not an SQLite database.
	ErrNotSQLite = errors.New("not an SQLite database")
	// ErrWALWithoutIndex: the file's write-ahead log holds transactions, but
	// the -shm index SQLite reads it through is missing; reading the log would
	// mean creating that index beside the file.
	ErrWALWithoutIndex = errors.New("its write-ahead log (-wal) has no -shm index beside it")
)

// readOnlyPragmas hold every read-only connection to what it was opened for:
// no statement can write, and the schema's own SQL (generated columns, views)
// may call no function with side effects.
const readOnlyPragmas = "mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)&_pragma=trusted_schema(0)"

// OpenReadOnly opens the SQLite database at path for reading only: it
// creates, changes and removes nothing on disk (no -wal, -shm or journal
// appears beside the file, the file keeps its bytes), in a directory the
// caller cannot write as well as in one it can. Only a regular file is
// opened, so a named pipe or a device never blocks or floods the caller.
//
// A database in WAL mode whose -wal and -shm files are present (a writer is
// live, or one ended without checkpointing) is read through them, so every
// committed transaction is seen; one without them is read as an immutable
// file. A rollback-journal database is read under SQLite's ordinary shared
// lock. A missing or unreadable file gives the *fs.PathError of the cause.
func OpenReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	// SQLite says only "unable to open database file"; ask the system why first.
	if err := readable(path); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	walMode, err := walFormat(ctx, path)
	if err != nil {
		return nil, err
	}
	// SQLite names the -wal and -shm after the file a symbolic link points to.
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	params, err := readOnlyParams(walMode, sidecarOf(real+"-wal"), sidecarOf(real+"-shm"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db, err := sql.Open("sqlite", "file:"+EscapePath(path)+"?"+params)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(new(int)); err != nil {
		db.Close()
		if hasCode(err, sqlite3.SQLITE_NOTADB) {
			return nil, fmt.Errorf("%s: %w", path, ErrNotSQLite)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return db, nil
}

// walFormat reads bytes 18 and 19 of the file's header, its write and read
// format versions (2 means WAL). It reads through SQLite, opening the file
// immutable: a descriptor of our own, once closed, would drop every POSIX
// lock this process's other connections hold on the file.
func walFormat(ctx context.Context, path string) (bool, error) {
	probe, err := sql.Open("sqlite", "file:"+EscapePath(path)+"?mode=ro&immutable=1")
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer probe.Close()
	var header []byte
	err = probe.QueryRowContext(ctx, `SELECT substr(data, 1, 20) FROM sqlite_dbpage WHERE pgno = 1`).Scan(&header)
	switch {
	case errors.Is(err, sql.ErrNoRows), hasCode(err, sqlite3.SQLITE_NOTADB), err == nil && len(header) < 20:
		// No first page: an empty file, which SQLite would take for a new database.
		return false, fmt.Errorf("%s: %w", path, ErrNotSQLite)
	case err != nil:
		return false, fmt.Errorf("read the header of %s: %w", path, err)
	}
	return header[18] == 2 || header[19] == 2, nil
}

// sidecar is what a stat says of a -wal or -shm file.
type sidecar struct {
	exists bool
	size   int64
}

func sidecarOf(path string) sidecar {
	fi, err := os.Stat(path)
	if err != nil {
		return sidecar{}
	}
	return sidecar{exists: true, size: fi.Size()}
}

// readOnlyParams chooses how to open a database read-only from its journal
// format and the -wal and -shm files beside it.
func readOnlyParams(walMode bool, wal, shm sidecar) (string, error) {
	switch {
	case wal.exists && shm.exists:
		// Committed transactions may live in the log only. readonly_shm reads
		// the index without writing it, and never creates it.
		return readOnlyPragmas + "&readonly_shm=1", nil
	case wal.exists && wal.size > 0:
		return "", ErrWALWithoutIndex
	case walMode || wal.exists:
		// Everything committed is in the file itself. Opened any other way,
		// SQLite would create the -wal and -shm it reads a WAL database through.
		return readOnlyPragmas + "&immutable=1", nil
	default:
		// Rollback journal: readers take a shared lock and create nothing.
		return readOnlyPragmas, nil
	}
}

// IsBusy reports whether err is SQLite saying that another connection holds
// a lock it needs (SQLITE_BUSY or SQLITE_LOCKED, any extended code).
func IsBusy(err error) bool {
	return hasCode(err, sqlite3.SQLITE_BUSY) || hasCode(err, sqlite3.SQLITE_LOCKED)
}

// IsCorrupt reports whether err says the file is not a sound SQLite
// database: damaged pages or header (SQLITE_CORRUPT), or not a database at
// all (SQLITE_NOTADB). What such a file holds is bad input, not a machine
// that cannot run.
func IsCorrupt(err error) bool {
	return hasCode(err, sqlite3.SQLITE_CORRUPT) || hasCode(err, sqlite3.SQLITE_NOTADB)
}

// hasCode reports whether err is an SQLite error whose primary result code is code.
func hasCode(err error, code int) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == code
}
