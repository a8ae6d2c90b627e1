package cmdutil

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return Usagef("%s takes no arguments, got %q", cmd.Name(), args[0])
	}
	return nil
}

// ResolveReportDir cleans the report directory and, when the user's path
// climbs with "..", resolves it to an absolute path and says where reports
// will really go, rather than trusting the path blindly.
func ResolveReportDir(dir string, stderr io.Writer) (string, error) {
	if strings.TrimSpace(dir) == "" {
		return "", Usagef("--report-dir must not be empty (use --no-report to write no report)")
	}
	clean := filepath.Clean(dir)
	if !slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), "..") {
		return clean, nil
	}
	abs, err := filepath.Abs(clean)
	if err != nil {
		return "", CannotRun(fmt.Errorf("resolve --report-dir %s: %w", dir, err))
	}
	fmt.Fprintf(stderr, "outboxlab: --report-dir %s resolves to %s\n", dir, abs)
	return abs, nil
}
