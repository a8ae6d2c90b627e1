// Package labbin builds the lab's binary for the benchmarks that run it as
// a user would.
package labbin

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build builds the lab from labDir into dir and returns the binary's path.
func Build(ctx context.Context, labDir, dir string) (string, error) {
	bin := filepath.Join(dir, "outboxlab")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = labDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the lab: %v\n%s", err, out)
	}
	return bin, nil
}
