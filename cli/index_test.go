package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// runLab runs the command line in this process.
func runLab(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// A run's report file records every parameter and the outcome in its
// header, --json records the parameters and the lab version, and the
// terminal's header shows only the flags not at their default.
func TestRunsRecordTheirParameters(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runLab(t, "retry-with-dead-letter", "--max-attempts", "5", "--batch", "10", "--report-dir", dir)
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	header, _, _ := report.SplitHeader(out)
	if !strings.Contains(header, "flags:    --max-attempts=5 (default 3)\n") || strings.Contains(header, "--batch=") {
		t.Errorf("terminal header should show --max-attempts only:\n%s", header)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "session-16", "*.txt"))
	raw, _ := os.ReadFile(files[0])
	doc, _ := report.Parse(string(raw))
	r := doc.Info.Record
	if r == nil {
		t.Fatal("the report header has no record")
	}
	got := map[string]report.Param{}
	for _, p := range r.Params {
		got[p.Name] = p
	}
	for _, name := range []string{"report-dir", "json", "no-report", "keep-db", "database", "help"} {
		if _, ok := got[name]; ok {
			t.Errorf("record holds --%s, which is not a scenario parameter", name)
		}
	}
	if p := got["max-attempts"]; p.Value != "5" || p.Default != "3" || !p.Set {
		t.Errorf("max-attempts = %+v", p)
	}
	if p := got["batch"]; p.Value != "10" || !p.Set || p.Differs() {
		t.Errorf("batch = %+v, want set to its default", p)
	}
	if p := got["poison-key"]; p.Value != "PAY-003" || p.Set {
		t.Errorf("poison-key = %+v, want the default, not set", p)
	}
	if r.ExitCode != 0 || r.Metrics["provider_calls"] != float64(10) || r.Version != cmdutil.Version {
		t.Errorf("record = %+v", r)
	}

	code, out, _ = runLab(t, "retry-with-dead-letter", "--json", "--no-report", "--poison-key", "PAY-002")
	var res report.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != cmdutil.ExitOK {
		t.Fatalf("--json: exit %d, %v", code, err)
	}
	if res.Version != cmdutil.Version || len(res.Params) != len(r.Params) {
		t.Errorf("--json version %q, %d params; want %s, %d", res.Version, len(res.Params), cmdutil.Version, len(r.Params))
	}
	for _, p := range res.Params {
		if p.Name == "poison-key" && (p.Value != "PAY-002" || !p.Set) {
			t.Errorf("--json poison-key = %+v", p)
		}
	}
}

// Every run that writes a report rebuilds the directory's index, and the
// index command rebuilds it from what is on disk.
func TestIndexIsKeptAndRebuilt(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"retry-with-dead-letter", "--report-dir", dir},
		{"retry-with-dead-letter", "--max-attempts", "5", "--report-dir", dir},
		{"session-16-poison-message-retried-forever", "--report-dir", dir},
	} {
		if code, _, stderr := runLab(t, args...); code != cmdutil.ExitOK || stderr != "" {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, report.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), `<tr class="run">`); n != 3 {
		t.Errorf("index has %d rows, want 3", n)
	}
	if !strings.Contains(string(page), "--max-attempts=5") {
		t.Error("index does not show the flag that differs")
	}
	os.Remove(filepath.Join(dir, report.IndexFile))
	os.RemoveAll(filepath.Join(dir, report.TwinDir))
	code, out, _ := runLab(t, "index", "--report-dir", dir)
	if code != cmdutil.ExitOK || !strings.HasPrefix(out, "indexed 3 reports\n") {
		t.Fatalf("index: exit %d, %q", code, out)
	}
	if twins, _ := filepath.Glob(filepath.Join(dir, report.TwinDir, "*", "*.html")); len(twins) != 3 {
		t.Errorf("index wrote %d HTML twins, want 3", len(twins))
	}
	var sum report.Summary
	raw, _ := os.ReadFile(filepath.Join(dir, report.SummaryFile))
	if err := json.Unmarshal(raw, &sum); err != nil || len(sum.Scenarios) != 2 || sum.Reports != 3 || !sum.Passed {
		t.Errorf("summary.json = %+v, %v", sum, err)
	}
	notDir := filepath.Join(dir, report.IndexFile)
	if code, _, stderr := runLab(t, "index", "--report-dir", notDir); code != cmdutil.ExitUsage || stderr != "outboxlab: "+notDir+" is not a directory\n" {
		t.Errorf("index of a file: exit %d, %q", code, stderr)
	}
	missing := filepath.Join(dir, "nope")
	if code, _, stderr := runLab(t, "index", "--report-dir", missing); code != cmdutil.ExitUsage || !strings.Contains(stderr, "no such file") {
		t.Errorf("index of a missing dir: exit %d, %q", code, stderr)
	}
}
