package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// brokenOptions is a scenario that fails the way real code can: it writes
// into its temporary directory, then panics or errors.
type brokenOptions struct{ panics bool }

func (brokenOptions) Validate() error { return nil }

func (b brokenOptions) Run(_ context.Context, env scenarios.Env) (*report.Report, error) {
	if err := os.WriteFile(env.Database.Location().Path(), []byte("half-made"), 0o600); err != nil {
		return nil, err
	}
	if b.panics {
		var m map[string]int
		//lint:ignore SA5000 the nil-map panic is the point: the harness must survive a real one
		m["boom"]++
	}
	return nil, errors.New("database went away")
}

func TestBrokenScenarioLeavesNothingBehind(t *testing.T) {
	for _, panics := range []bool{true, false} {
		tmp, reports := t.TempDir(), t.TempDir()
		t.Setenv("TMPDIR", tmp)
		s := &scenarios.Scenario{Name: "session-99-broken", Family: "test"}
		_, err := execute(context.Background(), s, brokenOptions{panics}, commonOptions{ReportDir: reports}, "outboxlab x", &bytes.Buffer{}, func(string, *report.Report, report.Result) {})
		if code := cmdutil.ExitCode(err); code != cmdutil.ExitCannotRun {
			t.Errorf("panics=%v: exit %d, want %d (err %v)", panics, code, cmdutil.ExitCannotRun, err)
		}
		if panics && !strings.Contains(err.Error(), "internal error: assignment to entry in nil map") {
			t.Errorf("panic reported as %q", err)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("panics=%v: temporary files left behind: %v", panics, left)
		}
		if files, _ := filepath.Glob(filepath.Join(reports, "*", "*")); len(files) != 0 {
			t.Errorf("panics=%v: report files written for a run that did not happen: %v", panics, files)
		}
	}
}

// TestInterruptLeavesNothingBehind sends a real SIGINT to a long run in a
// child process: it must stop, say so in one line, exit 3, and remove its
// temporary database; no report is written.
func TestInterruptLeavesNothingBehind(t *testing.T) {
	tmp, reports := t.TempDir(), t.TempDir()
	cmd := labCommand(t, []string{"TMPDIR=" + tmp}, "worker-throughput", "--messages", "4000", "--report-dir", reports)
	code, stderr := interruptOnce(t, cmd, "made its temporary directory", func() bool {
		entries, _ := os.ReadDir(tmp)
		return len(entries) > 0
	})
	if code != cmdutil.ExitCannotRun {
		t.Fatalf("interrupted run exited %d, want %d; stderr: %s", code, cmdutil.ExitCannotRun, stderr)
	}
	if got := stderr; got != "outboxlab: worker-throughput interrupted; no report was written\n" {
		t.Errorf("stderr = %q", got)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left behind after SIGINT: %v", left)
	}
	if files, _ := filepath.Glob(filepath.Join(reports, "*", "*")); len(files) != 0 {
		t.Errorf("report written for an interrupted run: %v", files)
	}
}

