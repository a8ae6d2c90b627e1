package invocation

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// lab is a folder whose go.mod says module outboxlab, with a folder two deep
// below it and, beside it, a module of another name.
func lab(t *testing.T) (root, other string) {
	t.Helper()
	dir := t.TempDir()
	root, other = filepath.Join(dir, "lab"), filepath.Join(dir, "other")
	for _, d := range []string{filepath.Join(root, "cli", "deep"), filepath.Join(other, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "go.mod"), "// the lab\nmodule outboxlab // its name\n\ngo 1.26\n")
	write(t, filepath.Join(other, "go.mod"), "module example.com/day16\n")
	// A module below the lab's folder is another module, not the lab.
	write(t, filepath.Join(root, "cli", "deep", "go.mod"), "module outboxlab/deep\n")
	return root, other
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFrom(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the paths below are POSIX paths")
	}
	root, other := lab(t)
	goBuild := "/tmp/go-build3068223452/b001/exe/outboxlab"
	cached := "/root/.cache/go-build/68/687892f124893e4f5fdd32df87f272a8ca64ad9e1246822b3adda837c8dde95d-d/outboxlab"
	for _, tc := range []struct {
		name, arg0, wd, want string
	}{
		{"go run at the module root", goBuild, root, "go run ."},
		{"go run's executable cached in the build cache", cached, root, "go run ."},
		{"go run from a folder below the root", goBuild, filepath.Join(root, "cli"), "go run .."},
		{"go run from a module below the lab's", goBuild, filepath.Join(root, "cli", "deep"), "go run ."},
		{"go run in another module", cached, filepath.Join(other, "sub"), "go run ."},
		{"go run with no working directory", goBuild, "", "go run ."},
		{"a name found on the PATH", "outboxlab", root, "outboxlab"},
		{"a path typed from here", "./outboxlab", root, "./outboxlab"},
		{"an absolute path", "/usr/local/bin/outboxlab", root, "/usr/local/bin/outboxlab"},
		{"a path with a space", "/home/ana/my lab/outboxlab", root, "'/home/ana/my lab/outboxlab'"},
		{"a path with a quote", "/home/o'hara/outboxlab", root, `'/home/o'\''hara/outboxlab'`},
		{"a path with an equals sign", "bin=x/outboxlab", root, "'bin=x/outboxlab'"},
		{"a folder named exe outside go-build", "/opt/exe/outboxlab", root, "/opt/exe/outboxlab"},
		{"nothing", "", root, Name},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := From(tc.arg0, tc.wd); got != tc.want {
				t.Errorf("From(%q, %q) = %q, want %q", tc.arg0, tc.wd, got, tc.want)
			}
		})
	}
	// From a folder two below the root, relative to that folder.
	two := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(two, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := From(goBuild, two); got != "go run ../.." {
		t.Errorf("From(go-build, %s) = %q, want go run ../..", two, got)
	}
}

// A quoted word is read back by a shell as the word it quotes.
func TestQuoteSurvivesTheShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil || runtime.GOOS == "windows" {
		t.Skip("no POSIX shell")
	}
	for _, s := range []string{"plain/path", "my lab/outboxlab", "o'hara", "a\"b", "$HOME", "x;rm -rf y", "tab\there", "a=b", "*"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read Quote(%q) = %s as %q (%v)", s, Quote(s), out, err)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, other := lab(t)
	if got := ModuleRoot(filepath.Join(root, "cli")); got != root {
		t.Errorf("ModuleRoot(lab/cli) = %q, want %q", got, root)
	}
	if got := ModuleRoot(filepath.Join(other, "sub")); got != "" {
		t.Errorf("ModuleRoot(other/sub) = %q, want none: its module is example.com/day16", got)
	}
}
