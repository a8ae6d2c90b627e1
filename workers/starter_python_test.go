package workers_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"outboxlab/grade"
	"outboxlab/scenarios"
	"outboxlab/workers"
)

// todoMark is a starter's TODO, numbered or not: TODO(Day 16) #4.
var todoMark = regexp.MustCompile(`TODO\(([^)]+)\)( #(\d+))?`)

// todoNumbers are the numbered TODOs in files (name to text) and the tags
// they carry; an unnumbered TODO is an error.
func todoNumbers(t *testing.T, files map[string]string) (nums []int, tags []string) {
	t.Helper()
	for name, text := range files {
		for _, m := range todoMark.FindAllStringSubmatch(text, -1) {
			if m[3] == "" {
				t.Errorf("%s: %q is not numbered", name, m[0])
				continue
			}
			n, _ := strconv.Atoi(m[3])
			if !slices.Contains(nums, n) {
				nums = append(nums, n)
			}
			if !slices.Contains(tags, m[1]) {
				tags = append(tags, m[1])
			}
		}
	}
	slices.Sort(nums)
	return nums, tags
}

// sources are the files of fsys whose name ends in ext, by name.
func sources(t *testing.T, fsys fs.FS, ext string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ext) {
			return err
		}
		data, err := fs.ReadFile(fsys, path)
		out[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writePython writes day's Python starter and its manifest into a folder of
// its own, as `exercise --lang python` does, and returns the folder.
func writePython(t *testing.T, day string) string {
	t.Helper()
	files, err := workers.StarterIn(day, workers.LangPython)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "my "+day)
	if err := os.CopyFS(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, workers.ManifestFile), files.Manifest(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPythonStarterFiles: each Day's Python starter is its worker.py, the
// shared lab.py and a README; both compile; worker.py has exactly the
// numbered TODOs of the Day's Go starter, with the same tag, and lab.py
// none; the manifest runs python3 worker.py from the folder.
func TestPythonStarterFiles(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	for _, day := range workers.Days() {
		t.Run(day, func(t *testing.T) {
			files, err := workers.StarterIn(day, workers.LangPython)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for name := range files.MapFS {
				names = append(names, name)
			}
			slices.Sort(names)
			if want := []string{"README.md", "lab.py", "worker.py"}; !slices.Equal(names, want) {
				t.Errorf("files %q, want %q", names, want)
			}
			goStarter, err := workers.StarterIn(day, workers.LangGo)
			if err != nil {
				t.Fatal(err)
			}
			goNums, goTags := todoNumbers(t, sources(t, goStarter, ".go"))
			py := sources(t, files, ".py")
			pyNums, pyTags := todoNumbers(t, map[string]string{"worker.py": py["worker.py"]})
			if len(goNums) == 0 || !slices.Equal(pyNums, goNums) || !slices.Equal(pyTags, goTags) {
				t.Errorf("worker.py has TODOs %v tagged %q; the Go starter %v tagged %q", pyNums, pyTags, goNums, goTags)
			}
			if strings.Contains(py["lab.py"], "TODO(") {
				t.Errorf("lab.py, which a student need not change, has a TODO")
			}
			readme, _ := fs.ReadFile(files, "README.md")
			for _, n := range goNums {
				if !strings.Contains(string(readme), "\n"+strconv.Itoa(n)+". **") {
					t.Errorf("the README does not list TODO #%d:\n%s", n, readme)
				}
			}
			dir := writePython(t, day)
			compile := exec.Command(python, "-m", "py_compile", "worker.py", "lab.py")
			compile.Dir = dir
			compile.Env = append(os.Environ(), "PYTHONPYCACHEPREFIX="+t.TempDir())
			if out, err := compile.CombinedOutput(); err != nil {
				t.Errorf("python3 -m py_compile: %v\n%s", err, out)
			}
			m, err := workers.ReadManifest(filepath.Join(dir, workers.ManifestFile))
			if err != nil || m.Day != day || !slices.Equal(m.Command, []string{"python3", "worker.py"}) {
				t.Errorf("manifest %+v, %v: want %s and python3 worker.py", m, err, day)
			}
			if got := files.GradeCommand("a b"); !slices.Equal(got, []string{"python3", filepath.Join("a b", "worker.py")}) {
				t.Errorf("GradeCommand(%q) = %q", "a b", got)
			}
		})
	}
	if _, err := workers.StarterIn("session-16", "rust"); err == nil || !strings.Contains(err.Error(), "go or python") {
		t.Errorf("StarterIn(session-16, rust): %v, want an error naming go or python", err)
	}
	if _, err := workers.StarterIn("session-99", workers.LangPython); err == nil {
		t.Error("StarterIn(session-99, python) did not fail")
	}
}

// TestPythonStarterOutsideTheLab: run outside a grade, the Python starter
// says in one line what is missing (exit 1), as the Go starter does, and
// on PostgreSQL it says that it speaks SQLite only, before any lab call.
func TestPythonStarterOutsideTheLab(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := writePython(t, "session-16")
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "worker: OUTBOXLAB_PROTOCOL is '': this worker speaks protocol 1 only"},
		{[]string{"OUTBOXLAB_PROTOCOL=1"}, "worker: OUTBOXLAB_LAB_URL is not set"},
		{[]string{"OUTBOXLAB_PROTOCOL=1", "OUTBOXLAB_LAB_URL=http://127.0.0.1:9", "OUTBOXLAB_TOKEN=x",
			"OUTBOXLAB_WORKER_ID=worker-1", "OUTBOXLAB_DATABASE=postgres://lab@/x", "OUTBOXLAB_DB_KIND=postgres"},
			"worker: OUTBOXLAB_DB_KIND is 'postgres': this Python worker speaks SQLite only"},
	} {
		cmd := exec.Command(python, "worker.py")
		cmd.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "OUTBOXLAB_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, c.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := -1
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		}
		msg := strings.TrimSpace(stderr.String())
		if code != 1 || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, c.want) {
			t.Errorf("with %q: exit %d, stderr %q; want exit 1 and one line %q…", c.env, code, msg, c.want)
		}
	}
}

