package child

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func init() {
	Register("test-echo", func(_ context.Context, args []string, stdout io.Writer) int {
		fmt.Fprintf(stdout, "args=%v", args)
		return 0
	})
	Register("test-exit", func(context.Context, []string, io.Writer) int { return 7 })
	Register("test-die", func(_ context.Context, args []string, _ io.Writer) int {
		// Write a marker, then die before the second write can happen.
		os.WriteFile(args[0], []byte("before"), 0o600)
		Die()
		os.WriteFile(args[0], []byte("after"), 0o600)
		return 0
	})
}

func TestMain(m *testing.M) {
	if code, ok := RunIfChild(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func TestRunReportsExitAndOutput(t *testing.T) {
	ctx := context.Background()
	exit, err := Run(ctx, "test-echo", "a", "b")
	if err != nil || exit.Code != 0 || exit.Output != "args=[a b]" || exit.Died() {
		t.Fatalf("echo child = %+v, %v; want code 0, output args=[a b]", exit, err)
	}
	exit, err = Run(ctx, "test-exit")
	if err != nil || exit.Code != 7 {
		t.Fatalf("exit child = %+v, %v; want code 7", exit, err)
	}
}

func TestDieKillsTheProcessBeforeAnythingElseRuns(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	exit, err := Run(context.Background(), "test-die", marker)
	if err != nil {
		t.Fatal(err)
	}
	if !exit.Died() || exit.Signal != "killed" {
		t.Errorf("child ended %+v, want killed by a signal", exit)
	}
	if b, _ := os.ReadFile(marker); string(b) != "before" {
		t.Errorf("marker = %q, want %q: code after Die ran", b, "before")
	}
}

func TestUnknownEntryPointCannotRun(t *testing.T) {
	if _, err := Run(context.Background(), "no-such-entry"); err == nil {
		t.Fatal("running an unregistered child succeeded")
	}
}
