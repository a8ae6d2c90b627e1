package cli

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"outboxlab/core/report"
	"outboxlab/core/sqlitedb"
)

// maxReportSize is the most compare reads of a report: the largest report
// the lab writes is well under a megabyte.
const maxReportSize = 64 << 20

// The commands that read a file the user names (compare a report, inspect a
// database) look at it before they open it, and answer alike:
//
//	exit 2, the argument is wrong: missing, a directory, a pipe, a device,
//	        a report over maxReportSize, not a report, not a lab database
//	exit 3, the machine refused: permission denied, an I/O error, a
//	        database locked by another process
//
// A named pipe or a device is never opened: opening a pipe blocks until a
// writer comes, and reading /dev/zero never ends.

// statRegular returns path's FileInfo, or the error to exit with unless
// path names a regular file. noun says what the file should be ("report").
func statRegular(noun, path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fileError(noun, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, usagef("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	return fi, nil
}

// fileError is the error to exit with when the noun at path could not be
// looked at, opened or read.
func fileError(noun, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return usagef("cannot read %s %s: %v", noun, path, err)
	}
	return cannotRun(fmt.Errorf("cannot read %s %s: %w", noun, path, err))
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "a special file"
	}
}

// readReport reads the report at path, a regular file, refusing it when it
// holds more than limit bytes: by its size before reading, and while reading,
// since a file can grow and some (in /proc) say they are empty.
func readReport(ctx context.Context, path string, limit int64) (string, error) {
	fi, err := statRegular("report", path)
	if err != nil {
		return "", err
	}
	if fi.Size() > limit {
		return "", tooLarge(path, limit)
	}
	// O_NONBLOCK: were path replaced by a pipe since the stat, the open
	// would still return at once, and the check below refuse it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fileError("report", path, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return "", fileError("report", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", usagef("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), limit)) + 512)
	_, err = buf.ReadFrom(io.LimitReader(ctxReader{ctx, f}, limit+1))
	switch {
	case ctx.Err() != nil:
		return "", cannotRun(errors.New("compare interrupted"))
	case err != nil:
		return "", fileError("report", path, err)
	case int64(buf.Len()) > limit:
		return "", tooLarge(path, limit)
	}
	// A copy through an editor or mail: BOM, CRLF, no final newline (report.Normalize).
	return report.Normalize(buf.String()), nil
}

func tooLarge(path string, limit int64) error {
	return usagef("%s is larger than %s, the most a report can be", path, byteSize(limit))
}

// byteSize says n in the largest binary unit that divides it.
func byteSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// ctxReader stops reading once ctx is done (Ctrl-C).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// openLab opens path read-only, or says why it cannot.
func openLab(ctx context.Context, path string) (*sql.DB, error) {
	if _, err := statRegular("database", path); err != nil {
		return nil, err
	}
	db, err := sqlitedb.OpenReadOnly(ctx, path)
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, sqlitedb.ErrNotSQLite):
		return nil, usagef("%s is not an outboxlab database (keep one with --keep-db)", path)
	case errors.Is(err, sqlitedb.ErrNotRegular):
		return nil, usagef("%s is not a regular file", path)
	case errors.Is(err, sqlitedb.ErrWALWithoutIndex):
		return nil, cannotRun(fmt.Errorf("cannot read %s without changing it: %w", path, sqlitedb.ErrWALWithoutIndex))
	}
	return nil, readError(ctx, path, err)
}

// readError is the error to exit with when reading path failed with err.
func readError(ctx context.Context, path string, err error) error {
	var pe *fs.PathError
	switch {
	case ctx.Err() != nil:
		return cannotRun(errors.New("inspect interrupted"))
	case sqlitedb.IsBusy(err):
		return cannotRun(fmt.Errorf("%s is locked by another process; try again when it is done", path))
	case sqlitedb.IsCorrupt(err):
		// A damaged file is bad input, as one that is not a database (docs/CONTRACT.md).
		return usagef("%s is not a sound SQLite database (it is damaged: %s)", path, sqliteReason(err))
	case errors.As(err, &pe):
		return fileError("database", path, err)
	}
	return cannotRun(fmt.Errorf("read %s: %w", path, err))
}

// sqliteReason is SQLite's words for err without its code ("database disk
// image is malformed").
func sqliteReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return strings.TrimSpace(sqliteCode.ReplaceAllString(msg, ""))
}

// sqliteCode is the result code modernc.org/sqlite ends its messages with.
var sqliteCode = regexp.MustCompile(`\s*\(\d+\)\s*$`)

// show makes text read from a file safe to print on a terminal: a control
// character (C0, DEL, C1), a byte that is not UTF-8 (0x9b starts an escape
// sequence on some terminals), a bidi control that reorders what follows and
// a line or paragraph separator are shown as Go escapes (\x1b, \n, \u202e).
func show(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r would act on a terminal instead of showing;
// IndexFunc passes utf8.RuneError for a byte that is not UTF-8.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
		r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

// cell is s as a table cell: shown safe, and cut to cellWidth columns with
// "…" unless wide.
func cell(s string, wide bool) string {
	s = show(s)
	if wide || report.Width(s) <= cellWidth {
		return s
	}
	w := 0
	for i, r := range s {
		rw := report.Width(string(r))
		if w+rw > cellWidth-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}