// TestPythonStartersFailWithWhatToImplement grades each untouched Python
// starter as class --regrade would, by its manifest from its own folder: it
// fails every check its Go twin must fail (starterFails), talks the
// protocol, ends without a traceback, and the summary's failing checks
// name only TODOs that worker.py has, tagged as it tags them.
func TestPythonStartersFailWithWhatToImplement(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, day := range workers.Days() {
		t.Run(day, func(t *testing.T) {
			dir := writePython(t, day)
			m, err := workers.ReadManifest(filepath.Join(dir, workers.ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			o := &grade.Options{Day: grade.Lookup(m.Day), Seed: grade.DefaultSeed, Variations: grade.DefaultVariations,
				TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: m.Command, Dir: dir, Stderr: &stderr}
			if err := o.Validate(); err != nil {
				t.Fatal(err)
			}
			rep, err := o.Run(t.Context(), scenarios.NewEnv(t.TempDir()))
			if err != nil {
				t.Fatalf("grade %s -- %s in %s: %v", day, strings.Join(m.Command, " "), dir, err)
			}
			g := graded{rep: rep, stderr: stderr.String()}
			if rep.Passed() {
				t.Fatalf("the Python starter passed %s:\n%s", day, rep.Body())
			}
			failed := g.failed()
			t.Logf("failing: %q", failed)
			for _, want := range starterFails[day] {
				if !slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, want) }) {
					t.Errorf("no failing check says %q; failing: %q", want, failed)
				}
			}
			for _, holds := range []string{
				"protocol: hello is the first call",
				"protocol: one call at a time",
				"protocol: every call well-formed and authorised",
				"protocol: no database transaction open across a lab call",
				"protocol: every timestamp written is the lab's clock",
			} {
				if slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, holds) }) {
					t.Errorf("the Python starter failed %q: it must talk the protocol", holds)
				}
			}
			if strings.Contains(g.stderr, "Traceback") {
				t.Errorf("the Python starter crashed:\n%s", g.stderr)
			}
			s := o.Summary()
			if s == nil || s.First == nil || len(s.First.TODOs) == 0 {
				t.Fatalf("the summary names no TODO for the first failing check: %+v", s)
			}
			worker, err := os.ReadFile(filepath.Join(dir, "worker.py"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("first failing: %s → TODO(%s) %v", s.First.Name, s.First.TODOTag, s.First.TODOs)
			for _, f := range append([]*grade.Failing{s.First}, s.Others...) {
				for _, n := range f.TODOs {
					if mark := "TODO(" + f.TODOTag + ") #" + strconv.Itoa(n); !bytes.Contains(worker, []byte(mark)) {
						t.Errorf("%q names %s, which worker.py does not have", f.Name, mark)
					}
				}
			}
		})
	}
}
