package report

import (
	"strings"
	"testing"
	"time"
)

// The terminal header is short: the version, scenario and start on one
// line, the command whole on one line however long, exactly the flags that differ from the defaults. The
// file's header keeps the database lines: the long path alone after its
// label, the note about it on the next line.
func TestTerminalHeaderFitsAndShowsOnlyChangedFlags(t *testing.T) {
	path := "/tmp/" + strings.Repeat("x", 110) + "/outbox.db"
	m := Meta{Started: time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC), Command: "outboxlab demo --max-attempts 5 --report-dir /tmp/" + strings.Repeat("r", 70),
		Database: path + "\n(temporary; deleted after the run)", Version: "0.1.0", Record: demoRecord()}
	term := TerminalHeader(m)
	var flags []string
	for _, l := range strings.Split(term, "\n") {
		if strings.HasPrefix(l, "flags:") || (strings.HasPrefix(l, "          --")) {
			flags = append(flags, l)
		}
		if Width(l) > MaxWidth && l != "database: "+path && l != "command:  "+m.Command {
			t.Errorf("terminal header line wider than %d columns: %q", MaxWidth, l)
		}
	}
	if len(flags) != 1 || flags[0] != "flags:    --max-attempts=5 (default 3)" {
		t.Errorf("flag lines %q, want only --max-attempts=5", flags)
	}
	want := "database: " + path + "\n          (temporary; deleted after the run)\nversion:"
	if strings.Contains(term, "database:") || strings.Contains(term, "version:") {
		t.Errorf("the terminal header names the database or the version on lines of their own "+
			"(the run's last lines name the database):\n%s", term)
	}
	if first := "outboxlab 0.1.0 · demo (AFTER) · started 2026-01-16T09:00:00Z\n"; !strings.Contains(term, HeaderStart+"\n"+first) {
		t.Errorf("the terminal header does not start with %q:\n%s", first, term)
	}
	if n := strings.Count(term, "\n"); n != 5 {
		t.Errorf("terminal header of %d lines, want 5 (delimiters, version line, command, 1 flag):\n%s", n, term)
	}
	// A command is never broken across lines: pasted back, it runs.
	if !strings.Contains(term, "\ncommand:  "+m.Command+"\n") {
		t.Errorf("the long command line is not whole on its line:\n%s", term)
	}
	if !strings.Contains(Header(m), "command:  "+m.Command+"\n") {
		t.Errorf("the file's header does not keep the command on its line")
	}
	// The file's header writes the same database lines.
	if !strings.Contains(Header(m), want) {
		t.Errorf("file header lacks %q", want)
	}
}

func TestLabelledKeepsEachLineOnItsLine(t *testing.T) {
	got := Labelled("database: ", "a\nb\x1b[2Jc\n")
	want := "database: a\n          \"b\\x1b[2Jc\"\n          \n"
	if got != want {
		t.Errorf("Labelled = %q, want %q", got, want)
	}
}
