package child

import (
	"fmt"
	"os/exec"
	"sync"

	"golang.org/x/sys/windows"

	"outboxlab/core/proctree"
)

// Windows has no parent-death signal: every child joins one Job Object of
// the lab's that kills its processes when its last handle closes. The lab
// never closes it; Windows does when the lab exits, however it ends.
var labJob struct {
	once sync.Once
	h    windows.Handle
	err  error
}

// dieWithParent has nothing to set on the command: adopt does the work.
func dieWithParent(*exec.Cmd) {}

// adopt puts a started child in the lab's job.
func adopt(cmd *exec.Cmd) error {
	labJob.once.Do(func() { labJob.h, labJob.err = proctree.KillOnCloseJob() })
	if labJob.err != nil {
		return labJob.err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("open child process %d: %w", cmd.Process.Pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(labJob.h, h); err != nil {
		return fmt.Errorf("put child process %d in the lab's job: %w", cmd.Process.Pid, err)
	}
	return nil
}

// watchParent is the job's work on Windows (adopt).
func watchParent() {}