// interruptOnce starts cmd, a lab run in a child process, waits (10 s at
// most) until ready says the run has got as far as what, sends it one
// SIGINT, and returns its exit code and stderr. A run that ends before it is
// interrupted fails the test.
func interruptOnce(t *testing.T, cmd *exec.Cmd, what string, ready func() bool) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("the run ended before it %s: exit %d, stderr %q", what, exitOf(err), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatalf("the run never %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	return exitOf(<-done), stderr.String()
}

func TestFilesAreCreatedWithTheirModes(t *testing.T) {
	tmp, reports := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out, errb bytes.Buffer
	if code := Main([]string{"retry-with-dead-letter", "--keep-db", "--report-dir", reports}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "outboxlab-*"))
	if len(dirs) != 1 {
		t.Fatalf("kept directories: %v", dirs)
	}
	if fi, _ := os.Stat(dirs[0]); fi.Mode().Perm() != 0o700 {
		t.Errorf("temporary directory mode %v, want 0700 (the database is private)", fi.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(reports, "session-16", "*"))
	if len(files) != 4 { // the report, its SVG, its change log and its replay page
		t.Fatalf("report files: %v", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Mode().Perm() != 0o644 {
			t.Errorf("%s mode %v, want 0644", filepath.Base(f), fi.Mode().Perm())
		}
	}
}

func TestReportDirWithParentComponentsIsResolvedAndSaid(t *testing.T) {
	base := t.TempDir()
	t.Chdir(filepath.Join(base))
	os.Mkdir("sub", 0o755)
	var out, errb bytes.Buffer
	if code := Main([]string{"retry-with-dead-letter", "--report-dir", "sub/../elsewhere"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "outboxlab: --report-dir sub/../elsewhere resolves to " + filepath.Join(base, "elsewhere") + "\n"
	if errb.String() != want {
		t.Errorf("stderr = %q, want %q", errb.String(), want)
	}
	if files, _ := filepath.Glob(filepath.Join(base, "elsewhere", "session-16", "*.txt")); len(files) != 1 {
		t.Errorf("reports under the resolved directory: %v", files)
	}
	if code := Main([]string{"retry-with-dead-letter", "--report-dir", ""}, &out, &errb); code != cmdutil.ExitUsage {
		t.Errorf("empty --report-dir: exit %d, want %d", code, cmdutil.ExitUsage)
	}
}

// TestBadInputForEveryScenario gives every registered scenario the bad input
// any of them can get: an unknown flag, a negative count, an unparsable
// duration, a report directory that is a file. Each gets one line on stderr,
// the contract's exit code, and no report.
func TestBadInputForEveryScenario(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.Name, func(t *testing.T) {
			dir := t.TempDir()
			notADir := filepath.Join(dir, "file")
			os.WriteFile(notADir, []byte("x"), 0o644)
			reports := filepath.Join(dir, "reports")
			type badCase struct {
				args []string
				code int
			}
			cases := []badCase{
				{[]string{"--no-such-flag"}, cmdutil.ExitUsage},
				{[]string{"extra-argument"}, cmdutil.ExitUsage},
				{[]string{"--report-dir", notADir}, cmdutil.ExitCannotRun},
			}
			fs := pflag.NewFlagSet(s.Name, pflag.ContinueOnError)
			s.Bind(fs)
			fs.VisitAll(func(f *pflag.Flag) {
				switch f.Value.Type() {
				case "int", "int64":
					if f.DefValue != "0" && !strings.Contains(f.Name, "seed") {
						cases = append(cases, badCase{[]string{"--" + f.Name, "-1"}, cmdutil.ExitUsage})
					}
				case "duration":
					cases = append(cases, badCase{[]string{"--" + f.Name, "soon"}, cmdutil.ExitUsage})
				}
			})
			for _, c := range cases {
				var out, errb bytes.Buffer
				args := append([]string{s.Name, "--report-dir", reports}, c.args...)
				code := Main(args, &out, &errb)
				if code != c.code {
					t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, c.code, errb.String())
				}
				lines := strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n")
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "outboxlab: ") {
					t.Errorf("%v: stderr is not one outboxlab line: %q", c.args, errb.String())
				}
				if strings.Contains(errb.String(), "goroutine ") {
					t.Errorf("%v: stack trace on stderr", c.args)
				}
			}
			if _, err := os.Stat(reports); !os.IsNotExist(err) {
				t.Errorf("bad input created the report directory")
			}
		})
	}
}

// silentOptions is a scenario that runs and records no check at all.
type silentOptions struct{}

func (silentOptions) Validate() error { return nil }

func (silentOptions) Run(context.Context, scenarios.Env) (*report.Report, error) {
	r := report.New("session-98-silent", report.After)
	r.Line("ran, judged nothing")
	r.Checks("Safety checks")
	r.Verdict("HELD", "NOTHING JUDGED")
	return r, nil
}

// A run that judged nothing has not passed: exit 1, the report written, and
// a line in it saying why.
func TestScenarioWithoutChecksFails(t *testing.T) {
	reports := t.TempDir()
	s := &scenarios.Scenario{Name: "session-98-silent", Family: "test"}
	var shown string
	out, err := execute(context.Background(), s, silentOptions{}, commonOptions{ReportDir: reports}, "outboxlab x", &bytes.Buffer{}, func(header string, rep *report.Report, _ report.Result) { shown = header + rep.Body() })
	if err != nil {
		t.Fatal(err)
	}
	if out.result.Passed {
		t.Error("a run with no checks passed")
	}
	if !strings.Contains(shown, report.NoChecks) || !strings.Contains(shown, "VERDICT: "+report.VerdictFail+" NOTHING JUDGED") {
		t.Errorf("the report does not say it judged nothing:\n%s", shown)
	}
	if out.result.ReportPath == "" {
		t.Error("no report written")
	}
}
