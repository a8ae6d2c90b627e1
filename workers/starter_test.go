package workers_test

import (
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/scenarios"
	"outboxlab/workers"
)

func TestStarterFiles(t *testing.T) {
	if got, want := workers.Days(), []string{"session-16", "poison-counter"}; !slices.Equal(got, want) {
		t.Errorf("Days() = %q, want %q", got, want)
	}
	for _, day := range []string{"session-16", "day16", "16"} {
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
		want := []string{"README.md", "go.mod", "lab.go", "main.go", "store.go", "worker.go"}
		if !slices.Equal(names, want) {
			t.Errorf("Starter(%q) has %q, want %q", day, names, want)
		}
		if todos < 5 {
			t.Errorf("Starter(%q) has %d TODO(Day 16), want the 5 of the README at least", day, todos)
		}
	}
	if _, err := workers.Starter("poison-counter"); err != nil {
		t.Errorf("Starter(poison-counter): %v", err)
	}
	if _, err := workers.Starter("session-99"); err == nil {
		t.Error("Starter(session-99) did not fail")
	}
}

// TestStarterGoModMatchesTheLab keeps the starter's driver versions those
// of the lab's own go.mod.
func TestStarterGoModMatchesTheLab(t *testing.T) {
	fsys, err := workers.Starter("session-16")
	if err != nil {
		t.Fatal(err)
	}
	starter, err := fs.ReadFile(fsys, "go.mod")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(starter), "module day16\n") {
		t.Errorf("the starter's go.mod starts %q, want module day16", strings.SplitN(string(starter), "\n", 2)[0])
	}
	req := regexp.MustCompile(`(?m)^\t(\S+ v\S+)$`)
	for _, m := range req.FindAllStringSubmatch(string(starter), -1) {
		if !strings.Contains(string(lab), "\t"+m[1]+"\n") {
			t.Errorf("the starter requires %s; the lab's go.mod does not", m[1])
		}
	}
}

// TestStarterDay16FailsWithWhatToImplement grades the starting worker: it
// talks the protocol (those checks hold) and fails Day 16's own checks,
// which name what its TODOs are.
func TestStarterDay16FailsWithWhatToImplement(t *testing.T) {
	g := gradeWorker(t, "session-16", scenarios.NewEnv(t.TempDir()), starter16)
	if g.rep.Passed() {
		t.Fatalf("the starter passed Day 16:\n%s", g.rep.Body())
	}
	failed := g.failed()
	t.Logf("failing: %q", failed)
	for _, want := range []string{
		"the poison tried exactly MaxAttempts times",
		"the poison DeadLettered with its LastError",
		"every retry waited for its NextAttemptUtc",
		"attempts counted at claim time",
	} {
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
}

// TestStarterPoisonCounterFailsWithWhatToImplement: the poison-counter
// starter counts on catch, so the lethal message is never dead-lettered.
func TestStarterPoisonCounterFailsWithWhatToImplement(t *testing.T) {
	g := gradeWorker(t, "poison-counter", scenarios.NewEnv(t.TempDir()), starterPoisonCounter)
	if g.rep.Passed() {
		t.Fatalf("the starter passed poison-counter:\n%s", g.rep.Body())
	}
	failed := g.failed()
	t.Logf("failing: %q", failed)
	for _, want := range []string{
		"the lethal message DeadLettered after exactly MaxAttempts",
		"attempts counted at claim time",
	} {
		if !slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, want) }) {
			t.Errorf("no failing check says %q; failing: %q", want, failed)
		}
	}
	for _, holds := range []string{
		"protocol: hello is the first call",
		"protocol: one call at a time",
		"protocol: no database transaction open across a lab call",
		"protocol: every timestamp written is the lab's clock",
	} {
		if slices.ContainsFunc(failed, func(c string) bool { return strings.Contains(c, holds) }) {
			t.Errorf("the starter failed %q: it must talk the protocol", holds)
		}
	}
}
