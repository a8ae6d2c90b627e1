package report

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"outboxlab/core/plot"
)

// On a file system without hard links (FAT) reports are still written, and
// still never overwrite each other.
func TestWriteWithoutHardLinks(t *testing.T) {
	link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	t.Cleanup(func() { link = os.Link })
	dir := t.TempDir()
	started := time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC)
	first, err := Write(dir, "demo", started, []byte("one\n"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Write(dir, "demo", started, []byte("two\n"))
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Fatalf("both reports at %s", first)
	}
	for path, want := range map[string]string{first: "one\n", second: "two\n"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s = %q, want %q", filepath.Base(path), got, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".report-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// When a figure cannot be written (a directory in its way), nothing of the
// report is left half-landed: the report and the figures written before are
// removed, and the error names the figure.
func TestWriteAllLandsWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 1, 16, 9, 0, 0, 0, time.UTC)
	base := strings.TrimSuffix(FileName("demo", started), ".txt")
	if err := os.Mkdir(filepath.Join(dir, base+"-second.svg"), 0o755); err != nil {
		t.Fatal(err)
	}
	figs := []plot.Figure{{Name: "first", SVG: "<svg/>"}, {Name: "second", SVG: "<svg/>"}}
	_, _, err := WriteAll(dir, "demo", started, []byte("body\n"), figs)
	if err == nil || !strings.Contains(err.Error(), base+"-second.svg") || !strings.Contains(err.Error(), "nothing of the report was kept") {
		t.Fatalf("WriteAll error = %v, want one naming the figure and saying nothing was kept", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != base+"-second.svg" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	path, plots, err := WriteAll(t.TempDir(), "demo", started, []byte("body\n"), figs)
	if err != nil || len(plots) != 2 || !strings.HasSuffix(path, ".txt") {
		t.Fatalf("WriteAll = %s, %v, %v; want a report and two figures", path, plots, err)
	}
}
