package cli

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"outboxlab/cli/cmdutil"
	"outboxlab/workers"
)

// buildTestWorker builds one of grade's test workers into dir.
func buildTestWorker(t *testing.T, name, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-o", bin, "../grade/testdata/"+name).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, out)
	}
	return bin
}

// handIn writes a student's folder: files (name to content, or to a file
// to copy when it starts with @), and the manifest.
func handIn(t *testing.T, dir, manifest string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files[workers.ManifestFile] = manifest
	for name, text := range files {
		data := []byte(text)
		if from, ok := strings.CutPrefix(text, "@"); ok {
			var err error
			if data, err = os.ReadFile(from); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// classRows runs class and returns its exit, its output and its CSV rows by student.
func classRows(t *testing.T, args ...string) (int, string, map[string]map[string]string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "class.csv")
	var stdout, stderr bytes.Buffer
	code := Main(append(append([]string{"class"}, args...), "--csv", out), &stdout, &stderr)
	if code == cmdutil.ExitUsage || code == cmdutil.ExitCannotRun {
		t.Fatalf("class: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]string{}
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		rows[row["student"]] = row
	}
	return code, stdout.String(), rows
}

// TestClassRegrades: a class of handed-in workers, each regraded in its
// folder: a genuine pass, a worker with a bug (failed, naming the check), a
// disguised copy of the shipped Python reference (copied, naming it), a
// passing report handed in with a worker that does not pass (differs), a
// report with no worker (not regraded), and a manifest naming a program
// outside its folder (skipped, never run). Only the genuine pass passes.
func TestClassRegrades(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the copied worker is the Python reference")
	}
	bins := t.TempDir()
	ok16 := buildTestWorker(t, "ok16", bins)
	reports := t.TempDir()
	var out, errb bytes.Buffer
	if code := Main([]string{"grade", "session-16", "--variations", "1", "--report-dir", reports, "--", ok16}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("grade: exit %d\n%s", code, errb.String())
	}
	passing, _ := filepath.Glob(filepath.Join(reports, "session-16", "*.txt"))
	ref := t.TempDir()
	copyFile(t, passing[0], filepath.Join(ref, "grade.txt")) // --variations 1: the regrades take it
	dir := t.TempDir()
	buggy := "OK16_BUG=count-on-failure exec ./ok16\n"
	python, _ := filepath.Abs("../workers/reference/python/worker.py")
	disguised, _ := os.ReadFile(python)
	handIn(t, filepath.Join(dir, "alice"), `{"day": "session-16", "command": ["./ok16"]}`, map[string]string{"ok16": "@" + ok16})
	handIn(t, filepath.Join(dir, "bob", "day16"), `{"day": "day16", "command": ["sh", "run.sh"]}`,
		map[string]string{"ok16": "@" + ok16, "run.sh": buggy})
	handIn(t, filepath.Join(dir, "carol"), `{"day": "session-16", "command": ["python3", "mine.py"]}`,
		map[string]string{"mine.py": strings.NewReplacer("time_text", "as_text", "parse_time", "from_text", "# ", "# mine: ").Replace(string(disguised))})
	handIn(t, filepath.Join(dir, "dave"), `{"day": "session-16", "command": ["sh", "run.sh"]}`,
		map[string]string{"ok16": "@" + ok16, "run.sh": buggy, "grade.txt": "@" + passing[0]})
	copyFile(t, passing[0], filepath.Join(dir, "erin", "grade.txt"))
	marker := filepath.Join(t.TempDir(), "ran")
	handIn(t, filepath.Join(dir, "frank"), `{"day": "session-16", "command": ["/bin/touch", "`+marker+`"]}`, map[string]string{})

	code, printed, rows := classRows(t, dir, "--reference", ref, "--regrade")
	if code != cmdutil.ExitChecksFailed {
		t.Errorf("class: exit %d, want 1 (only alice passed)", code)
	}
	for student, want := range map[string][2]string{
		"alice": {"passed", ""},
		"bob":   {"failed", "the regrade: "},
		"carol": {"copied", "matches the shipped reference workers/reference/python (similarity "},
		"dave":  {"differs", "the report handed in differs from the regrade: body line "},
		"erin":  {"not regraded", "no worker given"},
	} {
		row := rows[student]
		if row["standing"] != want[0] || !strings.HasPrefix(row["why"], want[1]) || (row["passed"] == "true") != (want[0] == "passed") {
			t.Errorf("%s: standing %q, why %q, passed %s; want %q, %q…", student, row["standing"], row["why"], row["passed"], want[0], want[1])
		}
	}
	if !strings.Contains(rows["bob"]["why"], "the transient key Processed after K+1 attempts") {
		t.Errorf("bob's row does not name the failing check: %q", rows["bob"]["why"])
	}
	if rows["bob"]["worker"] != "bob/day16/" || rows["bob"]["worker_command"] != "(cd bob/day16 && sh run.sh)" || rows["alice"]["regrade_seed"] != "20260116" {
		t.Errorf("bob's worker %q, command %q; alice's seed %q", rows["bob"]["worker"], rows["bob"]["worker_command"], rows["alice"]["regrade_seed"])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("frank's manifest ran a program outside his folder")
	}
	if !regexp.MustCompile(`frank/outboxlab-worker.json: a worker manifest class will not run: the program\s+"/bin/touch"\s+is\s+an\s+absolute\s+path`).MatchString(printed) {
		t.Errorf("frank's manifest is not listed as skipped with why:\n%s", printed)
	}
	if !strings.Contains(printed, "Students: 1 of 6 passed") && !strings.Contains(printed, "Students: 1 of 5 passed") {
		t.Errorf("the students' count:\n%s", printed)
	}

	// Alice alone: exit 0. Without --regrade her worker is found but not run.
	good := t.TempDir()
	handIn(t, filepath.Join(good, "alice"), `{"day": "session-16", "command": ["./ok16"]}`, map[string]string{"ok16": "@" + ok16})
	if code, printed, _ := classRows(t, good, "--reference", ref, "--regrade"); code != cmdutil.ExitOK {
		t.Errorf("alice alone: exit %d, want 0\n%s", code, printed)
	}
	if code, printed, rows := classRows(t, good, "--reference", ref); code != cmdutil.ExitChecksFailed || rows["alice"]["standing"] != "not regraded" ||
		!strings.Contains(printed, "none regraded: --regrade grades them") {
		t.Errorf("without --regrade: exit %d, standing %q\n%s", code, rows["alice"]["standing"], printed)
	}
}

// TestClassRegradesAloneAfterABudget: two workers that hang inside their
// turn, regraded two at once: a wall-clock budget stops each, so each is
// regraded again alone before it stands failed (its CSV row says so).
func TestClassRegradesAloneAfterABudget(t *testing.T) {
	hang := buildTestWorker(t, "hang", t.TempDir())
	t.Setenv("HANG_PIDS", filepath.Join(t.TempDir(), "pids"))
	reports := t.TempDir()
	var out, errb bytes.Buffer
	if code := Main([]string{"grade", "session-16", "--variations", "0", "--turn-budget", "100ms", "--report-dir", reports,
		"--", hang}, &out, &errb); code != cmdutil.ExitChecksFailed {
		t.Fatalf("grade the hanging worker: exit %d, want 1\n%s", code, errb.String())
	}
	ref, _ := filepath.Glob(filepath.Join(reports, "session-16", "*.txt"))
	dir := t.TempDir()
	for _, s := range []string{"ann", "ben"} {
		handIn(t, filepath.Join(dir, s), `{"day": "session-16", "command": ["./hang"]}`, map[string]string{"hang": "@" + hang})
	}
	code, printed, rows := classRows(t, dir, "--reference", ref[0], "--regrade", "--jobs", "2")
	if code != cmdutil.ExitChecksFailed {
		t.Errorf("exit %d, want 1", code)
	}
	for _, s := range []string{"ann", "ben"} {
		if rows[s]["regraded_alone"] != "true" || rows[s]["standing"] != "failed" {
			t.Errorf("%s: regraded alone %q, standing %q; want true, failed\n%s", s, rows[s]["regraded_alone"], rows[s]["standing"], printed)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClassRegradesSandboxed: under --sandbox a worker writes only inside
// its own folder and the run's: its write into another student's folder
// fails (without --sandbox the same write lands), and it is graded as
// usual. Needs bubblewrap.
func TestClassRegradesSandboxed(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap (bwrap) is not installed")
	}
	ok16 := buildTestWorker(t, "ok16", t.TempDir())
	ref := filepath.Join(t.TempDir(), "ref.txt")
	var out, errb bytes.Buffer
	reports := t.TempDir()
	if code := Main([]string{"retry-with-dead-letter", "--report-dir", reports}, &out, &errb); code != cmdutil.ExitOK {
		t.Fatalf("reference run: exit %d", code)
	}
	found, _ := filepath.Glob(filepath.Join(reports, "session-16", "*.txt"))
	copyFile(t, found[0], ref)
	for _, sandbox := range []bool{true, false} {
		dir := t.TempDir()
		handIn(t, filepath.Join(dir, "alice"), `{"day": "session-16", "command": ["./ok16"]}`, map[string]string{"ok16": "@" + ok16})
		handIn(t, filepath.Join(dir, "mallory"), `{"day": "session-16", "command": ["sh", "run.sh"]}`, map[string]string{"ok16": "@" + ok16,
			"run.sh": "echo owned > ../alice/owned 2>/dev/null; exec ./ok16\n"})
		args := []string{dir, "--reference", ref, "--regrade", "--jobs", "1"}
		if sandbox {
			args = append(args, "--sandbox")
		}
		code, printed, rows := classRows(t, args...)
		_, err := os.Stat(filepath.Join(dir, "alice", "owned"))
		if wrote := err == nil; wrote == sandbox {
			t.Errorf("sandbox %v: the write into alice's folder landed: %v", sandbox, wrote)
		}
		if code != cmdutil.ExitOK || rows["mallory"]["standing"] != "passed" {
			t.Errorf("sandbox %v: exit %d, mallory %q\n%s", sandbox, code, rows["mallory"]["standing"], printed)
		}
	}
}
