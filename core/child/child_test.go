package child

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"outboxlab/core/proc"
	"outboxlab/internal/pgtest"
)

func init() {
	Register("test-echo", func(_ context.Context, args []string, stdout io.Writer) int {
		fmt.Fprintf(stdout, "args=%v", args)
		return 0
	})
	Register("test-exit", func(context.Context, []string, io.Writer) int { return 7 })
	Register("test-sleep", func(context.Context, []string, io.Writer) int {
		time.Sleep(time.Minute)
		return 0
	})
	// test-parent starts a grandchild, prints its pid, and waits to be killed.
	Register("test-parent", func(ctx context.Context, _ []string, stdout io.Writer) int {
		cmd, err := Command(ctx, "test-sleep")
		if err != nil || cmd.Start() != nil {
			return 3
		}
		fmt.Fprintln(stdout, cmd.Process.Pid)
		cmd.Wait()
		return 0
	})
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
	pgtest.Main(m)
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

// TestChildDiesWithItsParent SIGKILLs a child that has a child of its own:
// the grandchild must not outlive it (on Linux, the kernel kills it).
func TestChildDiesWithItsParent(t *testing.T) {
	parent, err := Command(context.Background(), "test-parent")
	if err != nil {
		t.Fatal(err)
	}
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("parent printed %q, want the grandchild's pid", buf[:n])
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for proc.Running(pid) {
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
			t.Fatalf("grandchild %d outlived its SIGKILLed parent by 5 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestEmptyChildVariableIsAnOrdinaryRun(t *testing.T) {
	t.Setenv(EnvVar, "")
	if _, ok := RunIfChild(); ok {
		t.Error("an empty OUTBOXLAB_CHILD was taken for a child entry point")
	}
}
