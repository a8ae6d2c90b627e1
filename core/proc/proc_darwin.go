package proc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// szomb is a zombie's p_stat in a kinfo_proc (sys/proc.h).
const szomb = 5

// inspect asks the kernel for the process's kinfo_proc (sysctl
// kern.proc.pid.<pid>): macOS has no /proc. A pid with no process gives an
// empty answer.
func inspect(pid int) (status, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	switch {
	case errors.Is(err, unix.ESRCH), errors.Is(err, unix.ENOENT):
		return status{}, fmt.Errorf("process %d: %w", pid, os.ErrNotExist)
	case err != nil:
		return status{}, fmt.Errorf("sysctl kern.proc.pid.%d: %w", pid, err)
	case kp.Proc.P_pid != int32(pid):
		return status{}, fmt.Errorf("process %d: %w", pid, os.ErrNotExist)
	}
	tv := kp.Proc.P_starttime
	start := uint64(tv.Sec)*1e6 + uint64(tv.Usec)
	return status{exited: kp.Proc.P_stat == szomb, start: start}, nil
}
