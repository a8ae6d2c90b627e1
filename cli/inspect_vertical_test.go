package cli

import (
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"strings"
	"testing"
)

// A table wider than the terminal prints each row vertically, one
// `column: value` line per column, values whole and wrapped within 100
// columns; --wide prints the full row; the schema comes last.
func TestInspectPrintsWideTablesVertically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wide.db")
	errText := strings.Repeat("provider unavailable (503) ", 6) + "end"
	labDBWith(t, path, `CREATE TABLE Attempts (Id INTEGER, MessageKey TEXT, LastError TEXT, Note TEXT, Other TEXT);
		INSERT INTO Attempts VALUES (1, 'PAY-003', '`+errText+`', '`+strings.Repeat("n", 38)+`', '`+strings.Repeat("o", 38)+`'),
		(2, 'PAY-004', 'short', 'x', 'y');`)
	code, out, stderr := inspectArgs("--db", path)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	requireFits(t, "inspect", out)
	for _, want := range []string{"\nId:          1\nMessageKey:  PAY-003\nLastError:   provider unavailable (503)",
		"\n\nId:          2\nMessageKey:  PAY-004\nLastError:   short\n", "\n## Schema\n\nCREATE TABLE Attempts ("} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The long error is whole, wrapped under itself.
	var words []string
	inError := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "LastError:   provider"):
			inError = true
			words = append(words, strings.Fields(strings.TrimPrefix(l, "LastError:"))...)
		case inError && strings.HasPrefix(l, "             "):
			words = append(words, strings.Fields(l)...)
		default:
			inError = false
		}
	}
	if got := strings.Join(words, " "); got != errText {
		t.Errorf("the error reads %q, want %q", got, errText)
	}
	if strings.Contains(out, "┌") {
		t.Errorf("a table wider than 100 columns printed as a table:\n%s", out)
	}
	code, out, _ = inspectArgs("--db", path, "--wide")
	if code != cmdutil.ExitOK || !strings.Contains(out, "│ 1  │ PAY-003    │ "+errText+" │") {
		t.Errorf("--wide: exit %d; want the full row:\n%s", code, out)
	}
}
