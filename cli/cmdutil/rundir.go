package cmdutil

import (
	"fmt"
	"os"
	"path/filepath"

	"outboxlab/core/proc"
)

// Every run's temporary directory is named runDirPrefix + scenario + a random
// suffix, and holds an owner file naming the process that made it, so that a
// later run can remove what a killed run left behind.
const (
	runDirPrefix = "outboxlab-"
	OwnerFile    = ".outboxlab-owner"
)

// MakeRunDir creates a private temporary directory for one run of scenario
// and records this process as its owner.
func MakeRunDir(scenario string) (string, error) {
	dir, err := os.MkdirTemp("", runDirPrefix+scenario+"-")
	if err != nil {
		return "", fmt.Errorf("create temporary directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, OwnerFile), []byte(proc.Self().String()+"\n"), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("create temporary directory: %w", err)
	}
	return dir, nil
}

// KeepRunDir hands a run's directory to the user (--keep-db): without its
// owner file no later sweep removes it.
func KeepRunDir(dir string) { os.Remove(filepath.Join(dir, OwnerFile)) }

// SweepRunDirs removes the temporary directories of lab runs whose process
// is gone (killed with SIGKILL, say, so it could not clean up). A directory
// without an owner file is the user's (--keep-db) or not ours: it stays.
func SweepRunDirs() (removed []string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), runDirPrefix+"*"))
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, OwnerFile))
		if err != nil {
			continue
		}
		owner, err := proc.ParseOwner(string(raw))
		if err != nil || owner.Alive() {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}
