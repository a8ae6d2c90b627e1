package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"outboxlab/cli/cmdutil"
	"path/filepath"
	"strings"
)

// An output is a file class (or grade) writes on request: the flag that
// names it and its path.
type output struct {
	Flag, Path string
}

// checkOutputs refuses, before anything runs, an output that exists already
// (exit 3, as exercise does; --force replaces it), one inside the class
// folder (exit 2: a class's folder holds what students handed in), and two
// flags naming one file.
func checkOutputs(classDir string, force bool, outs ...output) error {
	seen := map[string]string{}
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		abs, err := realPath(o.Path)
		if err != nil {
			return cmdutil.CannotRun(fmt.Errorf("%s %s: %w", o.Flag, o.Path, err))
		}
		if other, ok := seen[abs]; ok {
			return cmdutil.Usagef("%s and %s name one file, %s: give each its own", other, o.Flag, o.Path)
		}
		seen[abs] = o.Flag
		if classDir != "" {
			dir, err := realPath(classDir)
			if err != nil {
				return cmdutil.CannotRun(err)
			}
			if rel, err := filepath.Rel(dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return cmdutil.Usagef("%s %s lies inside the class folder %s: class never writes there (choose a path outside it)",
					o.Flag, o.Path, classDir)
			}
		}
		if force {
			continue
		}
		if _, err := os.Lstat(o.Path); err == nil {
			return cmdutil.CannotRun(fmt.Errorf("%s %s exists already: outboxlab never overwrites a file (--force replaces it)", o.Flag, o.Path))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return cmdutil.CannotRun(fmt.Errorf("%s %s: %w", o.Flag, o.Path, err))
		}
	}
	return nil
}

// realPath is p absolute, with the symbolic links of its folder resolved
// (p itself may not exist yet).
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return abs, nil // a folder that does not exist: the write says so
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// writeOutput writes content to o's path whole or not at all. Without
// force it never replaces a file, even one made since checkOutputs looked:
// the content goes to a temporary file beside it, which is then linked to
// the path (a link fails where a file exists).
func writeOutput(o output, content []byte, force bool) error {
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", o.Path, err)
	}
	if force {
		return writeAtomic(o.Path, content)
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.Path), "."+filepath.Base(o.Path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", o.Path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Link(tmp.Name(), o.Path)
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %s exists already: outboxlab never overwrites a file (--force replaces it)", o.Flag, o.Path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", o.Path, err)
	}
	return nil
}
