package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"outboxlab/cli/cmd/exercise"
	"outboxlab/cli/cmdutil"
	"outboxlab/workers"
)

// TestExerciseReadmeTellsTheTruth writes every Day's starter inside a copy of
// the lab's module and outside any module, and reads the README each
// wrote: it mentions go.mod and go.sum exactly when they were written, and
// the folder it says to grade from, with the `go run` target it gives there,
// resolves (go list, offline) to the folder the worker was written into.
// Inside the lab it grades with the lab's own `go run .`, from the folder
// whose go.mod is the lab's; outside, with the outboxlab command from the
// worker's folder, and it says how to get that command.
func TestExerciseReadmeTellsTheTruth(t *testing.T) {
	lab := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum"} {
		raw, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lab, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	for _, day := range workers.Days() {
		for _, tc := range []struct {
			where string
			dir   string // where exercise writes
			inLab bool   // part of the lab's module, without go.mod and go.sum
		}{
			{"inside the lab", filepath.Join(lab, "students", day), true},
			// No package path holds a space: a module of its own there.
			{"inside the lab, no package path", filepath.Join(lab, "my work", day), false},
			{"outside", filepath.Join(outside, day), false},
		} {
			t.Run(day+" "+tc.where, func(t *testing.T) {
				var out, errb bytes.Buffer
				if code := Main([]string{"exercise", day, tc.dir}, &out, &errb); code != cmdutil.ExitOK {
					t.Fatalf("exit %d: %s", code, errb.String())
				}
				raw, err := os.ReadFile(filepath.Join(tc.dir, "README.md"))
				if err != nil {
					t.Fatal(err)
				}
				readme := string(raw)
				for _, f := range []string{"go.mod", "go.sum"} {
					_, statErr := os.Stat(filepath.Join(tc.dir, f))
					written := statErr == nil
					if written == tc.inLab {
						t.Errorf("%s written: %v, part of the lab's module: %v", f, written, tc.inLab)
					}
					if says := strings.Contains(readme, f); says != written {
						t.Errorf("the README mentions %s: %v, but it was written: %v\n%s", f, says, written, readme)
					}
				}
				from, command := gradeBlock(t, readme)
				wantFrom, wantCommand := tc.dir, "outboxlab grade "+day+" -- go run ."
				if tc.inLab {
					wantFrom, wantCommand = lab, "go run . grade "+day+" -- go run ./students/"+day
				}
				if from != wantFrom || strings.Join(command, " ") != wantCommand {
					t.Errorf("the README grades from %q with %q, want from %q with %q", from, command, wantFrom, wantCommand)
				}
				if root, err := exercise.LabModuleRoot(from); tc.inLab && root != from {
					t.Errorf("the README runs the lab with go run . from %s, which is not the lab's root (%q, %v)", from, root, err)
				}
				if !tc.inLab && !strings.Contains(readme, "`go install .`") {
					t.Errorf("the README grades with outboxlab and does not say how to get it:\n%s", readme)
				}
				if !tc.inLab {
					// Without an installed outboxlab: from the lab's root, go -C the folder.
					m := regexp.MustCompile("(?m)^go run \\. grade " + day + " -- go -C (.+) run \\.$").FindStringSubmatch(readme)
					if m == nil {
						t.Fatalf("the README gives no grade command from the lab's folder:\n%s", readme)
					}
					if dir := shellWords(m[1]); len(dir) != 1 || goListDir(t, dir[0], ".") != tc.dir {
						t.Errorf("go -C %s run . builds %v, not the worker's folder %s", m[1], dir, tc.dir)
					}
				}
				if got := goListDir(t, from, command[len(command)-1]); got != tc.dir {
					t.Errorf("go run %s from %s builds %s, not the worker's folder %s", command[len(command)-1], from, got, tc.dir)
				}
			})
		}
	}
}

// gradeBlock reads the README's grading commands, a fenced block of two
// lines, `cd DIR` and the grade command, and splits them as a shell would
// (words, and single-quoted strings).
func gradeBlock(t *testing.T, readme string) (string, []string) {
	t.Helper()
	m := regexp.MustCompile("(?m)^```\ncd (.+)\n(.+ grade .+)\n```$").FindStringSubmatch(readme)
	if m == nil {
		t.Fatalf("the README has no block of `cd DIR` and a grade command:\n%s", readme)
	}
	cd := shellWords(m[1])
	if len(cd) != 1 {
		t.Fatalf("cd %s is %d words", m[1], len(cd))
	}
	return cd[0], shellWords(m[2])
}

func shellWords(line string) []string {
	var words []string
	for _, m := range regexp.MustCompile(`'([^']*)'|(\S+)`).FindAllStringSubmatch(line, -1) {
		words = append(words, m[1]+m[2])
	}
	return words
}

// goListDir is the folder of the main package that `go run pkg` run in dir
// builds, found offline.
func goListDir(t *testing.T, dir, pkg string) string {
	t.Helper()
	list := exec.Command("go", "list", "-f", "{{.Name}} {{.Dir}}", pkg)
	list.Dir = dir
	list.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=off")
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s in %s: %v\n%s", pkg, dir, err, out)
	}
	name, got, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if name != "main" {
		t.Errorf("go run %s from %s: package %s, not a command", pkg, dir, name)
	}
	return got
}
