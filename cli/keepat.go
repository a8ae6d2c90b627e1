package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// keepsDB reports whether the run keeps its database (--keep-db, or
// --keep-db-at, which on PostgreSQL means the same).
func (c commonOptions) keepsDB() bool { return c.KeepDB || c.KeepDBAt != "" }

// checkKeepAt checks --keep-db-at as typed: a directory named, and not
// beside --keep-db, which keeps it elsewhere.
func checkKeepAt(flags *pflag.FlagSet, c commonOptions) error {
	switch {
	case flags.Changed("keep-db-at") && c.KeepDBAt == "":
		return cmdutil.Usagef("--keep-db-at needs a directory (--keep-db keeps the database in a temporary one)")
	case c.KeepDB && c.KeepDBAt != "":
		return cmdutil.Usagef("--keep-db and --keep-db-at both say where to keep the database; give one")
	}
	return nil
}

// keepAtNote is what the last lines add for --keep-db-at on PostgreSQL: the
// directory is not used, the schema is kept as --keep-db keeps it.
func keepAtNote(c commonOptions) string {
	if c.KeepDBAt == "" || c.db.IsZero() {
		return ""
	}
	return "\n(--keep-db-at on PostgreSQL keeps the schema, as --keep-db does; " + cmdutil.Show(c.KeepDBAt) + " is not used)"
}

// reserveKeptFile creates, empty, the file a run keeps its SQLite database
// in (--keep-db-at DIR): DIR/outboxlab-<scenario>-<UTC time>.db, with -2,
// -3... when that name, or its -wal, -shm or -journal, is taken, so no
// existing file is ever overwritten. DIR must be a directory this process may
// write in; else the run cannot happen (exit 3). The path is absolute, so
// the printed inspect command works from anywhere.
func reserveKeptFile(dir, scenario string, started time.Time) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: %w", cmdutil.Show(dir), err))
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: no such directory (create it first)", cmdutil.Show(dir)))
	case err != nil:
		return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: %w", cmdutil.Show(dir), err))
	case !info.IsDir():
		return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s is not a directory", cmdutil.Show(dir)))
	}
	base := "outboxlab-" + scenario + "-" + started.UTC().Format("20060102-150405")
	for n := 1; n <= 1000; n++ {
		name := base
		if n > 1 {
			name += "-" + strconv.Itoa(n)
		}
		path := filepath.Join(abs, name+".db")
		if taken(path+"-wal") || taken(path+"-shm") || taken(path+"-journal") {
			continue
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: cannot create a file there: %w", cmdutil.Show(dir), err))
		}
		if err := f.Close(); err != nil {
			os.Remove(path)
			return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: %w", cmdutil.Show(dir), err))
		}
		return path, nil
	}
	return "", cmdutil.CannotRun(fmt.Errorf("--keep-db-at %s: every name for this run is taken", cmdutil.Show(dir)))
}

// taken reports whether anything is at path.
func taken(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// empty reports whether the file at path holds no bytes (a reserved
// --keep-db-at file the run never opened).
func empty(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Size() == 0
}
