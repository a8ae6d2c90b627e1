package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"outboxlab/core/proc"
)

// A server whose test process and watcher are both gone is stopped and
// removed by the next Start.
func TestStartSweepsAServerOfADeadProcess(t *testing.T) {
	old, err := Start()
	if err == ErrNotInstalled && os.Getenv("CI") != "true" {
		t.Skip("pgtest: skipped: " + err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer old.Stop()
	if old.watcher != nil {
		old.watcher.Process.Kill()
		old.watcher.Wait()
		old.watcher = nil
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	owner := proc.Owner{PID: dead.Process.Pid}.String() + "\n"
	if err := os.WriteFile(filepath.Join(old.Dir, ownerFile), []byte(owner), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(old.Dir, "data", "postmaster.pid"))
	postmaster, _ := strconv.Atoi(strings.SplitN(string(raw), "\n", 2)[0])

	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if _, err := os.Stat(old.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still there after the next Start (%v)", old.Dir, err)
	}
	if postmaster <= 0 || proc.Running(postmaster) {
		t.Errorf("the dead process's postmaster %d still runs", postmaster)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("Stop left %s", s.Dir)
	}
}
