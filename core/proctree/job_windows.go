package proctree

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// system is a tree's Job Object: the root is started suspended, put in the
// job, then resumed, so every process it ever starts is born inside the job
// (Windows puts a job's children in the job). The job kills every process
// in it when its last handle closes, so a lab that dies, even outright,
// takes the tree with it.
type system struct {
	job windows.Handle
}

// newSystem makes a job that kills its processes when closed, and has the
// root start suspended, in a console process group of its own (so the
// lab's own Ctrl-C is not the worker's).
func newSystem(cmd *exec.Cmd) (*system, error) {
	job, err := KillOnCloseJob()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
	}
	return &system{job: job}, nil
}

// started puts the suspended root in the job and lets it run.
func (s *system) started(cmd *exec.Cmd) error {
	pid := uint32(cmd.Process.Pid)
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(s.job, h); err != nil {
		return fmt.Errorf("put process %d in its job: %w", pid, err)
	}
	return resume(pid)
}

// KillOnCloseJob makes a Job Object that kills every process in it when its
// last handle closes: when the caller closes it, or when the caller's
// process ends, however it ends.
func KillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create a job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("make the job kill its processes when closed: %w", err)
	}
	return job, nil
}

// resume lets every thread of the suspended process pid run (a process
// started suspended has one: its main thread).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d of process %d: %w", te.ThreadID, pid, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	if resumed == 0 {
		return fmt.Errorf("process %d has no thread to resume", pid)
	}
	return nil
}

// killAll terminates every process in the job.
func (s *system) killAll() {
	if s.job != 0 {
		windows.TerminateJobObject(s.job, KilledCode)
	}
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION (winnt.h).
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// waitEmpty waits until the job holds no active process, or deadline.
func (s *system) waitEmpty(deadline time.Time) error {
	for s.job != 0 {
		var info basicAccounting
		err := windows.QueryInformationJobObject(s.job, windows.JobObjectBasicAccountingInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
		if err != nil {
			return fmt.Errorf("count the job's processes: %w", err)
		}
		if info.ActiveProcesses == 0 {
			return nil
		}
		s.killAll()
		if time.Now().After(deadline) {
			return fmt.Errorf("the job still has %d processes after it was terminated", info.ActiveProcesses)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// release closes the job; whatever is still in it dies.
func (s *system) release() {
	if s.job != 0 {
		windows.CloseHandle(s.job)
		s.job = 0
	}
}

// contains: no process started in a job can leave it.
func contains() bool { return true }
