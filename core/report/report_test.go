package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileName(t *testing.T) {
	tests := []struct{ name, wantFile string }{
		{"session-16-retry-with-dead-letter", "Session-16-Retry-With-Dead-Letter-RunReport-20261130-091500.txt"},
		{"jitter-wave", "Jitter-Wave-RunReport-20261130-091500.txt"},
	}
	at := time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	for _, tt := range tests {
		if got := FileName(tt.name, at); got != tt.wantFile {
			t.Errorf("FileName(%q) = %q, want %q", tt.name, got, tt.wantFile)
		}
	}
}

func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	first, err := Write(dir, "session-16-x", at, []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Write(dir, "session-16-x", at, []byte("two"))
	if err != nil {
		t.Fatal(err)
	}
	if first == second || !strings.HasSuffix(second, "-RunReport-20261130-091500-2.txt") {
		t.Fatalf("paths %s and %s, want the second suffixed -2", first, second)
	}
	if b, _ := os.ReadFile(first); string(b) != "one" {
		t.Errorf("first report now holds %q, want %q", b, "one")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the report directory, want 2 (no temporary files left)", len(entries))
	}
	if fi, _ := os.Stat(first); fi.Mode().Perm() != 0o644 {
		t.Errorf("report mode %v, want 0644", fi.Mode().Perm())
	}
}

func TestPrepareDirRefusesAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := PrepareDir(file, "session-16"); err == nil {
		t.Fatal("PrepareDir under a regular file succeeded")
	}
}

func TestSplitHeader(t *testing.T) {
	text := Header(Meta{Started: time.Unix(0, 0), Command: "outboxlab x", Database: "/tmp/db", Version: "0.1.0"}) + "body line\n"
	header, body, ok := SplitHeader(text)
	if !ok || body != "body line\n" || !strings.Contains(header, "command:  outboxlab x") {
		t.Fatalf("SplitHeader = %q, %q, %v", header, body, ok)
	}
	if _, _, ok := SplitHeader("no header\n"); ok {
		t.Error("SplitHeader accepted text without a header")
	}
}

func TestChecksAndVerdict(t *testing.T) {
	r := New("demo", After)
	r.Check("queue drained", true, "0 pending / 0 processing")
	r.Check("poison dead-lettered", false, "status Pending")
	r.Checks("Safety checks")
	r.Verdict("HELD", "BROKEN")
	body := r.Body()
	for _, want := range []string{"  PASS  queue drained → 0 pending / 0 processing", "  FAIL  poison dead-lettered → status Pending", "VERDICT: [FAIL ❌] BROKEN — failed: poison dead-lettered"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if res := r.Result(); res.Passed || res.Verdict != "[FAIL ❌] BROKEN — failed: poison dead-lettered" || len(res.Checks) != 2 {
		t.Errorf("Result = %+v, want failed with verdict BROKEN and 2 checks", res)
	}
}

// A report that recorded no checks judged nothing: it must not pass, and its
// checks section and verdict must say so.
func TestNoChecksIsNotPassed(t *testing.T) {
	r := New("demo", After)
	r.Checks("Safety checks")
	r.Verdict("HELD", "BROKEN")
	if r.Passed() {
		t.Error("Passed() = true with no checks, want false")
	}
	if res := r.Result(); res.Passed || res.Verdict != "[FAIL ❌] BROKEN" {
		t.Errorf("Result = %+v, want not passed with verdict BROKEN", res)
	}
	if body := r.Body(); !strings.Contains(body, NoChecks) {
		t.Errorf("body lacks %q:\n%s", NoChecks, body)
	}
	r.Check("queue drained", true, "0 pending")
	if !r.Passed() {
		t.Error("Passed() = false with one passing check, want true")
	}
}

func TestWideCheckAndVerdictLinesWrapAndReadBack(t *testing.T) {
	r := New("x", After)
	detail := strings.Repeat("figure 12 of 34 ", 12) + "end"
	r.Check("short", true, "ok")
	r.Check("a check whose detail is long", false, detail)
	r.Checks("Checks")
	// An explanation under the checks, indented as a continuation is, is
	// not part of the last check.
	r.Line("  WHY   the flags did it")
	r.Line(checkIndent + "and said so on a second line")
	verdict := strings.Repeat("EVERY MESSAGE ONCE ", 8) + "DONE"
	r.Verdict(verdict, verdict)
	body := r.Body()
	for _, l := range strings.Split(body, "\n") {
		if Width(l) > MaxWidth {
			t.Errorf("line of %d columns: %q", Width(l), l)
		}
	}
	if !strings.Contains(body, "\n  PASS  short → ok\n") {
		t.Errorf("a short check line changed:\n%s", body)
	}
	got := BodyChecks(body)
	if len(got) != 2 || got[1].Name != "a check whose detail is long" || got[1].Detail != detail || got[1].Passed {
		t.Errorf("checks read back: %+v", got)
	}
	if v := BodyVerdict(body); v != VerdictFail+" "+verdict+" — failed: a check whose detail is long" {
		t.Errorf("verdict read back %q", v)
	}
}
