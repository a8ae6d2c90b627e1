// Package invocation says how the user started the lab, so that every
// command the lab prints on the terminal starts the same way and runs as
// printed in the user's shell.
package invocation

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Name is the lab's name: what report bodies, help and messages write at
// the start of a command, and what a user who installed the lab types.
const Name = "outboxlab"

// Of is how the user started the lab whose os.Args[0] is arg0, seen from the
// working directory (see From).
func Of(arg0 string) string {
	wd, err := os.Getwd()
	if err != nil {
		wd = ""
	}
	return From(arg0, wd)
}

// From is how a user in the folder wd started the lab whose os.Args[0] is
// arg0, as shell text that starts a command:
//   - "go run ." when `go run` built it (arg0 is an executable the go
//     command linked into a go-build… temporary folder or cached in its build
//     cache), or "go run .." and so on from a folder below the lab's module
//     root (ModuleRoot); "go run ." when wd is not inside it;
//   - else arg0 as it was typed, quoted for the shell when it needs quoting
//     ("outboxlab" found on the PATH, "./outboxlab", "/usr/local/bin/outboxlab");
//   - Name when arg0 is empty.
func From(arg0, wd string) string {
	switch {
	case arg0 == "":
		return Name
	case builtByGoRun(arg0):
		root := ModuleRoot(wd)
		if root == "" {
			return "go run ."
		}
		abs, err := filepath.Abs(wd)
		if err != nil {
			return "go run ."
		}
		rel, err := filepath.Rel(abs, root)
		if err != nil {
			return "go run ."
		}
		return "go run " + Quote(filepath.ToSlash(rel))
	}
	return Quote(arg0)
}

// builtByGoRun reports whether path is an executable that `go run` built:
// linked into …/go-build…/b001/exe/, or (Go 1.24 on) cached in the build
// cache as …/<2 hex digits>/<64 hex digits>-d/<name>.
func builtByGoRun(path string) bool {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "exe" {
		for d := filepath.Dir(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
			if strings.HasPrefix(filepath.Base(d), "go-build") {
				return true
			}
		}
	}
	return cachedAction.MatchString(filepath.Base(dir)) && cacheShard.MatchString(filepath.Base(filepath.Dir(dir)))
}

var (
	cachedAction = regexp.MustCompile(`^[0-9a-f]{64}-d$`)
	cacheShard   = regexp.MustCompile(`^[0-9a-f]{2}$`)
)

// ModuleRoot is the folder, dir or one above it, whose go.mod says
// "module outboxlab": the lab's module root, where `go run .` builds the
// lab. It is "" when dir is in no module, or in another one.
func ModuleRoot(dir string) string {
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if raw, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			if modulePath(string(raw)) == Name {
				return d
			}
			return "" // the nearest go.mod is another module's
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// modulePath is the module path a go.mod declares, "" if none.
func modulePath(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			name, _, _ = strings.Cut(name, "//")
			return strings.Trim(strings.TrimSpace(name), `"`)
		}
	}
	return ""
}

// Quote is s as one word of a POSIX shell: as it is when it holds only the
// characters of a plain name or path (on Windows a backslash too), else in
// single quotes. An "=" is quoted: a first word holding one would be read
// as a variable's assignment.
func Quote(s string) string {
	plain := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@,", r) ||
			r == '\\' && runtime.GOOS == "windows"
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !plain(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
