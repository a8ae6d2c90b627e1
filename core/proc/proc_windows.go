package proc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// stillActive is what GetExitCodeProcess answers for a process that runs.
const stillActive = 259

// inspect opens the process by its pid and asks whether it has an exit code
// yet, and when it was created (in 100 ns since 1601). A pid that names no
// process cannot be opened (ERROR_INVALID_PARAMETER).
func inspect(pid int) (status, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	switch {
	case errors.Is(err, windows.ERROR_INVALID_PARAMETER):
		return status{}, fmt.Errorf("process %d: %w", pid, os.ErrNotExist)
	case err != nil:
		return status{}, fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return status{}, fmt.Errorf("exit code of process %d: %w", pid, err)
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return status{}, fmt.Errorf("times of process %d: %w", pid, err)
	}
	start := uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
	return status{exited: code != stillActive, start: start}, nil
}
