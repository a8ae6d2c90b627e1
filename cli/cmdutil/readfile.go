package cmdutil

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

// MaxReportSize is the most compare reads of a report: the largest report
// the lab writes is well under a megabyte.
const MaxReportSize = 64 << 20

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
		return nil, FileError(noun, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, Usagef("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	return fi, nil
}

// FileError is the error to exit with when the noun at path could not be
// looked at, opened or read.
func FileError(noun, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return Usagef("cannot read %s %s: %v", noun, path, err)
	}
	return CannotRun(fmt.Errorf("cannot read %s %s: %w", noun, path, err))
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

// ReadReport reads the report at path, a regular file, refusing it when it
// holds more than limit bytes: by its size before reading, and while reading,
// since a file can grow and some (in /proc) say they are empty.
func ReadReport(ctx context.Context, path string, limit int64) (string, error) {
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
		return "", FileError("report", path, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return "", FileError("report", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", Usagef("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), limit)) + 512)
	_, err = buf.ReadFrom(io.LimitReader(ctxReader{ctx, f}, limit+1))
	switch {
	case ctx.Err() != nil:
		return "", CannotRun(errors.New("compare interrupted"))
	case err != nil:
		return "", FileError("report", path, err)
	case int64(buf.Len()) > limit:
		return "", tooLarge(path, limit)
	}
	// A copy through an editor or mail: BOM, CRLF, no final newline (report.Normalize).
	return report.Normalize(buf.String()), nil
}

func tooLarge(path string, limit int64) error {
	return Usagef("%s is larger than %s, the most a report can be", path, ByteSize(limit))
}

// ByteSize says n in the largest binary unit that divides it.
func ByteSize(n int64) string {
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

// OpenLab opens path read-only, or says why it cannot.
func OpenLab(ctx context.Context, path string) (*sql.DB, error) {
	if _, err := statRegular("database", path); err != nil {
		return nil, err
	}
	db, err := sqlitedb.OpenReadOnly(ctx, path)
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, sqlitedb.ErrNotSQLite):
		return nil, Usagef("%s is not an outboxlab database (keep one with --keep-db)", path)
	case errors.Is(err, sqlitedb.ErrNotRegular):
		return nil, Usagef("%s is not a regular file", path)
	case errors.Is(err, sqlitedb.ErrWALWithoutIndex):
		return nil, CannotRun(fmt.Errorf("cannot read %s without changing it: %w", path, sqlitedb.ErrWALWithoutIndex))
	}
	return nil, ReadError(ctx, path, err)
}

// ReadError is the error to exit with when reading path failed with err.
func ReadError(ctx context.Context, path string, err error) error {
	var pe *fs.PathError
	switch {
	case ctx.Err() != nil:
		return CannotRun(errors.New("inspect interrupted"))
	case sqlitedb.IsBusy(err):
		return CannotRun(fmt.Errorf("%s is locked by another process; try again when it is done", path))
	case sqlitedb.IsCorrupt(err):
		// A damaged file is bad input, as one that is not a database (docs/CONTRACT.md).
		return Usagef("%s is not a sound SQLite database (it is damaged: %s)", path, sqliteReason(err))
	case errors.As(err, &pe):
		return FileError("database", path, err)
	}
	return CannotRun(fmt.Errorf("read %s: %w", path, err))
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

// Show makes text read from a file safe to print on a terminal: a control
// character (C0, DEL, C1), a byte that is not UTF-8 (0x9b starts an escape
// sequence on some terminals), a bidi control that reorders what follows and
// a line or paragraph separator are shown as Go escapes (\x1b, \n, \u202e).
func Show(s string) string {
	if strings.IndexFunc(s, UnsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case UnsafeRune(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// UnsafeRune reports whether r would act on a terminal instead of showing;
// IndexFunc passes utf8.RuneError for a byte that is not UTF-8.
func UnsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
		r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

// Cell is s as a table cell: shown safe, and cut to cellWidth columns with
// "…" unless wide.
func Cell(s string, wide bool) string {
	s = Show(s)
	if wide || report.Width(s) <= CellWidth {
		return s
	}
	w := 0
	for i, r := range s {
		rw := report.Width(string(r))
		if w+rw > CellWidth-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// CellWidth is the widest a cell prints without --wide, in display columns.
const CellWidth = 40

// ReadDoc reads the outboxlab report at path; anything else is a usage error.
func ReadDoc(ctx context.Context, path string) (report.Doc, error) {
	raw, err := ReadReport(ctx, path, MaxReportSize)
	if err != nil {
		return report.Doc{}, err
	}
	doc, ok := report.Parse(raw)
	if !ok {
		return report.Doc{}, Usagef("%s is not an outboxlab report (no run-metadata header, no report body)", path)
	}
	return doc, nil
}
