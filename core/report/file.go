package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"outboxlab/core/plot"
)

// The lines that delimit the run-metadata header. Everything after HeaderEnd
// is the deterministic body.
const (
	HeaderStart = "==== outboxlab run metadata (not compared) ===="
	HeaderEnd   = "==== end of run metadata ===="
)

// Meta is what varies between two runs of the same command, and the
// record of the run (nil when there is none to tell).
type Meta struct {
	Started  time.Time // wall clock
	Command  string
	Database string // one thing a line: where, then what became of it (see Labelled)
	Version  string
	Record   *Record
}

// Header renders the run-metadata header of a report file: when the run
// started, how, on what, and, with a Record, every parameter (the ones that
// differ from the defaults first), the checks, exit code and verdict, and
// the record itself as one JSON line.
func Header(m Meta) string {
	var b strings.Builder
	fmt.Fprintln(&b, HeaderStart)
	fmt.Fprintf(&b, "started:  %s\n", m.Started.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "command:  %s\n", oneLine(m.Command))
	b.WriteString(Labelled("database: ", m.Database))
	fmt.Fprintf(&b, "version:  outboxlab %s\n", oneLine(m.Version))
	if m.Record != nil {
		headerLines(&b, m.Record)
		fmt.Fprintln(&b, recordLabel+encodeRecord(m.Record))
	}
	fmt.Fprintln(&b, HeaderEnd)
	return b.String()
}

// TerminalHeader renders the header the terminal shows, short so that the
// story starts near the top: the version, the scenario and when it started
// on one line, the command, and the flags that differ from the defaults.
// The database is named once, at the end of the run (where the report path
// is too); the defaults, the outcome and the record are the report file's.
func TerminalHeader(m Meta) string {
	var b strings.Builder
	fmt.Fprintln(&b, HeaderStart)
	first := "outboxlab " + oneLine(m.Version)
	if m.Record != nil {
		first += fmt.Sprintf(" · %s (%s)", oneLine(m.Record.Scenario), m.Record.Kind)
	}
	fmt.Fprintf(&b, "%s · started %s\n", first, m.Started.UTC().Format(time.RFC3339))
	// The command stays whole on its line, however long (a long
	// --report-dir), so that it can be pasted back (see Commands).
	b.WriteString(Labelled("command:  ", oneLine(m.Command)))
	if m.Record != nil {
		flagLines(&b, m.Record)
	}
	fmt.Fprintln(&b, HeaderEnd)
	return b.String()
}

// Labelled writes text after label, its second and later lines indented
// under the first, each line ending in a newline: a long path goes on a line
// of its own (only a label and a path may be wider than MaxWidth) and the
// notes about it on the lines below. Each line is kept on its line (see oneLine).
func Labelled(label, text string) string {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			label = strings.Repeat(" ", Width(label))
		}
		b.WriteString(label + oneLine(line) + "\n")
	}
	return b.String()
}

// oneLine keeps a header field on its line: a field holding a line break or
// another control character (a hostile --report-dir, say) is quoted, so it can
// never end the header early.
func oneLine(field string) string {
	if strings.IndexFunc(field, unicode.IsControl) < 0 {
		return field
	}
	return strconv.Quote(field)
}

// SplitHeader separates a report's run-metadata header from its body.
// ok is false when the text has no complete header.
func SplitHeader(text string) (header, body string, ok bool) {
	if !strings.HasPrefix(text, HeaderStart+"\n") {
		return "", text, false
	}
	i := strings.Index(text, "\n"+HeaderEnd+"\n")
	if i < 0 {
		return "", text, false
	}
	end := i + len(HeaderEnd) + 2
	return text[:end], text[end:], true
}

// TitleCase turns session-16-retry-with-dead-letter into Session-16-Retry-With-Dead-Letter.
func TitleCase(name string) string {
	parts := strings.Split(name, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}

// FileName is the report file name for a run of name started at t.
func FileName(name string, t time.Time) string {
	return fmt.Sprintf("%s-RunReport-%s.txt", TitleCase(name), t.UTC().Format("20060102-150405"))
}

// PrepareDir creates dir/group and returns it, so that an unwritable report
// directory is found before a scenario runs rather than after.
func PrepareDir(dir, group string) (string, error) {
	full := filepath.Join(dir, group)
	if err := os.MkdirAll(full, 0o755); err != nil {
		return "", fmt.Errorf("create report directory: %w", err)
	}
	probe, err := os.CreateTemp(full, ".probe-*")
	if err != nil {
		return "", fmt.Errorf("report directory %s is not writable: %w", full, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return full, nil
}

// Write stores content as dir/FileName(name, started) without ever replacing
// an existing report: a second run in the same second gets a -2 suffix, and
// so on. The file appears whole or not at all.
func Write(dir, name string, started time.Time, content []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, ".report-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write report: %w", unwrapPath(err))
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write report: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", fmt.Errorf("write report: %w", err)
	}
	base := strings.TrimSuffix(FileName(name, started), ".txt")
	for n := 1; n < 1000; n++ {
		path := filepath.Join(dir, base+".txt")
		if n > 1 {
			path = filepath.Join(dir, fmt.Sprintf("%s-%d.txt", base, n))
		}
		// A hard link never replaces an existing file, so two runs cannot overwrite each other.
		err := link(tmp.Name(), path)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// A file system without hard links (FAT, some network mounts):
			// create the name exclusively and write it, removing a partial file.
			err = writeExclusive(path, content)
		}
		if err == nil {
			return path, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write report: %w", err)
		}
	}
	return "", fmt.Errorf("write report: too many reports named %s in %s", base, dir)
}

// link is os.Link; tests replace it to play a file system without hard links.
var link = os.Link

// writeExclusive creates path, failing if it exists, and writes content to
// it; on a failed write the partial file is removed.
func writeExclusive(path string, content []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// WriteAll writes the report and then its figures beside it. Either all of
// it lands or none of it: when a figure cannot be written, the figures
// already written and the report are removed and the error says so.
func WriteAll(dir, name string, started time.Time, content []byte, figures []plot.Figure) (path string, plots []string, err error) {
	path, err = Write(dir, name, started, content)
	if err != nil {
		return "", nil, err
	}
	plots, err = WriteFigures(path, figures)
	if err != nil {
		for _, p := range plots {
			os.Remove(p)
		}
		os.Remove(path)
		return "", nil, fmt.Errorf("%w; nothing of the report was kept", err)
	}
	return path, plots, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFigures writes each figure's SVG beside the report at reportPath, as
// <report name without .txt>-<figure name>.svg, and returns the paths.
func WriteFigures(reportPath string, figures []plot.Figure) ([]string, error) {
	base := strings.TrimSuffix(reportPath, ".txt")
	var paths []string
	for _, f := range figures {
		path := base + "-" + f.Name + ".svg"
		if err := writeExclusive(path, []byte(f.SVG)); err != nil {
			return paths, fmt.Errorf("write plot %s: %w", path, unwrapPath(err))
		}
		paths = append(paths, path)
	}
	return paths, nil
}
