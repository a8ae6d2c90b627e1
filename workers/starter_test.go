package workers_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/grade"
	"outboxlab/scenarios"
	"outboxlab/workers"
)

func TestStarterFiles(t *testing.T) {
	if got, want := workers.Days(), []string{"session-15", "session-16", "session-17", "session-18", "poison-counter"}; !slices.Equal(got, want) {
		t.Errorf("Days() = %q, want %q", got, want)
	}
	for _, day := range append([]string{"session-16"}, grade.Lookup("session-16").Aliases...) {
		fsys, err := workers.Starter(day)
		if err != nil {
			t.Fatalf("Starter(%q): %v", day, err)
		}
		var names []string
		todos := 0
		err = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			names = append(names, path)
			data, err := fs.ReadFile(fsys, path)
			todos += strings.Count(string(data), "TODO(Day 16)")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"README.md", "go.mod", "go.sum", "lab.go", "main.go", "store.go", "worker.go"}
		if !slices.Equal(names, want) {
			t.Errorf("Starter(%q) has %q, want %q", day, names, want)
		}
		if todos < 5 {
			t.Errorf("Starter(%q) has %d TODO(Day 16), want the 5 of the README at least", day, todos)
		}
		for _, name := range []string{"lab.go", "store.go"} {
			got, err := fs.ReadFile(fsys, name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("reference", "go", name))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("Starter(%q)'s %s is not reference/go/%s", day, name, name)
			}
		}
	}
	if _, err := workers.Starter("poison-counter"); err != nil {
		t.Errorf("Starter(poison-counter): %v", err)
	}
	if _, err := workers.Starter("session-99"); err == nil {
		t.Error("Starter(session-99) did not fail")
	}
}

// TestStarterFoldersAreTheDays: the folders of _starter (the Go starters)
// and of _starter/python are the starters grade's Days name
// (dayspec.Day.Starter), and no other: a Day is one value.
func TestStarterFoldersAreTheDays(t *testing.T) {
	var named []string
	for _, d := range grade.Days() {
		if d.Starter != "" {
			named = append(named, d.Starter)
		}
	}
	slices.Sort(named)
	for _, c := range []struct{ dir, lang string }{{"_starter", "python"}, {"_starter/python", ""}} {
		entries, err := os.ReadDir(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		var folders []string
		for _, e := range entries {
			if e.IsDir() && e.Name() != c.lang {
				folders = append(folders, e.Name())
			}
		}
		if !slices.Equal(folders, named) {
			t.Errorf("%s holds %q; grade's Days name %q", c.dir, folders, named)
		}
	}
}

// TestStarterReadmeFollowsThePlacement renders every Day's starter for a
// folder of its own and for one inside the lab's module: go.mod and go.sum
// are there exactly in the first, the README mentions them exactly when
// they are there, and its grading block goes to the folder that builds the
// worker (the worker's own, or the lab's root with the worker's path from
// there), quoted for a shell where the path needs it.
func TestStarterReadmeFollowsThePlacement(t *testing.T) {
	root := string(filepath.Separator)
	own := filepath.Join(root, "home", "ana", "my day")
	lab := filepath.Join(root, "src", "outboxlab")
	for _, day := range workers.Days() {
		files, err := workers.Starter(day)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			place  workers.Placement
			module bool   // a module of its own
			block  string // the README's grading block
		}{
			{workers.Placement{Dir: own}, true, "cd '" + own + "'\noutboxlab grade " + day + " -- go run .\n"},
			{workers.Placement{Dir: filepath.Join(lab, "w", "d16"), LabRoot: lab}, false,
				"cd " + lab + "\ngo run . grade " + day + " -- go run ./w/d16\n"},
		} {
			fsys, err := files.At(tc.place)
			if err != nil {
				t.Fatalf("%s at %+v: %v", day, tc.place, err)
			}
			raw, err := fs.ReadFile(fsys, "README.md")
			if err != nil {
				t.Fatal(err)
			}
			readme := string(raw)
			for _, f := range []string{"go.mod", "go.sum"} {
				_, err := fs.Stat(fsys, f)
				if has := err == nil; has != tc.module {
					t.Errorf("%s at %+v: %s there: %v, want %v", day, tc.place, f, has, tc.module)
				}
				if says := strings.Contains(readme, f); says != tc.module {
					t.Errorf("%s at %+v: the README mentions %s: %v, want %v", day, tc.place, f, says, tc.module)
				}
			}
			if !strings.Contains(readme, "```\n"+tc.block+"```\n") {
				t.Errorf("%s at %+v: the README has no block\n%s\n%s", day, tc.place, tc.block, readme)
			}
			if strings.Contains(readme, "{{") {
				t.Errorf("%s at %+v: the README keeps template text:\n%s", day, tc.place, readme)
			}
		}
		raw, err := fs.ReadFile(files, "README.md")
		if err != nil || !strings.Contains(string(raw), "outboxlab grade "+day+" -- go run .\n") {
			t.Errorf("%s as Starter gives it (a folder of its own): the README does not grade it with go run .: %v\n%s", day, err, raw)
		}
		if _, err := files.At(workers.Placement{Dir: own, LabRoot: lab}); err == nil {
			t.Errorf("%s: At accepted a folder outside the lab's root as inside it", day)
		}
	}
}

// TestStarterModuleMatchesTheLab keeps a starter's go.mod at the lab's
// versions and its go.sum the lab's, and builds a written starter on its own,
// outside the lab's module, without the network.
func TestStarterModuleMatchesTheLab(t *testing.T) {
	labMod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	labSum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	for _, day := range workers.Days() {
		fsys, err := workers.Starter(day)
		if err != nil {
			t.Fatal(err)
		}
		mod, err := fs.ReadFile(fsys, "go.mod")
		if err != nil {
			t.Fatal(err)
		}
		goLine := regexp.MustCompile(`(?m)^go \S+$`)
		if got, want := goLine.FindString(string(mod)), goLine.FindString(string(labMod)); got != want {
			t.Errorf("%s's go.mod says %q, the lab's %q", day, got, want)
		}
		req := regexp.MustCompile(`(?m)^\t(\S+ v\S+)( // indirect)?$`)
		for _, m := range req.FindAllStringSubmatch(string(mod), -1) {
			if !strings.Contains(string(labMod), "\t"+m[1]+"\n") && !strings.Contains(string(labMod), "\t"+m[1]+" // indirect\n") {
				t.Errorf("%s's go.mod requires %s; the lab's go.mod does not", day, m[1])
			}
		}
		sum, err := fs.ReadFile(fsys, "go.sum")
		if err != nil {
			t.Fatal(err)
		}
		if string(sum) != string(labSum) {
			t.Errorf("%s's go.sum is not the lab's: cp go.sum workers/_starter/go.sum", day)
		}
		if err := buildStarter(day, filepath.Join(t.TempDir(), "worker")); err != nil {
			t.Error(err)
		}
	}
}

// buildStarter writes day's starter into a directory of its own, outside the
// lab's module, and builds it there into out without the network, as a
// student's `go run .` would.
func buildStarter(day, out string) error {
	fsys, err := workers.Starter(day)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "starter-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.CopyFS(dir, fsys); err != nil {
		return fmt.Errorf("write the starter of %s: %w", day, err)
	}
	build := exec.Command("go", "build", "-o", out, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=off")
	if msg, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("%s written out does not build on its own: %v\n%s", day, err, msg)
	}
	return nil
}

// starterFails are, for each Day with a starter, the Day's checks its
// starter must fail: the ones that name its TODOs.
var starterFails = map[string][]string{
	"session-15": {
		"the killed worker's message taken over after its lease",
		"the stalled worker's late completion refused by the owner and token check",
		"every claim takes the lease and the token",
	},
	"session-16": {
		"the poison tried exactly MaxAttempts times",
		"the poison DeadLettered with its LastError",
		"every retry waited for its NextAttemptUtc",
		"attempts counted at claim time",
	},
	"session-17": {
		"the redrive refuses to run without an approver",
		"one AuditLog row names the approver, the reason and every entry",
		"counters kept: AttemptCount never reset",
		"a Redrives row per released entry keeps its original counters",
	},
	"session-18": {
		"never two provider calls in flight for one message",
		"every lease renewed at least RENEW_MARGIN before it ended",
		"a drained worker claims nothing more, releases what it holds",
		"a message whose worker died is taken again within one lease",
	},
	"poison-counter": {
		"the lethal message DeadLettered after exactly MaxAttempts",
		"attempts counted at claim time",
	},
}

func TestStartersFailWithWhatToImplement(t *testing.T) {
	for _, day := range workers.Days() {
		t.Run(day, func(t *testing.T) {
			fails := starterFails[day]
			if len(fails) == 0 {
				t.Fatalf("starterFails says nothing of %s: name the checks its TODOs fail", day)
			}
			g := gradeWorker(t, day, scenarios.NewEnv(t.TempDir()), starterOf[day])
			if g.rep.Passed() {
				t.Fatalf("the starter passed %s:\n%s", day, g.rep.Body())
			}
			failed := g.failed()
			t.Logf("failing: %q", failed)
			for _, want := range fails {
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
					t.Errorf("the starter failed %q: it must talk the protocol", holds)
				}
			}
			if strings.Contains(g.stderr, "panic") {
				t.Errorf("the starter panicked:\n%s", g.stderr)
			}
		})
	}
}
